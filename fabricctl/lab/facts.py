"""What a lab switch's own config says about its ports, BGP and VTEP: the inputs of its state.

The lab reads its running tree itself (it never imports fabricctl's parsers): a real switch
derives state from what it holds, not from what the tool meant. One reader per platform, each
for the lines the command reference (lab/devices/<platform>/commands.yaml) accepts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from ipaddress import IPv4Address, IPv4Interface, IPv4Network

from fabricctl.lab.config_tree import Node


@dataclass
class PortFacts:
    name: str
    admin_up: bool
    description: str = ""
    addresses: list[IPv4Interface] = field(default_factory=list)
    vrf: str = "default"
    routed: bool = False
    pfc: bool = False  # priority-based flow control enabled on the port
    no_drop: tuple[int, ...] = ()  # the 802.1p priorities PFC keeps lossless
    segment: tuple[str, str] | None = (
        None  # the L2 segment a bridged port sits in: ("vlan", "112") / ("vsi", name)
    )
    mtu: int | None = None  # the configured `mtu` (None: the NOS default)
    #: Gb/s a front-panel port (or breakout lane) runs at; 0 for a port split by a breakout
    #: (its lanes are the interfaces that run); None for a logical interface.
    speed: int | None = None


@dataclass
class PeerFacts:
    ip: IPv4Address
    remote_as: int | None
    description: str = ""
    families: set[str] = field(default_factory=set)  # "ipv4" and/or "evpn"


@dataclass
class DeviceFacts:
    hostname: str
    platform: str = ""  # eos | comware
    model: str = ""  # what a neighbor learns from LLDP's system description
    ports: dict[str, PortFacts] = field(default_factory=dict)
    asn: int | None = None
    router_id: IPv4Address | None = None
    peers: dict[IPv4Address, PeerFacts] = field(default_factory=dict)
    vtep: IPv4Address | None = None
    vnis: dict[int, tuple[str, str]] = field(default_factory=dict)
    #: EVPN route targets per VNI owner (("vlan", "112"), ("vrf", "tnt-a"), ("vsi", "tnt-a-seg")):
    #: (import, export). Routes from another VTEP are installed only where these match.
    route_targets: dict[tuple[str, str], tuple[set[str], set[str]]] = field(default_factory=dict)
    networks: list[IPv4Network] = field(default_factory=list)  # what BGP originates in the default VRF
    redistributed: set[str] = field(default_factory=set)  # VRFs whose connected routes BGP advertises
    static: list[tuple[str, IPv4Network, IPv4Address]] = field(
        default_factory=list
    )  # (vrf, prefix, next hop)
    max_paths: int = 1  # ECMP paths BGP installs (EOS maximum-paths, Comware balance)
    rds: dict[str, str] = field(default_factory=dict)  # VRF -> route distinguisher
    gateways: dict[tuple[str, str], str] = field(default_factory=dict)  # segment -> its gateway interface
    segment_names: dict[tuple[str, str], str] = field(default_factory=dict)  # segment -> its name
    _owned: dict[IPv4Address, str] | None = field(
        default=None, repr=False, compare=False
    )  # VNI -> ("vlan" | "vrf" | "vsi", its id)

    def owns(self, ip: IPv4Address) -> str | None:
        """The port that holds `ip`, if any."""
        if self._owned is None:
            self._owned = {a.ip: port.name for port in self.ports.values() for a in port.addresses}
        return self._owned.get(ip)


#: EOS `speed 200g-4` / `speed 400g-8`: Gb/s and lanes.
_EOS_SPEED = re.compile(r"(\d+)g-\d+$")


def _words(node: Node) -> list[list[str]]:
    return [child.text.split() for child in node.children.values()]


def _ip(text: str) -> IPv4Address | None:
    try:
        return IPv4Address(text)
    except ValueError:
        return None


def _static(facts: DeviceFacts, vrf: str, prefix: str, next_hop: str) -> None:
    hop = _ip(next_hop)
    if hop is not None:
        facts.static.append((vrf, IPv4Network(prefix, strict=False), hop))


def read_facts(platform: str, name: str, running: Node, model: str = "") -> DeviceFacts:
    facts = _read_comware(name, running) if platform == "comware" else _read_eos(name, running)
    facts.platform, facts.model = platform, model
    return facts


def _read_eos(name: str, running: Node) -> DeviceFacts:
    facts = DeviceFacts(hostname=name)
    groups: dict[str, str] = {}  # neighbor ip -> peer group
    vtep_source: str | None = None
    group_families: dict[str, set[str]] = {}
    service_profiles: dict[str, str] = {}  # port -> the qos profile it applies
    qos_profiles: dict[str, list[list[str]]] = {}
    for text, node in running.children.items():
        words = text.split()
        if words[0] == "hostname" and len(words) == 2:
            facts.hostname = words[1]
        elif words[:2] == ["qos", "profile"] and len(words) == 3:
            qos_profiles[words[2]] = _words(node)
        elif words[0] == "interface" and len(words) == 2:
            port = PortFacts(words[1], admin_up="shutdown" not in node.children)
            port.routed = not words[1].startswith("Ethernet") or "no switchport" in node.children
            if words[1].startswith("Ethernet"):  # the 400G port (its lane 1 alone is the same lanes)
                port.speed = 400 if "/" not in words[1] or words[1].endswith("/1") else 0
            for w in _words(node):
                if w[0] == "speed" and len(w) == 2 and (gbps := _EOS_SPEED.match(w[1])):
                    port.speed = int(gbps[1])
                elif w[0] == "description":
                    port.description = " ".join(w[1:])
                elif w[:2] == ["ip", "address"] and len(w) == 3:
                    port.addresses.append(IPv4Interface(w[2]))
                elif w[:3] == ["ip", "address", "virtual"] and len(w) == 4:
                    port.addresses.append(IPv4Interface(w[3]))
                elif w[0] == "vrf" and len(w) == 2:
                    port.vrf = w[1]
                elif w[:3] == ["switchport", "access", "vlan"] and len(w) == 4:
                    port.segment = ("vlan", w[3])
                elif w[0] == "mtu" and len(w) == 2 and w[1].isdigit():
                    port.mtu = int(w[1])
                elif w[0] == "service-profile" and len(w) == 2:
                    service_profiles[port.name] = w[1]
                elif w[:2] == ["vxlan", "source-interface"] and len(w) == 3:
                    vtep_source = w[2]
                elif w[0] == "vxlan" and len(w) == 5 and w[3] == "vni" and w[1] in ("vlan", "vrf"):
                    facts.vnis[int(w[4])] = (w[1], w[2])
                else:
                    _eos_pfc(port, w)
            if port.name.startswith("Ethernet") and not port.routed and port.segment is None:
                port.segment = ("vlan", "1")
            if port.name.startswith("Vlan"):
                facts.gateways[("vlan", port.name[4:])] = port.name
            facts.ports[port.name] = port
        elif words[0] == "vlan" and len(words) == 2:
            facts.segment_names[("vlan", words[1])] = next(
                (" ".join(w[1:]) for w in _words(node) if w[0] == "name"), f"VLAN{int(words[1]):04d}"
            )
        elif words[:2] == ["ip", "route"] and len(words) == 4:
            _static(facts, "default", words[2], words[3])
        elif words[:2] == ["router", "bgp"] and len(words) == 3:
            facts.asn = int(words[2])
            for key, sub in node.children.items():
                w = key.split()
                if w[0] == "router-id":
                    facts.router_id = _ip(w[1])
                elif w[0] == "maximum-paths" and len(w) >= 2:
                    facts.max_paths = int(w[1])
                elif w[0] == "network" and len(w) == 2:
                    facts.networks.append(IPv4Network(w[1], strict=False))
                elif w[0] == "neighbor" and len(w) >= 3:
                    ip = _ip(w[1])
                    if ip is None:
                        continue
                    peer = facts.peers.setdefault(ip, PeerFacts(ip, None))
                    if w[2] == "remote-as":
                        peer.remote_as = int(w[3])
                    elif w[2:4] == ["peer", "group"] and len(w) == 5:
                        groups[str(ip)] = w[4]
                    elif w[2] == "description":
                        peer.description = " ".join(w[3:])
                elif w[0] == "address-family" and len(w) == 2:
                    family = {"ipv4": "ipv4", "evpn": "evpn"}.get(w[1])
                    for aw in _words(sub):
                        if family and aw[0] == "neighbor" and aw[-1] == "activate":
                            group_families.setdefault(aw[1], set()).add(family)
                        elif family == "ipv4" and aw[0] == "network" and len(aw) == 2:
                            facts.networks.append(IPv4Network(aw[1], strict=False))
                elif w[0] in ("vlan", "vrf") and len(w) == 2:
                    imports, exports = facts.route_targets.setdefault((w[0], w[1]), (set(), set()))
                    for rw in _words(sub):
                        if w[0] == "vrf" and rw == ["redistribute", "connected"]:
                            facts.redistributed.add(w[1])
                        elif rw[0] == "rd" and len(rw) == 2 and w[0] == "vrf":
                            facts.rds[w[1]] = rw[1]
                        if rw[:2] == ["route-target", "both"] and len(rw) == 3:
                            imports.add(rw[2])
                            exports.add(rw[2])
                        elif rw[0] == "route-target" and len(rw) == 4 and rw[2] == "evpn":
                            (imports if rw[1] == "import" else exports).add(rw[3])
    for port in facts.ports.values():  # a port whose lanes run at a lower speed is split by them
        parent = facts.ports.get(port.name.split("/")[0])
        if port.speed and "/" in port.name and parent is not None and parent is not port and port.speed < 400:
            parent.speed = 0
    for port_name, profile in service_profiles.items():  # a profile's lines act as the port's own
        for w in qos_profiles.get(profile, []):
            _eos_pfc(facts.ports[port_name], w)
    source = facts.ports.get(vtep_source or "")
    if source is not None and source.addresses:
        facts.vtep = source.addresses[0].ip
    for ip, peer in facts.peers.items():
        peer.families = set(
            group_families.get(str(ip), set()) | group_families.get(groups.get(str(ip), ""), set())
        )
    return facts


def _eos_pfc(port: PortFacts, w: list[str]) -> None:
    """PFC lines, in interface view or in the `qos profile` the port applies."""
    if w == ["priority-flow-control", "on"]:
        port.pfc = True
    elif w[:2] == ["priority-flow-control", "priority"] and w[-1] == "no-drop" and len(w) == 4:
        port.no_drop = (*port.no_drop, int(w[2]))


def _comware_targets(facts: DeviceFacts, owner: tuple[str, str], node: Node) -> None:
    """`vpn-target RT import-extcommunity|export-extcommunity` lines of a VSI's or VPN instance's EVPN view."""
    imports, exports = facts.route_targets.setdefault(owner, (set(), set()))
    for w in _words(node):
        if w[0] == "vpn-target" and len(w) == 3:
            (imports if w[2] == "import-extcommunity" else exports).add(w[1])


def _read_comware(name: str, running: Node) -> DeviceFacts:
    facts = DeviceFacts(hostname=name)
    for text, node in running.children.items():
        words = text.split()
        if words[0] == "sysname" and len(words) == 2:
            facts.hostname = words[1]
        elif words[0] == "interface" and len(words) == 2:
            port = PortFacts(words[1], admin_up="shutdown" not in node.children)
            port.routed = not words[1].startswith(("FourHundredGigE", "TwoHundredGigE")) or (
                "port link-mode route" in node.children
            )
            if words[1].startswith(("FourHundredGigE", "TwoHundredGigE")):
                port.speed = 200 if words[1].startswith("TwoHundredGigE") else 400
            for w in _words(node):
                if w[0] == "using" and len(w) == 2:  # split into lanes: only they run
                    port.speed = 0
                elif w[0] == "description":
                    port.description = " ".join(w[1:])
                elif w[:2] == ["ip", "address"] and len(w) == 4:
                    port.addresses.append(IPv4Interface(f"{w[2]}/{w[3]}"))
                elif w[:3] == ["ip", "binding", "vpn-instance"] and len(w) == 4:
                    port.vrf = w[3]
                elif w[0] == "mtu" and len(w) == 2 and w[1].isdigit():
                    port.mtu = int(w[1])
                elif w == ["priority-flow-control", "enable"]:
                    port.pfc = True
                elif w[:3] == ["priority-flow-control", "no-drop", "dot1p"] and len(w) == 4:
                    port.no_drop = tuple(int(p) for p in w[3].split(","))
                elif w[0] == "l3-vni" and len(w) == 2:
                    facts.vnis[int(w[1])] = ("vrf", port.vrf)
            for w in (c.text.split() for sub in node.children.values() for c in sub.children.values()):
                if w[:2] == ["xconnect", "vsi"] and len(w) >= 3:  # service-instance N / xconnect vsi NAME
                    port.segment = ("vsi", w[2])
            facts.ports[port.name] = port
        elif words[:3] == ["tunnel", "global", "source-address"] and len(words) == 4:
            facts.vtep = _ip(words[3])
        elif words[:2] == ["ip", "route-static"] and len(words) == 5:
            _static(facts, "default", f"{words[2]}/{words[3]}", words[4])
        elif words[0] == "vsi" and len(words) == 2:
            facts.segment_names[("vsi", words[1])] = words[1]
            for child in node.children.values():
                w = child.text.split()
                if w[:2] == ["gateway", "vsi-interface"] and len(w) == 3:
                    facts.gateways[("vsi", words[1])] = f"Vsi-interface{w[2]}"
                elif w[0] == "vxlan" and len(w) == 2:
                    facts.vnis[int(w[1])] = ("vsi", words[1])
                elif w[:3] == ["evpn", "encapsulation", "vxlan"]:
                    _comware_targets(facts, ("vsi", words[1]), child)
        elif words[:2] == ["ip", "vpn-instance"] and len(words) == 3:
            for child in node.children.values():
                w = child.text.split()
                if w[0] == "route-distinguisher" and len(w) == 2:
                    facts.rds[words[2]] = w[1]
                if child.text.split() == ["address-family", "evpn"]:
                    _comware_targets(facts, ("vrf", words[2]), child)
        elif words[0] == "bgp" and len(words) == 2:
            facts.asn = int(words[1])
            for key, sub in node.children.items():
                w = key.split()
                if w[0] == "router-id":
                    facts.router_id = _ip(w[1])
                elif w[0] == "peer" and len(w) >= 3 and (ip := _ip(w[1])) is not None:
                    peer = facts.peers.setdefault(ip, PeerFacts(ip, None))
                    if w[2] == "as-number":
                        peer.remote_as = int(w[3])
                    elif w[2] == "description":
                        peer.description = " ".join(w[3:])
                elif w[0] == "address-family":
                    family = {"ipv4": "ipv4", "l2vpn": "evpn"}.get(w[1])
                    for aw in _words(sub):
                        if family and aw[0] == "peer" and aw[-1] == "enable" and (ip := _ip(aw[1])):
                            facts.peers.setdefault(ip, PeerFacts(ip, None)).families.add(family)
                        elif family == "ipv4" and aw[0] == "network" and len(aw) == 3:
                            facts.networks.append(IPv4Interface(f"{aw[1]}/{aw[2]}").network)
                        elif family == "ipv4" and aw[0] == "balance" and len(aw) == 2:
                            facts.max_paths = int(aw[1])
                elif w[:2] == ["ip", "vpn-instance"] and len(w) == 3:
                    for aw in (c.text.split() for af in sub.children.values() for c in af.children.values()):
                        if aw == ["import-route", "direct"]:
                            facts.redistributed.add(w[2])
    return facts
