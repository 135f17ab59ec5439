"""Cumulus Linux port counters and BGP sessions over gNMI (`nv set system gnmi-server`, port
9339), from the metrics NVIDIA's user guide lists (CumulusNetworks/docs commit 1b78c09,
content/cumulus-linux-517/Monitoring-and-Troubleshooting/gNMI Streaming.md, Metrics) for what
counters.py reads from `nv show interface`, `nv show interface qos-roce-counters` and `nv show
platform transceiver`, and the health reader from `nv show vrf default router bgp neighbor`:

- tab Interface: `/interfaces/interface[name]/state/admin-status`, `oper-status`,
  `transceiver` and `counters/in-errors|out-errors|in-discards|out-discards|carrier-transitions`
  (`nv show interface`'s link state and `stats`);
- tab QoS: `/qos/interfaces/interface[interface-id]/switch-priority[priority]/state/counters/
  in-pause-pkts|out-pause-pkts` and `output/queues/queue[name]/state/ecn-marked-pkts|
  transmit-pkts|no-buffer-uc-dropped-pkts` (pause packets of the lossless switch priority, ECN
  marks and no-buffer drops of the lossless queue, CNPs sent and dropped on the CNP queue);
- tab Platform: `/components/component[name]/transceiver/physical-channels/channel[index]/state/
  input-power/instant` (each lane's receive power);
- tab Routing: `/network-instances/network-instance[name]/protocols/protocol[identifier][name]/
  bgp/neighbors/neighbor[neighbor-address]/state/session-state`.

Not read: the transceiver's receive-power thresholds. The guide lists no threshold path (no
`thresholds/threshold[severity]/state/input-power-lower`), so a streamed switch gives its optics'
power and no floor: `fabricctl_optic_rx_low_threshold_dbm` is absent for it, never a guessed value.
Cumulus Linux serves no Get: counters are only subscribed to.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fabricctl.platforms.counters import SwitchCounters
from fabricctl.platforms.gnmi import (
    PORT_COUNTERS,
    PORT_STATE,
    RX_POWER,
    SESSION_STATE,
    GnmiCounters,
    OpenConfig,
    Path,
    count,
    key,
    names,
)
from fabricctl.platforms.nvue.qos import ROCE_CNP_PRIORITY, ROCE_LOSSLESS_PRIORITY

_QOS = ("qos", "interfaces", "interface")


def parse(leaves: Mapping[Path, Any]) -> SwitchCounters:
    out = SwitchCounters()
    oc = OpenConfig(sessions=True)
    per_port: dict[str, dict[tuple[str, int], int]] = {}
    for path, value in leaves.items():
        if oc.take(path, value):
            continue
        n = names(path)
        if n[:3] != _QOS:
            continue
        port = key(path, 2, "interface-id")
        if n[3:] in (
            ("switch-priority", "state", "counters", "in-pause-pkts"),
            ("switch-priority", "state", "counters", "out-pause-pkts"),
        ):
            per_port.setdefault(port, {})[(n[-1], int(key(path, 3, "priority")))] = count(path, value)
        elif n[3:6] == ("output", "queues", "queue") and n[6:] in (
            ("state", "ecn-marked-pkts"),
            ("state", "transmit-pkts"),
            ("state", "no-buffer-uc-dropped-pkts"),
        ):
            per_port.setdefault(port, {})[(n[-1], int(key(path, 5, "name")))] = count(path, value)
    oc.into(out)
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
    return out


_NO_THRESHOLDS = "NVIDIA's gNMI metrics list no transceiver threshold path (tab Platform)"

GNMI = GnmiCounters(
    port=9339,
    sampled=(  # the leaves parse reads, and no others
        *PORT_COUNTERS,
        *(
            f"/qos/interfaces/interface[interface-id=*]/switch-priority[priority=*]/state/counters/{leaf}"
            for leaf in ("in-pause-pkts", "out-pause-pkts")
        ),
        *(
            f"/qos/interfaces/interface[interface-id=*]/output/queues/queue[name=*]/state/{leaf}"
            for leaf in ("ecn-marked-pkts", "transmit-pkts", "no-buffer-uc-dropped-pkts")
        ),
        RX_POWER,
    ),
    on_change=(*PORT_STATE, *SESSION_STATE),
    encoding="PROTO",
    parse=parse,
    unread=(("optic.rx_low_warn", _NO_THRESHOLDS), ("optic.rx_low_alarm", _NO_THRESHOLDS)),
)
