"""Each injected fault behaves as declared and never corrupts stored state."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
from napalm.base.exceptions import ConnectionException
from netmiko.exceptions import (
    ConfigInvalidException,
    NetmikoAuthenticationException,
    NetmikoTimeoutException,
)
from pyeapi.eapilib import ConnectionError as EapiConnectionError

from fabricctl.lab import FaultFileError, Faults, LabFabric
from tests.conftest import send_text, wait_until

from .conftest import connect, napalm_eos


def _files(state_dir: Path, name: str) -> dict[str, str]:
    return {p.name: p.read_text() for p in (state_dir / name).iterdir() if p.is_file()}


def test_unreachable_closes_port_and_recovers(lab: LabFabric) -> None:
    lab.set_faults("leaf01", unreachable=True)
    with pytest.raises(NetmikoTimeoutException):
        connect(lab, "leaf01", conn_timeout=2)
    lab.set_faults("leaf01", unreachable=False)
    connect(lab, "leaf01").disconnect()


def test_auth_failure(lab: LabFabric) -> None:
    lab.set_faults("spine01", auth_failure=True)
    with pytest.raises(NetmikoAuthenticationException):
        connect(lab, "spine01")
    lab.set_faults("leaf01", auth_failure=True)
    with pytest.raises((ConnectionException, EapiConnectionError), match="Unauthorized"):
        napalm_eos(lab, "leaf01")


def test_latency_holds_each_reply_for_lab_seconds(lab: LabFabric) -> None:
    conn = connect(lab, "leaf01")
    lab.set_faults("leaf01", latency=30)
    reply: list[str] = []
    worker = threading.Thread(
        target=lambda: reply.append(
            send_text(conn, "show version", expect_string=r"leaf01#", read_timeout=120)
        )
    )
    worker.start()
    wait_until(lambda: lab.call(lab.clock.pending) == 1, "the lab to hold the reply")
    lab.advance(29)
    assert worker.is_alive() and lab.call(lab.clock.pending) == 1  # 29 of 30 lab seconds: no reply yet
    lab.advance(1)
    worker.join(120)
    assert not worker.is_alive() and "Software image version" in reply[0]
    conn.disconnect()


def test_reject_regex(lab: LabFabric) -> None:
    lab.set_faults("spine01", reject=r"^vlan 3\d\d$")
    conn = connect(lab, "spine01")
    with pytest.raises(ConfigInvalidException):
        conn.send_config_set(["vlan 300"], error_pattern=r"% Unrecognized command")
    conn.send_config_set(["vlan 400"], error_pattern=r"% Unrecognized command")
    conn.disconnect()
    running = lab.device("spine01").running_config()
    assert "vlan 300" not in running and "vlan 400" in running


def test_disconnect_mid_session_leaves_running_untouched(lab: LabFabric, state_dir: Path) -> None:
    before = _files(state_dir, "leaf01") if (state_dir / "leaf01").exists() else None
    running = lab.device("leaf01").running_config()
    lab.set_faults("leaf01", disconnect_after=2)
    conn = connect(lab, "leaf01")
    send_text(conn, "configure session push", expect_string=r"\)#")
    with pytest.raises(Exception):  # noqa: B017 - netmiko raises OSError/ReadTimeout variants
        conn.send_config_set(
            ["vlan 90", "name a", "vlan 91", "name b"], enter_config_mode=False, read_timeout=3
        )
    assert lab.device("leaf01").running_config() == running
    after = _files(state_dir, "leaf01")
    assert after["running-config"] == running
    if before is not None:
        assert after == before


def test_disconnect_on_comware_keeps_applied_lines_but_not_startup(lab: LabFabric, state_dir: Path) -> None:
    startup = lab.device("spine02").startup_config()
    lab.set_faults("spine02", disconnect_after=2)
    conn = connect(lab, "spine02")
    with pytest.raises(Exception):  # noqa: B017 - netmiko raises OSError/ReadTimeout variants
        conn.send_config_set(["vlan 501", "vlan 502", "vlan 503"], read_timeout=3)
    running = lab.device("spine02").running_config()
    assert "vlan 501" in running and "vlan 502" in running and "vlan 503" not in running
    stored = _files(state_dir, "spine02")
    assert stored["running-config"] == running  # applied lines persisted, file complete
    assert stored["startup-config"] == startup
    assert "vlan 501" not in lab.device("spine02").startup_config()


def test_commit_failure_eos_session_and_eapi(lab: LabFabric) -> None:
    running = lab.device("leaf01").running_config()
    lab.set_faults("leaf01", commit_failure=True)
    conn = connect(lab, "leaf01")
    send_text(conn, "configure session c1", expect_string=r"\)#")
    send_text(conn, "vlan 95", expect_string=r"\)#")
    out = send_text(conn, "commit", expect_string=r"#")
    conn.disconnect()
    assert "% Failed to commit" in out
    dev = napalm_eos(lab, "leaf02")
    lab.set_faults("leaf02", commit_failure=True)
    dev.load_merge_candidate(config="vlan 96\n")
    with pytest.raises(Exception, match="Failed to commit"):
        dev.commit_config()
    assert "vlan 96" not in lab.device("leaf02").running_config()
    assert lab.device("leaf01").running_config() == running


def test_commit_failure_comware_still_rolls_back(lab: LabFabric) -> None:
    lab.set_faults("spine01", commit_failure=True)
    conn = connect(lab, "spine01")
    out = conn.send_config_set(
        ["configuration commit delay 1", "vlan 600", "configuration commit"],
        exit_config_mode=False,
    )
    assert "Failed to commit" in out
    lab.advance(60)
    conn.disconnect()
    assert "vlan 600" not in lab.device("spine01").running_config()


def test_hang_on_commit_never_answers(lab: LabFabric) -> None:
    running = lab.device("leaf01").running_config()
    lab.set_faults("leaf01", hang_on_commit=True)
    dev = napalm_eos(lab, "leaf01", timeout=1)
    dev.load_merge_candidate(config="vlan 97\n")
    with pytest.raises(EapiConnectionError, match="timed out"):
        dev.commit_config()
    assert lab.device("leaf01").running_config() == running


def test_fault_file(lab: LabFabric, tmp_path: Path) -> None:
    good = tmp_path / "faults.yaml"
    good.write_text("leaf01: {latency: 0.05, reject: '^vlan 9'}\nspine01: {unreachable: true}\n")
    lab.load_faults(good)
    assert lab.device("leaf01").faults == Faults(latency=0.05, reject="^vlan 9")
    with pytest.raises(NetmikoTimeoutException):
        connect(lab, "spine01", conn_timeout=2)
    bad = tmp_path / "bad.yaml"
    bad.write_text("leaf01: {explode: true}\n")
    with pytest.raises(FaultFileError, match="unknown fault"):
        lab.load_faults(bad)
    bad.write_text("leaf99: {latency: 1}\n")
    with pytest.raises(FaultFileError, match="unknown device"):
        lab.load_faults(bad)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("leaf01: {latency: fast}\n", "latency: 'fast' is not a number of seconds"),
        ("leaf01: {latency: -1}\n", "latency: -1 is not a number of seconds"),
        ("leaf01: {unreachable: 'yes'}\n", "unreachable: 'yes' is not true or false"),
        ("leaf01: {disconnect_after: 2.5}\n", "disconnect_after: 2.5 is not a count of config lines"),
        ("leaf01: {reject: 5}\n", "reject: 5 is not a regular expression"),
        ("leaf01: {hold: '('}\n", "bad hold regex"),
    ],
)
def test_fault_values_are_checked(lab: LabFabric, tmp_path: Path, line: str, message: str) -> None:
    bad = tmp_path / "faults.yaml"
    bad.write_text(line)
    with pytest.raises(FaultFileError, match=re.escape(message)):
        lab.load_faults(bad)


def test_lab_files_stay_inside_the_device_state(lab: LabFabric, state_dir: Path) -> None:
    """`copy ... flash:<path>` and `configure replace <url>` never reach the machine's own files."""
    conn = connect(lab, "leaf01")
    out = send_text(conn, "copy running-config flash:../../../escape.cfg")
    assert "Invalid file name" in out
    secret = state_dir.parent / "outside.cfg"
    secret.write_text("hostname stolen\n")
    out = send_text(conn, f"configure replace file:{secret}")
    conn.disconnect()
    assert "No such file" in out
    assert not any(p.name == "escape.cfg" for p in state_dir.parent.parent.rglob("*"))
    assert "hostname stolen" not in lab.device("leaf01").running_config()
