"""Cumulus Linux's gNMI target (`nv set system gnmi-server`, port 9339 on a switch), as NVIDIA's
user guide documents it: CumulusNetworks/docs (commit 1b78c09)
`content/cumulus-linux-517/Monitoring-and-Troubleshooting/gNMI Streaming.md`.

- RPC methods: Capabilities and Subscribe (STREAM with sample_interval, updates_only,
  suppress_redundant, heartbeat_interval; ON_CHANGE); "Cumulus Linux does not support GET or
  SET RPC events"; the minimum sampling interval is 1 second; Protobuf and JSON encodings (the
  Capabilities example: gNMI version 0.10.0, JSON, JSON_IETF, PROTO); origins are ignored.
- Credentials: "gNMI subscription requests must include the user authentication credentials",
  as HTTP basic authentication or gRPC metadata.
- Metrics, tab Interface: `/interfaces/interface[name]/state/oper-status`, `admin-status`,
  `last-change`, `counters/in-errors|out-errors|in-discards|out-discards|in-octets|out-octets|
  in-pkts|out-pkts|carrier-transitions`, `ethernet/state/counters/in-fcs-errors`; tab QoS:
  `/qos/interfaces/interface[interface-id]/switch-priority[priority]/state/counters/
  in-pause-pkts|out-pause-pkts|in-discards`, `/qos/interfaces/interface[interface-id]/output/
  queues/queue[name]/state/ecn-marked-pkts|transmit-pkts|no-buffer-uc-dropped-pkts|
  wred-dropped-pkts` ("If the ECN counter is not enabled, the counter value is 0").
- Metrics, tab Platform: `/components/component[name]/transceiver/physical-channels/
  channel[index]/state/input-power/instant` (no threshold path); the interface's
  `state/transceiver` names its module. Tab Routing: `/network-instances/network-instance[name]/
  protocols/protocol[identifier][name]/bgp/neighbors/neighbor[neighbor-address]/state/
  session-state`.
- The guide lists the models without versions, so Capabilities gives none.

Values are the ones `nv show interface <swp> link stats`, `counters qos pfc-stats`,
`counters qos egress-queue-stats` (lab/devices/nvue/show.py), `nv show platform transceiver`
(show_platform.py) and `nv show vrf default router bgp neighbor` print at the same lab time; the
queue a congested port marks in is its lossless (no-drop) class.
"""

from __future__ import annotations

from fabricctl.lab.devices.nvue.show import PRIORITIES, egress_queue_stats, link_stats, pfc_stats
from fabricctl.lab.devices.nvue.show_platform import LANES, modules
from fabricctl.lab.gnmi.model import (
    OC_XCVR,
    GnmiTarget,
    Leaves,
    Model,
    bgp_neighbors,
    elem,
    interface,
    interface_state,
    last_change,
    qos_queue,
    transceiver,
    under,
)
from fabricctl.lab.traffic import port_traffic
from fabricctl.lab.view import View

OC_IF = "openconfig-interfaces"
OC_ETH = "openconfig-if-ethernet"
OC_QOS = "openconfig-qos"


def leaves(view: View, roots: frozenset[str]) -> Leaves:
    out: Leaves = {}
    every = not roots
    held = set(modules(view))  # the cabled ports: each holds an optic
    if every or "components" in roots:
        for name in sorted(held):
            transceiver(out, name, port_traffic(view.state, view.name, name, view.now).rx_dbm, LANES)
    if every or "network-instances" in roots:
        bgp_neighbors(view, out)
    for name, port in view.facts.ports.items():
        if not name.startswith("swp"):
            continue
        t = port_traffic(view.state, view.name, name, view.now)
        if every or "interfaces" in roots:
            base = interface(name)
            up = view.state.oper_up(view.name, name)
            state = interface_state(out, name, up, port.admin_up, last_change(view, name, t.last_flap))
            stats = link_stats(view, name)
            for leaf, key in (
                ("in-octets", "in-bytes"),
                ("in-pkts", "in-pkts"),
                ("in-discards", "in-drops"),
                ("in-errors", "in-errors"),
                ("out-octets", "out-bytes"),
                ("out-pkts", "out-pkts"),
                ("out-discards", "out-drops"),
                ("out-errors", "out-errors"),
                ("carrier-transitions", "carrier-transitions"),
            ):
                out[under(state, "counters", leaf)] = (OC_IF, int(stats[key]))
            out[under(base, "ethernet", "state", "counters", "in-fcs-errors")] = (OC_ETH, t.fcs_errors)
            if name in held:
                out[under(state, "transceiver")] = (OC_XCVR, name)
        if every or "qos" in roots:
            qos = (elem("qos"), elem("interfaces"), elem("interface", **{"interface-id": name}))
            for prio, counts in pfc_stats(view, name).items():
                counters = (*qos, elem("switch-priority", priority=prio), elem("state"), elem("counters"))
                out[under(counters, "in-pause-pkts")] = (OC_QOS, int(counts["rx-pause-frames"]))
                out[under(counters, "out-pause-pkts")] = (OC_QOS, int(counts["tx-pause-frames"]))
                out[under(counters, "in-discards")] = (OC_QOS, 0)
            queues = egress_queue_stats(view, name)
            marking = port.no_drop[0] if port.no_drop else None
            for tc in PRIORITIES:
                q = queues[str(tc)]
                state = qos_queue(name, tc)
                out[under(state, "name")] = (OC_QOS, str(tc))
                out[under(state, "transmit-pkts")] = (OC_QOS, int(q["tx-frames"]))
                out[under(state, "no-buffer-uc-dropped-pkts")] = (OC_QOS, int(q["tx-uc-buffer-discards"]))
                out[under(state, "wred-dropped-pkts")] = (OC_QOS, int(q["wred-discards"]))
                out[under(state, "ecn-marked-pkts")] = (OC_QOS, t.ecn_marked if tc == marking else 0)
    return out


TARGET = GnmiTarget(
    gnmi_version="0.10.0",
    models=(
        Model("openconfig-interfaces", "OpenConfig working group"),
        Model("openconfig-if-ethernet", "OpenConfig working group"),
        Model("openconfig-qos", "OpenConfig working group"),
        Model("openconfig-platform", "OpenConfig working group"),
        Model("openconfig-platform-transceiver", "OpenConfig working group"),
        Model("openconfig-network-instance", "OpenConfig working group"),
        Model("openconfig-bgp", "OpenConfig working group"),
    ),
    encodings=("JSON", "JSON_IETF", "PROTO"),
    leaves=leaves,
    trees=frozenset({"interfaces", "qos", "components", "network-instances"}),
    get=False,
    once_and_poll=False,
    min_sample_seconds=1.0,
)
