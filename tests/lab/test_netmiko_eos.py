"""Real netmiko `arista_eos` against the lab: read, push, save, sessions, errors."""

from __future__ import annotations

import pytest
from netmiko.exceptions import ConfigInvalidException

from fabricctl.lab import LabFabric
from tests.conftest import send_text, send_timing_text

from .conftest import PORTS, connect

EOS_ERR = r"% Invalid input"


def test_connect_and_read_factory_running_config(lab: LabFabric) -> None:
    conn = connect(lab, "leaf01")
    out = send_text(conn, "show running-config")
    conn.disconnect()
    lines = out.splitlines()
    assert "hostname leaf01" in lines
    assert lines[-1] == "end"
    assert [ln for ln in lines if ln.startswith("interface Ethernet")] == [
        f"interface Ethernet{n}" for n in range(1, PORTS + 1)
    ]
    assert "interface Management1" in lines
    assert "   ip address 192.0.2.11/24" in lines
    assert "ip route 0.0.0.0/0 192.0.2.254" in lines
    assert any(ln.startswith("username admin privilege 15 role network-admin secret sha512 ") for ln in lines)


def test_push_lines_and_save(lab: LabFabric) -> None:
    conn = connect(lab, "leaf01")
    conn.send_config_set(
        [
            "vlan 10",
            "   name tenant-a",
            "interface Ethernet1",
            "   description uplink",
            "   no switchport",
            "   ip address 10.0.0.1/31",
        ],
        error_pattern=EOS_ERR,
    )
    assert "Copy completed successfully." in conn.save_config()
    conn.disconnect()
    running = lab.device("leaf01").running_config()
    assert "vlan 10\n   name tenant-a\n!" in running
    assert (
        "interface Ethernet1\n   description uplink\n   no switchport\n   ip address 10.0.0.1/31\n!"
        in running
    )
    assert lab.device("leaf01").startup_config() == running


def test_last_value_wins_and_negation(lab: LabFabric) -> None:
    conn = connect(lab, "leaf01")
    conn.send_config_set(
        [
            "interface Ethernet2",
            "description a",
            "description b",
            "shutdown",
            "no shutdown",
            "interface Ethernet3",
            "description gone",
            "no description",
        ],
        error_pattern=EOS_ERR,
    )
    conn.disconnect()
    running = lab.device("leaf01").running_config()
    assert "interface Ethernet2\n   description b\n!" in running
    assert "interface Ethernet3\n!" in running


def test_misspelled_line_is_rejected_with_eos_error(lab: LabFabric) -> None:
    before = lab.device("leaf01").running_config()
    conn = connect(lab, "leaf01")
    with pytest.raises(ConfigInvalidException):
        conn.send_config_set(["interface Ethernet1", "   descripton typo"], error_pattern=EOS_ERR)
    out = send_timing_text(conn, "interfcae Ethernet1")  # a misspelling: no abbreviation of any word
    conn.disconnect()
    assert "% Invalid input (at token 0: 'interfcae')" in out
    assert lab.device("leaf01").running_config() == before


def test_config_session_diff_commit_and_abort(lab: LabFabric) -> None:
    conn = connect(lab, "leaf01")
    before = lab.device("leaf01").running_config()
    send_text(conn, "configure session s1", expect_string=r"\(config-s-s1\)#")
    conn.send_config_set(
        ["vlan 20", "name blue"], enter_config_mode=False, exit_config_mode=False, error_pattern=EOS_ERR
    )
    diff = send_text(conn, "show session-config diffs", expect_string=r"#")
    assert "--- system:/running-config" in diff
    assert "+++ session:/s1-session-config" in diff
    assert "+vlan 20" in diff and "+   name blue" in diff
    assert lab.device("leaf01").running_config() == before  # not yet committed
    send_text(conn, "commit", expect_string=r"leaf01#")
    assert "vlan 20\n   name blue" in lab.device("leaf01").running_config()
    send_text(conn, "configure session s2", expect_string=r"\)#")
    send_text(conn, "vlan 30", expect_string=r"\)#")
    send_text(conn, "abort", expect_string=r"leaf01#")
    exec_diff = send_text(conn, "show session-config named s2 diffs")
    conn.disconnect()
    assert "does not exist" in exec_diff
    assert "vlan 30" not in lab.device("leaf01").running_config()


def test_commit_timer_reverts_unless_confirmed(lab: LabFabric) -> None:
    conn = connect(lab, "leaf01")

    def stage(name: str, vlan: str) -> None:
        send_text(conn, f"configure session {name}", expect_string=r"\)#")
        send_text(conn, f"vlan {vlan}", expect_string=r"\)#")
        send_text(conn, "end", expect_string=r"leaf01#")
        send_text(conn, f"configure session {name} commit timer 00:00:01")

    stage("t1", "41")
    assert "vlan 41" in lab.device("leaf01").running_config()
    stage("t2", "42")  # refused while t1 waits for confirmation
    assert "vlan 42" not in lab.device("leaf01").running_config()
    lab.advance(1)
    assert "vlan 41" not in lab.device("leaf01").running_config()
    send_text(conn, "configure session t2 commit timer 00:00:01")
    send_text(conn, "configure session t2 commit")  # confirm
    lab.advance(1)
    conn.disconnect()
    assert "vlan 42" in lab.device("leaf01").running_config()
    assert lab.device("leaf01").transactions() == {"t2": "completed"}


def test_configure_replace_from_flash(lab: LabFabric) -> None:
    conn = connect(lab, "leaf01")
    assert "Copy completed" in send_text(conn, "copy running-config flash:before")
    conn.send_config_set(["vlan 50"], error_pattern=EOS_ERR)
    assert "vlan 50" in lab.device("leaf01").running_config()
    send_text(conn, "configure replace flash:before")
    conn.disconnect()
    assert "vlan 50" not in lab.device("leaf01").running_config()
    assert "hostname leaf01" in lab.device("leaf01").running_config()
