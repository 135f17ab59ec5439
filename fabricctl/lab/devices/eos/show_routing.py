"""EOS `show` commands about routing, L2 tables, VRFs, VXLAN, PFC/ECN counters, ping and access
lists, from the lab's derived state (fabric_state.py: links, sessions; routing.py: routes, ARP,
hosts; BGP is in show_bgp.py). Text and eAPI JSON, as show.py.
"""

from __future__ import annotations

import re
from ipaddress import IPv4Address, IPv4Network
from typing import Any

from fabricctl.lab.devices.eos.names import INTERFACE_TYPES
from fabricctl.lab.devices.eos.show import interface_json, status
from fabricctl.lab.dialect import CliError
from fabricctl.lab.names import canonical, short
from fabricctl.lab.routing import Route
from fabricctl.lab.traffic import port_traffic
from fabricctl.lab.view import Shown, View, registry
from fabricctl.macs import mac_as

#: EOS's administrative distances (`distance bgp` defaults to 200 for every kind of BGP route).
_DISTANCE = {"static": 1, "ebgp": 200, "evpn": 200}
_CODE = {"connected": "C", "static": "S", "ebgp": "B E", "evpn": "B E"}
_ROUTE_TYPE = {"connected": "connected", "static": "static", "ebgp": "eBGP", "evpn": "eBGP"}
SHOWS, show = registry()
_UP = 600.0  # seconds an Established session has been up (the lab's sessions come up at once)


# --- routes ------------------------------------------------------------------------------------------


_CODES = """Codes: C - connected, S - static, K - kernel,
       O - OSPF, IA - OSPF inter area, E1 - OSPF external type 1,
       E2 - OSPF external type 2, N1 - OSPF NSSA external type 1,
       N2 - OSPF NSSA external type2, B - Other BGP Routes,
       B I - iBGP, B E - eBGP, R - RIP, I L1 - IS-IS level 1,
       I L2 - IS-IS level 2, O3 - OSPFv3, A B - BGP Aggregate,
       A O - OSPF Summary, NG - Nexthop Group Static Route,
       V - VXLAN Control Service, M - Martian,
       DH - DHCP client installed default route,
       DP - Dynamic Policy Route, L - VRF Leaked,
       G  - gRIBI, RC - Route Cache Route"""


def _l3vni(view: View, vrf: str) -> int | None:
    return next((v for v, k in view.facts.vnis.items() if k == ("vrf", vrf)), None)


def _route_json(view: View, vrf: str, r: Route) -> dict[str, Any]:
    vias: list[dict[str, str | int]] = []
    for h in r.hops:
        if r.kind == "connected":
            vias.append({"interface": h.interface, "nexthopAddr": ""})
        elif h.vtep is not None:
            vias.append(
                {
                    "nexthopAddr": str(h.vtep),
                    "interface": "Vxlan1",
                    "vtepAddr": str(h.vtep),
                    "vni": _l3vni(view, vrf) or 0,
                    "routerMac": "",
                    "encapType": "vxlan",
                }
            )
        else:
            vias.append({"nexthopAddr": str(h.address), "interface": h.interface})
    return {
        "kernelProgrammed": True,
        "directlyConnected": r.kind == "connected",
        "routeAction": "forward",
        "routeLeaked": False,
        "routeType": _ROUTE_TYPE[r.kind],
        "preference": _DISTANCE.get(r.kind, 0),
        "metric": 0,
        "hardwareProgrammed": True,
        "vias": vias,
    }


def _route_text(r: Route) -> list[str]:
    code = _CODE[r.kind]
    if r.kind == "connected":
        return [f" {code:<6} {r.prefix} is directly connected, {r.hops[0].interface}"]
    lines = []
    for i, h in enumerate(r.hops):
        via = f"via VTEP {h.vtep} VNI" if h.vtep is not None else f"via {h.address}, {h.interface}"
        if i == 0:
            head = f" {code:<6} {r.prefix} [{_DISTANCE[r.kind]}/0]"
            lines.append(f"{head} {via}")
        else:
            lines.append(" " * (len(head) + 1) + via)
    return lines


def _route_tables(
    view: View, vrfs: list[str], prefix: str | None, kind: str | None
) -> dict[str, dict[IPv4Network, Route]]:
    ribs = view.routing.routes(view.name)
    out = {}
    for vrf in vrfs:
        table = ribs.get(vrf, {})
        if prefix is not None:
            net = IPv4Network(prefix, strict=False)
            if "/" in prefix:
                table = {p: r for p, r in table.items() if p == net}
            else:
                hit = view.routing.lookup(view.name, vrf, IPv4Address(prefix))
                table = {hit.prefix: hit} if hit else {}
        if kind is not None:
            table = {p: r for p, r in table.items() if _ROUTE_TYPE[r.kind].lower().endswith(kind)}
        out[vrf] = dict(sorted(table.items(), key=lambda x: (int(x[0].network_address), x[0].prefixlen)))
    return out


def _route_vrfs(view: View, vrf: str | None) -> list[str]:
    known = list(view.routing.routes(view.name))
    if vrf is None:
        return ["default"]
    if vrf == "all":
        return ["default", *sorted(v for v in known if v != "default")]
    if vrf not in known:
        raise CliError(
            f"% IP Routing table for VRF {vrf} does not exist.",
            eapi=f"IP Routing table for VRF {vrf} does not exist.",
        )
    return [vrf]


@show(
    r"show ip route(?: vrf (?P<vrf>\S+))?(?: (?P<prefix>\d+\.\d+\.\d+\.\d+(?:/\d+)?))?(?: (?P<longer>longer-prefixes))?"
    r"(?: (?P<kind>bgp|connected|static))?(?: (?P<detail>detail))?"
)
def ip_route(view: View, m: re.Match[str]) -> Shown:
    vrfs = _route_vrfs(view, m["vrf"])
    tables = _route_tables(view, vrfs, m["prefix"], m["kind"])
    texts, data = [], {}
    for vrf, table in tables.items():
        default = table.get(IPv4Network("0.0.0.0/0"))
        lines = [f"VRF: {vrf}", _CODES, ""]
        if default is not None and default.hops[0].address is not None:
            lines.append(f"Gateway of last resort is {default.hops[0].address} to network 0.0.0.0")
        else:
            lines.append("Gateway of last resort is not set")
        lines.append("")
        for r in table.values():
            lines += _route_text(r)
        texts.append("\n".join(lines))
        data[vrf] = {
            "routingDisabled": False,
            "allRoutesProgrammedHardware": True,
            "allRoutesProgrammedKernel": True,
            "defaultRouteState": "reachable" if default is not None else "notSet",
            "routes": {str(p): _route_json(view, vrf, r) for p, r in table.items()},
        }
    return "\n\n".join(texts), {"vrfs": data}


@show(r"show ip route(?: vrf (?P<vrf>\S+))? summary")
def ip_route_summary(view: View, m: re.Match[str]) -> Shown:
    vrfs = _route_vrfs(view, m["vrf"])
    texts, data = [], {}
    for vrf in vrfs:
        table = view.routing.routes(view.name).get(vrf, {})
        counts = {
            k: sum(1 for r in table.values() if r.kind == k) for k in ("connected", "static", "ebgp", "evpn")
        }
        bgp = counts["ebgp"] + counts["evpn"]
        texts.append(
            "\n".join(
                [
                    f"VRF: {vrf}",
                    "   Route Source                                Number Of Routes",
                    "------------------------------------- -------------------------",
                    f"   connected                                   {counts['connected']}",
                    f"   static (persistent)                         {counts['static']}",
                    f"   bgp                                         {bgp}",
                    f"     External                                  {bgp}",
                    f"   Total Routes                                {len(table)}",
                ]
            )
        )
        data[vrf] = {
            "totalRoutes": len(table),
            "connected": counts["connected"],
            "static": counts["static"],
            "staticPersistent": counts["static"],
            "bgpCounts": {"bgpTotal": bgp, "bgpExternal": bgp, "bgpInternal": 0, "bgpLocal": 0},
            "ospfCounts": {"ospfTotal": 0},
            "isisCounts": {"isisTotal": 0},
            "maskLen": {},
        }
    proto = {"configuredProtoModel": "multi-agent", "operatingProtoModel": "multi-agent"}
    if m["vrf"] is None:
        return texts[0], {**data["default"], "protoModelStatus": proto}
    return "\n\n".join(texts), {"vrfs": data, "protoModelStatus": proto}


# --- interfaces with addresses ------------------------------------------------------------------


@show(r"show ip interface(?: (?P<port>(?!brief)\S+))?")
def ip_interface(view: View, m: re.Match[str]) -> Shown:
    """The routed interfaces with an address (NAPALM's get_interfaces_ip, ANTA's VerifyInterfaceIPv4)."""
    texts, out = [], {}
    for state in view.ports:
        port = view.facts.ports.get(state.name)
        if port is None or not port.addresses or (m["port"] and state.name != m["port"]):
            continue
        primary = port.addresses[0]
        line = "up" if state.oper_up else "down"
        texts.append(
            f"{state.name} is {'up' if state.oper_up else 'down'}, line protocol is {line} ({status(state)})\n"
            f"  Internet address is {primary}\n  Broadcast address is 255.255.255.255\n"
            f"  IPv6 Interface Forwarding : None\n  Proxy-ARP is disabled\n  Local Proxy-ARP is disabled\n"
            f"  Gratuitous ARP is ignored\n  IP MTU {state.ip_mtu or 1500} bytes"
        )
        out[state.name] = {
            "name": state.name,
            "lineProtocolStatus": line,
            "interfaceStatus": status(state),
            "description": state.description or "",
            "mtu": state.ip_mtu or 1500,
            "proxyArp": False,
            "localProxyArp": False,
            "vrf": port.vrf,
            "interfaceAddress": {
                "primaryIp": {"address": str(primary.ip), "maskLen": primary.network.prefixlen},
                "secondaryIps": {},
                "secondaryIpsOrderedList": [
                    {"address": str(a.ip), "maskLen": a.network.prefixlen} for a in port.addresses[1:]
                ],
                "virtualIp": {"address": "0.0.0.0", "maskLen": 0},
                "virtualSecondaryIps": {},
                "virtualSecondaryIpsOrderedList": [],
                "broadcastAddress": "255.255.255.255",
                "dhcp": False,
            },
        }
    return "\n".join(texts), {"interfaces": out}


@show(r"show ip interface brief")
def ip_interface_brief(view: View, m: re.Match[str]) -> Shown:
    rows = [
        "                                                                          Address",
        "Interface         IP Address         Status       Protocol         MTU    Owner",
        "----------------- ------------------ ------------ ---------------- ------ -------",
    ]
    out = {}
    for state in view.ports:
        port = view.facts.ports.get(state.name)
        if not state.routed or state.name.startswith("Vxlan"):
            continue
        address = str(port.addresses[0]) if port and port.addresses else "unassigned"
        stat = "up" if state.oper_up else ("admin down" if not state.admin_up else "down")
        proto = "up" if state.oper_up else "down"
        mtu = state.ip_mtu or 1500 if not state.name.startswith("Loopback") else 65535
        rows.append(f"{state.name:<17} {address:<18} {stat:<12} {proto:<16} {mtu:<6}")
        out[state.name] = {
            "name": state.name,
            "interfaceStatus": "connected"
            if state.oper_up
            else ("disabled" if not state.admin_up else "notconnect"),
            "lineProtocolStatus": proto,
            "mtu": mtu,
            "ipv4Routable240": False,
            "ipv4Routable0": False,
            "interfaceAddress": {
                "ipAddr": {
                    "address": str(port.addresses[0].ip) if port and port.addresses else "0.0.0.0",
                    "maskLen": port.addresses[0].network.prefixlen if port and port.addresses else 0,
                }
            },
            "nonRoutableClassEIntf": False,
        }
    return "\n".join(rows), {"interfaces": out}


@show(r"show ip virtual-router")
def virtual_router(view: View, m: re.Match[str]) -> Shown:
    macs = [t.split()[3] for t in view.running.children if t.startswith("ip virtual-router mac-address ")]
    rows = [
        "IP virtual router is configured with MAC address: "
        + (mac_as(macs[0], "MAC_DOT_FOUR") if macs else "none"),
        "",
    ]
    rows += [
        "Interface       Vrf           Virtual IP Address       Protocol       State",
        "--------------- ------------- ------------------------ -------------- ------",
    ]
    virtual = []
    for t, node in view.running.children.items():
        if t.startswith("interface Vlan"):
            for c in node.children:
                w = c.split()
                if w[:3] == ["ip", "address", "virtual"]:
                    state = next(s for s in view.ports if s.name == t.split()[1])
                    vrf = view.facts.ports[state.name].vrf
                    rows.append(
                        f"{short(INTERFACE_TYPES, state.name):<15} {vrf:<13} {w[3].split('/')[0]:<24} {'U' if state.oper_up else 'D':<14} active"
                    )
                    virtual.append(
                        {
                            "interface": state.name,
                            "vrf": vrf,
                            "virtualIp": w[3].split("/")[0],
                            "state": "active",
                        }
                    )
    data = {
        "virtualMacs": [{"macAddress": mac, "macType": "varp"} for mac in macs],
        "virtualRouters": virtual,
    }
    return "\n".join(rows), data


# --- L2: ARP, MAC, VLAN, VRF ----------------------------------------------------------------------


@show(r"show (?:ip )?arp(?: vrf (?P<vrf>\S+))?")
def arp(view: View, m: re.Match[str]) -> Shown:
    known = ["default", *sorted(v for v in view.routing.routes(view.name) if v != "default")]
    vrfs = known if m["vrf"] == "all" else [m["vrf"] or "default"]
    texts, data = [], {}
    for vrf in vrfs:
        rows = ([f"VRF: {vrf}"] if m["vrf"] else []) + [
            "Address         Age (sec)  Hardware Addr   Interface"
        ]
        entries = []
        for e in view.routing.arp(view.name):
            if e.vrf != vrf:
                continue
            where = f"{e.interface}, {e.port}" if e.interface != e.port else e.port
            rows.append(f"{e.address!s:<15} {'0:00:30':>9}  {mac_as(e.mac, 'MAC_DOT_FOUR'):<15} {where}")
            entries.append({"address": str(e.address), "age": 30, "hwAddress": e.mac, "interface": where})
        texts.append("\n".join(rows))
        data[vrf] = {
            "ipV4Neighbors": entries,
            "totalEntries": len(entries),
            "dynamicEntries": len(entries),
            "staticEntries": 0,
            "notLearnedEntries": 0,
        }
    if m["vrf"] is None:
        return texts[0], data["default"]
    return "\n\n".join(texts), {"vrfs": data}


@show(r"show mac address-table(?: (?P<what>dynamic|static))?")
def mac_table(view: View, m: re.Match[str]) -> Shown:
    rows = [
        "          Mac Address Table",
        "------------------------------------------------------------------",
        "",
        "Vlan    Mac Address       Type        Ports      Moves   Last Move",
        "----    -----------       ----        -----      -----   ---------",
    ]
    entries = []
    for h in view.routing.hosts(view.name):
        if h.segment is None or h.segment[0] != "vlan":
            continue
        vlan = int(h.segment[1])
        rows.append(
            f"{vlan:>4}    {mac_as(h.mac, 'MAC_DOT_FOUR')}    DYNAMIC     {short(INTERFACE_TYPES, h.port):<10} 1       0:00:30 ago"
        )
        entries.append(
            {
                "vlanId": vlan,
                "macAddress": h.mac,
                "entryType": "dynamic",
                "interface": h.port,
                "moves": 1,
                "lastMove": view.calendar - 30,
            }
        )
    for (kind, key), mac, _vtep in view.routing.remote_macs(view.name):
        if kind != "vlan":
            continue
        rows.append(
            f"{int(key):>4}    {mac_as(mac, 'MAC_DOT_FOUR')}    DYNAMIC     Vx1        1       0:00:30 ago"
        )
        entries.append(
            {
                "vlanId": int(key),
                "macAddress": mac,
                "entryType": "evpnDynamicRemoteMac",
                "interface": "Vxlan1",
                "moves": 1,
                "lastMove": view.calendar - 30,
            }
        )
    rows.append(f"Total Mac Addresses for this criterion: {len(entries)}")
    data = {
        "unicastTable": {"tableEntries": entries},
        "multicastTable": {"tableEntries": []},
        "disabledMacLearningVlans": [],
    }
    return "\n".join(rows), data


@show(r"show vlan(?: (?P<vid>\d+))?")
def vlans(view: View, m: re.Match[str]) -> Shown:
    names = {int(k[1]): n for k, n in view.facts.segment_names.items() if k[0] == "vlan"}
    names.setdefault(1, "default")
    members: dict[int, list[str]] = {vid: [] for vid in names}
    for state in view.ports:
        port = view.facts.ports.get(state.name)
        if port and port.segment and port.segment[0] == "vlan" and state.oper_up:
            members.setdefault(int(port.segment[1]), []).append(state.name)
    vni_vlans = {int(k[1]) for k in view.facts.vnis.values() if k[0] == "vlan"}
    for vid in vni_vlans:
        members.setdefault(vid, []).append("Vxlan1")
    rows = [
        "VLAN  Name                             Status    Ports",
        "----- -------------------------------- --------- -------------------------------",
    ]
    data = {}
    for vid in sorted(members):
        if m["vid"] and vid != int(m["vid"]):
            continue
        ports = members[vid]
        name = names.get(vid, f"VLAN{vid:04d}")
        rows.append(
            f"{vid:<5} {name:<32} {'active':<9} {', '.join(short(INTERFACE_TYPES, p) for p in ports)}".rstrip()
        )
        data[str(vid)] = {
            "name": name,
            "status": "active",
            "dynamic": False,
            "interfaces": {p: {"privatePromoted": False, "blocked": None} for p in ports},
        }
    return "\n".join(rows), {"vlans": data, "sourceDetail": ""}


@show(r"show vrf(?: (?P<vrf>\S+))?")
def vrfs(view: View, m: re.Match[str]) -> Shown:
    names = ["default", *sorted(v for v in view.routing.routes(view.name) if v != "default")]
    rows = [
        "Maximum number of VRFs allowed: 1024",
        "   VRF           RD                Protocols    State         Interfaces",
        "------------- ----------------- ------------ -------------- -----------------------",
    ]
    data = {}
    for vrf in names:
        if m["vrf"] and vrf != m["vrf"]:
            continue
        intfs = [p.name for p in view.facts.ports.values() if p.vrf == vrf and p.addresses]
        rd = view.facts.rds.get(vrf, "<not set>")
        first, rest = intfs[:1], intfs[1:]
        rows.append(
            f"   {vrf:<13} {rd:<17} ipv4,ipv6    v4:routing,    {', '.join(first)}{',' if rest else ''}".rstrip()
        )
        rows.append(f"   {'':<13} {'':<17} {'':<12} v6:no routing  {', '.join(rest)}".rstrip())
        data[vrf] = {
            "routeDistinguisher": rd if rd != "<not set>" else "",
            "protocols": {"ipv4": {"supported": True, "protocolState": "up", "routingState": "up"}},
            "interfaces": intfs,
            "interfacesV4": intfs,
            "interfacesV6": [],
            "vrfState": "up",
            "description": "",
        }
    return "\n".join(rows), {"vrfs": data}


# --- VXLAN -----------------------------------------------------------------------------------------


def _vtep_ok(view: View) -> bool:
    return view.facts.vtep is not None


@show(r"show vxlan vtep")
def vxlan_vtep(view: View, m: re.Match[str]) -> Shown:
    """The remote VTEPs EVPN taught Vxlan1 (JSON as ANTA's VerifyVxlanVtep reads it)."""
    if not _vtep_ok(view):
        return "", {"interfaces": {}}
    vteps = sorted({ip for ips in view.state.remote_vteps(view.name).values() for ip in ips})
    rows = [
        "Remote VTEPS for Vxlan1:",
        "",
        "VTEP            Tunnel Type(s)",
        "--------------- --------------",
    ]
    rows += [f"{ip!s:<15} unicast, flood" for ip in vteps]
    rows += ["", f"Total number of remote VTEPS:  {len(vteps)}"]
    return "\n".join(rows), {"interfaces": {"Vxlan1": {"vteps": [str(ip) for ip in vteps]}}}


@show(r"show vxlan vni")
def vxlan_vni(view: View, m: re.Match[str]) -> Shown:
    """VNI bindings to VLANs and VRFs (JSON as ANTA's VerifyVxlanVniBinding reads it); a VRF's
    VNI rides a dynamic VLAN EOS takes from the top of the range down."""
    if not _vtep_ok(view):
        return "", {"vxlanIntfs": {}}
    facts = view.facts
    to_vlan = {}
    for v, k in sorted(facts.vnis.items()):
        if k[0] == "vlan":
            ports = {p.name: {"dot1q": 0} for p in facts.ports.values() if p.segment == k}
            to_vlan[str(v)] = {
                "vlan": int(k[1]),
                "dynamicVlan": False,
                "source": "static",
                "interfaces": {**ports, "Vxlan1": {"dot1q": int(k[1])}},
            }
    to_vrf = {
        str(v): {"vrfName": k[1], "vlan": 4094 - i, "source": "evpn"}
        for i, (v, k) in enumerate(sorted((v, k) for v, k in facts.vnis.items() if k[0] == "vrf"))
    }
    rows = [
        "VNI to VLAN Mapping for Vxlan1",
        "VNI         VLAN       Source       Interface       802.1Q Tag",
    ]
    rows += [f"{v:<11} {d['vlan']:<10} static       Vxlan1          {d['vlan']}" for v, d in to_vlan.items()]
    rows += ["", "VNI to dynamic VLAN Mapping for Vxlan1", "VNI         VLAN       VRF          Source"]
    rows += [f"{v:<11} {d['vlan']:<10} {d['vrfName']:<12} evpn" for v, d in to_vrf.items()]
    return "\n".join(rows), {"vxlanIntfs": {"Vxlan1": {"vniBindings": to_vlan, "vniBindingsToVrf": to_vrf}}}


@show(r"show vxlan config-sanity(?: detail)?")
def vxlan_sanity(view: View, m: re.Match[str]) -> Shown:
    """The checks EOS runs on a VTEP: a source interface with an address, a VNI per VRF and a
    routing entry to every remote VTEP."""
    if not _vtep_ok(view):
        return "", {"categories": {}}
    vxlan = interface_json(view, next(s for s in view.ports if s.name == "Vxlan1"))
    remote = sorted({ip for ips in view.state.remote_vteps(view.name).values() for ip in ips})
    routed = all(view.routing.lookup(view.name, "default", ip) is not None for ip in remote)
    checks = {
        "localVtep": [
            ("Loopback IP Address", bool(vxlan["srcIpIntf"]) and vxlan["srcIpAddr"] != "0.0.0.0"),
            ("VLAN-VNI Map", True),
            ("Routing", routed),
            ("VNI VRF ACL", True),
            ("VRF-VNI Dynamic VLAN", True),
        ],
        "remoteVtep": [("Remote VTEP Configuration", True)],
        "pd": [("VXLAN Bridging", True), ("VXLAN Routing", True)],
        "mlag": [("Peer VTEP IP", True), ("MLAG VTEP IP", True)],
    }
    rows = [
        "Category                            Result  Detail",
        "---------------------------------- ------- ------",
    ]
    categories = {}
    for category, items in checks.items():
        rows.append(f"{category:<35} {'OK' if all(ok for _, ok in items) else 'FAIL'}")
        rows += [f"  {name:<33} {'OK' if ok else 'FAIL'}" for name, ok in items]
        categories[category] = {
            "allCheckPass": all(ok for _, ok in items),
            "hasWarning": False,
            "items": [
                {"name": name, "checkPass": ok, "hasWarning": False, "detail": ""} for name, ok in items
            ],
        }
    return "\n".join(rows), {"categories": categories, "warnings": []}


# --- PFC / ECN ---------------------------------------------------------------------------------------


@show(r"show priority-flow-control counters(?: detail)?")
def pfc_counters(view: View, m: re.Match[str]) -> Shown:
    """Pause frames received and sent per PFC port (the RxPfc / TxPfc columns the EOS manual's Data
    Center Bridging chapter names; JSON as ANTA's VerifyInterfacesPFCCounters reads it)."""
    rows = [f"{'Port':<12} {'RxPfc':>12} {'TxPfc':>12}"]
    data = {}
    for port in view.facts.ports:
        pauses = view.state.pauses(view.name, port, view.now)
        if pauses is not None:
            rows.append(f"{short(INTERFACE_TYPES, port):<12} {pauses.received:>12} {pauses.sent:>12}")
            data[port] = {"rxFrames": pauses.received, "txFrames": pauses.sent}
    return "\n".join(rows), {"interfaceCounters": data}


@show(r"show qos interfaces(?: (?P<port>\S+))? ecn counters queue")
def ecn_counters(view: View, m: re.Match[str]) -> Shown:
    """ECN-marked packets per egress queue of each port with ECN queues (the JSON ANTA's
    VerifyInterfacesECNCounters reads: a string count per queue, `-` where the queue does not
    mark, tests/captures/anta). The lab marks on the lossless queues of congested ports."""
    rows = ["Port      Tx-Queue  ECN Marked Packets", "--------- --------  ------------------"]
    data = {}
    for s in view.ports:
        port = view.facts.ports.get(s.name)
        if not s.name.startswith("Ethernet") or port is None or not port.pfc:
            continue
        marked = port_traffic(view.state, view.name, s.name, view.now).ecn_marked
        counts = {q: (str(marked) if q in port.no_drop else "-") for q in range(8)}
        rows += [f"{short(INTERFACE_TYPES, s.name):<9} {q:<8}  {counts[q]}" for q in range(8)]
        data[s.name] = {"queueCounters": {str(q): c for q, c in counts.items()}}
    return "\n".join(rows), {"intfQueueCounters": data}


@show(r"show interfaces counters queue detail")
def queue_drops(view: View, m: re.Match[str]) -> Shown:
    """Packets each egress queue dropped, per traffic class and drop precedence (the JSON ANTA's
    VerifyInterfacesEgressQueueDrops reads, tests/captures/anta): the lossless class of a port
    under the lossless_drops fault drops, nothing else does."""
    rows = ["Port       Queue  TC   DP   Dropped Packets", "---------- ------ ---- ---- ---------------"]
    data = {}
    for s in view.ports:
        port = view.facts.ports.get(s.name)
        if not s.name.startswith("Ethernet") or port is None:
            continue
        dropped = port_traffic(view.state, view.name, s.name, view.now).lossless_dropped
        counts = {tc: (dropped if tc in port.no_drop else 0) for tc in range(8)}

        def queues(counts: dict[int, int]) -> dict[str, Any]:
            return {
                "trafficClasses": {
                    f"TC{tc}": {"dropPrecedences": {"DP0": {"droppedPackets": n}}} for tc, n in counts.items()
                }
            }

        rows += [
            f"{short(INTERFACE_TYPES, s.name):<10} {'UC':<6} {tc:<4} {0:<4} {n}" for tc, n in counts.items()
        ]
        data[s.name] = {"ucastQueues": queues(counts), "mcastQueues": queues(dict.fromkeys(counts, 0))}
    return "\n".join(rows), {"egressQueueCounters": {"interfaces": data}}


@show(r"show ipv6 interface(?: brief)?")
def ipv6_interface(view: View, m: re.Match[str]) -> Shown:
    """No interface of this fabric has an IPv6 address: EOS answers with an error."""
    raise CliError("% No IPv6 configured interfaces", eapi="No IPv6 configured interfaces", code=1000)


# --- ping ------------------------------------------------------------------------------------------


def _source(view: View, vrf: str, typed: str | None) -> IPv4Address | None:
    """A ping's source: an address, an interface's address (`source Loopback0`), or the egress
    port's (None when nothing routes there)."""
    if typed is None:
        return None
    if typed[0].isdigit():
        return IPv4Address(typed)
    name = canonical(INTERFACE_TYPES, typed)
    port = view.facts.ports.get(name or "")
    if port is None or not port.addresses:
        raise CliError(f"% Invalid input (at token 4: '{typed}')")
    return port.addresses[0].ip


@show(
    r"ping(?: vrf (?P<vrf>\S+))? (?P<dst>\d+\.\d+\.\d+\.\d+)(?: source (?P<src>\S+))?"
    r"(?: size (?P<size>\d+))?(?: (?P<df>df-bit))?(?: repeat (?P<repeat>\d+))?"
)
def ping(view: View, m: re.Match[str]) -> Shown:
    """ICMP echo through the lab's forwarding state: the route at every switch on the way and
    back, the IP MTU of each egress port (`size` is the whole datagram, as EOS counts it; with
    `df-bit` a datagram over the path MTU is refused by the hop that cannot forward it)."""
    vrf = m["vrf"] or "default"
    if vrf != "default" and vrf not in view.routing.routes(view.name):
        raise CliError(f"% VRF {vrf} does not exist", code=1000)
    dst = IPv4Address(m["dst"])
    size = int(m["size"] or 100)
    repeat = int(m["repeat"] or 5)
    src = _source(view, vrf, m["src"])
    route = view.routing.lookup(view.name, vrf, dst)
    if route is None and view.facts.owns(dst) is None:
        text = "connect: Network is unreachable"
        return text, {"messages": [text]}
    if src is None and route is not None and route.hops[0].interface:
        port = view.facts.ports.get(route.hops[0].interface)
        src = port.addresses[0].ip if port and port.addresses else None
    trace = view.routing.trace(view.name, vrf, dst, src)
    payload = size - 28
    lines = [f"PING {dst} ({dst}) {f'from {src} ' if src else ''}: {payload}({size}) bytes of data."]
    too_big = m["df"] is not None and size > trace.path_mtu
    received = 0 if too_big or not trace.reachable else repeat
    for seq in range(1, repeat + 1):
        if too_big:
            lines.append(f"From {src or dst} icmp_seq={seq} Frag needed and DF set (mtu = {trace.path_mtu})")
        elif received:
            ttl = 64 - max(len(trace.hops) - 1, 0)
            lines.append(
                f"{payload + 8} bytes from {dst}: icmp_seq={seq} ttl={ttl} time=0.{100 + seq * 7} ms"
            )
    loss = 100 - 100 * received // repeat
    lines += [
        "",
        f"--- {dst} ping statistics ---",
        f"{repeat} packets transmitted, {received} received, {'+' + str(repeat) + ' errors, ' if too_big else ''}"
        f"{loss}% packet loss, time {repeat - 1}ms",
    ]
    if received:
        lines.append("rtt min/avg/max/mdev = 0.107/0.128/0.149/0.014 ms, ipg/ewma 0.250/0.118 ms")
    text = "\n".join(lines) + "\n"
    return text, {"messages": [text]}


# --- access lists -----------------------------------------------------------------------------------

#: The control-plane ACL EOS installs on every switch, its entries as a real switch lists them
#: (ntc-templates' arista_eos `show ip access-lists` capture; the first three also in Arista's
#: ANTA unit tests, VerifyIPv4ACL): 20 counts the packets of the sessions the switch runs
#: (`tracked`), 30 single-hop BFD.
CONTROL_PLANE_ACL = "default-control-plane-acl"
_CONTROL_PLANE = (
    (10, "permit icmp any any"),
    (20, "permit ip any any tracked"),
    (30, "permit udp any any eq bfd ttl eq 255"),
    (50, "permit tcp any any eq ssh telnet www snmp bgp https msdp"),
    (60, "permit udp any any eq bootps bootpc snmp rip ntp"),
    (70, "permit tcp any any range 5900 5910"),
)


def _control_plane_hits(view: View) -> dict[int, int]:
    """Packets the control plane took in since boot: a keepalive a minute from each Established
    BGP peer (entry 20, `tracked`), three BFD packets a second from each single-hop peer (30)."""
    bgp = sum(1 for s in view.state.sessions.get(view.name, {}).values() if s.state == "Established")
    bfd = sum(1 for b in view.routing.bfd(view.name) if b.up and b.interface)
    seconds = int(view.uptime)
    return {20: bgp * (seconds // 60 + 3), 30: bfd * seconds * 1_000_000 // 300_000}


@show(r"show ip access-lists?(?: (?P<name>(?!summary)\S+))?(?: (?P<summary>summary))?")
def access_lists(view: View, m: re.Match[str]) -> Shown:
    """The IPv4 ACLs: the control-plane one EOS installs, then the configured ones in config
    order, each entry with its hit counter where the ACL counts per entry (`counters
    per-entry`); nothing in the lab sends tenant traffic, so tenant entries count nothing."""
    acls: list[tuple[str, bool, bool, list[tuple[int, str, int]]]] = []
    hits = _control_plane_hits(view)
    acls.append((CONTROL_PLANE_ACL, True, True, [(n, t, hits.get(n, 0)) for n, t in _CONTROL_PLANE]))
    for text, node in view.running.children.items():
        words = text.split()
        if words[:2] != ["ip", "access-list"] or len(words) != 3:
            continue
        counting = "counters per-entry" in node.children
        entries = [
            (int(w[0]), " ".join(w[1:]), 0) for w in (c.split() for c in node.children) if w[0].isdigit()
        ]
        acls.append((words[2], False, counting, entries))
    if m["name"]:
        acls = [a for a in acls if a[0] == m["name"]]
    rows, data = [], []
    for name, readonly, counting, entries in acls:
        rows.append(f"IP Access List {name}{' [readonly]' if readonly else ''}")
        if m["summary"]:
            rows.append(f"        Total rules configured: {len(entries)}")
        else:
            if counting:
                rows.append("        statistics per-entry")
            for seq, entry, count in entries:
                match = f" [match {count} packets, 0:00:01 ago]" if counting and count else ""
                rows.append(f"        {seq} {entry}{match}")
        rows.append("")
        data.append(
            {
                "name": name,
                "standard": False,
                "readonly": readonly,
                "dynamic": False,
                "chipBased": False,
                "countersEnabled": counting,
                "countersIncomplete": False,
                "statisticsPollingInterval": 0,
                "sequence": [
                    {
                        "text": entry,
                        "sequenceNumber": seq,
                        **(
                            {
                                "counterData": {
                                    "packetCount": count,
                                    "byteCount": count * 80,
                                    "lastChangedTime": view.calendar,
                                }
                            }
                            if counting and not entry.startswith("remark")
                            else {}
                        ),
                    }
                    for seq, entry, count in entries
                ],
            }
        )
    return "\n".join(rows).rstrip("\n"), {"aclList": data}
