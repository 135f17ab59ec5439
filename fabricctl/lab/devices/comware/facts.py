"""What a Comware switch's current configuration says about its ports, BGP and VTEP."""

from __future__ import annotations

from ipaddress import IPv4Address, IPv4Interface

from fabricctl.lab.config_tree import Node
from fabricctl.lab.facts import DeviceFacts, PeerFacts, PortFacts, add_static, child_words, parse_ip


def _targets(facts: DeviceFacts, owner: tuple[str, str], node: Node) -> None:
    """`vpn-target RT import-extcommunity|export-extcommunity` lines of a VSI's or VPN instance's EVPN view."""
    imports, exports = facts.route_targets.setdefault(owner, (set(), set()))
    for w in child_words(node):
        if w[0] == "vpn-target" and len(w) == 3:
            (imports if w[2] == "import-extcommunity" else exports).add(w[1])


#: Comware's system ECMP cap without `max-ecmp-num` (reference source h3c-s6520x-ecmp: 8 on the
#: documented sibling; the S98xx figure is not published).
COMWARE_DEFAULT_ECMP = 8
#: The GRACEFUL_SHUTDOWN community (RFC 8326) as `aa:nn`.
GSHUT = "65535:0"


# long: one dispatch over the current configuration's top-level statements, a branch per statement the twin reads, filling the facts together
def read_facts(name: str, running: Node) -> DeviceFacts:
    """What a Comware current configuration says (the lines lab/devices/comware/commands.yaml accepts)."""
    # No AS-path relax by default (hpe5710-balance-relax); `balance as-path-relax` turns it on.
    facts = DeviceFacts(hostname=name, ecmp_cap=COMWARE_DEFAULT_ECMP)
    policies: dict[str, list[list[str]]] = {}  # routing policy -> the apply clauses of its permit nodes
    bound: list[tuple[IPv4Address, str, str]] = []  # (peer, policy, import | export)
    for text, node in running.children.items():
        words = text.split()
        if words[0] == "sysname" and len(words) == 2:
            facts.hostname = words[1]
        elif words[0] == "max-ecmp-num" and len(words) == 2:
            facts.ecmp_cap = int(words[1])
        elif words[0] == "interface" and len(words) == 2:
            port = PortFacts(words[1], admin_up="shutdown" not in node.children)
            port.routed = not words[1].startswith(("FourHundredGigE", "TwoHundredGigE")) or (
                "port link-mode route" in node.children
            )
            if words[1].startswith(("FourHundredGigE", "TwoHundredGigE")):
                port.speed = 200 if words[1].startswith("TwoHundredGigE") else 400
            for w in child_words(node):
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
        elif words[0] == "route-policy" and len(words) == 5 and words[2:4] == ["permit", "node"]:
            policies.setdefault(words[1], []).extend(w for w in child_words(node) if w[0] == "apply")
        elif words[:3] == ["tunnel", "global", "source-address"] and len(words) == 4:
            facts.vtep = parse_ip(words[3])
        elif words[:2] == ["ip", "route-static"] and len(words) == 5:
            add_static(facts, "default", f"{words[2]}/{words[3]}", words[4])
        elif words[0] == "vsi" and len(words) == 2:
            facts.segment_names[("vsi", words[1])] = words[1]
            for child in node.children.values():
                w = child.text.split()
                if w[:2] == ["gateway", "vsi-interface"] and len(w) == 3:
                    facts.gateways[("vsi", words[1])] = f"Vsi-interface{w[2]}"
                elif w[0] == "vxlan" and len(w) == 2:
                    facts.vnis[int(w[1])] = ("vsi", words[1])
                elif w[:3] == ["evpn", "encapsulation", "vxlan"]:
                    _targets(facts, ("vsi", words[1]), child)
                    for ew in child_words(child):
                        if ew[0] == "route-distinguisher" and len(ew) == 2:
                            facts.segment_rds[("vsi", words[1])] = ew[1]
        elif words[:2] == ["ip", "vpn-instance"] and len(words) == 3:
            for child in node.children.values():
                w = child.text.split()
                if w[0] == "route-distinguisher" and len(w) == 2:
                    facts.rds[words[2]] = w[1]
                if child.text.split() == ["address-family", "evpn"]:
                    _targets(facts, ("vrf", words[2]), child)
        elif words[0] == "bgp" and len(words) == 2:
            facts.asn = int(words[1])
            for key, sub in node.children.items():
                w = key.split()
                if w[0] == "router-id":
                    facts.router_id = parse_ip(w[1])
                elif w[0] == "peer" and len(w) >= 3 and (ip := parse_ip(w[1])) is not None:
                    peer = facts.peers.setdefault(ip, PeerFacts(ip, None))
                    if w[2] == "as-number":
                        peer.remote_as = int(w[3])
                    elif w[2] == "description":
                        peer.description = " ".join(w[3:])
                    elif w[2:] == ["bfd"]:
                        peer.bfd = True
                elif w[0] == "address-family":
                    family = {"ipv4": "ipv4", "l2vpn": "evpn"}.get(w[1])
                    for aw in child_words(sub):
                        if family and aw[0] == "peer" and aw[-1] == "enable" and (ip := parse_ip(aw[1])):
                            facts.peers.setdefault(ip, PeerFacts(ip, None)).families.add(family)
                        elif family == "ipv4" and aw[0] == "peer" and (ip := parse_ip(aw[1])) is not None:
                            if aw[2:] == ["advertise-community"]:
                                facts.peers.setdefault(ip, PeerFacts(ip, None)).send_community = True
                            elif aw[2] == "route-policy" and len(aw) == 5 and aw[4] in ("import", "export"):
                                bound.append((ip, aw[3], aw[4]))
                        elif family == "ipv4" and aw[0] == "network" and len(aw) == 3:
                            facts.networks.append(IPv4Interface(f"{aw[1]}/{aw[2]}").network)
                        elif family == "ipv4" and aw == ["balance", "as-path-relax"]:
                            facts.multipath_relax = True
                        elif family == "ipv4" and aw[0] == "balance" and len(aw) == 2:
                            facts.max_paths = int(aw[1])
                elif w[:2] == ["ip", "vpn-instance"] and len(w) == 3:
                    for aw in (c.text.split() for af in sub.children.values() for c in af.children.values()):
                        if aw == ["import-route", "direct"]:
                            facts.redistributed.add(w[2])
    _apply_policies(facts, policies, bound)
    return facts


def _apply_policies(
    facts: DeviceFacts, policies: dict[str, list[list[str]]], bound: list[tuple[IPv4Address, str, str]]
) -> None:
    """What the routing policies bound to a peer do to its routes (Configuring apply clauses,
    reference source hpe10500-policy): `apply as-path N..` adds the numbers in front of the
    AS_PATH, `apply community 65535:0 additive` adds the GRACEFUL_SHUTDOWN community, `apply
    local-preference N` sets LOCAL_PREF. A peer bound to a policy the config lacks gets none."""
    for ip, name, way in bound:
        peer = facts.peers.get(ip)
        if peer is None:
            continue
        for clause in policies.get(name, []):
            if way == "export" and clause[:2] == ["apply", "as-path"] and "replace" not in clause:
                peer.prepend += len(clause) - 2
            elif way == "export" and clause[:2] == ["apply", "community"] and GSHUT in clause:
                peer.gshut = True
            elif (
                way == "import"
                and clause[:2] == ["apply", "local-preference"]
                and clause[2:]
                and clause[2].isdigit()
            ):
                peer.local_pref_in = int(clause[2])
