"""EOS `show` commands about switching: spanning tree, port-channels and LACP, storm control,
and the VLANs EOS allocates itself (internal and dynamic).

Spanning tree is EOS's default, MSTP with every VLAN in the CIST (instance 0). In this fabric
its only ports are the bridged GPU ports of a leaf, whose NICs send no BPDUs: each switch is the
root of its own CIST and every up bridged port is a designated, forwarding edge of it; the routed
ports sit outside spanning tree (EOS's `NoStp` topology). JSON keys and shapes as Arista's ANTA
developers record them (tests/units/anta_tests/test_stp.py of aristanetworks/anta).
"""

from __future__ import annotations

import re
from typing import Any

from fabricctl.lab.devices.eos.names import INTERFACE_TYPES
from fabricctl.lab.devices.eos.show import system_mac
from fabricctl.lab.names import short
from fabricctl.lab.ports import PortState
from fabricctl.lab.traffic import port_traffic
from fabricctl.lab.view import Shown, View, registry
from fabricctl.macs import mac_as

SHOWS, show = registry()

PRIORITY = 32768  # the bridge priority EOS starts with
HELLO, MAX_AGE, FORWARD_DELAY = 2.0, 20, 15
PORT_COST_400G = 50  # IEEE 802.1t path cost of a 400 Gb/s port: 20,000,000,000 / 400,000,000 kb/s


def _bridged(view: View) -> list[PortState]:
    """The up bridged front-panel ports: spanning tree's ports."""
    return [s for s in view.ports if s.name.startswith("Ethernet") and not s.routed and s.oper_up]


def _vlans(view: View) -> list[int]:
    return sorted({1, *(int(k[1]) for k in view.facts.segment_names if k[0] == "vlan")})


def _bridge(view: View) -> dict[str, Any]:
    return {
        "priority": PRIORITY,
        "systemIdExtension": 0,
        "macAddress": system_mac(view),
        "helloTime": HELLO,
        "maxAge": MAX_AGE,
        "forwardDelay": FORWARD_DELAY,
    }


def _port(s: PortState) -> dict[str, Any]:
    number = int(s.name.removeprefix("Ethernet").split("/")[0])
    return {
        "state": "forwarding",
        "role": "designated",
        "priority": 128,
        "portNumber": number,
        "cost": PORT_COST_400G,
        "linkType": "p2p",
        "isEdgePort": False,
        "boundaryType": "none",
        "inconsistentFeatures": {},
    }


def _instance_text(view: View, name: str) -> str:
    mac = mac_as(system_mac(view), "MAC_DOT_FOUR")
    rows = [
        name,
        "  Spanning tree enabled protocol mstp",
        f"  Root ID    Priority    {PRIORITY}",
        f"             Address     {mac}",
        "             This bridge is the root",
        "",
        f"  Bridge ID  Priority    {PRIORITY}  (priority {PRIORITY} sys-id-ext 0)",
        f"             Address     {mac}",
        f"             Hello Time  {HELLO:.3f} sec  Max Age {MAX_AGE} sec  Forward Delay {FORWARD_DELAY} sec",
        "",
        "Interface        Role       State      Cost      Prio.Nbr Type",
        "---------------- ---------- ---------- --------- -------- --------------------",
    ]
    for s in _bridged(view):
        p = _port(s)
        rows.append(
            f"{short(INTERFACE_TYPES, s.name):<16} designated forwarding {PORT_COST_400G:<9} 128.{p['portNumber']:<4} P2p"
        )
    return "\n".join(rows)


@show(r"show spanning-tree(?: (?P<detail>detail))?")
def spanning_tree(view: View, m: re.Match[str]) -> Shown:
    data = {
        "MST0": {
            "protocol": "mstp",
            "bridge": _bridge(view),
            "rootBridge": _bridge(view),
            "interfaces": {s.name: _port(s) for s in _bridged(view)},
        }
    }
    return _instance_text(view, "MST0"), {"spanningTreeInstances": data}


@show(r"show spanning-tree vlan (?P<vlans>[\d,-]+)(?: (?P<detail>detail))?")
def spanning_tree_vlan(view: View, m: re.Match[str]) -> Shown:
    """Per VLAN: the instance that carries it (the CIST, every VLAN in MSTP's default region)."""
    wanted = [v for v in _expand(m["vlans"]) if v in _vlans(view)]
    data = {
        str(v): {
            "spanningTreeVlanInstance": {
                "protocol": "mstp",
                "bridge": {**_bridge(view), "systemIdExtension": 0},
                "rootBridge": _bridge(view),
                "interfaces": {s.name: _port(s) for s in _bridged(view) if _in_vlan(view, s, v)},
            }
        }
        for v in wanted
    }
    text = "\n\n".join(_instance_text(view, f"VL{v:04d} (MST0)") for v in wanted)
    return text, {"spanningTreeVlanInstances": data}


def _in_vlan(view: View, s: PortState, vlan: int) -> bool:
    port = view.facts.ports.get(s.name)
    return port is not None and port.segment == ("vlan", str(vlan))


def _expand(spec: str) -> list[int]:
    out: list[int] = []
    for part in spec.split(","):
        low, _, high = part.partition("-")
        out += list(range(int(low), int(high or low) + 1))
    return out


@show(r"show spanning-tree vlan detail")
def spanning_tree_vlan_detail(view: View, m: re.Match[str]) -> Shown:
    """Every VLAN spanning tree runs on (none disabled)."""
    data = {
        str(v): {
            "spanningTreeVlanInstance": {
                "protocol": "mstp",
                "bridge": _bridge(view),
                "rootBridge": _bridge(view),
            }
        }
        for v in _vlans(view)
    }
    return "\n\n".join(_instance_text(view, f"VL{v:04d}") for v in _vlans(view)), {
        "spanningTreeVlanInstances": data
    }


@show(r"show spanning-tree blockedports")
def blocked_ports(view: View, m: re.Match[str]) -> Shown:
    return "", {"spanningTreeInstances": {}}


@show(r"show spanning-tree counters")
def counters(view: View, m: re.Match[str]) -> Shown:
    """BPDUs a designated port sends every hello time since its link came up; none come back."""
    rows = [
        "Port            Sent      Received     Tagged Error  Other Error  sinceTimer",
        "-------------- --------- ------------ ------------- ------------ -----------",
    ]
    data = {}
    for s in _bridged(view):
        sent = int(view.uptime // HELLO)
        rows.append(f"{s.name:<15} {sent:<9} {0:<12} {0:<13} {0:<12} {0}")
        data[s.name] = {
            "bpduSent": sent,
            "bpduReceived": 0,
            "bpduTaggedError": 0,
            "bpduOtherError": 0,
            "bpduRateLimitCount": 0,
        }
    return "\n".join(rows), {"interfaces": data}


@show(r"show spanning-tree root(?: (?P<detail>detail))?")
def root(view: View, m: re.Match[str]) -> Shown:
    mac = mac_as(system_mac(view), "MAC_DOT_FOUR")
    rows = [
        "                                        Root       Hello Max Fwd",
        "Instance         Root ID                Cost       Time  Age Dly  Root Port",
        "---------------- ---------------------- ---------- ----- --- ---  ----------",
        f"MST0             {PRIORITY} {mac}    0          2     20  15   None",
    ]
    return "\n".join(rows), {"instances": {"MST0": {"rootBridge": _bridge(view)}}}


def _topology(view: View, detail: bool, vlan: int | None) -> dict[str, Any]:
    boot = view.calendar - view.uptime

    def entry(s: PortState) -> dict[str, Any]:
        out: dict[str, Any] = {"state": "forwarding"}
        if detail:
            changes = port_traffic(view.state, view.name, s.name, view.now).link_changes
            out |= {"numChanges": max(changes, 1), "lastChange": boot}
        return out

    bridged = [s for s in _bridged(view) if vlan is None or _in_vlan(view, s, vlan)]
    cist: dict[str, Any] = {"vlans": _vlans(view) if vlan is None else [vlan], "interfaces": {}}
    cist["interfaces"]["Cpu"] = {"state": "forwarding"} | (
        {"numChanges": 1, "lastChange": boot} if detail else {}
    )
    cist["interfaces"] |= {s.name: entry(s) for s in bridged}
    topologies = {"Cist": cist}
    if vlan is None:
        routed = [s for s in view.ports if s.name.startswith("Ethernet") and s.routed and s.oper_up]
        topologies["NoStp"] = {"vlans": [], "interfaces": {s.name: entry(s) for s in routed}}
    return {"unmappedVlans": [], "topologies": topologies}


@show(r"show spanning-tree topology(?: vlan (?P<vlan>\d+))? status(?: (?P<detail>detail))?")
def topology(view: View, m: re.Match[str]) -> Shown:
    data = _topology(view, bool(m["detail"]), int(m["vlan"]) if m["vlan"] else None)
    rows = []
    for name, topo in data["topologies"].items():
        rows += [f"Topology: {name}", f"Vlans: {','.join(str(v) for v in topo['vlans'])}"]
        rows += [f"  {port:<16} {e['state']}" for port, e in topo["interfaces"].items()]
    return "\n".join(rows), data


# --- port-channels, LACP, storm control ---------------------------------------------------------


_PO_FLAGS = """Flags
--------------------------- -------------------------------- -------------------------
   a - LACP Active             p - LACP Passive              * - static fallback
   F - Fallback enabled        f - Fallback configured       ^ - individual fallback
   U - In Use                  D - Down
   + - In-Sync                 - - Out-of-Sync               i - incompatible with agg
   P - bundled in Po           s - suspended                 G - Aggregable
   I - Individual              S - ShortTimeout              w - wait for agg
   C - Transmit disabled       M - Exceeds maximum weight
  E - Inactive. The number of configured port channels exceeds the config limit

Number of channels in use: 0
Number of aggregators: 0

   Port-Channel       Protocol    Ports
------------------ -------------- -----"""


@show(r"show port-channel(?: (?P<what>summary|dense|detailed))?")
def port_channels(view: View, m: re.Match[str]) -> Shown:
    """No port-channel: this fabric's links are routed /31s, its GPU ports single links (the
    summary as real EOS output prints none, ntc-templates' arista_eos capture)."""
    return (_PO_FLAGS if m["what"] in ("summary", "dense") else ""), {"portChannels": {}}


@show(r"show lacp counters(?: all-ports)?")
def lacp_counters(view: View, m: re.Match[str]) -> Shown:
    return "", {"portChannels": {}, "orphanPorts": {}}


@show(r"show lacp interface(?: (?P<detail>detailed))?")
def lacp_interfaces(view: View, m: re.Match[str]) -> Shown:
    return "", {"portChannels": {}, "orphanPorts": {}}


@show(r"show storm-control")
def storm_control(view: View, m: re.Match[str]) -> Shown:
    """No port limits broadcast, multicast or unknown unicast."""
    return "", {"aggregateTrafficClasses": {}, "interfaces": {}}


# --- VLANs EOS allocates itself -------------------------------------------------------------------


@show(r"show vlan internal allocation policy")
def internal_policy(view: View, m: re.Match[str]) -> Shown:
    """EOS's default: internal VLANs (one per routed port) taken ascending from 1006."""
    text = "Internal VLAN Allocation Policy: ascending\nInternal VLAN Allocation Range: 1006-4094"
    return text, {"policy": "ascending", "startVlanId": 1006, "endVlanId": 4094}


@show(r"show vlan dynamic")
def dynamic_vlans(view: View, m: re.Match[str]) -> Shown:
    """The VLANs EVPN took for the VRFs' VNIs (the ones `show vxlan vni` maps), by source."""
    vrfs = sorted(v for v, k in view.facts.vnis.items() if k[0] == "vrf")
    ids = [4094 - i for i in range(len(vrfs))]
    rows = ["Dynamic VLAN source          VLANS", "---------------------------- -----"]
    if ids:
        rows.append(f"{'evpn':<28} {','.join(str(v) for v in ids)}")
    return "\n".join(rows), {"dynamicVlans": {"evpn": {"vlanIds": ids}} if ids else {}}
