"""Every file fabricctl writes goes through outputs.py: `-o`, `--report`, `--log-file`,
`render --out`, `ztp render`, `init`, records and locks refuse a symlink (below the fabric root
or the output named), a path that leaves it, a device, FIFO, socket or folder, with one line,
before anything is read or contacted; a file is written whole and keeps its permissions.
"""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest

from fabricctl.deploy.plan import Plan, save_plan
from fabricctl.deploy.record import write_record
from fabricctl.outputs import OutputError, write_file
from tests.conftest import EOS_SMALL, copy_fabric, run_cli


@pytest.fixture
def specials(tmp_path: Path) -> dict[str, Path]:
    """A FIFO, a socket, a folder, the null device and symlinks to each: none is a file to write."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    sock = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock))
    found = {"fifo": fifo, "socket": sock, "folder": tmp_path, "device": Path("/dev/null")}
    for name, target in list(found.items()):
        link = tmp_path / f"link-to-{name}"
        link.symlink_to(target)
        found[f"link to {name}"] = link
    return found


KINDS = {"fifo": "a pipe (FIFO)", "socket": "a socket", "folder": "a folder", "device": "a device"}


def _kind(name: str) -> str:
    return "a symlink" if name.startswith("link to") else KINDS[name]


def test_every_special_file_is_refused_by_what_it_is(specials: dict[str, Path]) -> None:
    for name, path in specials.items():
        before = os.lstat(path)
        with pytest.raises(OutputError) as err:
            write_file(path, "text\n")
        assert f"it is {_kind(name)}" in str(err.value), name
        assert "\n" not in str(err.value) and str(path) in str(err.value)
        after = os.lstat(path)
        assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino), f"{name} left as it was"


def test_a_symlink_is_refused_and_its_target_kept(tmp_path: Path) -> None:
    target = tmp_path / "real" / "plan.json"
    target.parent.mkdir()
    target.write_text("old\n", encoding="utf-8")
    link = tmp_path / "plan.json"
    link.symlink_to(target)
    with pytest.raises(OutputError, match=r"plan.json: it is a symlink \(allowed: a regular file"):
        save_plan(Plan("eos-small", "0" * 64, {}), link)
    dangling = tmp_path / "record.json"
    dangling.symlink_to(tmp_path / "real" / "new-record.json")
    with pytest.raises(OutputError, match="it is a symlink"):
        write_record(dangling, {"run_id": "x"}, tmp_path)
    assert target.read_text() == "old\n" and sorted(p.name for p in target.parent.iterdir()) == ["plan.json"]


def test_no_symlink_below_the_boundary_and_no_way_out_of_it(tmp_path: Path) -> None:
    """A folder on the way that is a symlink (however deep) or a path leaving the boundary is
    refused; the boundary itself may be reached through a symlink (the user named it)."""
    root, elsewhere = tmp_path / "fabric", tmp_path / "elsewhere"
    (root / "a").mkdir(parents=True)
    elsewhere.mkdir()
    (root / "a" / "b").symlink_to(elsewhere)
    with pytest.raises(
        OutputError, match=r"a/b is a symlink \(allowed: a folder; fabricctl follows no symlink"
    ):
        write_file(root / "a" / "b" / "c" / "x.json", "{}", within=root)
    with pytest.raises(OutputError, match="it is outside"):
        write_file(root / ".." / "x.json", "{}", within=root)
    assert list(elsewhere.iterdir()) == [] and not (tmp_path / "x.json").exists()
    (tmp_path / "link-to-fabric").symlink_to(root)
    written = write_file(
        tmp_path / "link-to-fabric" / "a" / "new" / "x.json", "{}", within=tmp_path / "link-to-fabric"
    )
    assert written.read_text() == "{}" and (root / "a" / "new" / "x.json").is_file()


def test_a_file_keeps_its_permissions_and_a_private_one_stays_private(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    path.write_text("old\n")
    path.chmod(0o640)
    write_file(path, "new\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640 and path.read_text() == "new\n"
    write_file(path, "secret\n", mode=0o600)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    with pytest.raises(FileExistsError):
        write_file(path, "x", exclusive=True)
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"], "no temporary file is left"


@pytest.mark.parametrize(
    "argv",
    [
        ["plan", "--lab", "-o", "{special}"],
        ["plan", "--lab", "-o", "plan.md", "-o", "{special}"],
        ["plan", "--lab", "--log-file", "{special}"],
        ["apply", "--lab", "--auto-approve", "--report", "{special}"],
        ["drift", "--lab", "--log-file", "{special}"],
    ],
)
@pytest.mark.parametrize("kind", ["fifo", "link to fifo", "device", "link to device"])
def test_the_cli_refuses_before_anything_is_read_or_written(
    argv: list[str],
    kind: str,
    specials: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    no_network: list[object],
) -> None:
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    monkeypatch.chdir(root)
    args = [a.replace("{special}", str(specials[kind])) for a in argv] + ["--root", str(root)]
    code, out, err = run_cli(args, capsys)
    assert code == 1 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("error: cannot write "), err
    assert _kind(kind) in err and "saved" not in err
    assert not no_network and not (root / "plan.md").exists() and not (root / ".fabricctl" / "runs").exists()
    assert stat.S_ISFIFO(os.stat(specials["fifo"]).st_mode), "the FIFO is still a FIFO"


def test_render_refuses_a_symlink_planted_in_its_folder_and_a_fifo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    out = tmp_path / "out"
    out.mkdir()
    elsewhere = tmp_path / "kept" / "leaf1.cfg"
    elsewhere.parent.mkdir()
    elsewhere.write_text("old\n", encoding="utf-8")
    (out / "leaf1.cfg").symlink_to(elsewhere)
    code, _, err = run_cli(["render", "--root", str(root), "--out", str(out)], capsys)
    assert code == 1 and len(err.splitlines()) == 1 and "leaf1.cfg: it is a symlink" in err, err
    assert elsewhere.read_text(encoding="utf-8") == "old\n"
    (out / "leaf1.cfg").unlink()
    code, _, err = run_cli(["render", "--root", str(root), "--out", str(out)], capsys)
    assert code == 0, err
    (out / "leaf2.cfg").unlink()
    os.mkfifo(out / "leaf2.cfg")
    (root / "tenants" / "intern-01.yaml").unlink()  # something to render again
    code, _, err = run_cli(["render", "--root", str(root), "--out", str(out), "--force"], capsys)
    assert code == 1 and len(err.splitlines()) == 1 and "leaf2.cfg" in err and "a pipe (FIFO)" in err, err
    assert stat.S_ISFIFO(os.lstat(out / "leaf2.cfg").st_mode)


def test_ztp_render_refuses_a_symlink_planted_in_its_output_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.day0.helpers import day0_pod

    monkeypatch.setenv("FABRICCTL_USERNAME", "admin")
    monkeypatch.setenv("FABRICCTL_PASSWORD", "day0-secret-pw")
    root = day0_pod(tmp_path / "pod", racks=(("r01", "spine-rack-template.yaml"),))
    out = tmp_path / "tftp"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep\n")
    (out / "kea-dhcp4.json").symlink_to(victim)
    code, _, err = run_cli(["ztp", "render", "--root", str(root), "--out", str(out)], capsys)
    assert code == 1 and "kea-dhcp4.json: it is a symlink" in err and "Traceback" not in err, err
    assert victim.read_text() == "keep\n"
    (out / "kea-dhcp4.json").unlink()
    code, _, err = run_cli(["ztp", "render", "--root", str(root), "--out", str(out)], capsys)
    assert code == 0, err
    assert {stat.S_IMODE(p.stat().st_mode) for p in out.iterdir()} == {0o600}


def test_init_refuses_a_symlinked_inventory_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dest, elsewhere = tmp_path / "repo", tmp_path / "elsewhere"
    dest.mkdir()
    elsewhere.mkdir()
    (dest / "inventory").symlink_to(elsewhere)
    code, _, err = run_cli(["init", str(dest), "--install", "fabricctl==0.1.0"], capsys)
    assert code == 1 and "Traceback" not in err and "inventory" in err, err
    assert list(elsewhere.iterdir()) == []


def test_apply_refuses_a_symlinked_state_folder_before_contacting_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_network: list[object]
) -> None:
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / ".fabricctl").symlink_to(elsewhere)
    code, out, err = run_cli(["apply", "--lab", "--auto-approve", "--root", str(root)], capsys)
    assert code == 1 and out == "" and ".fabricctl is a symlink" in err, err
    assert not no_network and list(elsewhere.iterdir()) == []
