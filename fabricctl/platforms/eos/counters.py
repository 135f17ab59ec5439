"""EOS port counters, from the JSON of the commands Arista's own test framework reads.

Every command and field is one ANTA's tests read (anta.tests.interfaces): VerifyInterfaceErrors
(`show interfaces counters errors`: inErrors, outErrors), VerifyInterfaceDiscards (`... discards`:
inDiscards, outDiscards), VerifyInterfacesPFCCounters (`show priority-flow-control counters`:
rxFrames, txFrames per port), VerifyInterfacesECNCounters (`show qos interfaces ecn counters
queue`: a string count per queue, `-` where the queue does not mark), VerifyInterfacesEgressQueueDrops
(`show interfaces counters queue detail`: droppedPackets per traffic class and drop precedence,
classes reported together as a range `TC0-2`), VerifyInterfacesOpticsReceivePower (`show
interfaces transceiver dom thresholds`: rxPower per channel and its lowWarn / lowAlarm) and
VerifyInterfacesCounterDetails (`show interfaces`: linkStatusChanges; and inUcastPkts / outUcastPkts,
which NAPALM's get_interfaces_counters reads as rx/tx_unicast_packets). The replies ANTA's
developers record for these tests are in tests/captures/anta; NAPALM's capture of `show
interfaces` in tests/captures/napalm. EOS prints no per-queue sent counts in these, so CNPs are
not read on EOS.
"""

from __future__ import annotations

from typing import Any

from fabricctl.platforms.counters import (
    CounterError,
    CounterReader,
    Optic,
    SwitchCounters,
    count,
    range_keys,
    read_replies,
)
from fabricctl.platforms.eos.terminal import SHOW_CLOCK, read_clock
from fabricctl.platforms.health import Probe

ERRORS = "show interfaces counters errors"
DISCARDS = "show interfaces counters discards"
PFC = "show priority-flow-control counters"
ECN = "show qos interfaces ecn counters queue"
QUEUES = "show interfaces counters queue detail"
OPTICS = "show interfaces transceiver dom thresholds"
INTERFACES = "show interfaces"


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _entries(data: Any, key: str, command: str) -> dict[str, Any]:
    """The reply's `key` mapping (port -> its counters): a reply without it is not the one the
    command documents, so the switch is not read (never read as no ports)."""
    found = data.get(key) if isinstance(data, dict) else None
    if not isinstance(found, dict):
        raise CounterError(f"{command!r}: the reply has no {key!r} mapping (not EOS's JSON for it)")
    return found


def _counts(entry: Any, keys: tuple[str, ...], where: str) -> int | None:
    """The sum of an entry's `keys`, each a count; None when the switch prints none of them."""
    present = [k for k in keys if k in _mapping(entry)]
    return sum(count(_mapping(entry)[k], f"{where} {k}") for k in present) if present else None


def read_errors(data: Any, out: SwitchCounters) -> None:
    for port, c in _entries(data, "interfaceErrorCounters", ERRORS).items():
        out.port(port).errors = _counts(c, ("inErrors", "outErrors"), f"{ERRORS!r}: {port}")


def read_discards(data: Any, out: SwitchCounters) -> None:
    for port, c in _entries(data, "interfaces", DISCARDS).items():
        out.port(port).discards = _counts(c, ("inDiscards", "outDiscards"), f"{DISCARDS!r}: {port}")


def read_pfc(data: Any, out: SwitchCounters) -> None:
    for port, c in _entries(data, "interfaceCounters", PFC).items():
        where = f"{PFC!r}: {port}"
        rx, tx = _counts(c, ("rxFrames",), where), _counts(c, ("txFrames",), where)
        if rx is not None and tx is not None:
            out.port(port).pfc = {None: (rx, tx)}


def read_ecn(data: Any, out: SwitchCounters) -> None:
    """Marked packets per queue; `-` is a queue that does not mark (absent, never a zero)."""
    for port, c in _entries(data, "intfQueueCounters", ECN).items():
        queues = _mapping(_mapping(c).get("queueCounters"))
        out.port(port).ecn_marked = {
            count(q, f"{ECN!r}: {port} queue"): count(n, f"{ECN!r}: {port} queue {q}")
            for q, n in queues.items()
            if n != "-"
        }


def read_queue_drops(data: Any, out: SwitchCounters) -> None:
    """Drops per traffic class, unicast and multicast queues and every drop precedence summed;
    a class the switch reports inside a range counts the range's drops (it cannot tell them apart)."""
    ports = _entries(_mapping(data).get("egressQueueCounters"), "interfaces", QUEUES)
    for port, detail in ports.items():
        dropped: dict[int, int] = {}
        for kind in ("ucastQueues", "mcastQueues"):
            classes = _mapping(_mapping(_mapping(detail).get(kind)).get("trafficClasses"))
            for key, tc in classes.items():
                numbers = range_keys(key, "TC")
                if not numbers:
                    raise CounterError(f"{QUEUES!r}: {port} {kind}: {key!r} is not a traffic class")
                n = sum(
                    _counts(dp, ("droppedPackets",), f"{QUEUES!r}: {port} {key} {name}") or 0
                    for name, dp in _mapping(_mapping(tc).get("dropPrecedences")).items()
                )
                for number in numbers:
                    dropped[number] = dropped.get(number, 0) + n
        out.port(port).queue_dropped = dropped


def _dbm(value: Any, where: str) -> float:
    """A power in dBm: a JSON number (never a boolean)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    raise CounterError(f"{where}: {value!r} is not a power in dBm")


def read_optics(data: Any, out: SwitchCounters) -> None:
    """The weakest lane's receive power against the module's thresholds; a port whose optic has
    no DOM (no `parameters`) is not read."""
    for port, entry in _entries(data, "interfaces", OPTICS).items():
        rx = _mapping(_mapping(_mapping(entry).get("parameters")).get("rxPower"))
        where = f"{OPTICS!r}: {port} rxPower"
        lanes = [_dbm(v, f"{where} channel {ch}") for ch, v in _mapping(rx.get("channels")).items()]
        if not lanes:
            continue
        limits = _mapping(rx.get("threshold"))
        warn, alarm = (
            _dbm(limits[k], f"{where} {k}") if limits.get(k) is not None else None
            for k in ("lowWarn", "lowAlarm")
        )
        out.port(port).optic = Optic(min(lanes), warn, alarm)


def read_link_changes(data: Any, out: SwitchCounters) -> None:
    """Line protocol, admin state (`interfaceStatus` `disabled`: shut down, as NAPALM's
    get_interfaces reads it) and link changes of every physical port (one with interface counters)."""
    for port, entry in _entries(data, "interfaces", INTERFACES).items():
        counters = _mapping(_mapping(entry).get("interfaceCounters"))
        if counters:
            out.port(port).up = _mapping(entry).get("lineProtocolStatus") == "up"
            out.port(port).admin_up = _mapping(entry).get("interfaceStatus") != "disabled"
        where = f"{INTERFACES!r}: {port}"
        if "inUcastPkts" in counters:
            out.port(port).rx_packets = count(counters["inUcastPkts"], f"{where} inUcastPkts")
        if "outUcastPkts" in counters:
            out.port(port).tx_packets = count(counters["outUcastPkts"], f"{where} outUcastPkts")
        if "linkStatusChanges" in counters:
            out.port(port).link_changes = count(
                counters["linkStatusChanges"], f"{INTERFACES!r}: {port} linkStatusChanges"
            )


READERS = {
    ERRORS: read_errors,
    DISCARDS: read_discards,
    PFC: read_pfc,
    ECN: read_ecn,
    QUEUES: read_queue_drops,
    OPTICS: read_optics,
    INTERFACES: read_link_changes,
}


def parse(rows: dict[str, Any]) -> SwitchCounters:
    clock = read_clock(rows[SHOW_CLOCK]) if isinstance(rows.get(SHOW_CLOCK), str) else None
    return read_replies(rows, clock, READERS)


COUNTERS = CounterReader(
    probes=(Probe(SHOW_CLOCK, text=True), *(Probe(c, json_command=f"{c} | json") for c in READERS)),
    parse=parse,
    link_commands=(ERRORS, OPTICS, INTERFACES),
    traffic_commands=(INTERFACES,),
)
