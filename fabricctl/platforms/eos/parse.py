"""Arista EOS config text -> SwitchConfig (the shapes in docs/emitted-syntax.md, plus common variants).

Lines outside fabricctl's scope are skipped. QoS profiles are resolved onto the ports that apply them
(`service-profile`), so a port's PortQos points at the profile lines that make it lossless.
"""

from __future__ import annotations

import contextlib
import re
from ipaddress import IPv4Interface, IPv4Network

from fabricctl.config.addr import wildcard_network
from fabricctl.config.readback import (
    TUNNEL_CLASS,
    TUNNEL_ECN,
    TUNNEL_MARKING,
    Acl,
    AclRule,
    At,
    Interface,
    PeerPolicy,
    PortQos,
    RtHolder,
    Segment,
    Src,
    SwitchConfig,
)
from fabricctl.config.tree import Node, parse_tree

_ACL_RULE = re.compile(r"^(\d+)\s+(permit|deny)\s+(\S+)\s+(.*)$")
_QUEUES = range(8)
#: `interface Vxlan1` lines -> the tunnel QoS they turn on (docs/emitted-syntax.md).
_TUNNEL_QOS = {
    "vxlan qos ecn propagation": TUNNEL_ECN,
    "vxlan qos dscp propagation encapsulation": TUNNEL_MARKING,
    "vxlan qos map dscp to traffic-class decapsulation": TUNNEL_CLASS,
}


def _src(node: Node) -> Src:
    return Src(node.line, node.text)


def _int(word: str) -> int | None:
    return int(word) if word.isdigit() else None


# long: a parser: one dispatch over the config's top-level statements, a branch per statement it reads back
def parse_eos(name: str, text: str) -> SwitchConfig:
    """Read one EOS configuration; never raises on lines it does not know."""
    # EOS load-balances equal-length AS paths by default (Arista TOI "BGP multipath relax",
    # docs/multipod.md); `no bgp bestpath as-path multipath-relax` turns it off.
    cfg = SwitchConfig(
        name=name,
        platform="eos",
        lines=text.count("\n") + 1,
        multipath_relax_default=True,
        # The maintenance receiver route-map gives GRACEFUL_SHUTDOWN routes LOCAL_PREF 0 (Arista
        # TOI "Configurable Maintenance Mode Receiver Route-Map").
        honors_gshut=True,
    )
    for dscp in range(64):  # EOS User Manual, Quality of Service: the default DSCP -> TC map
        cfg.dscp_map[dscp] = At(dscp // 8, Src(0, "(default DSCP -> traffic-class map: DSCP d -> d/8)"))
    bgp_groups: dict[str, list[Node]] = {}  # maintenance BGP group -> its neighbor lines
    quiesced: set[str] = set()  # BGP groups of the quiesced maintenance units
    profiles: dict[str, tuple[PortQos, set[int]]] = {}
    wanted_profile: dict[str, At[str]] = {}
    for node in parse_tree(text):
        words = node.text.split()
        head = words[0]
        if node.text.startswith("interface ") and len(words) == 2:
            if words[1].startswith("Vxlan"):
                _vxlan(cfg, node)
            else:
                intf = _interface(node, wanted_profile)
                cfg.interfaces[intf.name] = intf
        elif node.text.startswith("vrf instance ") and len(words) == 3:
            cfg.vrf(words[2]).src = _src(node)
        elif head == "vlan" and len(words) == 2 and words[1].isdigit():
            seg = cfg.segments.setdefault(words[1], Segment("segment", words[1], _src(node)))
            seg.src = _src(node)
            for child in node.children:
                if child.text.startswith("name "):
                    seg.label = child.text.split(None, 1)[1]
        elif node.text.startswith("ip access-list ") and len(words) == 3:
            cfg.acls[words[2]] = _acl(words[2], node)
        elif node.text.startswith("qos map dscp "):
            _dscp_map(cfg, node, words)
        elif node.text.startswith("qos map traffic-class "):
            # qos map traffic-class <tc...> to tx-queue <q>
            if "to" in words and words[-2] == "tx-queue" and words[-1].isdigit():
                for w in words[3 : words.index("to")]:
                    if w.isdigit():
                        cfg.class_queue[int(w)] = At(int(words[-1]), _src(node))
        elif node.text.startswith("qos profile ") and len(words) == 3:
            profiles[words[2]] = _profile(node)
        elif node.text.startswith("priority-flow-control pause watchdog "):
            seen = cfg.watchdog_timers
            text = node.text if seen is None else f"{seen.value}; {node.text}"
            cfg.watchdog_timers = At(text, seen.src if seen is not None else _src(node))
        elif head == "router" and len(words) == 3 and words[1] == "bgp":
            _bgp(cfg, node)
        elif words[:2] == ["group", "bgp"] and len(words) == 3:
            bgp_groups[words[2]] = [c for c in node.children if c.text.startswith("neighbor ")]
        elif node.text == "maintenance":
            quiesced |= _quiesced(node)
    # A quiesced unit's BGP peers (EOS User Manual, Maintenance Mode): the default BGP profile
    # sends their routes with the GRACEFUL_SHUTDOWN community and gives theirs LOCAL_PREF 0.
    for group in sorted(quiesced):
        for line in bgp_groups.get(group, []):
            peer = line.text.split()[1]
            cfg.bgp.policies[peer] = PeerPolicy(_src(line), gshut=True, local_pref=0)
    for key, seg in cfg.segments.items():
        if f"Vlan{key}" in cfg.interfaces:
            svi = cfg.interfaces[f"Vlan{key}"]
            seg.gateway = At(svi.name, svi.src)
    for intf_name, at in wanted_profile.items():
        intf = cfg.interfaces[intf_name]
        found = profiles.get(at.value)
        if found is None:
            continue  # applied but not defined: the port is not lossless
        prof, nonstrict = found
        q = intf.qos
        q.profile = at.src
        q.trust_dscp = q.trust_dscp or prof.trust_dscp
        q.pfc_enabled = q.pfc_enabled or prof.pfc_enabled
        q.watchdog = q.watchdog or prof.watchdog
        q.no_drop = {**prof.no_drop, **q.no_drop}
        # EOS reserves PFC headroom itself for every no-drop priority (there is no headroom
        # command in AVD's eos_cli_config_gen schema): the no-drop line is what reserves it.
        q.headroom = dict(q.no_drop)
        q.ecn_queues = {**prof.ecn_queues, **q.ecn_queues}
        q.ecn_values = {**prof.ecn_values, **q.ecn_values}
        # EOS schedules a tx-queue strict priority unless it says `no priority`.
        q.strict_queues = {
            **{n: at.src for n in _QUEUES if n not in nonstrict},
            **prof.strict_queues,
            **q.strict_queues,
        }
    return cfg


def _interface(node: Node, wanted_profile: dict[str, At[str]]) -> Interface:
    intf = Interface(node.text.split()[1], _src(node))
    for child in node.children:
        t, s = child.text, _src(child)
        words = t.split()
        if t == "shutdown":
            intf.shutdown = s
        elif t == "no shutdown":
            intf.shutdown = None
        elif words[0] == "vrf" and len(words) == 2:
            intf.vrf = At(words[1], s)
        elif t.startswith("vrf forwarding ") and len(words) == 3:
            intf.vrf = At(words[2], s)
        elif t.startswith("ip address ") and len(words) >= 3:
            cidr = words[3] if words[2] == "virtual" and len(words) > 3 else words[2]
            with contextlib.suppress(ValueError):
                intf.ipv4.append(At(IPv4Interface(cidr), s))
        elif t.startswith("ip access-group ") and len(words) == 4 and words[3] == "in":
            intf.acl_in = At(words[2], s)
        elif t.startswith("switchport access vlan ") and len(words) == 4:
            intf.segment = At(words[3], s)
        elif words[0] == "mtu" and len(words) == 2 and words[1].isdigit():
            intf.mtu = At(int(words[1]), s)
        elif words[0] == "service-profile" and len(words) == 2:
            wanted_profile[intf.name] = At(words[1], s)
        else:
            _qos_line(intf.qos, child)
    return intf


def _qos_line(q: PortQos, node: Node) -> None:
    """A lossless setting, in a qos profile or directly on a port."""
    t, s = node.text, _src(node)
    words = t.split()
    if t == "qos trust dscp":
        q.trust_dscp = s
    elif t == "priority-flow-control on" or t == "priority-flow-control mode on":
        q.pfc_enabled = s
    elif t == "no priority-flow-control" or t == "priority-flow-control off":
        q.pfc_enabled = None
    elif t.startswith("priority-flow-control priority ") and words[-1] == "no-drop":
        p = _int(words[2])
        if p is not None:
            q.no_drop[p] = s
    elif t.startswith("priority-flow-control pause watchdog") and len(words) == 3:
        q.watchdog = s


def _profile(node: Node) -> tuple[PortQos, set[int]]:
    q = PortQos()
    nonstrict: set[int] = set()
    for child in node.children:
        words = child.text.split()
        if words[0] == "tx-queue" and len(words) == 2 and words[1].isdigit():
            n = int(words[1])
            for sub in child.children:
                if sub.text == "priority strict":
                    q.strict_queues[n] = _src(sub)
                elif sub.text == "no priority":
                    nonstrict.add(n)
                elif sub.text.startswith("random-detect ecn"):
                    q.ecn_queues[n] = _src(sub)
                    q.ecn_values[n] = At(sub.text.removeprefix("random-detect ecn "), _src(sub))
        else:
            _qos_line(q, child)
    return q, nonstrict


def _dscp_map(cfg: SwitchConfig, node: Node, words: list[str]) -> None:
    # qos map dscp <d...> to traffic-class <tc>
    if "to" not in words or words[-2] != "traffic-class" or not words[-1].isdigit():
        return
    for w in words[3 : words.index("to")]:
        if w.isdigit():
            cfg.dscp_map[int(w)] = At(int(words[-1]), _src(node))


def _vxlan(cfg: SwitchConfig, node: Node) -> None:
    for child in node.children:
        words = child.text.split()
        qos = " ".join(words[1:]) if words[0] == "no" else " ".join(words)
        if qos in _TUNNEL_QOS:
            if words[0] == "no":
                cfg.tunnel_qos.pop(_TUNNEL_QOS[qos], None)
            else:
                cfg.tunnel_qos[_TUNNEL_QOS[qos]] = _src(child)
        elif len(words) == 5 and words[0] == "vxlan" and words[3] == "vni" and words[4].isdigit():
            at = At(int(words[4]), _src(child))
            if words[1] == "vlan" and words[2].isdigit():
                seg = cfg.segments.setdefault(
                    words[2], Segment("segment", words[2], Src(0, f"vlan {words[2]}"))
                )
                seg.vnis.append(at)
                seg.vni = at
            elif words[1] == "vrf":
                vrf = cfg.vrf(words[2])
                vrf.vnis.append(at)
                vrf.vni = at


def _acl(name: str, node: Node) -> Acl:
    acl = Acl(name, _src(node))
    for child in node.children:
        m = _ACL_RULE.match(child.text)
        if not m:
            continue
        seq, action, proto, rest = int(m.group(1)), m.group(2), m.group(3), m.group(4).split()
        source, rest, ok1 = _address(rest)
        dest, rest, ok2 = _address(rest)
        acl.rules.append(AclRule(seq, action, proto, source, dest, _src(child), ok1 and ok2))
    return acl


def _address(words: list[str]) -> tuple[IPv4Network | None, list[str], bool]:
    """`any` | `host A` | `A/N` | `A W` (wildcard) -> network (None = any), the rest, exact."""
    if not words:
        return None, [], False
    try:
        if words[0] == "any":
            return None, words[1:], True
        if words[0] == "host" and len(words) > 1:
            return IPv4Network(f"{words[1]}/32"), words[2:], True
        if "/" in words[0]:
            return IPv4Network(words[0], strict=False), words[1:], True
        if len(words) > 1:
            net, exact = wildcard_network(words[0], words[1])
            return net, words[2:], exact
    except ValueError:
        pass
    return None, words[1:], False


def _bgp(cfg: SwitchConfig, node: Node) -> None:
    asn = node.text.split()[-1]
    if asn.isdigit():
        cfg.bgp.asn = At(int(asn), _src(node))
    groups: dict[str, str] = {}  # neighbor -> its peer group
    active: set[str] = set()  # neighbors and groups activated in IPv4 unicast
    sends: set[str] = set()  # neighbors and groups sent communities
    for child in node.children:
        words = child.text.split()
        if len(words) == 4 and words[0] == "neighbor" and words[2] == "remote-as" and words[3].isdigit():
            cfg.bgp_neighbors[words[1]] = At(int(words[3]), _src(child))
        elif len(words) == 5 and words[0] == "neighbor" and words[2:4] == ["peer", "group"]:
            groups[words[1]] = words[4]
        elif len(words) == 3 and words[0] == "neighbor" and words[2] == "send-community":
            sends.add(words[1])
        elif words[0] == "maximum-paths" and len(words) >= 2 and words[1].isdigit():
            cfg.bgp.max_paths = At(int(words[1]), _src(child))
        elif child.text in (
            "bgp bestpath as-path multipath-relax",
            "no bgp bestpath as-path multipath-relax",
        ):
            cfg.bgp.relax = At(not child.text.startswith("no "), _src(child))
        elif child.text in ("address-family ipv4", "address-family ipv4 unicast"):
            for af in child.children:
                aw = af.text.split()
                if len(aw) == 3 and aw[0] == "neighbor" and aw[2] == "activate":
                    active.add(aw[1])
                elif len(aw) == 2 and aw[0] == "network":
                    with contextlib.suppress(ValueError):
                        cfg.bgp.networks.append(At(IPv4Network(aw[1]), _src(af)))
        elif words[0] == "vrf" and len(words) == 2:
            _rts(cfg.vrf(words[1]), child)
        elif words[0] == "vlan" and len(words) == 2 and words[1].isdigit():
            seg = cfg.segments.setdefault(words[1], Segment("segment", words[1], Src(0, f"vlan {words[1]}")))
            _rts(seg, child)
    cfg.bgp.ipv4_peers = {ip for ip in cfg.bgp_neighbors if ip in active or groups.get(ip) in active}
    cfg.bgp.communities = {ip for ip in cfg.bgp_neighbors if ip in sends or groups.get(ip) in sends}


def _quiesced(node: Node) -> set[str]:
    """The BGP groups of the maintenance units that are quiesced."""
    out = set()
    for unit in node.children:
        lines = [c.text.split() for c in unit.children]
        if unit.text.startswith("unit ") and ["quiesce"] in lines:
            out |= {w[2] for w in lines if w[:2] == ["group", "bgp"] and len(w) == 3}
    return out


def _rts(holder: RtHolder, node: Node) -> None:
    """route-target import|export|both [evpn] <rt>..."""
    for child in node.children:
        words = child.text.split()
        if len(words) < 3 or words[0] != "route-target":
            continue
        kind, values = words[1], [w for w in words[2:] if ":" in w]
        for rt in values:
            at = At(rt, _src(child))
            if kind in ("import", "both"):
                holder.imports.append(at)
            if kind in ("export", "both"):
                holder.exports.append(at)
