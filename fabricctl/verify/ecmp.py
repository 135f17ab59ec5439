"""ECMP width: how many equal underlay paths each leaf installs towards every other leaf's VTEP
(and each spine towards every other pod), from the BGP attributes and multipath settings the
configs state, against the uplinks the cabling gives it.

eBGP picks the routes with the shortest AS path; of those, a switch installs one per session whose
AS path is the best one's (or any of the same length where the NOS relaxes the rule, by default or by
`balance as-path-relax`), at most `balance` / `maximum-paths`, at most the system's ECMP cap
(`max-ecmp-num`). Each switch announces only its best path, so the AS
paths a switch compares are the ones its neighbours chose. The propagation is computed once per
group of VTEPs announced over the same sessions (every leaf of a healthy pod), which keeps a
100,000-GPU fabric to one pass per pod. A width below the uplink count is a violation naming the
setting that caps it: traffic to that VTEP uses fewer links than are cabled.
"""

from __future__ import annotations

import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from ipaddress import IPv4Address

from fabricctl.compile.build import Compiled
from fabricctl.config.readback import Src, SwitchConfig
from fabricctl.verify.report import EcmpRow, Violation

#: The AS of the VTEP being routed to, in a path computed once for a group of VTEPs (never a real ASN).
_ORIGIN = -1


@dataclass
class _Node:
    """One switch as route propagation sees it: its ASN, multipath settings and sessions."""

    name: str
    asn: int
    max_paths: int
    relax: bool
    ecmp_limit: int | None
    peers: dict[str, int] = field(default_factory=dict)  # neighbour switch -> established sessions


@dataclass(frozen=True)
class _Route:
    """A switch's route to a group of VTEPs: its best AS path and the sessions it installs."""

    path: tuple[int, ...]
    equal: int  # sessions whose path ties with the best (same AS path, or same length if relaxed)
    same_length: int  # sessions with a path of the best length (what relaxing would give)
    installed: int


def check_ecmp(compiled: Compiled, parsed: dict[str, SwitchConfig]) -> tuple[list[Violation], list[EcmpRow]]:
    """ECMP width of every leaf towards every other VTEP and of every spine towards every other
    pod; violations where it is below the uplink count, and one row per pod pair."""
    nodes, problems = _sessions(parsed)
    fabric, topo = compiled.fabric, compiled.topology
    uplinks: dict[str, int] = {}  # cabled uplinks towards a switch whose config was read
    for ln in topo.links:  # (an unread one is a config-missing violation already)
        if ln.spine in parsed:
            uplinks[ln.leaf] = uplinks.get(ln.leaf, 0) + 1
    pod = {sw.name: sw.pod for sw in fabric.switches}
    role = {sw.name: sw.role for sw in fabric.switches}
    origins = _origins(compiled, parsed, nodes)
    out: list[Violation] = list(problems)
    worst: dict[tuple[str, str], tuple[int, int, str]] = {}  # (scope, towards) -> (width, uplinks, switch)
    for members, route in _propagate(nodes, origins):
        towards = _label(members, pod)
        for name, r in route.items():
            if role.get(name) not in ("leaf", "spine") or name not in uplinks:
                continue
            if role[name] == "spine" and (
                pod.get(name) is None or {pod.get(name)} == {pod.get(m) for m in members}
            ):
                continue  # a spine reaches its own pod's leaves over one cable each, not its uplinks
            others = [m for m in members if m != name]
            if not others:
                continue
            need = uplinks[name]
            tier = "leaves" if role[name] == "leaf" else "spines"
            scope = f"pod {pod[name]} {tier}" if pod.get(name) else tier
            key = (scope, towards)
            seen = worst.get(key)
            if seen is None or (r.installed, name) < (seen[0], seen[2]):
                worst[key] = (r.installed, need, name)
            if r.installed < need:
                out.append(_short(parsed[name], nodes[name], r, need, others, towards))
        for name in _unreached(nodes, route, members, role):
            out.append(_unreachable(parsed[name], members, towards))
    rows = [
        EcmpRow(scope, towards, width, need, width >= need, switch)
        for (scope, towards), (width, need, switch) in sorted(worst.items())
    ]
    return out, rows


def _sessions(parsed: dict[str, SwitchConfig]) -> tuple[dict[str, _Node], list[Violation]]:
    """Every IPv4 unicast session the two ends' configs agree on, counted per neighbour switch."""
    owner: dict[int, str] = {}  # address (as an int) -> the switch holding it
    local: dict[str, dict[int, int]] = {}  # switch -> peer address on a connected /31 -> its own
    for name, cfg in parsed.items():
        mine = local[name] = {}
        for intf in cfg.interfaces.values():
            if intf.vrf is not None:
                continue
            for at in intf.ipv4:
                ip = int(at.value)  # an interface is its address
                owner[ip] = name
                if at.value.network.prefixlen == 31 and intf.shutdown is None:
                    mine[ip ^ 1] = ip
    nodes: dict[str, _Node] = {}
    for name, cfg in parsed.items():
        b = cfg.bgp
        if b.asn is None:
            continue
        nodes[name] = _Node(
            name,
            b.asn.value,
            b.max_paths.value if b.max_paths else 1,
            b.relax.value if b.relax else cfg.multipath_relax_default,
            b.ecmp_limit.value if b.ecmp_limit else cfg.ecmp_limit_default,
        )
    problems: list[Violation] = []
    for name, cfg in parsed.items():
        here = nodes.get(name)
        if here is None:
            continue
        for peer in sorted(cfg.bgp.ipv4_peers):
            ip = _to_int(peer)
            near = local[name].get(ip)
            far = owner.get(ip)
            if near is None or far is None or far not in nodes:
                continue  # not a directly connected fabric peer: not an underlay path
            there, peer_cfg = nodes[far], parsed[far]
            back_ip = socket.inet_ntoa(near.to_bytes(4, "big"))
            remote = cfg.bgp_neighbors.get(peer)
            back = peer_cfg.bgp_neighbors.get(back_ip)
            if remote is None or remote.value != there.asn or back is None or back.value != here.asn:
                if name < far:
                    problems.append(_mismatch(cfg, peer, far, there.asn))
                continue
            if back_ip in peer_cfg.bgp.ipv4_peers:
                here.peers[far] = here.peers.get(far, 0) + 1
    return nodes, problems


def _to_int(address: str) -> int:
    """A dotted IPv4 address as an int, in C (ipaddress costs a fifth of the proof at 10,000 GPUs)."""
    try:
        return int.from_bytes(socket.inet_aton(address), "big")
    except OSError:
        return -1


def _origins(
    compiled: Compiled, parsed: dict[str, SwitchConfig], nodes: dict[str, _Node]
) -> dict[tuple[object, ...], list[str]]:
    """Leaves that announce their VTEP, grouped by the sessions they announce it over: a group's
    VTEPs propagate alike, so one computation serves them all. A leaf whose ASN another switch
    shares is its own group (loop prevention then differs)."""
    asns: dict[int, int] = {}
    for each in nodes.values():
        asns[each.asn] = asns.get(each.asn, 0) + 1
    groups: dict[tuple[object, ...], list[str]] = {}
    for name, intent in compiled.intents.items():
        node, cfg = nodes.get(name), parsed.get(name)
        if intent.vtep is None or node is None or cfg is None:
            continue
        vtep = IPv4Address(intent.vtep.source_ip)
        if not any(vtep in at.value for at in cfg.bgp.networks):
            continue  # not announced: no VTEP to route to (isolation/vtep checks name it)
        key: tuple[object, ...] = tuple(sorted(node.peers.items()))
        if asns[node.asn] > 1:
            key += (name,)
        groups.setdefault(key, []).append(name)
    return groups


def _propagate(
    nodes: dict[str, _Node], origins: dict[tuple[object, ...], list[str]]
) -> Iterable[tuple[list[str], dict[str, _Route]]]:
    """(the VTEP group, switch -> its route) per group: path-vector propagation layer by layer.

    A switch takes the routes of the neighbours settled one layer before it (shorter paths it
    rejected contained its own ASN, and they stay so), keeps those without its ASN, and installs
    the ties of the best. Its best path is what it announces on."""
    for members in origins.values():
        first = nodes[members[0]]
        sessions = dict(first.peers)
        route: dict[str, _Route] = {}
        frontier: dict[str, tuple[int, ...]] = {}
        for peer, count in sessions.items():
            node = nodes[peer]
            route[peer] = _choose(node, [((_ORIGIN,), count, members[0])])
            frontier[peer] = route[peer].path
        adjacency = {name: n.peers for name, n in nodes.items()}
        while frontier:
            offers: dict[str, list[tuple[tuple[int, ...], int, str]]] = {}
            for sender, path in frontier.items():
                announced = (nodes[sender].asn, *path)
                for receiver, count in adjacency[sender].items():
                    if receiver in route or (receiver in members and len(members) == 1):
                        continue
                    offers.setdefault(receiver, []).append((announced, count, sender))
            frontier = {}
            for receiver, offered in offers.items():
                node = nodes[receiver]
                usable = [o for o in offered if node.asn not in o[0]]
                if usable:
                    route[receiver] = _choose(node, usable)
                    frontier[receiver] = route[receiver].path
        yield members, route


def _choose(node: _Node, offers: list[tuple[tuple[int, ...], int, str]]) -> _Route:
    """The best path (lowest neighbour name breaks ties, as the lowest router id would) and what
    multipath installs of the rest."""
    best = min(offers, key=lambda o: (len(o[0]), o[2]))[0]
    same_length = sum(c for p, c, _ in offers if len(p) == len(best))
    equal = same_length if node.relax else sum(c for p, c, _ in offers if p == best)
    installed = min(equal, node.max_paths, node.ecmp_limit or equal)
    return _Route(best, equal, same_length, installed)


def _label(members: list[str], pod: dict[str, int | None]) -> str:
    pods = sorted({p for m in members if (p := pod.get(m)) is not None})
    if len(members) == 1:
        return f"VTEP of {members[0]}"
    if len(pods) == 1:
        return f"VTEPs of pod {pods[0]}"
    return "VTEPs of the leaves"


def _unreached(
    nodes: dict[str, _Node], route: dict[str, _Route], members: list[str], role: Mapping[str, str]
) -> list[str]:
    """Leaves with a session that never learn the group's VTEPs."""
    return [
        n
        for n in sorted(nodes)
        if role.get(n) == "leaf"
        and n not in route
        and (n not in members or len(members) > 1)
        and nodes[n].peers
    ]


def _short(
    cfg: SwitchConfig, node: _Node, r: _Route, need: int, others: list[str], towards: str
) -> Violation:
    """Why `node` installs fewer paths than it has uplinks, pinned on the line that caps it."""
    b = cfg.bgp
    bgp_src = b.asn.src if b.asn else Src(0, "(no BGP)")
    example = others[0]
    if r.equal < r.same_length:
        src, why = (
            (b.relax.src if b.relax else bgp_src),
            f"{r.same_length} equal-length paths carry different AS paths and {cfg.name} load-balances "
            f"only identical ones ({r.equal} of them: the AS-path rule is not relaxed); give every "
            "super-spine one ASN (RFC 7938 section 5.2.1)",
        )
    elif r.installed == node.max_paths and node.max_paths < r.equal:
        src = b.max_paths.src if b.max_paths else bgp_src
        why = f"multipath is capped at {node.max_paths} (`balance` / `maximum-paths`)"
    elif node.ecmp_limit is not None and r.installed == node.ecmp_limit and node.ecmp_limit < r.equal:
        src = (
            b.ecmp_limit.src if b.ecmp_limit else Src(0, f"(no max-ecmp-num: the default {node.ecmp_limit})")
        )
        why = f"the system installs at most {node.ecmp_limit} ECMP routes (`max-ecmp-num`)"
    else:
        src = bgp_src
        why = f"only {r.equal} of {need} uplinks carry an established IPv4 session learning it"
    return Violation(
        "ecmp-width",
        cfg.name,
        towards,
        src.line or None,
        src.text,
        f"{cfg.name} reaches {example}'s VTEP (and {len(others) - 1} more) over {r.installed} of its "
        f"{need} uplinks: {why}; the other uplinks carry none of that traffic",
    )


def _unreachable(cfg: SwitchConfig, members: list[str], towards: str) -> Violation:
    src = cfg.bgp.asn.src if cfg.bgp.asn else Src(0, "(no BGP)")
    return Violation(
        "ecmp-width",
        cfg.name,
        towards,
        src.line or None,
        src.text,
        f"{cfg.name} learns no underlay route to {members[0]}'s VTEP: VXLAN to it has no path",
    )


def _mismatch(cfg: SwitchConfig, ip: str, far: str, far_asn: int) -> Violation:
    at = cfg.bgp_neighbors.get(ip)
    return Violation(
        "ecmp-width",
        cfg.name,
        f"peer {ip}",
        at.src.line if at else None,
        at.src.text if at else f"(no peer {ip})",
        f"the session to {far} (AS {far_asn}) does not come up: the two ends name different ASNs, "
        "so its uplink carries no path",
    )
