"""What an EOS switch's running config says about its ports, BGP and VTEP."""

from __future__ import annotations

import re
from ipaddress import IPv4Interface, IPv4Network

from fabricctl.lab.config_tree import Node
from fabricctl.lab.facts import DeviceFacts, PeerFacts, PortFacts, add_static, child_words, parse_ip

#: EOS `speed 200g-4` / `speed 400g-8`: Gb/s and lanes.
_SPEED = re.compile(r"(\d+)g-\d+$")


# long: one dispatch over the running config's top-level statements, a branch per statement the twin reads, filling the facts together
def read_facts(name: str, running: Node) -> DeviceFacts:
    """What an EOS running config says (the lines lab/devices/eos/commands.yaml accepts)."""
    # EOS load-balances equal-length AS paths by default (Arista TOI "BGP multipath relax",
    # reference source arista-toi-relax); `no bgp bestpath as-path multipath-relax` turns it off.
    # An EOS receiver gives GRACEFUL_SHUTDOWN routes LOCAL_PREF 0 through its maintenance
    # receiver route-map (Arista TOI, reference source arista-toi-gshut-receiver).
    facts = DeviceFacts(hostname=name, multipath_relax=True, honors_gshut=True)
    bgp_groups: dict[str, list[str]] = {}  # maintenance BGP group -> its neighbor addresses
    quiesced: set[str] = set()  # BGP groups of quiesced maintenance units
    groups: dict[str, str] = {}  # neighbor ip -> peer group
    group_bfd: set[str] = set()  # peer groups (and neighbors) with `neighbor X bfd`
    vtep_source: str | None = None
    group_families: dict[str, set[str]] = {}
    service_profiles: dict[str, str] = {}  # port -> the qos profile it applies
    qos_profiles: dict[str, list[list[str]]] = {}
    for text, node in running.children.items():
        words = text.split()
        if words[0] == "hostname" and len(words) == 2:
            facts.hostname = words[1]
        elif words[:2] == ["qos", "profile"] and len(words) == 3:
            qos_profiles[words[2]] = child_words(node)
        elif words[0] == "interface" and len(words) == 2:
            port = PortFacts(words[1], admin_up="shutdown" not in node.children)
            port.routed = not words[1].startswith("Ethernet") or "no switchport" in node.children
            if words[1].startswith("Ethernet"):  # the 400G port (its lane 1 alone is the same lanes)
                port.speed = 400 if "/" not in words[1] or words[1].endswith("/1") else 0
            for w in child_words(node):
                if w[0] == "speed" and len(w) == 2 and (gbps := _SPEED.match(w[1])):
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
                    _pfc(port, w)
            if port.name.startswith("Ethernet") and not port.routed and port.segment is None:
                port.segment = ("vlan", "1")
            if port.name.startswith("Vlan"):
                facts.gateways[("vlan", port.name[4:])] = port.name
            facts.ports[port.name] = port
        elif words[0] == "vlan" and len(words) == 2:
            facts.segment_names[("vlan", words[1])] = next(
                (" ".join(w[1:]) for w in child_words(node) if w[0] == "name"), f"VLAN{int(words[1]):04d}"
            )
        elif words[:2] == ["ip", "route"] and len(words) == 4:
            add_static(facts, "default", words[2], words[3])
        elif words[:2] == ["group", "bgp"] and len(words) == 3:
            bgp_groups[words[2]] = [w[1] for w in child_words(node) if w[0] == "neighbor" and len(w) == 2]
        elif words == ["maintenance"]:
            for unit in node.children.values():
                lines = child_words(unit)
                if unit.text.startswith("unit ") and ["quiesce"] in lines:
                    quiesced |= {w[2] for w in lines if w[:2] == ["group", "bgp"] and len(w) == 3}
        elif words[:2] == ["router", "bgp"] and len(words) == 3:
            facts.asn = int(words[2])
            for key, sub in node.children.items():
                w = key.split()
                if w[0] == "router-id":
                    facts.router_id = parse_ip(w[1])
                elif w[0] == "maximum-paths" and len(w) >= 2:
                    facts.max_paths = int(w[1])
                elif w == ["no", "bgp", "bestpath", "as-path", "multipath-relax"]:
                    facts.multipath_relax = False
                elif w[0] == "network" and len(w) == 2:
                    facts.networks.append(IPv4Network(w[1], strict=False))
                elif w[0] == "neighbor" and w[2:] == ["bfd"]:
                    group_bfd.add(w[1])
                elif w[0] == "neighbor" and len(w) >= 3:
                    ip = parse_ip(w[1])
                    if ip is None:
                        continue
                    peer = facts.peers.setdefault(ip, PeerFacts(ip, None))
                    if w[2] == "remote-as":
                        peer.remote_as = int(w[3])
                    elif w[2:4] == ["peer", "group"] and len(w) == 5:
                        groups[str(ip)] = w[4]
                    elif w[2] == "description":
                        peer.description = " ".join(w[3:])
                    elif w[2:] == ["send-community"]:
                        peer.send_community = True
                elif w[0] == "address-family" and len(w) == 2:
                    family = {"ipv4": "ipv4", "evpn": "evpn"}.get(w[1])
                    for aw in child_words(sub):
                        if family and aw[0] == "neighbor" and aw[-1] == "activate":
                            group_families.setdefault(aw[1], set()).add(family)
                        elif family == "ipv4" and aw[0] == "network" and len(aw) == 2:
                            facts.networks.append(IPv4Network(aw[1], strict=False))
                elif w[0] in ("vlan", "vrf") and len(w) == 2:
                    imports, exports = facts.route_targets.setdefault((w[0], w[1]), (set(), set()))
                    for rw in child_words(sub):
                        if w[0] == "vrf" and rw == ["redistribute", "connected"]:
                            facts.redistributed.add(w[1])
                        elif rw[0] == "rd" and len(rw) == 2 and w[0] == "vrf":
                            facts.rds[w[1]] = rw[1]
                        elif rw[0] == "rd" and len(rw) == 2:
                            facts.segment_rds[("vlan", w[1])] = rw[1]
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
            _pfc(facts.ports[port_name], w)
    source = facts.ports.get(vtep_source or "")
    if source is not None and source.addresses:
        facts.vtep = source.addresses[0].ip
    for ip, peer in facts.peers.items():
        peer.families = set(
            group_families.get(str(ip), set()) | group_families.get(groups.get(str(ip), ""), set())
        )
        peer.bfd = str(ip) in group_bfd or groups.get(str(ip)) in group_bfd
    # A quiesced unit's BGP peers: the default maintenance profile sends their routes with the
    # GRACEFUL_SHUTDOWN community and gives the routes heard from them LOCAL_PREF 0 (EOS User
    # Manual, Maintenance Mode; reference source eos-um-maint).
    for group in quiesced:
        for text in bgp_groups.get(group, []):
            addr = parse_ip(text)
            quiet = facts.peers.get(addr) if addr is not None else None
            if quiet is not None:
                quiet.gshut, quiet.local_pref_in = True, 0
    return facts


def _pfc(port: PortFacts, w: list[str]) -> None:
    """PFC lines, in interface view or in the `qos profile` the port applies."""
    if w == ["priority-flow-control", "on"]:
        port.pfc = True
    elif w[:2] == ["priority-flow-control", "priority"] and w[-1] == "no-drop" and len(w) == 4:
        port.no_drop = (*port.no_drop, int(w[2]))
