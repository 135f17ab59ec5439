"""EOS's gNMI target (`management api gnmi`, port 6030 on a switch): OpenConfig with Arista's
augments, from the models Arista publishes for the lab's release.

Sources: aristanetworks/yang, folder EOS-4.31.2F (commit 63be023): openconfig-interfaces
(interface state and counters), openconfig-if-ethernet, openconfig-qos (egress queue
transmit-pkts and dropped-pkts), openconfig-platform-transceiver (physical-channels input-power,
thresholds by severity), openconfig-network-instance 4.2.2 with openconfig-bgp 9.5.0 (a BGP
neighbor's `state/session-state`), arista-intf-augments 1.7.3 (`ethernet/pfc/priorities/priority[index]/
state/in-frames|out-frames`: PFC frames per priority) and arista-qos-augments 0.0.4
(`ecn-marked-pkts` on an egress queue's state). A cEOS 4.34 capture of Capabilities (gNMI
0.7.0; JSON, JSON_IETF, ASCII), Get in JSON_IETF (counters as strings, `last-change` in
nanoseconds) and Subscribe (UchihaItachiSama/openconfig_labs demos/gNMI-demo/README.md) shows the
shapes. EOS's native paths (origin `eos_native`: Sysdb, Smash) need `provider eos-native` under
`management api gnmi`, which the lab's switches do not run.

Every value is the one the show commands print at the same lab time: `show interfaces` for
the interface counters, `show priority-flow-control counters` (EOS counts pauses per port: the
port's count sits on its first no-drop priority), `show qos interfaces ecn counters queue` (a
queue that does not mark has no ecn-marked-pkts, as it prints `-`), `show interfaces counters
queue detail`, `show interfaces transceiver dom thresholds`, and `show ip bgp summary` with
`show bgp evpn summary` for the sessions.
"""

from __future__ import annotations

from fabricctl.lab.devices.eos.show import _counters, _last_change, _optics, _physical
from fabricctl.lab.gnmi.model import (
    OC_XCVR,
    GnmiTarget,
    Leaves,
    Model,
    bgp_neighbors,
    elem,
    interface,
    interface_state,
    nanoseconds,
    qos_queue,
    transceiver,
    under,
)
from fabricctl.lab.traffic import CNP_QUEUE, RX_LOW_ALARM_DBM, RX_LOW_WARN_DBM, port_traffic
from fabricctl.lab.view import View

OC_IF = "openconfig-interfaces"
OC_QOS = "openconfig-qos"
LANES = 8  # the lab's modules: 800G 2xDR4, eight lanes
ARISTA_IF = "arista-intf-augments"
ARISTA_QOS = "arista-qos-augments"


def leaves(view: View, roots: frozenset[str]) -> Leaves:
    out: Leaves = {}
    every = not roots
    if every or "interfaces" in roots:
        _interfaces(view, out)
    if every or "qos" in roots:
        _queues(view, out)
    if every or "components" in roots:
        for s, rx in _optics(view):
            floors = {"WARNING": RX_LOW_WARN_DBM, "CRITICAL": RX_LOW_ALARM_DBM}
            transceiver(out, s.name, rx, LANES, floors)
    if every or "network-instances" in roots:
        bgp_neighbors(view, out)
    return out


def _interfaces(view: View, out: Leaves) -> None:
    for s in _physical(view):
        base = interface(s.name)
        changed = nanoseconds(_last_change(view, s.name))
        state = interface_state(out, s.name, s.oper_up, s.admin_up, changed)
        c = _counters(view, s)
        out[under(state, "description")] = (OC_IF, s.description or "")
        if s.name.startswith("Ethernet") and view.cabled(s.name):
            out[under(state, "transceiver")] = (OC_XCVR, s.name)
        counters = under(state, "counters")
        for leaf, value in (
            ("in-octets", c["inOctets"]),
            ("in-pkts", c["inTotalPkts"]),
            ("in-unicast-pkts", c["inUcastPkts"]),
            ("in-multicast-pkts", c["inMulticastPkts"]),
            ("in-broadcast-pkts", c["inBroadcastPkts"]),
            ("in-discards", c["inDiscards"]),
            ("in-errors", c["totalInErrors"]),
            ("in-fcs-errors", c["inputErrorsDetail"]["fcsErrors"]),
            ("out-octets", c["outOctets"]),
            ("out-pkts", c["outUcastPkts"] + c["outMulticastPkts"] + c["outBroadcastPkts"]),
            ("out-unicast-pkts", c["outUcastPkts"]),
            ("out-multicast-pkts", c["outMulticastPkts"]),
            ("out-broadcast-pkts", c["outBroadcastPkts"]),
            ("out-discards", c["outDiscards"]),
            ("out-errors", c["totalOutErrors"]),
            ("carrier-transitions", c["linkStatusChanges"]),
        ):
            out[(*counters, elem(leaf))] = (OC_IF, int(value))
        pauses = view.state.pauses(view.name, s.name, view.now)
        if pauses is None:
            continue
        first = pauses.priorities[0] if pauses.priorities else None
        for prio in range(8):
            got, gave = (pauses.received, pauses.sent) if prio == first else (0, 0)
            p = (*base, elem("ethernet"), elem("pfc"), elem("priorities"), elem("priority", index=str(prio)))
            out[under(p, "index")] = (ARISTA_IF, prio)
            out[under(p, "state", "index")] = (ARISTA_IF, prio)
            out[under(p, "state", "in-frames")] = (ARISTA_IF, got)
            out[under(p, "state", "out-frames")] = (ARISTA_IF, gave)


def _queues(view: View, out: Leaves) -> None:
    for name, port in view.facts.ports.items():  # the ports `show interfaces counters queue` lists
        if not name.startswith("Ethernet"):
            continue
        t = port_traffic(view.state, view.name, name, view.now)
        for q in range(8):
            state = qos_queue(name, q)
            out[(*state[:-1], elem("name"))] = (OC_QOS, str(q))
            out[under(state, "name")] = (OC_QOS, str(q))
            out[under(state, "transmit-pkts")] = (OC_QOS, t.cnp_sent if q == CNP_QUEUE else 0)
            out[under(state, "dropped-pkts")] = (OC_QOS, t.lossless_dropped if q in port.no_drop else 0)
            if port.pfc and q in port.no_drop:
                out[under(state, "ecn-marked-pkts")] = (ARISTA_QOS, t.ecn_marked)


#: The models of the lab's release that hold what it serves, with the versions Arista's
#: published files for EOS-4.31.2F give (oc-ext:openconfig-version).
TARGET = GnmiTarget(
    gnmi_version="0.7.0",
    models=(
        Model("openconfig-interfaces", "OpenConfig working group", "3.6.0"),
        Model("openconfig-if-ethernet", "OpenConfig working group", "2.13.0"),
        Model("openconfig-qos", "OpenConfig working group", "0.11.2"),
        Model("openconfig-platform", "OpenConfig working group", "0.23.0"),
        Model("openconfig-platform-transceiver", "OpenConfig working group", "0.13.0"),
        Model("openconfig-network-instance", "OpenConfig working group", "4.2.2"),
        Model("openconfig-bgp", "OpenConfig working group", "9.5.0"),
        Model("arista-intf-augments", "Arista Networks <http://arista.com/>", "1.7.3"),
        Model("arista-qos-augments", "Arista Networks, Inc.", "0.0.4"),
    ),
    encodings=("JSON", "JSON_IETF", "ASCII"),
    leaves=leaves,
    trees=frozenset({"interfaces", "qos", "components", "network-instances"}),
    refused_origins={"eos_native": "provider eos-native is not configured under management api gnmi"},
)
