"""Placement for the leasing desk: N free GPUs for a new tenant, chosen the way an engineer would.

Preferences, in order:

1. Whole servers first (every NIC of a server), as many as N allows (N // NICs per server).
   Rail-optimised cabling puts NIC r of every server of a rail group on that group's leaf r, so
   whole servers are rail-aligned by construction and a rail group touches its own leaves only.
2. Fewest leaves: whole servers from as few rail groups as possible (largest supply first, the
   last group by best fit); the rest of N in a group the tenant already touches when one can
   take it, so it adds no leaf.
3. Least fragmentation of what stays free: the group whose free whole servers fit best, partly
   used servers before fresh ones (the one with the fewest free NICs that still fit), lowest
   NIC numbers, so a half server stays a half server.
4. Never a held GPU and never over a per-leaf budget (VRFs, VLANs, VNIs, ACL entries: the figures
   allocate.py checks), counted with this tenant on the leaf.

The tenant id is the next after the highest in use (ids of removed tenants are not reused, so
stale routes of a removed tenant never meet a new one), and its address block is the first free
block of the size it needs in `overlay.tenant_pool`. Everything comes out as plain data
(`Placement`) and the tenant file's text; the CLI only prints and writes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from ipaddress import IPv4Network
from typing import NoReturn

from fabricctl.compile.allocate import (
    Allocation,
    allocate,
    block_need,
    leaf_budget,
    leaf_use,
    reserved_networks,
    svi_leaf_order,
)
from fabricctl.compile.capabilities import check_capabilities
from fabricctl.compile.topology import GpuPort, Topology
from fabricctl.errors import StageError
from fabricctl.model.load import Fabric, TenantDoc
from fabricctl.model.problems import ProblemLog
from fabricctl.model.tenant import Tenant
from fabricctl.model.yamlsource import YamlDoc
from fabricctl.platforms import get_platform

#: ACL entries a new tenant puts on each of its ports: its own block, then deny (no peers yet).
ACL_PER_PORT = 2
NAME_RULE = re.compile(r"^[a-z][a-z0-9-]*[a-z0-9]$")
NAME_ALLOWED = (
    "2-24 characters: lower-case letters, digits and '-', starting with a letter, not ending with '-'"
)


class PlacementError(StageError):
    """The request cannot be placed; the message names what is allowed."""


@dataclass(frozen=True)
class Placement:
    """What `fabricctl tenant new` chose, and why."""

    name: str
    isolation: str
    whole: list[str]  # whole servers, fabric order
    partial: list[tuple[str, list[int]]]  # (server, NICs) of servers taken in part
    ports: list[GpuPort]
    tenant_id: int
    id_reason: str
    block: IPv4Network
    block_reason: str
    reasons: list[str] = field(default_factory=list)

    @property
    def leaves(self) -> list[str]:
        return sorted({p.leaf for p in self.ports}, key=_natural)

    @property
    def rails(self) -> list[int]:
        return sorted({p.nic for p in self.ports})


@dataclass
class _Group:
    """One rail group: the servers cabled to the same set of leaves (one leaf per rail)."""

    leaves: tuple[str, ...]
    servers: list[str]


def check_name(fabric: Fabric, name: str, docs: list[TenantDoc]) -> None:
    """A new tenant's name: the tenant file rules, none a NOS of this fabric reserves, and no
    tenant of that name yet (a tenant file is named after its tenant, so no file either)."""
    if not (2 <= len(name) <= 24 and NAME_RULE.match(name)):
        raise PlacementError(f"tenant name {name[:40]!r} is not allowed (allowed: {NAME_ALLOWED})")
    platforms = {sw.platform: get_platform(sw.platform) for sw in fabric.switches}
    for platform in platforms.values():
        why = platform.reserved(name)
        if why is not None:
            names = sorted({n for p in platforms.values() for n in p.reserved_list()})
            raise PlacementError(
                f"tenant name {name!r} is reserved: {why} (allowed: a name other than {', '.join(names)})"
            )
    holder = next((td for td in docs if td.tenant.name == name), None)
    if holder is not None:
        raise PlacementError(
            f"tenant name {name!r} is already used by {holder.file} (allowed: a name no tenant has)"
        )


def leaf_capacity(fabric: Fabric, alloc: Allocation, isolation: str) -> tuple[dict[str, int], dict[str, str]]:
    """Per leaf: how many ports a new tenant may take there without going over a budget, and for
    leaves that take none, why."""
    cap: dict[str, int] = {}
    why: dict[str, str] = {}
    extra = {"VRFs": 1, "VLANs": 1 if isolation == "l2" else 0, "VNIs": 2 if isolation == "l2" else 1}
    for leaf, tenants in alloc.by_leaf.items():
        budget = leaf_budget(fabric, leaf)
        use = leaf_use(leaf, tenants)
        full = [k for k, more in extra.items() if more and use[k] + more > budget[k]]
        if full:
            cap[leaf] = 0
            why[leaf] = f"{leaf} is at its budget of {budget[full[0]]} {full[0]}"
            continue
        cap[leaf] = max(0, (budget["ACL entries"] - use["ACL entries"]) // ACL_PER_PORT)
        if cap[leaf] == 0:
            why[leaf] = f"{leaf} is at its budget of {budget['ACL entries']} ACL entries"
    return cap, why


def place(
    fabric: Fabric,
    topo: Topology,
    alloc: Allocation,
    docs: list[TenantDoc],
    name: str,
    gpus: int,
    isolation: str = "l3",
    whole_servers: bool = False,
    out_of_service: dict[str, str] | None = None,
) -> Placement:
    """Choose `gpus` free GPUs, an id and an address block for a new tenant `name`. Servers in
    `out_of_service` (server -> why: their rack is not accepted, compile/racks.py) are never chosen."""
    n = fabric.settings.cabling.nics_per_server
    held = {pa.gpu for a in alloc.tenants for pa in a.ports}
    away = out_of_service or {}
    all_gpus = sum(len(v) for v in topo.gpu_ports.values())
    held |= {p for s in away for p in topo.by_server.get(s, [])}
    not_accepted = len(held) - len({pa.gpu for a in alloc.tenants for pa in a.ports})
    free_total = all_gpus - len(held)
    _check_request(gpus, all_gpus, free_total, not_accepted, away, n if whole_servers else 0)
    cap, why_full = leaf_capacity(fabric, alloc, isolation)
    # leaves a budget keeps from GPUs that are free (a full leaf with nothing free is no news)
    blocked = {
        leaf: why for leaf, why in why_full.items() if any(p not in held for p in topo.gpu_ports[leaf])
    }
    free = {
        s: [p.nic for p in ports if p not in held and cap[p.leaf] > 0] for s, ports in topo.by_server.items()
    }
    order = {s: i for i, s in enumerate(topo.servers)}
    groups = _groups(topo)

    whole, used_cap = _whole_servers(groups, topo, free, cap, gpus // n, n, order)
    if whole_servers and len(whole) < gpus // n:
        raise PlacementError(
            f"--gpus {gpus} --whole-servers: only {len(whole)} whole servers are free within the "
            f"leaf budgets (allowed: at most {len(whole) * n} GPUs as whole servers, or without --whole-servers)"
        )
    rest = gpus - len(whole) * n
    taken = set(whole)
    leaves_used = {p.leaf for s in whole for p in topo.by_server[s]}
    whole_leaves = frozenset(leaves_used)
    partial = _partial(topo, free, cap, used_cap, taken, leaves_used, rest, order)
    got = len(whole) * n + sum(len(nics) for _, nics in partial)
    if got < gpus:
        _short(gpus, free_total, topo, held, cap, blocked)
    ports = [p for s in whole for p in topo.by_server[s]] + [
        topo.by_server[s][nic] for s, nics in partial for nic in nics
    ]
    reasons = _reasons(topo, groups, held, n, whole, partial, whole_leaves, rest, blocked)
    tenant_id, id_reason = next_id(fabric, alloc, isolation)
    svi_leaves = len(svi_leaf_order(ports, fabric)) if isolation == "l2" else 0
    block, block_reason = next_block(fabric, docs, gpus, isolation, svi_leaves)
    return Placement(
        name=name,
        isolation=isolation,
        whole=sorted(whole, key=order.__getitem__),
        partial=sorted(partial, key=lambda x: order[x[0]]),
        ports=ports,
        tenant_id=tenant_id,
        id_reason=id_reason,
        block=block,
        block_reason=block_reason,
        reasons=reasons,
    )


def _check_request(
    gpus: int, all_gpus: int, free_total: int, not_accepted: int, away: dict[str, str], whole_of: int
) -> None:
    """`--gpus` is a count the free GPUs can give (racks not accepted named when they are why),
    and with `--whole-servers` (`whole_of`: the NICs per server) a multiple of a server's."""
    if free_total == 0:
        if not_accepted:
            racks = sorted({why.split(":")[0].removeprefix("rack ") for why in away.values()})
            raise PlacementError(
                f"--gpus {gpus}: no GPU is free ({not_accepted} more are in racks not accepted: "
                f"{', '.join(racks)}; fabricctl rack accept RACK)"
            )
        raise PlacementError(f"--gpus {gpus}: no GPU is free (all {all_gpus} are held)")
    if not 1 <= gpus <= all_gpus:
        raise PlacementError(
            f"--gpus {gpus} is out of range (allowed: 1-{max(free_total, 1)}, the free GPUs)"
        )
    if gpus > free_total:
        waiting = f"; {not_accepted} more wait for their rack's acceptance" if not_accepted else ""
        raise PlacementError(
            f"--gpus {gpus}: only {free_total} of {all_gpus} GPUs are free{waiting} (allowed: 1-{free_total})"
        )
    if whole_of and gpus % whole_of:
        raise PlacementError(
            f"--gpus {gpus} with --whole-servers (allowed: a multiple of {whole_of}, the NICs per server)"
        )


def _short(
    gpus: int,
    free_total: int,
    topo: Topology,
    held: set[GpuPort],
    cap: dict[str, int],
    blocked: dict[str, str],
) -> NoReturn:
    """Refuse a count the leaf budgets cannot give, naming the first leaf that holds GPUs back."""
    free_on = {leaf: sum(1 for p in ports if p not in held) for leaf, ports in topo.gpu_ports.items()}
    usable = sum(min(count, cap[leaf]) for leaf, count in free_on.items())
    short = [
        blocked.get(leaf, f"{leaf} has ACL entries left for {cap[leaf]} of its {count} free GPUs")
        for leaf, count in sorted(free_on.items(), key=lambda x: _natural(x[0]))
        if cap[leaf] < count
    ]
    more = f" (and {plural(len(short) - 1, 'more leaf', 'more leaves')})" if len(short) > 1 else ""
    hint = f"; {short[0]}{more}" if short else ""
    raise PlacementError(
        f"--gpus {gpus}: only {usable} of the {free_total} free GPUs can take a new tenant{hint} "
        f"(allowed: 1-{usable})"
    )


def _reasons(
    topo: Topology,
    groups: list[_Group],
    held: set[GpuPort],
    n: int,
    whole: list[str],
    partial: list[tuple[str, list[int]]],
    whole_leaves: frozenset[str],
    rest: int,
    blocked: dict[str, str],
) -> list[str]:
    """Why these GPUs, one line per choice, for the person who asked."""
    reasons: list[str] = []
    if whole:
        in_groups = sorted({_group_of(groups, s) for s in whole})
        reasons.append(
            f"{plural(len(whole), 'whole server')} ({n} GPUs, one per rail) from "
            f"{plural(len(in_groups), 'rail group')}: the fewest groups, best fit"
        )
    if (
        partial
        and whole
        and all(topo.by_server[s][i].leaf in whole_leaves for s, nics in partial for i in nics)
    ):
        reasons.append(f"the other {rest} GPUs on leaves the whole servers already use (no extra leaf)")
    for s, nics in partial:
        before = len([p for p in topo.by_server[s] if p not in held])
        state = "fills a partly used server" if before < n else "a fresh server (no partly used one fits)"
        left = before - len(nics)
        reasons.append(
            f"{s} nics {span_ints(nics)}: {state}"
            + (
                f", {plural(left, 'NIC')} {'stays' if left == 1 else 'stay'} free there"
                if left
                else ", now full"
            )
        )
    if blocked:
        reasons.append(
            f"skipped {plural(len(blocked), 'leaf', 'leaves')} at a budget: "
            + ", ".join(sorted(blocked, key=_natural))
        )
    return reasons


def _groups(topo: Topology) -> list[_Group]:
    by_leaves: dict[tuple[str, ...], list[str]] = {}
    for s in topo.servers:
        by_leaves.setdefault(tuple(p.leaf for p in topo.by_server[s]), []).append(s)
    return [_Group(leaves, servers) for leaves, servers in by_leaves.items()]


def _group_of(groups: list[_Group], server: str) -> int:
    return next(i for i, g in enumerate(groups) if server in g.servers)


def _whole_servers(
    groups: list[_Group],
    topo: Topology,
    free: dict[str, list[int]],
    cap: dict[str, int],
    want: int,
    n: int,
    order: dict[str, int],
) -> tuple[list[str], dict[str, int]]:
    """`want` (or as many as there are) fully free servers from the fewest rail groups."""
    used: dict[str, int] = dict.fromkeys(cap, 0)
    supply: dict[int, list[str]] = {}
    for i, g in enumerate(groups):
        room = min(cap[leaf] for leaf in g.leaves)
        fresh = [s for s in g.servers if len(free[s]) == n]
        supply[i] = fresh[:room]
    # Free GPUs per group: fewer means more used, and filling it keeps fresh groups whole.
    free_in = {i: sum(len(free[s]) for s in g.servers) for i, g in enumerate(groups)}
    chosen: list[str] = []
    while len(chosen) < want:
        need = want - len(chosen)
        open_groups = [i for i, servers in supply.items() if servers]
        if not open_groups:
            break
        fits = [i for i in open_groups if len(supply[i]) >= need]
        if fits:  # best fit: the group with the fewest spare whole servers, then the most used
            pick = min(fits, key=lambda i: (len(supply[i]), free_in[i], i))
            take = supply[pick][:need]
        else:  # largest supply first: the fewest groups in the end
            pick = min(open_groups, key=lambda i: (-len(supply[i]), free_in[i], i))
            take = supply[pick]
        chosen += take
        supply[pick] = []
        for s in take:
            for p in topo.by_server[s]:
                used[p.leaf] += 1
    return sorted(chosen, key=order.__getitem__), used


def _partial(
    topo: Topology,
    free: dict[str, list[int]],
    cap: dict[str, int],
    used: dict[str, int],
    taken: set[str],
    leaves_used: set[str],
    rest: int,
    order: dict[str, int],
) -> list[tuple[str, list[int]]]:
    """`rest` GPUs from as few servers as possible: one server that takes them all when one can
    (no new leaf first, then the one left with the fewest free NICs), else the server with the
    most usable NICs, and again; within a server the rails the tenant already has, then the
    lowest NICs."""
    out: list[tuple[str, list[int]]] = []
    rails: set[int] = set()
    while rest > 0:
        usable: dict[str, list[int]] = {}
        for s, nics in free.items():
            if s in taken:
                continue
            ok = [nic for nic in nics if used[topo.by_server[s][nic].leaf] < cap[topo.by_server[s][nic].leaf]]
            if ok:
                usable[s] = ok
        if not usable:
            break

        def pick_nics(s: str, count: int, usable: dict[str, list[int]] = usable) -> list[int]:
            ports = topo.by_server[s]
            ranked = sorted(usable[s], key=lambda i: (ports[i].leaf not in leaves_used, i not in rails, i))
            return sorted(ranked[:count])

        def cost(s: str, count: int) -> tuple[int, int, int, int, int]:
            nics = pick_nics(s, count)
            new_leaves = sum(1 for nic in nics if topo.by_server[s][nic].leaf not in leaves_used)
            fresh = int(len(free[s]) == len(topo.by_server[s]))
            off_rail = sum(1 for nic in nics if rails and nic not in rails)
            return (new_leaves, fresh, len(free[s]) - count, off_rail, order[s])

        fits = [s for s, nics in usable.items() if len(nics) >= rest]
        if fits:
            s = min(fits, key=lambda s: cost(s, rest))
            nics = pick_nics(s, rest)
        else:
            s = min(usable, key=lambda s: (-len(usable[s]), *cost(s, len(usable[s]))))
            nics = pick_nics(s, len(usable[s]))
        out.append((s, nics))
        taken.add(s)
        rails.update(nics)
        for nic in nics:
            leaf = topo.by_server[s][nic].leaf
            used[leaf] += 1
            leaves_used.add(leaf)
        rest -= len(nics)
    return out


def next_id(fabric: Fabric, alloc: Allocation, isolation: str = "l3") -> tuple[int, str]:
    """The id after the highest in use whose derived VNIs and VLAN no tenant holds (an l2
    tenant's VLAN, vlan_base + id, at most 4094); the lowest free id when the top of the range
    is reached."""
    ov = fabric.settings.overlay
    ids = {a.tenant.id for a in alloc.tenants}
    numbers = {n for a in alloc.tenants for n in (a.l3vni, a.l2vni) if n is not None}
    vlans = {a.vlan for a in alloc.tenants if a.vlan is not None}

    def free(i: int) -> bool:
        return (
            i not in ids
            and ov.l3vni_base + i not in numbers
            and ov.l2vni_base + i not in numbers
            and ov.vlan_base + i not in vlans
            and (isolation == "l3" or ov.vlan_base + i <= 4094)
        )

    top = max(ids, default=0)
    for i in range(top + 1, ov.tenant_id_max + 1):
        if free(i):
            why = f"the next after the highest in use ({top})" if top else "the first tenant id"
            return i, why
    for i in range(1, top):
        if free(i):
            return i, f"the lowest free id (ids above {top} reach overlay.tenant_id_max {ov.tenant_id_max})"
    raise PlacementError(f"no tenant id is free (allowed: 1-{ov.tenant_id_max}, overlay.tenant_id_max)")


def block_prefix(gpus: int, isolation: str, svi_leaves: int = 0) -> int:
    """The smallest block that numbers `gpus` GPUs: l3 a /31 per port, l2 one address each plus
    network, gateway and broadcast and one per leaf whose SVI needs its own (allocate.block_need)."""
    return 32 - (block_need(gpus, isolation, svi_leaves) - 1).bit_length()


def next_block(
    fabric: Fabric, docs: list[TenantDoc], gpus: int, isolation: str, svi_leaves: int = 0
) -> tuple[IPv4Network, str]:
    """The first block of the needed size in overlay.tenant_pool that overlaps no tenant block,
    underlay pool or management address."""
    pool = fabric.settings.overlay.tenant_pool
    prefix = block_prefix(gpus, isolation, svi_leaves)
    if prefix < pool.prefixlen:
        raise PlacementError(
            f"--gpus {gpus} needs a /{prefix} address block, larger than overlay.tenant_pool {pool} "
            f"(allowed: a pool of /{prefix} or larger in fabric.yaml)"
        )
    size = 1 << (32 - prefix)
    reserved = reserved_networks(fabric)
    spans = sorted(
        [
            (int(td.tenant.address_block.network_address), int(td.tenant.address_block.broadcast_address))
            for td in docs
        ]
        + [(int(net.network_address), int(net.broadcast_address)) for _, net in reserved.pools]
        + [(address, address) for address, _ in reserved.hosts]
    )
    start, end = int(pool.network_address), int(pool.broadcast_address)
    for lo, hi in spans:
        if hi < start:
            continue
        if lo > start + size - 1:
            break
        start = (hi + 1 + size - 1) // size * size
    if start + size - 1 > end:
        raise PlacementError(
            f"overlay.tenant_pool {pool} has no free /{prefix} left for {gpus} GPUs "
            "(allowed: a larger pool in fabric.yaml, or fewer GPUs)"
        )
    block = IPv4Network((start, prefix))
    need = block_need(gpus, isolation, svi_leaves)
    on = f", {svi_leaves} of them leaf SVI addresses" if svi_leaves else ""
    return block, f"the first free /{prefix} of overlay.tenant_pool {pool} ({need} addresses needed{on})"


def check_placed(fabric: Fabric, topo: Topology, docs: list[TenantDoc], tenant: Tenant) -> list[str]:
    """Every problem validate would find with `tenant` added (none, unless placement has a bug):
    the same allocation and capability checks, on the tenant as the model read it."""
    log = ProblemLog(fabric.root)
    file = fabric.root / "tenants" / f"{tenant.name}.yaml"
    new = TenantDoc(tenant=tenant, doc=YamlDoc(file, {}, {}), file=f"tenants/{tenant.name}.yaml")
    everyone = sorted([*docs, new], key=lambda d: d.tenant.id)
    alloc = allocate(fabric, topo, everyone, log)
    check_capabilities(fabric, alloc, everyone, log)
    return [p.render() for p in log.problems]


def tenant_data(placement: Placement, description: str) -> dict[str, object]:
    """The tenant file's content: whole servers as ranges, other GPUs as server + NICs."""
    selections: list[dict[str, object]] = []
    if placement.whole:
        selections.append({"servers": _ranges(placement.whole)})
    for server, nics in placement.partial:
        selections.append({"server": server, "nics": nics})
    return {
        "name": placement.name,
        "id": placement.tenant_id,
        "description": description,
        "isolation": placement.isolation,
        "address_block": str(placement.block),
        "lossless": True,
        "gpus": selections,
    }


def tenant_model(placement: Placement, description: str) -> Tenant:
    """The tenant as the model reads it back (raises pydantic's ValidationError if it would not)."""
    return Tenant.model_validate(tenant_data(placement, description))


def tenant_yaml(placement: Placement, description: str) -> str:
    """tenants/<name>.yaml as an engineer writes one (the data of `tenant_data`)."""
    data = tenant_data(placement, description)
    lines = [
        "---",
        f"# Placed by `fabricctl tenant new`: {plural(len(placement.ports), 'GPU')} on "
        f"{plural(len(placement.leaves), 'leaf', 'leaves')} (rails {span_ints(placement.rails)}).",
        f"name: {data['name']}",
        f"id: {data['id']}",
        f'description: "{data["description"]}"',  # quoted: "2026" or "x: y" stay text
        f"isolation: {data['isolation']}",
        f"address_block: {data['address_block']}",
        "lossless: true",
        "gpus:",
    ]
    for sel in data["gpus"]:  # type: ignore[attr-defined]  # data is the tenant mapping this function built above
        if "servers" in sel:
            lines.append(f"  - servers: [{', '.join(sel['servers'])}]")
        else:
            lines.append(f"  - server: {sel['server']}")
            lines.append(f"    nics: [{', '.join(map(str, sel['nics']))}]")
    return "\n".join(lines) + "\n"


def read_back(text: str) -> Tenant:
    """The tenant a written file holds, read as YAML (so a placement's file can be compared)."""
    import yaml

    return Tenant.model_validate(yaml.safe_load(text))


def _ranges(servers: list[str]) -> list[str]:
    """gpu081, gpu082, gpu083, gpu090 -> gpu081-gpu083, gpu090 (consecutive numbers, same width)."""
    out: list[str] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            out.append(run[0] if len(run) == 1 else f"{run[0]}-{run[-1]}")

    for s in servers:
        prev = run[-1] if run else None
        if prev is not None and _next_name(prev) == s:
            run.append(s)
        else:
            flush()
            run = [s]
    flush()
    return out


_NUMBERED = re.compile(r"^(.*?)(\d+)$")


def _next_name(name: str) -> str | None:
    m = _NUMBERED.match(name)
    if not m:
        return None
    digits = m.group(2)
    return f"{m.group(1)}{int(digits) + 1:0{len(digits)}d}"


def span_ints(values: list[int]) -> str:
    """[0, 1, 2, 3, 6] -> '0-3,6'."""
    out: list[str] = []
    for v in sorted(values):
        if out and "-" not in out[-1] and int(out[-1]) == v - 1:
            out[-1] = f"{out[-1]}-{v}"
        elif out and "-" in out[-1] and int(out[-1].split("-")[1]) == v - 1:
            out[-1] = f"{out[-1].split('-')[0]}-{v}"
        else:
            out.append(str(v))
    return ",".join(out)


def plural(count: int, word: str, words: str | None = None) -> str:
    """1 GPU, 2 GPUs; 1 leaf, 3 leaves."""
    return f"{count} {word if count == 1 else (words or word + 's')}"


def _natural(name: str) -> tuple[str, int]:
    m = _NUMBERED.match(name)
    return (m.group(1), int(m.group(2))) if m else (name, 0)
