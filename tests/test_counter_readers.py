"""The counter readers on real switch output (tests/captures): ANTA's recorded eAPI replies for
the commands its interface tests read, NAPALM's capture of `show interfaces`, ntc-templates'
Comware captures of `display counters` and `display interface`."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any

import pytest
from ntc_templates.parse import parse_output

from fabricctl.deploy.counters import unread
from fabricctl.platforms import get_platform
from fabricctl.platforms.comware import counters as cw
from fabricctl.platforms.counters import CounterError, CounterReader, Optic, SwitchCounters
from fabricctl.platforms.eos import counters as eos
from fabricctl.platforms.health import Probe

CAPTURES = Path(__file__).parent / "captures"


def anta(name: str) -> Any:
    return json.loads((CAPTURES / "anta" / name).read_text())


def test_eos_errors_and_discards() -> None:
    out = SwitchCounters()
    eos.read_errors(anta("show_interfaces_counters_errors.failure-multiple-intfs-multiple-errors.json"), out)
    eos.read_discards(anta("show_interfaces_counters_discards.failure.json"), out)
    errors = {p: c.errors for p, c in out.ports.items() if c.errors is not None}
    assert errors == {"Ethernet1": 52, "Ethernet6": 0}, errors  # inErrors + outErrors
    assert out.ports["Ethernet2"].discards == 42 and out.ports["Ethernet1"].discards == 42


def test_eos_pfc_ecn_and_queue_drops() -> None:
    out = SwitchCounters()
    eos.read_pfc(anta("show_priority-flow-control_counters.failure.json"), out)
    eos.read_ecn(anta("show_qos_interfaces_ecn_counters_queue.failure.json"), out)
    eos.read_queue_drops(anta("show_interfaces_counters_queue_detail.failure.json"), out)
    assert out.ports["Ethernet3/1/1"].pfc == {None: (1, 0)}
    assert out.ports["Ethernet3/2/1"].pfc == {None: (0, 2)}
    # `-`: the queue does not mark, so it is absent rather than a zero.
    assert out.ports["Ethernet10/28/1"].ecn_marked == {1: 0, 2: 0}
    assert out.ports["Ethernet10/20/1"].ecn_marked == {0: 0, 1: 2, 2: 0}
    drops = {p: c.queue_dropped for p, c in out.ports.items() if c.queue_dropped}
    assert drops and any(n > 0 for d in drops.values() for n in d.values()), drops


def test_eos_a_range_of_classes_counts_for_each_class_in_it() -> None:
    out = SwitchCounters()
    eos.read_queue_drops(
        anta("show_interfaces_counters_queue_detail.success-traffic-claas-and-dp-range.json"), out
    )
    assert out.ports["Ethernet1"].queue_dropped == {0: 0, 1: 0, 2: 0}


def test_eos_optics_weakest_lane_and_the_modules_thresholds() -> None:
    out = SwitchCounters()
    eos.read_optics(anta("show_interfaces_transceiver_dom_thresholds.failure-optic-low-rx.json"), out)
    optic = out.ports["Ethernet2/1"].optic
    assert optic is not None and optic.rx_low_alarm is not None and optic.rx_low_warn is not None
    assert optic.rx_dbm < -40 and optic.rx_low_alarm < optic.rx_low_warn < 0
    assert "Ethernet1/1" not in out.ports  # no DOM: not read, never "fine"


def test_eos_link_changes_from_napalms_capture() -> None:
    out = SwitchCounters()
    data = json.loads((CAPTURES / "napalm/eos/test_get_interfaces/normal/show_interfaces.json").read_text())
    eos.read_link_changes(data, out)
    assert out.ports and all(c.link_changes is not None for c in out.ports.values())
    assert {c.up for c in out.ports.values()} == {True}  # every port of the capture is up
    assert 3 in {c.link_changes for c in out.ports.values()}
    assert (out.ports["Management1"].rx_packets, out.ports["Management1"].tx_packets) == (0, 19575)


def test_comware_error_counters_from_the_capture() -> None:
    raw = (
        CAPTURES
        / "ntc-templates/hp_comware/display_counters_bound_interface"
        / "hp_comware_display_counters_bound_interface.raw"
    ).read_text()
    rows = parse_output(platform="hp_comware", command="display counters inbound interface", data=raw)
    out = SwitchCounters()
    cw.read_errors(rows, "display counters inbound interface", out)
    assert out.ports["GigabitEthernet1/0/2"].errors == 30
    assert out.ports["Ten-GigabitEthernet1/0/50"].errors == 19
    assert out.ports["GigabitEthernet1/0/1"].errors == 0
    # unicast: the total less broadcast and multicast (573422 - 2580 - 8560)
    assert out.ports["GigabitEthernet1/0/1"].rx_packets == 562282
    assert out.ports["Ten-GigabitEthernet1/0/50"].rx_packets == 53840866263 - 13138308 - 21011041401


def test_comware_last_flap_from_the_captures() -> None:
    folder = CAPTURES / "ntc-templates/hp_comware/display_interface"
    out = SwitchCounters()
    cw.read_flaps((folder / "hp_comware_display_interface.raw").read_text(), out)
    ages = {p: c.last_flap_ago for p, c in out.ports.items() if c.last_flap_ago is not None}
    assert 6 * 3600 + 39 * 60 + 25 in ages.values() and math.inf in ages.values(), ages
    assert out.ports["Vlan-interface2000"].up is True and out.ports["GigabitEthernet1/1/0/31"].up is False
    cw.read_flaps((folder / "hp_comware_display_interface10.raw").read_text(), out)
    weeks = (14 * 7 + 4) * 86400 + 22 * 3600 + 58 * 60
    assert weeks in {c.last_flap_ago for c in out.ports.values()}


def test_comware_optics_in_both_documented_forms() -> None:
    """No published capture of `display transceiver diagnosis`: the two forms H3C's command
    reference describes (one row of five values; per-channel rows on multi-lane modules)."""
    one_row = "\n".join(
        [
            "FortyGigE1/0/1 transceiver diagnostic information:",
            "  Current diagnostic parameters:",
            "    Temp.(°C)  Voltage(V)  Bias(mA)  RX power(dBm)  TX power(dBm)",
            "    36         3.31        6.13      -3.10          -2.50",
            "  Alarm thresholds:",
            "          Temp.(°C)  Voltage(V)  Bias(mA)  RX power(dBm)  TX power(dBm)",
            "    High  73         3.80        16.50     1.00           1.00",
            "    Low   -3         2.81        1.00      -11.90         -10.30",
        ]
    )
    lanes = "\n".join(
        [
            "FGE1/0/2 transceiver diagnostic information:",
            "Current diagnostic parameters:",
            "  Temp(°C)  Voltage(V)",
            "  34        3.29",
            "  Channel   Bias(mA)  RX power(dBm)  TX power(dBm)",
            "  1         6.50      -2.10          -1.50",
            "  2         6.48      -7.25          -1.40",
        ]
    )
    out = SwitchCounters()
    cw.read_optics(one_row + "\n\n" + lanes, out)
    first, second = out.ports["FortyGigE1/0/1"].optic, out.ports["FortyGigE1/0/2"].optic
    assert first is not None and (first.rx_dbm, first.rx_low_alarm) == (-3.10, -11.90)
    assert second is not None and second.rx_dbm == -7.25 and second.rx_low_alarm is None


NOT_COUNTS = [("lots", "'lots'"), (-3, "-3"), (True, "True"), (1.5, "1.5"), (12.0, "12.0"), (None, "None")]


@pytest.mark.parametrize(("value", "shown"), NOT_COUNTS, ids=[s for _, s in NOT_COUNTS])
def test_eos_readers_refuse_what_is_not_a_count_and_say_where(value: object, shown: str) -> None:
    """A real reply (ANTA's capture) with one count spoiled: the read fails, naming the command,
    the port and the field, never a zero."""
    data = anta("show_interfaces_counters_errors.failure-multiple-intfs-multiple-errors.json")
    data["interfaceErrorCounters"]["Ethernet1"]["inErrors"] = value
    with pytest.raises(CounterError) as caught:
        eos.read_errors(data, SwitchCounters())
    assert str(caught.value) == (
        f"'show interfaces counters errors': Ethernet1 inErrors: {shown} is not a count (a non-negative integer)"
    )
    pfc = anta("show_priority-flow-control_counters.failure.json")
    port = next(iter(pfc["interfaceCounters"]))
    pfc["interfaceCounters"][port]["rxFrames"] = value
    with pytest.raises(CounterError, match=rf"'show priority-flow-control counters': {port} rxFrames"):
        eos.read_pfc(pfc, SwitchCounters())


def test_eos_a_reply_in_no_documented_form_is_no_read() -> None:
    with pytest.raises(CounterError, match="no 'interfaceErrorCounters' mapping"):
        eos.read_errors({"garbage": True}, SwitchCounters())
    with pytest.raises(CounterError, match="'show qos interfaces ecn counters queue': Ethernet1 queue 3"):
        eos.read_ecn(
            {"intfQueueCounters": {"Ethernet1": {"queueCounters": {"3": "lots", "2": "-"}}}}, SwitchCounters()
        )
    out = SwitchCounters()
    eos.read_ecn({"intfQueueCounters": {"Ethernet1": {"queueCounters": {"3": "12", "2": "-"}}}}, out)
    assert out.ports["Ethernet1"].ecn_marked == {3: 12}  # `-`: the queue does not mark


def test_comware_readers_refuse_what_is_not_a_count_and_say_where() -> None:
    rows = [{"interface": "GE1/0/1", "packets_error": "lots"}]
    with pytest.raises(CounterError, match=r"'display counters inbound interface': GE1/0/1 Err: 'lots'"):
        cw.read_errors(rows, "display counters inbound interface", SwitchCounters())
    out = SwitchCounters()
    cw.read_errors(
        [{"interface": "GE1/0/1", "packets_error": "--"}], "display counters inbound interface", out
    )
    assert out.ports == {}  # `--`: not supported (the table's own legend): not read, never 0
    queues = (
        "Interface: FourHundredGigE1/0/1\n Direction: outbound\n Queue 3\n  Forwarded: -7 packets, 0 bytes\n"
    )
    with pytest.raises(CounterError, match=r"FourHundredGigE1/0/1 queue 3 Forwarded: '-7'"):
        cw.read_queues(queues, SwitchCounters())
    with pytest.raises(
        CounterError,
        match=r"'display qos queue-statistics interface outbound': the reply is in no documented layout",
    ):
        cw.parse({cw.QUEUES: "%@! agent restarting\nrx=lots"})


def test_nvue_reader_refuses_what_is_not_a_count() -> None:
    from fabricctl.platforms.nvue import counters as nvue

    body = {"swp1": {"rx-stats": {"rx-pfc-stats": {"pause-packets": True}}, "tx-stats": {}}}
    with pytest.raises(
        CounterError,
        match="nv show interface qos-roce-counters swp1 rx-pfc-stats pause-packets: True is not a count",
    ):
        nvue.read_roce(body, SwitchCounters())


# --- NVUE: the shapes NVIDIA's documents print (CumulusNetworks/docs) ----------------------------
#
# NVUE's `-o json` is the object the NVUE API returns for the same path, the keys its tables
# print. The values below are NVIDIA's own examples, transcribed from:
# - the NVUE API page (`curl .../nvue_v1/interface`: eth0's `link` object with `stats`),
# - content/cumulus-linux-517/Layer-1-and-Switch-Ports/Quality-of-Service/
#   RDMA-over-Converged-Ethernet-RoCE.md at 429fe7bdb6a4 (`nv show interface swp16 qos roce counters`),
# - the NVUE Command Reference, Show Commands > Platform (`nv show platform transceiver swp2`,
#   and the dark lane of its Power_Budget_Exceeded example: `0.0000 mW / -inf dBm`).

NVUE_INTERFACES = {
    "eth0": {
        "type": "eth",
        "link": {"mtu": 1500, "state": {"up": {}}, "stats": {"carrier-transitions": 2, "in-errors": 0}},
    },
    "swp1": {
        "type": "swp",
        "link": {
            "admin-status": "up",
            "oper-status": "up",
            "mtu": 9216,
            "stats": {
                "carrier-transitions": 4,
                "in-bytes": 300,
                "in-drops": 5,
                "in-errors": 0,
                "in-pkts": 5,
                "out-bytes": 9730000,
                "out-drops": 0,
                "out-errors": 0,
                "out-pkts": 140188,
            },
        },
    },
    "swp2": {"type": "swp", "link": {"admin-status": "down", "oper-status": "down"}},
}

NVUE_ROCE = {
    "swp16": {
        "rx-stats": {
            "rx-non-roce-stats": {"no-buffer-discard": 55, "non-roce-packets": 462975},
            "rx-pfc-stats": {"pause-duration": 0, "pause-packets": 0},
            "rx-roce-stats": {"no-buffer-discard": 0, "roce-packets": 0},
        },
        "tx-stats": {
            "tx-cnp-stats": {"cnp-packets": 0, "unicast-no-buffer-discard": 0},
            "tx-ecn-stats": {"ecn-marked-packets": 693777677344},
            "tx-pfc-stats": {"pause-duration": 0, "pause-packets": 0},
            "tx-roce-stats": {"roce-packets": 803785675319, "unicast-no-buffer-discard": 663060754115},
        },
    }
}


def _lane(power: str) -> dict[str, Any]:
    return {
        "rx-power": {
            "power": power,
            "high-alarm-threshold": "5.40 dBm",
            "low-alarm-threshold": "-13.31 dBm",
            "high-warning-threshold": "2.40 dBm",
            "low-warning-threshold": "-10.30 dBm",
            "alarm": "Off",
        },
        "tx-power": {"power": "0.8988 mW / -0.46 dBm"},
    }


NVUE_TRANSCEIVERS = {
    "swp2": {
        "identifier": "QSFP28",
        "vendor-name": "Mellanox",
        "channel": {"channel-1": _lane("0.8625 mW / -0.64 dBm"), "channel-2": _lane("0.8385 mW / -0.76 dBm")},
    },
    "swp3": {"identifier": "QSFP28", "channel": {"channel-1": _lane("0.0000 mW / -inf dBm")}},
    "swp31": {"identifier": "QSFP28", "cable-type": "Passive copper cable"},  # no DOM: no channel data
}


def test_nvue_link_state_errors_discards_and_changes() -> None:
    from fabricctl.platforms.nvue import counters as nv

    out = SwitchCounters()
    nv.read_interfaces(NVUE_INTERFACES, out)
    assert "eth0" not in out.ports  # management: not a switch port
    one = out.ports["swp1"]
    assert (one.up, one.admin_up, one.errors, one.discards, one.link_changes) == (True, True, 0, 5, 4)
    assert (one.rx_packets, one.tx_packets) == (5, 140188)
    two = out.ports["swp2"]
    assert (two.up, two.admin_up) == (False, False) and two.errors is None  # no stats: not read


def test_nvue_pfc_ecn_cnp_and_drops_from_the_roce_counters() -> None:
    from fabricctl.platforms.nvue import counters as nv

    out = nv.parse({nv.SHOW_CLOCK: "1764648000\n", nv.ROCE: {**NVUE_ROCE, "lo": {}}})
    assert out.clock == 1764648000.0 and nv.parse({}).clock is None
    c = out.ports["swp16"]
    assert c.pfc == {3: (0, 0)} and c.ecn_marked == {3: 693777677344} and c.queue_sent == {6: 0}
    assert c.queue_dropped == {3: 663060754115, 6: 0}
    assert "lo" not in out.ports and c.errors is None  # not read here: None, never 0


def test_nvue_optics_weakest_lane_against_the_modules_own_thresholds() -> None:
    from fabricctl.platforms.nvue import counters as nv

    out = SwitchCounters()
    nv.read_transceivers(NVUE_TRANSCEIVERS, out)
    assert out.ports["swp2"].optic == Optic(-0.76, -10.30, -13.31)
    dark = out.ports["swp3"].optic
    assert dark is not None and dark.rx_dbm == -math.inf
    assert "swp31" not in out.ports  # a cable without DOM: not read, never "fine"


def test_nvue_garbage_is_an_error_never_a_zero() -> None:
    import pytest

    from fabricctl.platforms.nvue import counters as nv

    bad = {"swp16": {"tx-stats": {"tx-ecn-stats": {"ecn-marked-packets": "n/a"}}}}
    with pytest.raises(CounterError, match="swp16 tx-ecn-stats ecn-marked-packets"):
        nv.read_roce(bad, SwitchCounters())
    with pytest.raises(CounterError, match="not a power in dBm"):
        nv.read_transceivers({"swp2": {"channel": {"channel-1": _lane("bright")}}}, SwitchCounters())
    with pytest.raises(CounterError, match="expected an object"):
        nv.read_interfaces(["swp1"], SwitchCounters())


def test_admin_state_from_eos_and_comware_captures() -> None:
    """A shut port is dark on purpose: EOS `interfaceStatus` `disabled` (NAPALM's reading),
    Comware `Administratively DOWN` and the older `DOWN ( Administratively )`."""
    out = SwitchCounters()
    data = json.loads((CAPTURES / "napalm/eos/test_get_interfaces/normal/show_interfaces.json").read_text())
    data["interfaces"]["Ethernet1"]["interfaceStatus"] = "disabled"  # shut, as EOS prints it
    eos.read_link_changes(data, out)
    assert out.ports["Ethernet1"].admin_up is False
    assert {c.admin_up for p, c in out.ports.items() if p != "Ethernet1"} == {True}
    folder = CAPTURES / "ntc-templates/hp_comware/display_interface"
    shut = {}
    for raw in sorted(folder.glob("*.raw")):
        found = SwitchCounters()
        cw.read_flaps(raw.read_text(), found)
        shut.update({p: c for p, c in found.ports.items() if c.admin_up is False})
    assert shut and all(c.up is False for c in shut.values()), shut
    assert "GigabitEthernet12/0/17" in shut  # `current state: DOWN ( Administratively )`


class _TinyLoginRefused(Exception):
    """The client of a NOS installed apart from fabricctl refusing a login."""


def _tiny_client(exc: BaseException, names: set[str], at: str, user: str) -> tuple[str, str] | None:
    return ("auth", f"login refused at{at}") if isinstance(exc, _TinyLoginRefused) else None


def _tiny_parse(rows: dict[str, Any]) -> SwitchCounters:
    """A NOS's own parser, which knows nothing of CounterError: a reply without its clock raises."""
    return SwitchCounters(clock=float(rows["show clock"]["now"]))


#: A NOS no entry point names (registered nowhere), with its own client and counters parser.
TINY = dataclasses.replace(
    get_platform("eos"),
    name="tiny-counters",
    client_failure=_tiny_client,
    counters=CounterReader((Probe("show clock", json_command="show clock | json"),), _tiny_parse),
)


def test_a_failed_counters_read_is_named_by_the_switchs_own_platform() -> None:
    """`unread` asks the switch's platform, registered or not, what its client's failure is, and
    tries no other NOS's forms on it."""
    failed = RuntimeError("the read task failed")
    failed.__cause__ = _TinyLoginRefused("401 from the switch")
    assert unread(failed, TINY).reason == "auth"
    assert unread(failed, get_platform("eos")).reason == "error", "EOS does not know TinyOS's client"
    assert unread(None, TINY) == "read failed"


def test_a_reply_the_nos_own_counters_parser_cannot_read_is_unparsable() -> None:
    """Whatever a NOS's parser raises on a reply (here a KeyError), the read is a CounterError
    (`CounterReader.read`): the switch is `unparsable`, never read as zeros nor as a client error."""
    assert TINY.counters.read({"show clock": {"now": 12}}).clock == 12.0
    with pytest.raises(CounterError, match=r"KeyError: 'now'") as caught:
        TINY.counters.read({"show clock": {}})
    wrapped = RuntimeError("the read task failed")
    wrapped.__cause__ = caught.value
    got = unread(wrapped, TINY)
    assert got.reason == "unparsable" and "KeyError" in got, got
