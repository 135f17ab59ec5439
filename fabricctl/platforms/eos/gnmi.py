"""EOS port counters over gNMI (`management api gnmi`, port 6030): the OpenConfig paths and
Arista's augments that carry what counters.py reads from show commands.

Paths (aristanetworks/yang EOS-4.31.2F): openconfig-interfaces `state/counters/in-errors,
out-errors, in-discards, out-discards, carrier-transitions` and `state/oper-status`;
arista-intf-augments `ethernet/pfc/priorities/priority[index]/state/in-frames, out-frames`
(summed: EOS's `show priority-flow-control counters` counts per port); openconfig-qos egress
queue `dropped-pkts` and arista-qos-augments `ecn-marked-pkts`; openconfig-platform-transceiver
`physical-channels/channel/state/input-power/instant` and `thresholds/threshold[severity]/state/
input-power-lower` (WARNING: the low warning, CRITICAL: the low alarm). Per-queue transmit counts
are not read, as the CLI reader has none: the two readers give the same series.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fabricctl.platforms.counters import Optic, SwitchCounters
from fabricctl.platforms.gnmi import GnmiCounters, Path, count, decimal, key, names, text

_IF = ("interfaces", "interface")
_COUNTERS = {"in-errors", "out-errors", "in-discards", "out-discards", "carrier-transitions"}


def parse(leaves: Mapping[Path, Any]) -> SwitchCounters:
    out = SwitchCounters()
    errors: dict[str, dict[str, int]] = {}
    pfc: dict[str, list[int]] = {}
    lanes: dict[str, list[float]] = {}
    floors: dict[str, dict[str, float]] = {}
    for path, value in leaves.items():
        n = names(path)
        if n[:2] == _IF and n[2:4] == ("state", "counters") and len(n) == 5 and n[4] in _COUNTERS:
            errors.setdefault(key(path, 1, "name"), {})[n[4]] = count(path, value)
        elif n[:2] == _IF and n[2:] == ("state", "oper-status"):
            port = key(path, 1, "name")
            out.port(port).up = text(path, value, ("UP", "DOWN", "LOWER_LAYER_DOWN", "NOT_PRESENT")) == "UP"
        elif (
            n[:2] == _IF
            and n[2:5] == ("ethernet", "pfc", "priorities")
            and n[6:]
            in (
                ("state", "in-frames"),
                ("state", "out-frames"),
            )
        ):
            sums = pfc.setdefault(key(path, 1, "name"), [0, 0])
            sums[n[7] == "out-frames"] += count(path, value)
        elif n[:6] == ("qos", "interfaces", "interface", "output", "queues", "queue") and n[6:] in (
            ("state", "dropped-pkts"),
            ("state", "ecn-marked-pkts"),
        ):
            port, queue = key(path, 2, "interface-id"), int(key(path, 5, "name"))
            c = out.port(port)
            into = c.queue_dropped if n[7] == "dropped-pkts" else c.ecn_marked
            if into is None:
                into = {}
                if n[7] == "dropped-pkts":
                    c.queue_dropped = into
                else:
                    c.ecn_marked = into
            into[queue] = count(path, value)
        elif n[:3] == ("components", "component", "transceiver"):
            port = key(path, 1, "name")
            if n[3:] == ("physical-channels", "channel", "state", "input-power", "instant"):
                lanes.setdefault(port, []).append(decimal(path, value))
            elif n[3:] == ("thresholds", "threshold", "state", "input-power-lower"):
                floors.setdefault(port, {})[key(path, 4, "severity")] = decimal(path, value)
    for port, got in errors.items():
        p = out.port(port)
        if "in-errors" in got and "out-errors" in got:
            p.errors = got["in-errors"] + got["out-errors"]
        if "in-discards" in got and "out-discards" in got:
            p.discards = got["in-discards"] + got["out-discards"]
        if "carrier-transitions" in got:
            p.link_changes = got["carrier-transitions"]
    for port, (received, sent) in pfc.items():
        out.port(port).pfc = {None: (received, sent)}
    for port, rx in lanes.items():
        limits = floors.get(port, {})
        out.port(port).optic = Optic(min(rx), limits.get("WARNING"), limits.get("CRITICAL"))
    return out


GNMI = GnmiCounters(
    port=6030,
    sampled=(  # the leaves parse reads, and no others: a sample is as small as the CLI's read
        *(f"/interfaces/interface[name=*]/state/counters/{leaf}" for leaf in sorted(_COUNTERS)),
        "/interfaces/interface[name=*]/ethernet/pfc/priorities/priority[index=*]/state/in-frames",
        "/interfaces/interface[name=*]/ethernet/pfc/priorities/priority[index=*]/state/out-frames",
        "/qos/interfaces/interface[interface-id=*]/output/queues/queue[name=*]/state/dropped-pkts",
        "/qos/interfaces/interface[interface-id=*]/output/queues/queue[name=*]/state/ecn-marked-pkts",
        "/components/component[name=*]/transceiver/physical-channels/channel[index=*]/state/input-power/instant",
        "/components/component[name=*]/transceiver/thresholds/threshold[severity=*]/state/input-power-lower",
    ),
    on_change=("/interfaces/interface[name=*]/state/oper-status",),
    encoding="JSON",
    parse=parse,
)
