"""What an NVUE switch's applied configuration says about its ports, BGP and VTEP.

Read from the object tree (the paths lab/devices/nvue/commands.yaml accepts). Where NVUE has a
default the tree leaves out, the documented default applies: a port is up unless `link state
down`; PFC on the RoCE profile's no-drop priority 3 when `qos roce` is set (the RoCE page's
lossless defaults); eBGP installs up to 64 equal paths (`multipaths ebgp` default).
"""

from __future__ import annotations

import re
from ipaddress import IPv4Interface, IPv4Network
from typing import Any

from fabricctl.lab.config_tree import Node
from fabricctl.lab.devices.nvue.tree import Tree, from_node
from fabricctl.lab.facts import DeviceFacts, PeerFacts, PortFacts, add_static, parse_ip

#: Breakout mode -> the speed of each lane on an 800G SN5600 port (Switch Port Attributes, "Breakout Ports").
LANE_GBPS = {"2x": 400, "4x": 200, "8x": 100}
_LANE = re.compile(r"(swp\d+)s\d+")
_SPEED = re.compile(r"(\d+)G")
ON = ("on", "enabled", "enable")
DEFAULT_EBGP_PATHS = 64
ROCE_NO_DROP = (3,)


def _on(node: Any, *path: str) -> bool | None:
    for word in path:
        if not isinstance(node, dict):
            return None
        node = node.get(word)
    return None if node is None else node in ON


def _dict(node: Any, *path: str) -> Tree:
    for word in path:
        node = node.get(word) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else {}


def read_facts(name: str, running: Node) -> DeviceFacts:
    return tree_facts(name, from_node(running))


# long: one walk of the NVUE object tree, a branch per object the twin reads, filling the facts together
def tree_facts(name: str, tree: Tree) -> DeviceFacts:
    facts = DeviceFacts(
        hostname=str(_dict(tree, "system").get("hostname") or name), max_paths=DEFAULT_EBGP_PATHS
    )
    roce = "roce" in _dict(tree, "qos")
    pfc = _dict(tree, "qos", "pfc", "default-global")
    no_drop = tuple(int(p) for p in _dict(pfc, "switch-priority") if p.isdigit())
    breakouts: dict[str, str] = {}
    for ifname, body in _dict(tree, "interface").items():
        if not isinstance(body, dict):
            continue
        link = _dict(body, "link")
        port = PortFacts(ifname, admin_up="down" not in _dict(link, "state"))
        port.description = str(body.get("description", ""))
        ipv4 = _dict(body, "ipv4")  # 5.15 and later: `ipv4 address`, `vrf` (no longer under `ip`)
        port.addresses = [IPv4Interface(a) for a in _dict(ipv4, "address") if "." in a]
        port.addresses += [IPv4Interface(a) for a in _dict(ipv4, "vrr", "address") if "." in a]
        port.vrf = str(body.get("vrf", "default"))
        port.mtu = int(link["mtu"]) if str(link.get("mtu", "")).isdigit() else None
        bridge = _dict(body, "bridge", "domain")
        port.routed = not bridge
        for domain in bridge.values():
            if isinstance(domain, dict) and "access" in domain:
                port.segment = ("vlan", str(domain["access"]))
        if (speed := _SPEED.fullmatch(str(link.get("speed", "")))) is not None:
            port.speed = int(speed[1])
        breakout = next(iter(_dict(link, "breakout")), None)
        if breakout in LANE_GBPS:
            breakouts[ifname] = breakout
        if ifname.startswith("swp") and (roce or no_drop):
            port.pfc, port.no_drop = True, no_drop or ROCE_NO_DROP
        if ifname.startswith("vlan") and ifname[4:].isdigit():
            facts.gateways[("vlan", ifname[4:])] = ifname
        facts.ports[ifname] = port
    for ifname, port in facts.ports.items():
        lane = _LANE.fullmatch(ifname)
        if ifname in breakouts:
            port.speed = 0  # its lanes are the interfaces that run
        elif lane is not None and lane[1] in breakouts and port.speed is None:
            port.speed = LANE_GBPS[breakouts[lane[1]]]
    source = parse_ip(str(_dict(tree, "nve", "vxlan", "source").get("address", "")))
    facts.vtep = source
    for vid, body in _dict(tree, "bridge", "domain", "br_default", "vlan").items():
        for vni in _dict(body, "vni"):
            facts.vnis[int(vni)] = ("vlan", vid)
            facts.route_targets[("vlan", vid)] = ({f"auto:{vni}"}, {f"auto:{vni}"})
    for vni, body in _dict(tree, "evpn", "vni").items():  # route targets set per L2 VNI
        targets = _dict(body, "route-target")
        owner = facts.vnis.get(int(vni)) if vni.isdigit() else None
        if owner is not None and "rd" in body:
            facts.segment_rds[owner] = str(body["rd"])
        if owner is not None and targets:
            both = set(_dict(targets, "both"))
            facts.route_targets[owner] = (
                both | set(_dict(targets, "import")),
                both | set(_dict(targets, "export")),
            )
    router = _dict(tree, "router", "bgp")
    if str(router.get("autonomous-system", "")).isdigit():
        facts.asn = int(router["autonomous-system"])
    facts.router_id = parse_ip(str(router.get("router-id", "")))
    # Graceful BGP Shutdown (Optional BGP Configuration, 5.17): switch-wide or per neighbor, the
    # GRACEFUL_SHUTDOWN community on every route sent and LOCAL_PREF 0 on every route heard;
    # neighbours receiving the community "mark these routes as less preferred" (FRR honours it
    # without a policy), and communities are sent by default (`community-advertise`).
    everywhere = bool(_on(router, "graceful-shutdown"))
    facts.honors_gshut = True
    for vrf, body in _dict(tree, "vrf").items():
        for vni in _dict(body, "evpn", "vni"):
            facts.vnis[int(vni)] = ("vrf", vrf)
        for prefix, route in _dict(body, "router", "static").items():
            for hop in _dict(route, "via"):
                add_static(facts, vrf, prefix, hop)
        bgp = _dict(body, "router", "bgp")
        if "rd" in bgp:
            facts.rds[vrf] = str(bgp["rd"])
        imports = set(_dict(bgp, "route-import", "from-evpn", "route-target"))
        exports = set(_dict(bgp, "route-export", "to-evpn", "route-target"))
        for vni in _dict(body, "evpn", "vni"):  # without route targets NVUE derives them from the VNI
            facts.route_targets[("vrf", vrf)] = (imports or {f"auto:{vni}"}, exports or {f"auto:{vni}"})
        v4 = _dict(bgp, "address-family", "ipv4-unicast")
        if _on(v4, "redistribute", "connected", "enable") or _on(v4, "redistribute", "connected", "state"):
            facts.redistributed.add(vrf)
        if vrf != "default":
            continue
        facts.networks += [IPv4Network(n, strict=False) for n in _dict(v4, "network")]
        if str(_dict(v4, "multipaths").get("ebgp", "")).isdigit():
            facts.max_paths = int(_dict(v4, "multipaths")["ebgp"])
        facts.multipath_relax = bool(_on(bgp, "path-selection", "multipath", "aspath-ignore"))
        evpn_on = _on(bgp, "address-family", "l2vpn-evpn", "enable") or _on(
            bgp, "address-family", "l2vpn-evpn", "state"
        )
        for peer_id, peer_body in _dict(bgp, "neighbor").items():
            addr = parse_ip(peer_id)
            if addr is None or not isinstance(peer_body, dict):
                continue
            remote = str(peer_body.get("remote-as", ""))
            peer = facts.peers[addr] = PeerFacts(addr, int(remote) if remote.isdigit() else None)
            peer.description = str(peer_body.get("description", ""))
            peer.bfd = bool(_on(peer_body, "bfd", "enable") or _on(peer_body, "bfd", "state"))
            peer.send_community = True
            if everywhere or _on(peer_body, "graceful-shutdown"):
                peer.gshut, peer.local_pref_in = True, 0
            af = _dict(peer_body, "address-family")
            if (
                _on(af, "ipv4-unicast", "enable") is not False
                and _on(af, "ipv4-unicast", "state") is not False
            ):
                peer.families.add("ipv4")  # on by default for a neighbor in the default VRF
            if evpn_on and (_on(af, "l2vpn-evpn", "enable") or _on(af, "l2vpn-evpn", "state")):
                peer.families.add("evpn")
    return facts
