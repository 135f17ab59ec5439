"""`fabricctl ztp render`: a Kea configuration that Kea itself accepts, and per switch the files its
NOS's auto-configuration fetches, holding the day-0 config only (no tenant)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import EOS_SMALL, run_cli
from tests.day0.helpers import day0_pod

KEA = shutil.which("kea-dhcp4") or "/usr/sbin/kea-dhcp4"


def render(root: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    code, _out, err = run_cli(["ztp", "render", "--root", str(root), "--lab"], capsys)
    assert code == 0, err
    return root / ".fabricctl" / "ztp"


@pytest.mark.skipif(not Path(KEA).exists(), reason="kea-dhcp4 is not installed (Debian: kea-dhcp4-server)")
@pytest.mark.parametrize("platform", ["eos", "comware", "nvue"])
def test_kea_accepts_the_configuration(
    tmp_path: Path, platform: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = render(day0_pod(tmp_path / "pod", platform), capsys)
    checked = subprocess.run(
        [KEA, "-t", str(folder / "kea-dhcp4.json")], capture_output=True, text=True, check=False
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # Kea says it read what was written: the subnet, and a bad option is refused by the same check.
    assert "192.0.2.0/24" in checked.stdout
    data = json.loads((folder / "kea-dhcp4.json").read_text(encoding="utf-8"))
    data["Dhcp4"]["subnet4"][0]["reservations"][0]["option-data"].append(
        {"name": "boot-file-nam", "data": "x"}
    )
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(data), encoding="utf-8")
    refused = subprocess.run([KEA, "-t", str(broken)], capture_output=True, text=True, check=False)
    assert refused.returncode != 0


def test_reservations_carry_each_vendors_boot_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    eos = json.loads((render(day0_pod(tmp_path / "e"), capsys) / "kea-dhcp4.json").read_text())["Dhcp4"]
    cw = json.loads((render(day0_pod(tmp_path / "c", "comware"), capsys) / "kea-dhcp4.json").read_text())[
        "Dhcp4"
    ]
    assert eos["host-reservation-identifiers"] == ["hw-address"]
    assert "pools" not in eos["subnet4"][0]  # an unknown MAC gets no address, so no boot file
    for dhcp in (eos, cw):  # boot options live in the reservations only: no class, subnet or global one
        assert "option-data" not in dhcp and "client-classes" not in dhcp
        assert [o["name"] for o in dhcp["subnet4"][0]["option-data"]] == ["routers"]
    leaf5 = next(r for r in eos["subnet4"][0]["reservations"] if r["hostname"] == "leaf5")
    assert leaf5["hw-address"] == "02:1c:73:02:02:00" and leaf5["ip-address"] == "192.0.2.106"
    assert leaf5["option-data"] == [
        {"name": "boot-file-name", "data": "http://192.0.2.5:8080/leaf5/leaf5.ztp"}
    ]
    leaf5 = next(r for r in cw["subnet4"][0]["reservations"] if r["hostname"] == "leaf5")
    assert leaf5["option-data"] == [
        {"name": "boot-file-name", "data": "http://192.0.2.5:8080/leaf5/leaf5.cfg"},
        {"name": "tftp-server-name", "data": "192.0.2.5"},
    ]
    assert len(eos["subnet4"][0]["reservations"]) == 10


@pytest.mark.parametrize(("platform", "boot"), [("eos", "leaf5.startup-config"), ("comware", "leaf5.cfg")])
def test_day0_files_hold_no_tenant(
    tmp_path: Path, platform: str, boot: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = day0_pod(tmp_path / "pod", platform)
    shutil.copytree(EOS_SMALL / "tenants", root / "tenants")  # tenants on r01's servers
    code, _out, _ = run_cli(["render", "--root", str(root), "--out", str(tmp_path / "full")], capsys)
    assert code == 0
    folder = render(root, capsys)
    day0 = (folder / boot).read_text(encoding="utf-8")
    full = (tmp_path / "full" / "leaf1.cfg").read_text(encoding="utf-8")
    assert "team-llm" in full and "team-llm" not in (folder / boot.replace("leaf5", "leaf1")).read_text()
    assert "192.0.2.106" in day0 and ("hostname leaf5" in day0 or "sysname leaf5" in day0)
    assert "router bgp" in day0 or "\nbgp " in day0
    modes = {p.name: p.stat().st_mode & 0o777 for p in folder.iterdir()}
    assert set(modes.values()) == {0o600}, modes  # the files hold the login
    manifest = json.loads((folder / "ztp.json").read_text(encoding="utf-8"))
    assert "password" not in json.dumps(manifest).lower()


def test_render_without_ztp_settings_says_what_to_add(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = day0_pod(tmp_path / "pod")
    fabric = root / "inventory" / "fabric.yaml"
    text = fabric.read_text(encoding="utf-8")
    fabric.write_text(text[: text.index("ztp:")], encoding="utf-8")
    code, _, err = run_cli(["ztp", "render", "--root", str(root)], capsys)
    assert code == 1 and "ztp" in err and "Traceback" not in err


@pytest.mark.parametrize("platform", ["comware", "eos"])
def test_every_vendor_behaviour_is_cited_in_the_docs(platform: str) -> None:
    from fabricctl.platforms import get_platform

    doc = (Path(__file__).resolve().parents[2] / "docs" / "day0.md").read_text(encoding="utf-8")
    sources = get_platform(platform).day0.sources
    assert sources
    for behaviour, url, section in sources:
        assert behaviour and section and url in doc, url


@pytest.mark.parametrize("platform", ["comware", "eos"])
def test_settings_that_wait_for_a_boot_are_in_the_day0_files(
    tmp_path: Path, platform: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A rack boots with every boot-time setting of its config in effect (Comware max-ecmp-num
    for 16 paths, EOS's routing model): no reboot waits after ZTP."""
    from fabricctl.platforms import get_platform

    root = day0_pod(tmp_path / "pod", platform)
    fabric = root / "inventory" / "fabric.yaml"
    fabric.write_text(fabric.read_text().replace("max_paths: 8", "max_paths: 16"))
    code, _out, _ = run_cli(["render", "--root", str(root), "--out", str(tmp_path / "full")], capsys)
    assert code == 0
    folder = render(root, capsys)
    settings = get_platform(platform).boot_settings
    boot_file = "{}.cfg" if platform == "comware" else "{}.startup-config"
    found = 0
    for config in sorted((tmp_path / "full").glob("*.cfg")):
        name = config.name.removesuffix(".cfg")
        day0 = (folder / boot_file.format(name)).read_text(encoding="utf-8")
        for s in settings:
            value = s.value_in(config.read_text(encoding="utf-8"))
            if value is not None:
                found += 1
                assert s.value_in(day0) == value, (name, s.name)
    assert found >= 10, "every switch of the pod carries one"


def test_render_holds_the_login_apply_uses_and_says_which_to_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The day-0 user is an administrator: the write login, never the read-only one."""
    for var in ("FABRICCTL_USERNAME", "FABRICCTL_PASSWORD", "FABRICCTL_SECRETS_FILE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("FABRICCTL_READ_USERNAME", "reader")
    monkeypatch.setenv("FABRICCTL_READ_PASSWORD", "read-only-secret")
    root = day0_pod(tmp_path / "pod")
    code, _, err = run_cli(["ztp", "render", "--root", str(root)], capsys)
    assert code == 1 and "FABRICCTL_USERNAME and FABRICCTL_PASSWORD" in err and "READ" not in err
    assert not (root / ".fabricctl" / "ztp").exists()
    monkeypatch.setenv("FABRICCTL_USERNAME", "fabricctl")
    monkeypatch.setenv("FABRICCTL_PASSWORD", "day0-secret")
    code, _, err = run_cli(["ztp", "render", "--root", str(root)], capsys)
    assert code == 0, err
    day0 = (root / ".fabricctl" / "ztp" / "leaf1.startup-config").read_text(encoding="utf-8")
    assert "username fabricctl " in day0 and "reader" not in day0
