"""Cumulus Linux port counters over gNMI (`nv set system gnmi-server`, port 9339): the QoS paths
NVIDIA's user guide lists (CumulusNetworks/docs, content/cumulus-linux-517/Monitoring-and-
Troubleshooting/gNMI Streaming.md, Metrics > QoS) for what counters.py reads from `nv show
interface qos-roce-counters`: pause packets of the lossless switch priority, ECN marks and
no-buffer drops of the lossless queue, CNPs sent and dropped on the CNP queue, and ingress
discards per switch priority. Cumulus Linux serves no Get: counters are only subscribed to.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fabricctl.platforms.counters import SwitchCounters
from fabricctl.platforms.gnmi import GnmiCounters, Path, count, key, names
from fabricctl.platforms.nvue.qos import ROCE_CNP_PRIORITY, ROCE_LOSSLESS_PRIORITY

_QOS = ("qos", "interfaces", "interface")


def parse(leaves: Mapping[Path, Any]) -> SwitchCounters:
    per_port: dict[str, dict[tuple[str, int], int]] = {}
    for path, value in leaves.items():
        n = names(path)
        if n[:3] != _QOS:
            continue
        port = key(path, 2, "interface-id")
        if n[3:] in (
            ("switch-priority", "state", "counters", "in-pause-pkts"),
            ("switch-priority", "state", "counters", "out-pause-pkts"),
            ("switch-priority", "state", "counters", "in-discards"),
        ):
            per_port.setdefault(port, {})[(n[-1], int(key(path, 3, "priority")))] = count(path, value)
        elif n[3:6] == ("output", "queues", "queue") and n[6:] in (
            ("state", "ecn-marked-pkts"),
            ("state", "transmit-pkts"),
            ("state", "no-buffer-uc-dropped-pkts"),
        ):
            per_port.setdefault(port, {})[(n[-1], int(key(path, 5, "name")))] = count(path, value)
    out = SwitchCounters()
    lossless, cnp = ROCE_LOSSLESS_PRIORITY, ROCE_CNP_PRIORITY
    for port, got in per_port.items():
        c = out.port(port)
        rx, tx = got.get(("in-pause-pkts", lossless)), got.get(("out-pause-pkts", lossless))
        if rx is not None and tx is not None:
            c.pfc = {lossless: (rx, tx)}
        if ("ecn-marked-pkts", lossless) in got:
            c.ecn_marked = {lossless: got[("ecn-marked-pkts", lossless)]}
        if ("transmit-pkts", cnp) in got:
            c.queue_sent = {cnp: got[("transmit-pkts", cnp)]}
        dropped = {
            q: got[("no-buffer-uc-dropped-pkts", q)]
            for q in (lossless, cnp)
            if ("no-buffer-uc-dropped-pkts", q) in got
        }
        if dropped:
            c.queue_dropped = dropped
        ingress = [n for (leaf, _), n in got.items() if leaf == "in-discards"]
        if ingress:
            c.discards = sum(ingress) + sum(dropped.values())
    return out


GNMI = GnmiCounters(
    port=9339,
    sampled=(  # the leaves parse reads, and no others
        *(
            f"/qos/interfaces/interface[interface-id=*]/switch-priority[priority=*]/state/counters/{leaf}"
            for leaf in ("in-pause-pkts", "out-pause-pkts", "in-discards")
        ),
        *(
            f"/qos/interfaces/interface[interface-id=*]/output/queues/queue[name=*]/state/{leaf}"
            for leaf in ("ecn-marked-pkts", "transmit-pkts", "no-buffer-uc-dropped-pkts")
        ),
    ),
    on_change=(),  # the CLI reader reads no port state on Cumulus Linux: neither does this one
    encoding="PROTO",
    parse=parse,
)
