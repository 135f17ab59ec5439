"""SONiC's health reader on sonic-utilities' own outputs (tests/captures/sonic/): links and
speeds from `show interfaces status`, LLDP from `show lldp table`, BGP from FRR's summary JSON;
the text-table reader under both (platforms/sonic/tables.py)."""

from __future__ import annotations

import json

import pytest

from fabricctl.platforms.sonic.health import BGP, HEALTH, LLDP, STATUS, parse
from fabricctl.platforms.sonic.tables import TableError, text_tables
from tests.conftest import TESTS

CAPTURES = TESTS / "captures" / "sonic"


def _rows() -> dict[str, object]:
    return {
        STATUS: (CAPTURES / "show_interfaces_status.txt").read_text(encoding="utf-8"),
        LLDP: (CAPTURES / "show_lldp_table.txt").read_text(encoding="utf-8"),
        BGP: json.loads((CAPTURES / "vtysh_show_ip_bgp_summary_json.json").read_text(encoding="utf-8")),
    }


def test_ports_and_speeds() -> None:
    health = parse(_rows())
    assert health.ports["Ethernet0"] == (True, False)  # admin up, link down
    assert health.ports["Ethernet32"] == (True, True)
    assert "PortChannel0001" not in health.ports  # not a front-panel port
    assert health.speeds is not None
    assert (health.speeds["Ethernet0"], health.speeds["Ethernet32"], health.speeds["Ethernet28"]) == (
        25,
        40,
        1,
    )


def test_lldp_neighbors_of_front_panel_ports() -> None:
    assert parse(_rows()).lldp == {
        "Ethernet112": ("T1-1", "hundredGigE1/2"),
        "Ethernet116": ("T1-2", "hundredGigE1/2"),
    }


def test_bgp_sessions_from_frrs_summary() -> None:
    bgp = parse(_rows()).bgp
    assert bgp["10.0.0.1"] == "Established" and bgp["10.0.0.33"] == "Active" and len(bgp) == 24
    summary = _rows()[BGP]
    assert isinstance(summary, dict)
    evpn = {"l2VpnEvpn": {"peers": {"10.65.0.1": {"state": "Established"}}}}
    assert parse({BGP: {**summary, **evpn}}).bgp["10.65.0.1"] == "Established"
    assert HEALTH.sessions == (BGP,)


def test_a_table_with_a_value_holding_a_space_and_an_empty_last_cell() -> None:
    (rows,) = text_tables((CAPTURES / "show_lldp_table.txt").read_text(encoding="utf-8"), LLDP)
    assert rows[-1] == {
        "LocalPort": "eth0",
        "RemoteDevice": "swtor-b2lab2-1610",
        "RemotePortID": "GigabitEthernet 0/2",
        "Capability": "OBR",
        "RemotePortDescr": "",
    }
    with pytest.raises(TableError, match="no table"):
        text_tables("Total entries displayed:  0\n", LLDP)
