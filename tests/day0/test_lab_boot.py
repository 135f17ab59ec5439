"""A lab switch delivered factory-default boots the way its NOS documents: an address and a boot
file URL from the generated Kea configuration (a real kea-dhcp4 in a network namespace where the
machine allows it), its files over HTTP from `ztp serve`, then it listens with its day-0 config."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from fabricctl.deploy.ztp_serve import fetches
from fabricctl.lab.dhcp import kea_unavailable
from fabricctl.lab.ztp import boot
from tests.day0.helpers import booted_pod

pytestmark = pytest.mark.lab


@pytest.mark.skipif(kea_unavailable() is not None, reason=str(kea_unavailable()))
def test_switches_boot_from_a_real_kea_and_ztp_serve(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with booted_pod(tmp_path / "pod", how="kea") as pod:
        assert pod.how.startswith("kea-dhcp4 in a network namespace")
        assert [b.switch for b in pod.boots if not b.ok] == []
        leaf5 = next(b for b in pod.boots if b.switch == "leaf5")
        assert (leaf5.address, leaf5.boot_file) == ("192.0.2.106", "http://192.0.2.5:8080/leaf5/leaf5.ztp")
        assert leaf5.fetched == (leaf5.boot_file, "http://192.0.2.5:8080/leaf5/leaf5.startup-config")
        assert pod.lab.ztp_waiting() == []
        log = [(r["switch"], r["path"], r["status"]) for r in fetches(pod.folder)]
        assert ("leaf5", "/leaf5/leaf5.startup-config", 200) in log and len(log) == 20
        # Reachable, and holding exactly the day-0 config: plan finds nothing to change.
        code, out, err = pod.run("plan", "--lab", capsys=capsys)
        assert code == 0, out + err
        assert "no changes" in out.lower(), out


@pytest.mark.parametrize("platform", ["comware", "eos"])
def test_boot_from_the_json_says_so(
    tmp_path: Path, platform: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with booted_pod(tmp_path / "pod", platform, how="json") as pod:
        assert pod.how.startswith("read from kea-dhcp4.json (the JSON was asked for)")
        assert all(b.ok for b in pod.boots), [b.line() for b in pod.boots]
        # Comware runs the .cfg over its defaults without saving it (docs/day0.md): the first
        # apply saves it; either way the running config is the day-0 config, line for line.
        code, out, err = pod.run("plan", "--lab", capsys=capsys)
        assert code == 0 and "0 unreachable (+0 -0 lines)" in out, out + err


def test_an_unknown_mac_gets_no_file_and_keeps_waiting(tmp_path: Path) -> None:
    with booted_pod(tmp_path / "pod", how="json", boot_now=False) as pod:
        dev = pod.lab.devices["leaf6"]
        dev.spec = type(dev.spec)(**{**dev.spec.__dict__, "mac": "02:99:99:99:99:99"})  # a swapped chassis
        boots, _ = boot(pod.lab, pod.folder, how="json")
        failed = [b for b in boots if not b.ok]
        assert [(b.switch, b.detail) for b in failed] == [("leaf6", "DHCP: no reservation for this MAC")]
        assert pod.lab.ztp_waiting() == ["leaf6"]
        assert not any(r["switch"] == "leaf6" for r in fetches(pod.folder))
        # Waiting switches do not answer: nothing can log in to configure them another way.
        where = pod.lab.endpoints()["leaf6"]
        with pytest.raises(OSError), socket.create_connection((where.host, where.ssh_port), timeout=2):
            pass
