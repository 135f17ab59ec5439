"""The drain proof: what the switches and links in maintenance.yaml leave every tenant.

A drain is safe when every tenant keeps enough of its fabric. From the configs (read back as each
switch will run them), underlay routing is worked out twice, with and without what the configs do
to the drained sessions (config/readback.py `PeerPolicy`: the GRACEFUL_SHUTDOWN community,
prepended AS, LOCAL_PREF), as BGP ranks paths (RFC 4271 9.1.2.2): highest LOCAL_PREF, where a route
carrying the community gets 0 on a NOS that honours it (RFC 8326 receiver procedure), then the
shortest AS path; ties load-balance up to the multipath limit. The community travels only over
sessions that send communities.

Per tenant, for every pair of its leaves, the paths and bandwidth left: the leaf's ECMP width
towards the other leaf's VTEP (each path an uplink's bandwidth), and across pods the share of
the spines' uplink paths it still reaches. The tenant's figure is its worst pair, through the
tier that loses the larger share. A tenant is
below its floor when it keeps less than 1 - `drain.max_bandwidth_loss` (fabric.yaml) of what it
had, or when a pair of its leaves is left with paths only through drained switches and links
(RFC 8326 keeps using a drained path when nothing else is left: the drain would not take it out
of service). A drained leaf takes its GPUs off the fabric: its tenants are named, and the plan is
disruptive (apply needs --allow-disruptive).
"""

from __future__ import annotations

import socket
from dataclasses import dataclass, field

from fabricctl.compile.build import Compiled
from fabricctl.compile.drain import drained_links, link_name
from fabricctl.compile.topology import addr_str, switch_model
from fabricctl.config.readback import SwitchConfig
from fabricctl.verify.report import DrainProof, TenantPaths, Violation

#: LOCAL_PREF of a route no policy touches (RFC 4271's usual default).
DEFAULT_LOCAL_PREF = 100
#: The AS of the VTEPs being routed to, in a path computed once for a group of them.
_ORIGIN = -1


@dataclass(frozen=True)
class _In:
    """One session as its receiver hears it: the sender and what both configs do to its routes."""

    sender: str
    gshut: bool  # the sender adds the community
    prepend: int  # the sender prepends its AS this many times more
    sends: bool  # the sender sends communities at all
    local_pref: int | None  # the receiver's import LOCAL_PREF
    shaped: bool  # any of the above: a drained session


@dataclass(frozen=True)
class _Route:
    path: tuple[int, ...]
    gshut: bool  # carries the community
    drained: bool  # every installed path crosses a drained session
    mixed: bool  # some installed paths cross a drained session, some do not
    installed: int  # sessions installed (the ECMP width)
    via: tuple[str, ...]  # the senders of the installed sessions


#: The route the group's first member announces for all of them.
_SEED = _Route((_ORIGIN,), False, False, False, 0, ())


@dataclass
class _Node:
    name: str
    asn: int
    relax: bool
    limit: int  # min(max paths, the system's ECMP cap)
    honors: bool
    heard: list[_In] = field(default_factory=list)


def check_drain(
    compiled: Compiled, parsed: dict[str, SwitchConfig]
) -> tuple[DrainProof | None, list[Violation]]:
    """The proof of the fabric's maintenance.yaml over the read-back configs (None: nothing drained)."""
    maintenance = compiled.fabric.maintenance
    if not maintenance.drained:
        return None, []
    fabric = compiled.fabric
    proof = DrainProof(
        drained=[d.target for d in maintenance.drained],
        max_loss=fabric.settings.drain.max_bandwidth_loss,
        links=len(drained_links(maintenance, compiled.topology)),
    )
    nodes = _nodes(parsed)
    groups = _groups(compiled, parsed, nodes)
    before = {key: _propagate(nodes, members, False) for key, members in groups.items()}
    after = {key: _propagate(nodes, members, True) for key, members in groups.items()}
    group_of = {m: key for key, members in groups.items() for m in members}
    drained_leaves = {
        d.switch
        for d in maintenance.drained
        if d.port is None and (sw := fabric.switch(d.switch)) and sw.role == "leaf"
    }
    for (leaf, _port), (owner, pa) in sorted(compiled.allocation.port_owner.items()):
        if leaf in drained_leaves:
            proof.cut_off.setdefault(owner.tenant.name, []).append(
                f"{pa.gpu.server} nic{pa.gpu.nic} ({leaf})"
            )
    pod = {sw.name: sw.pod for sw in fabric.switches}
    spines_of = {p: [sw.name for sw in fabric.in_pod("spine", p)] for p in fabric.pods}
    gbps = {sw.name: switch_model(sw).port_gbps for sw in fabric.switches}
    violations = []
    for alloc in compiled.allocation.tenants:
        leaves = [leaf for leaf in alloc.leaves if leaf not in drained_leaves]
        row = _tenant(
            alloc.tenant.name, leaves, before, after, group_of, pod, spines_of, gbps, proof.max_loss
        )
        proof.tenants.append(row)
        if not row.ok:
            violations.append(_violation(row, proof))
    proof.still_crossing = _still_crossing(after)
    return proof, violations


def _nodes(parsed: dict[str, SwitchConfig]) -> dict[str, _Node]:
    """Every switch with BGP, and the IPv4 sessions both ends' configs agree on."""
    owner: dict[str, str] = {}
    local: dict[str, dict[str, str]] = {}  # switch -> peer address on a connected /31 -> its own
    for name, cfg in parsed.items():
        local[name] = {}
        for intf in cfg.interfaces.values():
            if intf.vrf is not None:
                continue
            for at in intf.ipv4:
                ip = at.value.ip
                owner[str(ip)] = name
                if at.value.network.prefixlen == 31 and intf.shutdown is None:
                    local[name][socket.inet_ntoa((int(ip) ^ 1).to_bytes(4, "big"))] = str(ip)
    nodes = {}
    for name, cfg in parsed.items():
        b = cfg.bgp
        if b.asn is None:
            continue
        limit = b.max_paths.value if b.max_paths else 1
        cap = b.ecmp_limit.value if b.ecmp_limit else cfg.ecmp_limit_default
        nodes[name] = _Node(
            name,
            b.asn.value,
            b.relax.value if b.relax else cfg.multipath_relax_default,
            min(limit, cap) if cap else limit,
            cfg.honors_gshut,
        )
    for name, cfg in parsed.items():
        here = nodes.get(name)
        if here is None:
            continue
        for peer in sorted(cfg.bgp.ipv4_peers):
            mine, far = local[name].get(peer), owner.get(peer)
            if mine is None or far is None or far not in nodes:
                continue
            theirs = parsed[far]
            remote, back = cfg.bgp_neighbors.get(peer), theirs.bgp_neighbors.get(mine)
            if remote is None or back is None or remote.value != nodes[far].asn or back.value != here.asn:
                continue
            if mine not in theirs.bgp.ipv4_peers:
                continue
            out = theirs.bgp.policies.get(mine)
            inbound = cfg.bgp.policies.get(peer)
            sends = theirs.bgp.communities is None or mine in theirs.bgp.communities
            local_pref = inbound.local_pref if inbound is not None else None
            here.heard.append(
                _In(
                    far,
                    out is not None and out.gshut,
                    out.prepend if out is not None else 0,
                    sends,
                    local_pref,
                    out is not None or inbound is not None,
                )
            )
    return nodes


def _groups(
    compiled: Compiled, parsed: dict[str, SwitchConfig], nodes: dict[str, _Node]
) -> dict[tuple[object, ...], list[str]]:
    """Leaves announcing their VTEP, grouped by how their routes leave them (the sessions, as
    their neighbours hear them): a group's VTEPs propagate alike. A leaf whose ASN another
    switch shares is its own group (loop prevention differs)."""
    from ipaddress import IPv4Address

    asns: dict[int, int] = {}
    for n in nodes.values():
        asns[n.asn] = asns.get(n.asn, 0) + 1
    sent: dict[str, list[tuple[str, _In]]] = {}  # sender -> (receiver, session) it announces over
    for n in nodes.values():
        for s in n.heard:
            sent.setdefault(s.sender, []).append((n.name, s))
    groups: dict[tuple[object, ...], list[str]] = {}
    for name, intent in compiled.intents.items():
        cfg = parsed.get(name)
        if intent.vtep is None or name not in nodes or cfg is None:
            continue
        vtep = IPv4Address(intent.vtep.source_ip)
        if not any(vtep in at.value for at in cfg.bgp.networks):
            continue
        key: tuple[object, ...] = tuple(
            sorted(
                (r, s.gshut, s.prepend, s.sends, -1 if s.local_pref is None else s.local_pref)
                for r, s in sent.get(name, [])
            )
        )
        if asns[nodes[name].asn] > 1:
            key += (name,)
        groups.setdefault(key, []).append(name)
    return groups


def _propagate(nodes: dict[str, _Node], members: list[str], shaped: bool) -> dict[str, _Route]:
    """Every switch's route to the group's VTEPs, announced onwards until none changes; `shaped`
    False ignores what the configs do to drained sessions (the fabric before the drain). The first
    member announces the group for all (its sessions are the group's); it and the other members
    hear the group like any switch, which is their route to the other members."""
    listeners: dict[str, set[str]] = {}
    for node in nodes.values():
        for s in node.heard:
            listeners.setdefault(s.sender, set()).add(node.name)
    best: dict[str, _Route] = {}
    todo = sorted(listeners.get(members[0], ()))
    pending = set(todo)
    budget = 4 * len(nodes) * (len(nodes) + 2)  # a path vector settles long before this
    while todo and budget > 0:
        budget -= 1
        name = todo.pop(0)
        pending.discard(name)
        route = _choose(nodes[name], best, members, shaped, nodes)
        if route == best.get(name):
            continue
        if route is None:
            best.pop(name, None)
        else:
            best[name] = route
        for nxt in sorted(listeners.get(name, ())):
            if nxt not in pending:
                pending.add(nxt)
                todo.append(nxt)
    return best


def _choose(
    node: _Node, best: dict[str, _Route], members: list[str], shaped: bool, nodes: dict[str, _Node]
) -> _Route | None:
    first = members[0]
    offers: list[tuple[int, int, tuple[int, ...], bool, bool, str]] = []
    for s in node.heard:
        if s.sender in members and s.sender != first:
            continue  # the group is announced once, by its first member, for all
        theirs = _SEED if s.sender == first else best.get(s.sender)
        if theirs is None:
            continue
        prepend = s.prepend if shaped else 0
        own = 0 if s.sender == first else 1
        path = (_ORIGIN if s.sender == first else nodes[s.sender].asn,) * (prepend + own) + theirs.path
        if node.asn in path:
            continue
        gshut = shaped and s.sends and (s.gshut or theirs.gshut)  # a community travels only if sent
        if shaped and s.local_pref is not None:
            pref = s.local_pref
        else:
            pref = 0 if gshut and node.honors else DEFAULT_LOCAL_PREF
        drained = shaped and (s.shaped or theirs.drained)
        offers.append((pref, -len(path), path, gshut, drained, s.sender))
    if not offers:
        return None
    rank = max(o[:2] for o in offers)
    # Of the best rank, the path of an undrained session, then the lowest neighbour name (as the
    # lowest router id would) is the one announced onwards.
    top = min((o for o in offers if o[:2] == rank), key=lambda o: (o[4], o[5]))
    ties = [o for o in offers if o[:2] == rank and (node.relax or o[2] == top[2])]
    crossing = [o[4] for o in ties]
    return _Route(
        top[2],
        top[3],
        all(crossing),
        any(crossing) and not all(crossing),
        min(len(ties), node.limit),
        tuple(sorted({o[5] for o in ties})),
    )


def _tenant(
    tenant: str,
    leaves: list[str],
    before: dict[tuple[object, ...], dict[str, _Route]],
    after: dict[tuple[object, ...], dict[str, _Route]],
    group_of: dict[str, tuple[object, ...]],
    pod: dict[str, int | None],
    spines_of: dict[int | None, list[str]],
    gbps: dict[str, int],
    max_loss: float,
) -> TenantPaths:
    worst: tuple[float, float, str, int, int, float, float, bool] | None = None
    for a in leaves:
        towards: dict[tuple[object, ...], str] = {}  # one leaf per group: a group's VTEPs route alike
        for b in leaves:
            if b != a and b in group_of:
                towards.setdefault(group_of[b], b)
        for b in towards.values():
            was, now = before[group_of[b]].get(a), after[group_of[b]].get(a)
            w_before = was.installed if was else 0
            w_after = now.installed if now else 0
            tier_before, tier_after = _spine_tier(a, b, before, after, group_of, spines_of[pod.get(a)])
            leaf_kept = w_after / w_before if w_before else 1.0
            tier_kept = tier_after / tier_before if tier_before else 1.0
            fraction = min(leaf_kept, tier_kept)
            # The pair's bandwidth: the leaf's uplinks, as many as the spine tier carries on.
            g_before = float(min(w_before, tier_before or w_before) * gbps.get(a, 0))
            if tier_kept < leaf_kept:  # the spines' paths onward lose more: they are shown
                w_before, w_after = tier_before, tier_after
            only = bool(now and now.drained)
            key = (
                fraction,
                g_before * fraction,
                f"{a} -> {b}",
                w_before,
                w_after,
                g_before,
                g_before * fraction,
                only,
            )
            if worst is None or _worse(key, worst):
                worst = key
    if worst is None:
        return TenantPaths(tenant, len(leaves), "", 0, 0, 0.0, 0.0, False, True)
    fraction, _, pair, w_before, w_after, g_before, g_after, only = worst
    ok = not only and 1.0 - fraction <= max_loss + 1e-9
    return TenantPaths(tenant, len(leaves), pair, w_before, w_after, g_before, round(g_after, 3), only, ok)


def _worse(
    a: tuple[float, float, str, int, int, float, float, bool],
    b: tuple[float, float, str, int, int, float, float, bool],
) -> bool:
    """A pair left only with drained paths first, then the least bandwidth kept."""
    return (not a[7], a[0], a[1], a[2]) < (not b[7], b[0], b[1], b[2])


def _spine_tier(
    a: str,
    b: str,
    before: dict[tuple[object, ...], dict[str, _Route]],
    after: dict[tuple[object, ...], dict[str, _Route]],
    group_of: dict[str, tuple[object, ...]],
    spines: list[str],
) -> tuple[int, int]:
    """The spine tier's paths towards `b`, before and after, over the spines `a` sends to (a
    drained spine `a` no longer sends to counts for nothing): the spines' links down to `b` in
    its own pod, their paths up to the super-spines towards another pod."""
    key = group_of[b]
    was_via = set(before[key][a].via) if a in before[key] else set(spines)
    now_via = set(after[key][a].via) if a in after[key] else set()
    total = sum(before[key][s].installed for s in spines if s in was_via and s in before[key])
    kept = sum(
        after[key][s].installed
        for s in spines
        if s in now_via and s in after[key] and not after[key][s].drained
    )
    return total, kept


def _still_crossing(after: dict[tuple[object, ...], dict[str, _Route]]) -> list[str]:
    """Switches that install a drained path next to an undrained one of the same rank: the
    drain did not reach them as a preference (they still spread traffic over it)."""
    return sorted({name for routes in after.values() for name, r in routes.items() if r.mixed})


def undrained(compiled: Compiled, running: dict[str, SwitchConfig]) -> list[str]:
    """What a plan would put back into the forwarding path: the switches and links the switches
    run drained (`running`: their running configs read back; every peer policy they hold is a
    drain's) that the fabric's maintenance.yaml no longer drains, named as `fabricctl drain`
    names them (a switch; a link by its lower end: compile/drain.py `link_name`). A whole switch when none of its sessions
    stays drained and every fabric link of it was."""
    topo = compiled.topology
    out: set[str] = set()
    for name, cfg in sorted(running.items()):
        intent = compiled.intents.get(name)
        if intent is None or not cfg.bgp.policies:
            continue
        bgp = intent.bgp
        kept = {n.ip for n in bgp.neighbors} if bgp.graceful_shutdown else set(bgp.graceful_shutdown_peers)
        back = set(cfg.bgp.policies) - kept
        links = {addr_str(ln.spine_ip if ln.leaf == name else ln.leaf_ip): ln for ln in topo.links_of(name)}
        if not back:
            continue
        if not kept and links and set(links) <= back:
            out.add(name)
            continue
        out |= {link_name(links[p]) for p in back if p in links}
    return sorted(out)


def _violation(row: TenantPaths, proof: DrainProof) -> Violation:
    leaf = row.pair.split(" -> ")[0]
    drained = ", ".join(proof.drained)
    if row.only_drained:
        why = (
            f"tenant {row.tenant}'s traffic {row.pair} would be left with paths only through "
            f"drained switches or links ({drained}): nothing else carries it"
        )
    else:
        why = (
            f"tenant {row.tenant} would keep {row.kept:.0%} of its fabric bandwidth on {row.pair} "
            f"({row.paths_after} of {row.paths_before} paths, {row.gbps_after:g} of {row.gbps_before:g} Gb/s) "
            f"with {drained} drained: below the floor of fabric.yaml drain.max_bandwidth_loss "
            f"{proof.max_loss:g} (at most {proof.max_loss:.1%} lost)"
        )
    return Violation("drain-floor", leaf, f"tenant {row.tenant}", None, "maintenance.yaml", why)
