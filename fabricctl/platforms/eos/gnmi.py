"""EOS port counters and BGP sessions over gNMI (`management api gnmi`, port 6030): the
OpenConfig paths and Arista's augments that carry what counters.py reads from show commands.

Paths (aristanetworks/yang EOS-4.31.2F, commit 63be023): openconfig-interfaces `state/counters/
in-errors, out-errors, in-discards, out-discards, carrier-transitions`, `state/oper-status` and
`state/admin-status`; arista-intf-augments `ethernet/pfc/priorities/priority[index]/state/
in-frames, out-frames` (summed: EOS's `show priority-flow-control counters` counts per port);
openconfig-qos egress queue `dropped-pkts` and arista-qos-augments `ecn-marked-pkts`;
openconfig-platform-transceiver `physical-channels/channel/state/input-power/instant`,
`thresholds/threshold[severity]/state/input-power-lower` (WARNING: the low warning, CRITICAL:
the low alarm) and the interface's `state/transceiver`; openconfig-network-instance 4.2.2 with
openconfig-bgp 9.5.0 `.../bgp/neighbors/neighbor[neighbor-address]/state/session-state` (the
sessions `show ip bgp summary` and `show bgp evpn summary` list). Per-queue transmit counts are
not read, as the CLI reader has none: the two readers give the same series.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fabricctl.platforms.counters import SwitchCounters
from fabricctl.platforms.gnmi import (
    PORT_COUNTERS,
    PORT_STATE,
    RX_POWER,
    RX_THRESHOLDS,
    SESSION_STATE,
    GnmiCounters,
    OpenConfig,
    Path,
    count,
    key,
    names,
)

_IF = ("interfaces", "interface")
_QUEUE = ("qos", "interfaces", "interface", "output", "queues", "queue")


def parse(leaves: Mapping[Path, Any]) -> SwitchCounters:
    out = SwitchCounters()
    oc = OpenConfig(sessions=True)
    pfc: dict[str, list[int]] = {}
    for path, value in leaves.items():
        if oc.take(path, value):
            continue
        n = names(path)
        if (
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
        elif n[:6] == _QUEUE and n[6:] in (("state", "dropped-pkts"), ("state", "ecn-marked-pkts")):
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
    oc.into(out)
    for port, (received, sent) in pfc.items():
        out.port(port).pfc = {None: (received, sent)}
    return out


GNMI = GnmiCounters(
    port=6030,
    sampled=(  # the leaves parse reads, and no others: a sample is as small as the CLI's read
        *PORT_COUNTERS,
        "/interfaces/interface[name=*]/ethernet/pfc/priorities/priority[index=*]/state/in-frames",
        "/interfaces/interface[name=*]/ethernet/pfc/priorities/priority[index=*]/state/out-frames",
        "/qos/interfaces/interface[interface-id=*]/output/queues/queue[name=*]/state/dropped-pkts",
        "/qos/interfaces/interface[interface-id=*]/output/queues/queue[name=*]/state/ecn-marked-pkts",
        RX_POWER,
        RX_THRESHOLDS,
    ),
    on_change=(*PORT_STATE, *SESSION_STATE),
    encoding="JSON",
    parse=parse,
)
