"""H3C Comware V7 config text -> SwitchConfig (docs/emitted-syntax.md shapes, plus common variants).

Comware spreads the lossless class over per-port lines and a WRED queue table; both are resolved onto
the port. A repeated `interface X` block merges into the same interface, as on the switch, so a
template that emits two blocks for one SVI is read the way the switch would apply it.
"""

from __future__ import annotations

import contextlib
from ipaddress import IPv4Interface, IPv4Network

from fabricctl.config.addr import wildcard_network
from fabricctl.config.readback import (
    TUNNEL_CLASS,
    Acl,
    AclRule,
    At,
    Interface,
    PeerPolicy,
    RtHolder,
    Segment,
    Src,
    SwitchConfig,
)
from fabricctl.config.tree import Node, parse_tree
from fabricctl.platforms.comware.qos import DEFAULT_DOT1P_LP, QUEUE_NUMBER, default_dscp_dot1p

#: ECMP routes the system installs without `max-ecmp-num` (H3C S6520X IP Routing Configuration
#: Guide R1110, 1.5 "Configuring the maximum number of ECMP routes": default 8, takes effect after
#: a reboot; the S98xx figure is not published, so the documented sibling's default is assumed).
DEFAULT_MAX_ECMP = 8
#: The GRACEFUL_SHUTDOWN community (RFC 8326) as Comware writes a community, `aa:nn`.
GSHUT_COMMUNITY = "65535:0"

#: Frame limit of a port without `jumboframe enable N` (S6850 guide; H3C's Comware code: 9416).
DEFAULT_MAX_FRAME = 9416


def _src(node: Node) -> Src:
    return Src(node.line, node.text)


# long: a parser: one dispatch over the config's top-level statements, a branch per statement it reads back
def parse_comware(name: str, text: str) -> SwitchConfig:
    """Read one Comware configuration; never raises on lines it does not know."""
    cfg = SwitchConfig(
        name=name,
        platform="comware",
        lines=text.count("\n") + 1,
        max_frame_default=DEFAULT_MAX_FRAME,
        ecmp_limit_default=DEFAULT_MAX_ECMP,
    )
    for dscp in range(64):
        cfg.dscp_map[dscp] = At(default_dscp_dot1p(dscp), Src(0, "(pre-defined dscp-dot1p map)"))
    for dot1p, lp in DEFAULT_DOT1P_LP.items():
        if lp != dot1p:
            cfg.class_queue[dot1p] = At(lp, Src(0, f"(pre-defined dot1p-lp map: {dot1p} -> {lp})"))
    wred: dict[str, dict[int, Src]] = {}
    wred_values: dict[str, dict[int, At[str]]] = {}
    wred_apply: dict[str, At[str]] = {}
    deadlock: list[Node] = []
    policies: dict[str, list[Node]] = {}  # routing policy -> the apply clauses of its permit nodes
    bound: list[tuple[str, str, str, Node]] = []
    for node in parse_tree(text):
        words = node.text.split()
        if words[0] == "interface" and len(words) == 2:
            intf = cfg.interfaces.get(words[1]) or Interface(words[1], _src(node))
            cfg.interfaces[intf.name] = intf
            _interface(intf, node, wred_apply)
        elif node.text.startswith("ip vpn-instance ") and len(words) == 3:
            vrf = cfg.vrf(words[2])
            vrf.src = _src(node)
            _rts(vrf, node)
        elif words[0] == "vsi" and len(words) == 2:
            _vsi(cfg, node, words[1])
        elif node.text.startswith("acl advanced name ") and len(words) == 4:
            cfg.acls[words[3]] = _acl(words[3], node)
        elif len(words) == 3 and (
            node.text.startswith("acl number ") or node.text.startswith("acl advanced ")
        ):
            acl_name = words[-1]
            cfg.acls[acl_name] = _acl(acl_name, node)
        elif node.text in ("qos map-table dscp-dot1p", "qos map-table dot1p-lp"):
            table = cfg.dscp_map if node.text.endswith("dscp-dot1p") else cfg.class_queue
            for child in node.children:
                cw = child.text.split()
                if cw[0] == "import" and "export" in cw and cw[-1].isdigit():
                    for d in cw[1 : cw.index("export")]:
                        if d.isdigit():
                            table[int(d)] = At(int(cw[-1]), _src(child))
        elif node.text == "qos trust tunnel-dot1p":
            cfg.tunnel_qos[TUNNEL_CLASS] = _src(node)
        elif node.text.startswith("qos wred queue table ") and len(words) == 5:
            ecn = wred.setdefault(words[4], {})
            values = wred_values.setdefault(words[4], {})
            for child in node.children:
                cw = child.text.split()
                if len(cw) == 3 and cw[0] == "queue" and cw[2] == "ecn" and cw[1].isdigit():
                    ecn[int(cw[1])] = _src(child)
                elif len(cw) > 3 and cw[0] == "queue" and cw[1].isdigit():
                    n = int(cw[1])
                    seen = values.get(n)
                    text = " ".join(cw[2:]) if seen is None else f"{seen.value}, {' '.join(cw[2:])}"
                    values[n] = At(
                        text, seen.src if seen is not None and "limit" in seen.value else _src(child)
                    )
        elif node.text.startswith("priority-flow-control deadlock "):
            deadlock.append(node)
        elif words[0] == "bgp" and len(words) == 2:
            bound = _bgp(cfg, node, words[1])
        elif words[0] == "route-policy" and len(words) == 5 and words[2:4] == ["permit", "node"]:
            policies.setdefault(words[1], []).extend(node.children)
        elif words[0] == "max-ecmp-num" and len(words) == 2 and words[1].isdigit():
            cfg.bgp.ecmp_limit = At(int(words[1]), _src(node))
    for intf_name, at in wred_apply.items():
        q = cfg.interfaces[intf_name].qos
        q.profile = at.src
        q.ecn_queues = dict(wred.get(at.value, {}))
        q.ecn_values = dict(wred_values.get(at.value, {}))
    if deadlock:
        cfg.watchdog_timers = At("; ".join(sorted(n.text for n in deadlock)), _src(deadlock[0]))
    _bind_l3vnis(cfg)
    _peer_policies(cfg, policies, bound)
    return cfg


def _peer_policies(
    cfg: SwitchConfig, policies: dict[str, list[Node]], bound: list[tuple[str, str, str, Node]]
) -> None:
    """What the routing policies bound to a peer do to its routes (HPE 10500 Comware 7 L3 IP
    routing configuration guide, "Configuring apply clauses"): `apply as-path N..` without
    `replace` adds the numbers in front of the AS_PATH, `apply community 65535:0` adds the
    GRACEFUL_SHUTDOWN community (RFC 8326), `apply local-preference N` sets LOCAL_PREF."""
    for peer, name, way, line in bound:
        policy = cfg.bgp.policies.get(peer) or PeerPolicy(_src(line))
        for clause in policies.get(name, []):
            w = clause.text.split()
            if way == "export" and w[:2] == ["apply", "as-path"] and "replace" not in w:
                policy.prepend += sum(1 for n in w[2:] if n.isdigit())
            elif way == "export" and w[:2] == ["apply", "community"] and GSHUT_COMMUNITY in w:
                policy.gshut = True
            elif way == "import" and w[:2] == ["apply", "local-preference"] and w[2:3] and w[2].isdigit():
                policy.local_pref = int(w[2])
        if policy.gshut or policy.prepend or policy.local_pref is not None:
            cfg.bgp.policies[peer] = policy


def _interface(intf: Interface, node: Node, wred_apply: dict[str, At[str]]) -> None:
    q = intf.qos
    for child in node.children:
        t, s = child.text, _src(child)
        words = t.split()
        if t == "shutdown":
            intf.shutdown = s
        elif t == "undo shutdown":
            intf.shutdown = None
        elif t.startswith("ip binding vpn-instance ") and len(words) == 4:
            intf.vrf = At(words[3], s)
        elif t.startswith("ip address ") and len(words) >= 4 and words[-1] != "sub":
            with contextlib.suppress(ValueError):
                intf.ipv4 = [At(IPv4Interface(f"{words[2]}/{words[3]}"), s)]
        elif t.startswith("packet-filter ") and words[-1] == "inbound":
            acl = words[2] if words[1] == "name" and len(words) == 4 else words[1]
            intf.acl_in = At(acl, s)
        elif t.startswith("jumboframe enable") and len(words) == 3 and words[2].isdigit():
            intf.max_frame = At(int(words[2]), s)
        elif t.startswith("mtu ") and len(words) == 2 and words[1].isdigit():
            intf.mtu = At(int(words[1]), s)
        elif t.startswith("l3-vni ") and len(words) == 2 and words[1].isdigit():
            intf.l3vni = At(int(words[1]), s)
        elif words[0] == "service-instance":
            for sub in child.children:
                sw = sub.text.split()
                if len(sw) >= 3 and sw[0] == "xconnect" and sw[1] == "vsi":
                    intf.segment = At(sw[2], _src(sub))
        elif t == "qos trust dscp":
            q.trust_dscp = s
        elif t == "priority-flow-control enable" or t == "priority-flow-control auto":
            q.pfc_enabled = s
        elif t == "undo priority-flow-control enable":
            q.pfc_enabled = None
        elif t.startswith("priority-flow-control no-drop dot1p "):
            for p in words[3:]:
                if p.isdigit():
                    q.no_drop[int(p)] = s
        elif t == "priority-flow-control deadlock enable":
            q.watchdog = s
        elif len(words) == 5 and words[:2] == ["priority-flow-control", "dot1p"] and words[3] == "headroom":
            if words[2].isdigit() and words[4].isdigit() and int(words[4]) > 0:
                q.headroom[int(words[2])] = s
                q.headroom_cells[int(words[2])] = At(int(words[4]), s)
        elif t.startswith("qos wrr ") and len(words) >= 4 and words[2] in QUEUE_NUMBER:
            n = QUEUE_NUMBER[words[2]]
            if words[3:] == ["group", "sp"]:
                q.strict_queues[n] = s
            else:
                q.strict_queues.pop(n, None)
        elif t.startswith("qos sp ") or t == "qos sp":
            q.strict_queues.update({n: s for n in range(8)})
        elif t.startswith("qos wred apply ") and len(words) == 4:
            wred_apply[intf.name] = At(words[3], s)


def _bgp(cfg: SwitchConfig, node: Node, asn: str) -> list[tuple[str, str, str, Node]]:
    """Sessions, and what the IPv4 unicast family announces and load-balances; returns the
    routing policies its peers apply: (peer, policy, import | export, the line)."""
    bound: list[tuple[str, str, str, Node]] = []
    if asn.isdigit():
        cfg.bgp.asn = At(int(asn), _src(node))
    cfg.bgp.communities = set()  # Comware sends communities only with `peer advertise-community`
    for child in node.children:
        cw = child.text.split()
        if len(cw) == 4 and cw[0] == "peer" and cw[2] == "as-number" and cw[3].isdigit():
            cfg.bgp_neighbors[cw[1]] = At(int(cw[3]), _src(child))
        elif child.text in ("address-family ipv4", "address-family ipv4 unicast"):
            for af in child.children:
                aw = af.text.split()
                if af.text in ("balance as-path-relax", "balance as-path-neglect"):
                    cfg.bgp.relax = At(True, _src(af))
                elif len(aw) == 2 and aw[0] == "balance" and aw[1].isdigit():
                    cfg.bgp.max_paths = At(int(aw[1]), _src(af))
                elif len(aw) == 3 and aw[0] == "network":
                    with contextlib.suppress(ValueError):
                        cfg.bgp.networks.append(At(IPv4Network(f"{aw[1]}/{aw[2]}"), _src(af)))
                elif len(aw) == 3 and aw[0] == "peer" and aw[2] == "enable":
                    cfg.bgp.ipv4_peers.add(aw[1])
                elif aw[0] == "peer" and aw[2:] == ["advertise-community"]:
                    cfg.bgp.communities.add(aw[1])
                elif (
                    len(aw) == 5
                    and aw[0] == "peer"
                    and aw[2] == "route-policy"
                    and aw[4] in ("import", "export")
                ):
                    bound.append((aw[1], aw[3], aw[4], af))
    return bound


def _vsi(cfg: SwitchConfig, node: Node, name: str) -> None:
    seg = cfg.segments.get(name) or Segment("segment", name, _src(node), label=name)
    cfg.segments[name] = seg
    for child in node.children:
        words = child.text.split()
        if words[0] == "vxlan" and len(words) == 2 and words[1].isdigit():
            seg.vni = At(int(words[1]), _src(child))
            seg.vnis.append(seg.vni)
        elif child.text.startswith("gateway vsi-interface ") and len(words) == 3:
            seg.gateway = At(f"Vsi-interface{words[2]}", _src(child))
        elif child.text.startswith("evpn encapsulation"):
            _rts(seg, child)


def _rts(holder: RtHolder, node: Node) -> None:
    """vpn-target <rt>... [import-extcommunity|export-extcommunity], at any depth (address families)."""
    for child in node.walk():
        words = child.text.split()
        if words[0] != "vpn-target" or len(words) < 2:
            continue
        kind = words[-1] if words[-1].endswith("-extcommunity") else "both"
        for rt in (w for w in words[1:] if ":" in w):
            at = At(rt, _src(child))
            if kind in ("import-extcommunity", "both"):
                holder.imports.append(at)
            if kind in ("export-extcommunity", "both"):
                holder.exports.append(at)


def _acl(name: str, node: Node) -> Acl:
    acl = Acl(name, _src(node))
    for child in node.children:
        words = child.text.split()
        if (
            len(words) < 4
            or words[0] != "rule"
            or not words[1].isdigit()
            or words[2] not in ("permit", "deny")
        ):
            continue
        source = dest = None
        exact = True
        rest = words[4:]
        for key in ("source", "destination"):
            if key in rest:
                i = rest.index(key)
                try:
                    if rest[i + 1] == "any":
                        net, ok = None, True
                    elif rest[i + 2] == "0":
                        net, ok = IPv4Network(f"{rest[i + 1]}/32"), True
                    else:
                        net, ok = wildcard_network(rest[i + 1], rest[i + 2])
                except (IndexError, ValueError):
                    net, ok = None, False
                exact = exact and ok
                if key == "source":
                    source = net
                else:
                    dest = net
        acl.rules.append(AclRule(int(words[1]), words[2], words[3], source, dest, _src(child), exact))
    return acl


def _bind_l3vnis(cfg: SwitchConfig) -> None:
    """`l3-vni N` on a Vsi-interface gives the VRF bound to that interface its L3VNI."""
    for intf in cfg.interfaces.values():
        if intf.l3vni is None:
            continue
        vrf = cfg.vrf(intf.vrf.value if intf.vrf else "(global)")
        vrf.vnis.append(intf.l3vni)
        vrf.vni = intf.l3vni
