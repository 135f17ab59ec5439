"""EOS port counters, from the JSON of the commands Arista's own test framework reads.

Every command and field is one ANTA's tests read (anta.tests.interfaces): VerifyInterfaceErrors
(`show interfaces counters errors`: inErrors, outErrors), VerifyInterfaceDiscards (`... discards`:
inDiscards, outDiscards), VerifyInterfacesPFCCounters (`show priority-flow-control counters`:
rxFrames, txFrames per port), VerifyInterfacesECNCounters (`show qos interfaces ecn counters
queue`: a string count per queue, `-` where the queue does not mark), VerifyInterfacesEgressQueueDrops
(`show interfaces counters queue detail`: droppedPackets per traffic class and drop precedence,
classes reported together as a range `TC0-2`), VerifyInterfacesOpticsReceivePower (`show
interfaces transceiver dom thresholds`: rxPower per channel and its lowWarn / lowAlarm) and
VerifyInterfacesCounterDetails (`show interfaces`: linkStatusChanges). The replies ANTA's
developers record for these tests are in tests/captures/anta; NAPALM's capture of `show
interfaces` in tests/captures/napalm. EOS prints no per-queue sent counts in these, so CNPs are
not read on EOS.
"""

from __future__ import annotations

from typing import Any

from fabricctl.platforms.counters import CounterReader, Optic, SwitchCounters, range_keys
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


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def read_errors(data: Any, out: SwitchCounters) -> None:
    for port, c in _mapping(_mapping(data).get("interfaceErrorCounters")).items():
        out.port(port).errors = _int(c.get("inErrors")) + _int(c.get("outErrors"))


def read_discards(data: Any, out: SwitchCounters) -> None:
    for port, c in _mapping(_mapping(data).get("interfaces")).items():
        out.port(port).discards = _int(c.get("inDiscards")) + _int(c.get("outDiscards"))


def read_pfc(data: Any, out: SwitchCounters) -> None:
    for port, c in _mapping(_mapping(data).get("interfaceCounters")).items():
        out.port(port).pfc = {None: (_int(c.get("rxFrames")), _int(c.get("txFrames")))}


def read_ecn(data: Any, out: SwitchCounters) -> None:
    for port, c in _mapping(_mapping(data).get("intfQueueCounters")).items():
        queues = _mapping(_mapping(c).get("queueCounters"))
        out.port(port).ecn_marked = {int(q): int(n) for q, n in queues.items() if str(n).isdigit()}


def read_queue_drops(data: Any, out: SwitchCounters) -> None:
    """Drops per traffic class, unicast and multicast queues and every drop precedence summed;
    a class the switch reports inside a range counts the range's drops (it cannot tell them apart)."""
    ports = _mapping(_mapping(_mapping(data).get("egressQueueCounters")).get("interfaces"))
    for port, detail in ports.items():
        dropped: dict[int, int] = {}
        for kind in ("ucastQueues", "mcastQueues"):
            classes = _mapping(_mapping(_mapping(detail).get(kind)).get("trafficClasses"))
            for key, tc in classes.items():
                n = sum(
                    _int(_mapping(dp).get("droppedPackets"))
                    for dp in _mapping(_mapping(tc).get("dropPrecedences")).values()
                )
                for number in range_keys(key, "TC"):
                    dropped[number] = dropped.get(number, 0) + n
        out.port(port).queue_dropped = dropped


def read_optics(data: Any, out: SwitchCounters) -> None:
    """The weakest lane's receive power against the module's thresholds; a port whose optic has
    no DOM (no `parameters`) is not read."""
    for port, entry in _mapping(_mapping(data).get("interfaces")).items():
        rx = _mapping(_mapping(_mapping(entry).get("parameters")).get("rxPower"))
        lanes = [float(v) for v in _mapping(rx.get("channels")).values() if isinstance(v, (int, float))]
        if not lanes:
            continue
        limits = _mapping(rx.get("threshold"))
        out.port(port).optic = Optic(min(lanes), limits.get("lowWarn"), limits.get("lowAlarm"))


def read_link_changes(data: Any, out: SwitchCounters) -> None:
    """Line protocol and link changes of every physical port (one with interface counters)."""
    for port, entry in _mapping(_mapping(data).get("interfaces")).items():
        counters = _mapping(_mapping(entry).get("interfaceCounters"))
        if counters:
            out.port(port).up = _mapping(entry).get("lineProtocolStatus") == "up"
        if "linkStatusChanges" in counters:
            out.port(port).link_changes = _int(counters["linkStatusChanges"])


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
    out = SwitchCounters(
        clock=read_clock(rows[SHOW_CLOCK]) if isinstance(rows.get(SHOW_CLOCK), str) else None
    )
    for command, read in READERS.items():
        if command in rows:
            read(rows[command], out)
    return out


COUNTERS = CounterReader(
    probes=(Probe(SHOW_CLOCK, text=True), *(Probe(c, json_command=f"{c} | json") for c in READERS)),
    parse=parse,
    link_commands=(ERRORS, OPTICS, INTERFACES),
)
