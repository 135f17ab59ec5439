"""Real netmiko `hp_comware` against the lab: read, push with error_pattern, save, commit delay."""

from __future__ import annotations

import pytest
from netmiko.exceptions import ConfigInvalidException

from fabricctl.lab import LabFabric
from tests.conftest import send_text, send_timing_text

from .conftest import PORTS, connect

CW_ERR = r"% Unrecognized command"


def test_connect_and_read_factory(lab: LabFabric) -> None:
    conn = connect(lab, "spine01")
    assert conn.base_prompt == "spine01"
    out = send_text(conn, "display current-configuration")
    conn.disconnect()
    lines = out.splitlines()
    assert lines[0] == "#" and lines[-1] == "return"
    assert " sysname spine01" in lines and " lldp global enable" in lines
    assert "interface M-GigabitEthernet0/0/0" in lines
    assert " ip route-static 0.0.0.0 0 192.0.2.254" in lines
    assert "local-user admin class manage" in lines
    ports = [ln for ln in lines if ln.startswith("interface FourHundredGigE")]
    assert ports == [f"interface FourHundredGigE1/0/{n}" for n in range(1, PORTS + 1)]
    assert "interface FourHundredGigE1/0/1\n port link-mode bridge\n#" in out


def test_push_with_error_pattern_and_save(lab: LabFabric) -> None:
    conn = connect(lab, "spine01")
    conn.send_config_set(
        [
            "interface FourHundredGigE1/0/1",
            " port link-mode route",
            " ip address 10.0.0.0 255.255.255.254",
            "bgp 65000",
            " peer 10.0.0.1 as-number 65001",
            " address-family ipv4 unicast",
            "  peer 10.0.0.1 enable",
        ],
        error_pattern=CW_ERR,
    )
    conn.save_config()
    assert conn.find_prompt() == "[spine01]"  # save force leaves netmiko in system-view
    saved = send_text(conn, "display saved-configuration")
    conn.disconnect()
    running = lab.device("spine01").running_config()
    assert (
        "interface FourHundredGigE1/0/1\n port link-mode route\n ip address 10.0.0.0 255.255.255.254"
        in running
    )
    assert "bgp 65000\n peer 10.0.0.1 as-number 65001\n #\n address-family ipv4 unicast\n" in running
    assert "  peer 10.0.0.1 enable" in running
    assert saved.strip() == running.strip()


def test_misspelled_line_rejected_with_caret(lab: LabFabric) -> None:
    conn = connect(lab, "spine01")
    with pytest.raises(ConfigInvalidException):
        conn.send_config_set(
            ["interface FourHundredGigE1/0/2", " port link-mdoe route"], error_pattern=CW_ERR
        )
    out = send_timing_text(conn, "port link-mdoe route")
    conn.disconnect()
    lines = out.splitlines()
    caret = next(ln for ln in lines if ln.strip() == "^")
    # `[spine01-FourHundredGigE1/0/2]port link-mdoe route`: the marker sits under `link-mdoe` (a misspelling, not an abbreviation)
    assert caret.index("^") == len("[spine01-FourHundredGigE1/0/2]port ")
    assert " % Unrecognized command found at '^' position." in lines
    assert "link-mdoe route" not in lab.device("spine01").running_config()


def test_out_of_range_value_is_a_wrong_parameter(lab: LabFabric) -> None:
    """An IP-address RD whose number needs more than 16 bits: the switch marks the value and
    answers `Wrong parameter`, and the line is not taken."""
    conn = connect(lab, "spine01")
    send_timing_text(conn, "system-view")
    send_timing_text(conn, "ip vpn-instance rd-test")
    out = send_timing_text(conn, "route-distinguisher 10.0.2.1:1000101")
    conn.disconnect()
    lines = out.splitlines()
    caret = next(ln for ln in lines if ln.strip() == "^")
    assert caret.index("^") == len("[spine01-vpn-instance-rd-test]route-distinguisher ")
    assert " % Wrong parameter found at '^' position." in lines
    assert "1000101" not in lab.device("spine01").running_config()


def test_undo_removes_line(lab: LabFabric) -> None:
    conn = connect(lab, "spine01")
    conn.send_config_set(
        ["interface FourHundredGigE1/0/3", "description x", "undo description", "undo port link-mode"],
        error_pattern=CW_ERR,
    )
    conn.disconnect()
    assert "interface FourHundredGigE1/0/3\n#" in lab.device("spine01").running_config()


def test_commit_delay_rolls_back_unless_committed(lab: LabFabric) -> None:
    conn = connect(lab, "spine01")
    conn.send_config_set(
        ["configuration commit delay 1", "vlan 100"], error_pattern=CW_ERR, exit_config_mode=False
    )
    assert "vlan 100" in lab.device("spine01").running_config()
    lab.advance(60)
    assert "vlan 100" not in lab.device("spine01").running_config()
    conn.send_config_set(
        ["configuration commit delay 1", "vlan 200", "configuration commit"], error_pattern=CW_ERR
    )
    lab.advance(60)
    conn.disconnect()
    assert "vlan 200" in lab.device("spine01").running_config()
