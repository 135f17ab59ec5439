"""SONiC's counter reader (platforms/sonic/counters.py) on sonic-utilities' own outputs
(tests/captures/sonic/, copied unchanged from its tests): what it reads, and that a reply of
another shape is an error, never a zero."""

from __future__ import annotations

import json

import pytest

from fabricctl.platforms.counters import CounterError
from fabricctl.platforms.sonic.counters import COUNTERS, INTERFACES, PFC, QUEUES, SHOW_CLOCK, parse
from tests.conftest import TESTS

CAPTURES = TESTS / "captures" / "sonic"


def _rows() -> dict[str, object]:
    return {
        SHOW_CLOCK: "1765000000\n",
        INTERFACES: (CAPTURES / "show_interfaces_counters.txt").read_text(encoding="utf-8"),
        PFC: (CAPTURES / "show_pfc_counters.txt").read_text(encoding="utf-8"),
        QUEUES: json.loads((CAPTURES / "show_queue_counters_--json.json").read_text(encoding="utf-8")),
    }


def test_ports_from_show_interfaces_counters() -> None:
    out = parse(_rows())
    assert out.clock == 1765000000
    e0, e4 = out.ports["Ethernet0"], out.ports["Ethernet4"]
    assert (e0.up, e0.admin_up, e0.rx_packets, e0.tx_packets) == (False, True, 8, 10)
    assert e0.errors is None  # TX_ERR is N/A: not read, never 0
    assert e0.discards is None
    assert (e4.up, e4.admin_up) == (None, None)  # STATE N/A
    assert e4.rx_packets == 4 and e4.tx_packets == 40


def test_pfc_pauses_per_priority() -> None:
    out = parse(_rows())
    assert out.ports["Ethernet0"].pfc == {0: (1200, 1210), **{p: (200 + p, 210 + p) for p in range(1, 8)}}
    assert out.ports["Ethernet8"].pfc is not None and out.ports["Ethernet8"].pfc[3] == (803, 813)


def test_unicast_queues_sent_and_dropped() -> None:
    rows = _rows()
    out = parse(rows)
    queues = rows[QUEUES]
    assert isinstance(queues, dict)
    uc = queues["Ethernet4"]
    want_sent = {
        int(k[2:]): int(v["totalpacket"])
        for k, v in uc.items()
        if k.startswith("UC") and v["totalpacket"] != "N/A"
    }
    assert out.ports["Ethernet4"].queue_sent == want_sent and want_sent


@pytest.mark.parametrize(
    ("command", "reply", "said"),
    [
        (INTERFACES, "IFACE    STATE\n-----  -------\nEthernet0  Q\n", "STATE"),
        (INTERFACES, "IFACE  RX_OK\n-----  -----\nEthernet0  lots\n", "RX_OK"),
        (PFC, "  Port Rx    PFC0\n---------  ------\nEthernet0   -1\n", "Port Tx"),
        (QUEUES, {"Ethernet0": {"UC0": {"totalpacket": "-3"}}}, "totalpacket"),
        (QUEUES, ["Ethernet0"], "expected an object"),
    ],
)
def test_another_shape_is_an_error(command: str, reply: object, said: str) -> None:
    with pytest.raises(CounterError, match=said):
        parse({SHOW_CLOCK: "1\n", command: reply})


def test_probes_name_each_command() -> None:
    assert [p.command for p in COUNTERS.probes] == [SHOW_CLOCK, INTERFACES, PFC, QUEUES]
    assert [p.command for p in COUNTERS.for_links().probes] == [SHOW_CLOCK, INTERFACES]
