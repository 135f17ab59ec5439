"""Outputs never clobber (outputs.py): `-o`, `--report`, `--log-file` and `render --out` write
through a symlink to its target and refuse a device, FIFO, socket or folder with one line, before
anything is read or contacted; "saved" is said only once the bytes are where the user asked.
"""

from __future__ import annotations

import json
import os
import socket
import stat
from pathlib import Path

import pytest

from fabricctl.deploy.plan import Plan, load_plan, save_plan
from fabricctl.deploy.record import write_record
from fabricctl.outputs import OutputError, output_target, write_output
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


def test_every_special_file_is_refused_by_what_it_is(specials: dict[str, Path]) -> None:
    for name, path in specials.items():
        before = os.lstat(path)
        with pytest.raises(OutputError) as err:
            write_output(path, "text\n")
        assert f"it is {KINDS[name.removeprefix('link to ')]}" in str(err.value), name
        assert "\n" not in str(err.value) and str(path) in str(err.value)
        after = os.lstat(path)
        assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino), f"{name} left as it was"


def test_a_symlink_is_written_through_and_kept(tmp_path: Path) -> None:
    target = tmp_path / "real" / "plan.json"
    target.parent.mkdir()
    target.write_text("old\n", encoding="utf-8")
    target.chmod(0o640)
    link = tmp_path / "plan.json"
    link.symlink_to(target)
    plan = Plan("eos-small", "0" * 64, {})
    save_plan(plan, link)
    assert link.is_symlink() and load_plan(link).fabric == "eos-small"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640, "the target keeps its permissions"
    dangling = tmp_path / "record.json"
    dangling.symlink_to(tmp_path / "real" / "new-record.json")
    write_record(dangling, {"run_id": "x"})
    assert dangling.is_symlink() and json.loads((tmp_path / "real" / "new-record.json").read_text()) == {
        "run_id": "x"
    }
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["new-record.json", "plan.json"]


def test_a_relative_target_resolves_from_the_links_folder(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "out.txt").symlink_to("../b/out.txt")
    assert output_target(tmp_path / "a" / "out.txt") == tmp_path / "b" / "out.txt"


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
    assert KINDS[kind.removeprefix("link to ")] in err and "saved" not in err
    assert not no_network and not (root / "plan.md").exists() and not (root / ".fabricctl" / "runs").exists()
    assert stat.S_ISFIFO(os.stat(specials["fifo"]).st_mode), "the FIFO is still a FIFO"


def test_render_writes_through_symlinks_and_refuses_a_fifo(
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
    assert code == 0, err
    assert (out / "leaf1.cfg").is_symlink() and "router bgp" in elsewhere.read_text(encoding="utf-8")
    (out / "leaf2.cfg").unlink()
    os.mkfifo(out / "leaf2.cfg")
    (root / "tenants" / "intern-01.yaml").unlink()  # something to render again
    code, _, err = run_cli(["render", "--root", str(root), "--out", str(out), "--force"], capsys)
    assert code == 1 and len(err.splitlines()) == 1 and "leaf2.cfg" in err and "a pipe (FIFO)" in err, err
    assert stat.S_ISFIFO(os.lstat(out / "leaf2.cfg").st_mode)
