"""Fabric-wide allocation and cross-tenant checks: the numbers every switch will carry.

Every number follows from a tenant's explicit id (or an explicit override), never from the order
tenants happen to be read in, so adding, removing or resizing one tenant renumbers nothing else.
All cross-tenant problems are collected and reported together, each at the line that causes it.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from ipaddress import IPv4Address, IPv4Network

from fabricctl.compile.topology import GpuPort, Topology, management_addresses
from fabricctl.compile.view import FabricView, read_fabric
from fabricctl.config.rules import TENANT_PREFIX
from fabricctl.model.bounds import MAX_SERVERS
from fabricctl.model.fabric import Overlay
from fabricctl.model.load import Fabric, TenantDoc
from fabricctl.model.problems import ProblemLog
from fabricctl.model.tenant import Tenant
from fabricctl.platforms import get_platform
from fabricctl.platforms.base import NO_BREAKOUT, Platform

INTRA_SEQ = 10
PEER_SEQ_BASE = 1000  # rule for peer tenant p: 1000 + p.id
DENY_SEQ = 65000


@dataclass(frozen=True)
class PortAssignment:
    """A GPU port held by a tenant; l3 tenants get a /31 (leaf side even, GPU side odd)."""

    gpu: GpuPort
    leaf_ip: IPv4Address | None
    gpu_ip: IPv4Address | None


@dataclass(frozen=True)
class AclRule:
    seq: int
    action: str
    source: IPv4Network | None
    destination: IPv4Network | None
    remark: str


@dataclass
class TenantAllocation:
    tenant: Tenant
    file: str
    l3vni: int
    l2vni: int | None
    vlan: int | None
    route_target: str
    l2_route_target: str | None
    gateway: str | None  # CIDR of the l2 anycast gateway
    ports: list[PortAssignment]
    peers: list[TenantAllocation] = field(default_factory=list)
    acl: list[AclRule] = field(default_factory=list)
    #: leaf -> CIDR of its own address on the tenant's SVI, on leaves whose NOS needs one beside
    #: the anycast gateway (svi_addresses below)
    svi_addresses: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.tenant.name

    @property
    def object_name(self) -> str:
        """The name of the tenant's objects on switches: the prefix shows fabricctl made them."""
        return TENANT_PREFIX + self.tenant.name

    @property
    def vrf(self) -> str:
        return self.object_name

    @property
    def acl_name(self) -> str:
        return f"{self.object_name}-in"

    @property
    def leaves(self) -> list[str]:
        return sorted({p.gpu.leaf for p in self.ports})


@dataclass
class Allocation:
    tenants: list[TenantAllocation]
    by_leaf: dict[str, list[TenantAllocation]]
    port_owner: dict[tuple[str, str], tuple[TenantAllocation, PortAssignment]]


_RANGE = re.compile(r"^([a-z][a-z0-9-]*?)(\d+)-\1?(\d+)$")


def _expand_servers(names: list[str]) -> list[str]:
    """gpu001-gpu004 (or gpu001-004) -> gpu001..gpu004, keeping the digit width."""
    out: list[str] = []
    for item in names:
        m = _RANGE.match(item)
        if m:
            prefix, lo, hi = m.group(1), m.group(2), m.group(3)
            out.extend(f"{prefix}{i:0{len(lo)}d}" for i in range(int(lo), int(hi) + 1))
        else:
            out.append(item)
    return out


Origin = dict[GpuPort, tuple[str | int, ...]]


def resolve_gpus(
    td: TenantDoc,
    topo: Topology,
    fabric: Fabric | FabricView,
    log: ProblemLog,
    origin: Origin | None = None,
) -> list[GpuPort]:
    """Turn the tenant's GPU selections into leaf ports, in declared order; `origin`, when given,
    learns the path in the tenant file that names each port (("gpus", 0, "servers", 2) ...)."""
    fabric = read_fabric(fabric)
    ports: list[GpuPort] = []
    named = 0  # server names this tenant's ranges expand to, against MAX_SERVERS
    for i, sel in enumerate(td.tenant.gpus):
        if sel.servers is not None:
            named = _by_servers(td, i, sel.servers, topo, named, ports, origin, log)
            if named > MAX_SERVERS:
                return ports
        elif sel.server is not None:
            _by_nics(td, i, sel.server, sel.nics or [], topo, ports, origin, log)
        else:
            _by_leaf_ports(td, i, sel.leaf, sel.ports or [], topo, fabric, ports, origin, log)
    return ports


def _by_servers(
    td: TenantDoc,
    i: int,
    servers: list[str],
    topo: Topology,
    named: int,
    ports: list[GpuPort],
    origin: Origin | None,
    log: ProblemLog,
) -> int:
    """`gpus[i].servers`: every NIC of each server named (ranges expanded) into `ports`; the count
    of server names so far, `named` included (over MAX_SERVERS: reported, and no more resolved)."""
    for j, server in enumerate(servers):
        where = (td.file, td.line("gpus", i, "servers", j), f"gpus[{i}].servers[{j}]")
        m = _RANGE.match(server)
        if m and int(m.group(3)) < int(m.group(2)):
            log.add(*where, f"range '{server}' runs backwards", "low-high, such as node01-node04")
            continue
        size = int(m.group(3)) - int(m.group(2)) + 1 if m else 1
        named += size
        if size > MAX_SERVERS or named > MAX_SERVERS:  # checked before a name is made
            what = (
                f"range '{server}' names {size} servers"
                if size > MAX_SERVERS
                else (f"with '{server}' this tenant names more than {MAX_SERVERS} servers")
            )
            log.add(*where, what, f"at most {MAX_SERVERS} servers per tenant")
            return named
        names = _expand_servers([server])
        missing = [name for name in names if name not in topo.by_server]
        if missing:
            what = (
                f"unknown server '{server}'"
                if len(names) == 1
                else f"range '{server}' reaches unknown server '{missing[0]}'"
            )
            log.add(*where, what, _server_range(topo))
            continue
        for name in names:
            ports.extend(topo.by_server[name])
            if origin is not None:
                for gp in topo.by_server[name]:
                    origin.setdefault(gp, ("gpus", i, "servers", j))
    return named


def _by_nics(
    td: TenantDoc,
    i: int,
    server: str,
    nics: list[int],
    topo: Topology,
    ports: list[GpuPort],
    origin: Origin | None,
    log: ProblemLog,
) -> None:
    """`gpus[i].server` + `nics`: those NICs of one server into `ports`."""
    cabled = topo.by_server.get(server)
    if cabled is None:
        log.add(
            td.file,
            td.line("gpus", i, "server"),
            f"gpus[{i}].server",
            f"unknown server {server!r}",
            _server_range(topo),
        )
        return
    for j, nic in enumerate(nics):
        if nic >= len(cabled):
            log.add(
                td.file,
                td.line("gpus", i, "nics", j),
                f"gpus[{i}].nics[{j}]",
                f"server {server} has no NIC {nic}",
                f"0-{len(cabled) - 1}",
            )
        else:
            ports.append(cabled[nic])
            if origin is not None:
                origin.setdefault(cabled[nic], ("gpus", i, "nics", j))


def _by_leaf_ports(
    td: TenantDoc,
    i: int,
    leaf_name: str | None,
    leaf_ports: list[int | str],
    topo: Topology,
    fabric: FabricView,
    ports: list[GpuPort],
    origin: Origin | None,
    log: ProblemLog,
) -> None:
    """`gpus[i].leaf` + `ports`: those GPU ports of one leaf into `ports`."""
    leaf = fabric.switch(leaf_name or "")
    if leaf is None or leaf.role != "leaf":
        log.add(
            td.file,
            td.line("gpus", i, "leaf"),
            f"gpus[{i}].leaf",
            f"unknown leaf '{leaf_name}'" if leaf is None else f"{leaf.name} is a {leaf.role}, not a leaf",
            f"{fabric.leaves[0].name}..{fabric.leaves[-1].name}",
        )
        return
    for j, port in enumerate(leaf_ports):
        found = topo.by_leaf_port.get((leaf.name, str(port)))
        if found is None:
            valid = topo.gpu_ports[leaf.name]
            log.add(
                td.file,
                td.line("gpus", i, "ports", j),
                f"gpus[{i}].ports[{j}]",
                f"{port} is not a GPU port of {leaf.name}{_port_role(fabric, port)}",
                f"{valid[0].key}..{valid[-1].key}",
            )
        else:
            ports.append(found)
            if origin is not None:
                origin.setdefault(found, ("gpus", i, "ports", j))


def _port_role(fabric: FabricView, port: int | str) -> str:
    """Why a port number is not a GPU port, when the cabling rules say (an uplink, a sub-port)."""
    cab = fabric.settings.cabling
    if isinstance(port, str) and ":" in port and cab.gpu_port_breakout == NO_BREAKOUT:
        modes = {m for leaf in fabric.leaves for m in fabric.model(leaf).breakouts}
        return f" (sub-ports exist only with cabling.gpu_port_breakout: {' or '.join(sorted(modes))})"
    if isinstance(port, int) and port in fabric.ports.leaf_uplinks:
        return " (it is a spine uplink)"
    return ""


def _at(td: TenantDoc, *path: str) -> str:
    """'tenants/render-farm.yaml:8': where the other tenant of a conflict says it."""
    return f"{td.file}:{td.line(*path)}"


def _server_range(topo: Topology) -> str:
    """gpu001..gpu128; a multi-pod fabric without a breakout numbers each pod's block with room
    for the breakout lanes: gpu0001..gpu0256, gpu0513..gpu0768, ..."""
    runs: list[list[str]] = []
    last = None
    for name in topo.servers:
        number = int(_DIGITS.search(name)[0])  # type: ignore[index]  # every server name has digits (the inventory schema requires them)
        if last is None or number != last + 1:
            runs.append([name, name])
        runs[-1][1], last = name, number
    shown = [f"{a}..{b}" for a, b in runs]
    return ", ".join(shown if len(shown) <= 3 else [*shown[:2], "...", shown[-1]])


_DIGITS = re.compile(r"\d+$")


@dataclass(frozen=True)
class ClaimRule:
    """Something no two tenants may hold at once: the one table of cross-tenant claims that both
    `allocate` (a whole compile) and the compile cache (one changed tenant against the snapshot)
    enforce, so neither path can accept what the other refuses.

    `bespoke` rules are reported by `allocate` in its own words as it numbers each tenant (where
    a clash comes from a value derived from the id, it says so); the rest by `check_claims`."""

    kind: str
    values: Callable[[TenantAllocation], Iterable[str]]  # the values of this kind a tenant holds
    field: str  # where in the tenant file they come from (the error's location)
    allowed: str
    bespoke: bool = False


def _overlay_numbers(kind: str) -> Callable[[TenantAllocation], Iterable[str]]:
    def values(a: TenantAllocation) -> Iterable[str]:
        found = (a.l3vni, a.l2vni) if kind == "VNI" else (a.vlan,)
        return [str(v) for v in found if v is not None]

    return values


#: Every cross-tenant claim (route targets are <asn>:<VNI>, so a unique VNI gives a unique one).
CLAIM_RULES: list[ClaimRule] = [
    ClaimRule("id", lambda a: [str(a.tenant.id)], "id", "a unique id per tenant", bespoke=True),
    ClaimRule("name", lambda a: [a.name], "name", "a unique name per tenant", bespoke=True),
    ClaimRule("VNI", _overlay_numbers("VNI"), "overlay", "a value no other tenant uses", bespoke=True),
    ClaimRule("VLAN", _overlay_numbers("VLAN"), "overlay", "a value no other tenant uses", bespoke=True),
    ClaimRule(
        "port",
        lambda a: [f"{pa.gpu.leaf} {pa.gpu.name}" for pa in a.ports],
        "gpus",
        "GPUs no other tenant holds",
        bespoke=True,
    ),
]


def claims(a: TenantAllocation) -> Iterator[tuple[str, str]]:
    """(kind, value) of everything `a` holds that no other tenant may."""
    for rule in CLAIM_RULES:
        for value in rule.values(a):
            yield rule.kind, value


def check_claims(allocs: list[TenantAllocation], docs: dict[str, TenantDoc], log: ProblemLog) -> None:
    """The rules of CLAIM_RULES that `allocate` has no words of its own for: the second tenant
    (in file order) to claim a value is refused, located at the rule's field."""
    for rule in CLAIM_RULES:
        if rule.bespoke:
            continue
        held: dict[str, TenantAllocation] = {}
        for a in allocs:
            for value in rule.values(a):
                first = held.setdefault(value, a)
                if first is not a:
                    td = docs[a.file]
                    log.add(
                        td.file,
                        td.line(rule.field),
                        rule.field,
                        f"{rule.kind} {value} is already held by tenant {first.name} ({first.file})",
                        rule.allowed,
                    )


def allocate(
    fabric: Fabric | FabricView, topo: Topology, docs: list[TenantDoc], log: ProblemLog
) -> Allocation:
    """Resolve, number and cross-check every tenant; problems go to `log`."""
    fabric = read_fabric(fabric)
    platforms = list(
        {get_platform(sw.platform).name: get_platform(sw.platform) for sw in fabric.switches}.values()
    )
    reserved = reserved_networks(fabric)
    seen = _Seen()
    allocs = [_allocate_tenant(td, fabric, topo, platforms, reserved, seen, log) for td in docs]
    _check_overlaps(docs, log)
    check_claims(allocs, {td.file: td for td in docs}, log)
    _link_peers(allocs, {td.tenant.name: td for td in docs}, log)
    by_leaf: dict[str, list[TenantAllocation]] = {leaf.name: [] for leaf in fabric.leaves}
    port_owner: dict[tuple[str, str], tuple[TenantAllocation, PortAssignment]] = {}
    for a in allocs:
        a.acl = _acl_rules(a)
        for leaf in a.leaves:
            by_leaf[leaf].append(a)
        for pa in a.ports:
            port_owner[(pa.gpu.leaf, pa.gpu.name)] = (a, pa)
    _check_budgets(fabric, by_leaf, {td.tenant.name: td for td in docs}, log)
    return Allocation(allocs, by_leaf, port_owner)


@dataclass
class _Seen:
    """What the tenants before this one (in file order) hold: a clash names the first holder."""

    ids: dict[int, TenantDoc] = field(default_factory=dict)
    names: dict[str, TenantDoc] = field(default_factory=dict)
    #: (VNI|VLAN, value) -> the tenant and the overlay field it comes from
    numbers: dict[tuple[str, int | str], tuple[TenantDoc, str]] = field(default_factory=dict)
    ports: dict[GpuPort, TenantDoc] = field(default_factory=dict)


def _allocate_tenant(
    td: TenantDoc,
    fabric: FabricView,
    topo: Topology,
    platforms: list[Platform],
    reserved: Reserved,
    seen: _Seen,
    log: ProblemLog,
) -> TenantAllocation:
    """One tenant's numbers, GPU ports and addresses, checked against the tenants before it."""
    t, ov = td.tenant, fabric.settings.overlay
    id_taken = _check_identity(td, ov.tenant_id_max, platforms, seen, log)
    l3vni, l2vni, vlan = _overlay_numbers_of(td, ov, platforms, log)
    _check_number_clashes(td, l3vni, l2vni, vlan, id_taken, seen, log)
    unique = _claim_ports(td, resolve_gpus(td, topo, fabric, log), seen, log)
    block = t.address_block
    svi_leaves = svi_leaf_order(unique, fabric) if t.isolation == "l2" else []
    need = block_need(len(unique), t.isolation, len(svi_leaves))
    _check_block(td, len(unique), len(svi_leaves), need, reserved, log)
    assignments = []
    for i, gp in enumerate(unique):
        if t.isolation == "l3" and 2 * i + 1 < block.num_addresses:
            assignments.append(PortAssignment(gp, block[2 * i], block[2 * i + 1]))
        else:
            assignments.append(PortAssignment(gp, None, None))
    gateway = f"{block[1]}/{block.prefixlen}" if t.isolation == "l2" and block.num_addresses >= 4 else None
    rt = f"{ov.route_target_asn}:{l3vni}"
    l2rt = f"{ov.route_target_asn}:{l2vni}" if l2vni else None
    alloc = TenantAllocation(t, td.file, l3vni, l2vni, vlan, rt, l2rt, gateway, assignments)
    if gateway and block.num_addresses >= need:
        alloc.svi_addresses = svi_addresses(block, svi_leaves)
    return alloc


def _check_identity(
    td: TenantDoc, id_max: int, platforms: list[Platform], seen: _Seen, log: ProblemLog
) -> bool:
    """The tenant's name and id: not kept by a NOS, in range, neither used by an earlier tenant.
    True when the id is taken (then a VNI derived from it clashes by the id's fault alone)."""
    t = td.tenant
    _check_reserved_name(td, platforms, log)
    if t.id > id_max:
        log.add(td.file, td.line("id"), "id", f"{t.id} is out of range", f"1-{id_max}")
    id_taken = t.id in seen.ids
    if id_taken:
        first = seen.ids[t.id]
        log.add(
            td.file,
            td.line("id"),
            "id",
            f"id {t.id} is already used by tenant {first.tenant.name} ({_at(first, 'id')})",
            "a unique id per tenant",
        )
    seen.ids.setdefault(t.id, td)
    if t.name in seen.names:
        log.add(
            td.file,
            td.line("name"),
            "name",
            f"name {t.name!r} is already used by {_at(seen.names[t.name], 'name')}",
            "a unique name per tenant",
        )
    seen.names.setdefault(t.name, td)
    return id_taken


def _overlay_numbers_of(
    td: TenantDoc, ov: Overlay, platforms: list[Platform], log: ProblemLog
) -> tuple[int, int | None, int | None]:
    """(l3vni, l2vni, vlan): the tenant's overrides, else derived from its id; an l2 VNI and a
    VLAN only for isolation l2, a VLAN a switch can carry and no NOS keeps for itself."""
    t = td.tenant
    l3vni = t.overlay.l3vni or ov.l3vni_base + t.id
    if t.isolation != "l2":
        for key in ("l2vni", "vlan"):
            if getattr(t.overlay, key) is not None:
                log.add(
                    td.file,
                    td.line("overlay", key),
                    f"overlay.{key}",
                    f"{key} applies only to isolation l2 (this tenant is l3)",
                    "overlay.l3vni",
                )
        return l3vni, None, None
    l2vni = t.overlay.l2vni or ov.l2vni_base + t.id
    vlan = t.overlay.vlan or ov.vlan_base + t.id
    if vlan > 4094:
        log.add(
            td.file,
            td.line("id"),
            "id",
            f"derived VLAN {vlan} (vlan_base {ov.vlan_base} + id) is above 4094",
            "set overlay.vlan explicitly or use a lower id",
        )
    _check_reserved_vlan(td, vlan, platforms, log)
    return l3vni, l2vni, vlan


def _check_number_clashes(
    td: TenantDoc,
    l3vni: int,
    l2vni: int | None,
    vlan: int | None,
    id_taken: bool,
    seen: _Seen,
    log: ProblemLog,
) -> None:
    """A VNI or VLAN an earlier tenant uses, located where this one's comes from: its override,
    or its id (not reported again when the id itself is taken: that is the one mistake)."""
    overridden = td.tenant.overlay.model_dump(exclude_none=True)
    # Route targets are <asn>:<VNI>, so a unique VNI gives a unique route target.
    for kind, value, path in (
        ("VNI", l3vni, "overlay.l3vni"),
        ("VNI", l2vni, "overlay.l2vni"),
        ("VLAN", vlan, "overlay.vlan"),
    ):
        if value is None:
            continue
        number = (kind, value)
        explicit = path.split(".")[-1] in overridden
        if number in seen.numbers and seen.numbers[number][0] is not td and (explicit or not id_taken):
            other, other_path = seen.numbers[number]
            if other_path.split(".")[-1] not in other.tenant.overlay.model_dump(exclude_none=True):
                other_path = "id"  # derived from the other tenant's id
            where = path if explicit else "id"
            log.add(
                td.file,
                td.line(*where.split(".")),
                where,
                f"{kind} {value} is already used by tenant {other.tenant.name} ({_at(other, *other_path.split('.'))})",
                "a value no other tenant uses, anywhere in the fabric",
            )
        seen.numbers.setdefault(number, (td, path))


def _claim_ports(td: TenantDoc, ports: list[GpuPort], seen: _Seen, log: ProblemLog) -> list[GpuPort]:
    """The tenant's GPU ports that neither it (listed twice) nor an earlier tenant holds, in order."""
    unique: list[GpuPort] = []
    for gp in ports:
        first = seen.ports.get(gp)
        if first is None:
            seen.ports[gp] = td
            unique.append(gp)
            continue
        held = (
            "listed twice"
            if first is td
            else f"already held by tenant {first.tenant.name} ({_at(first, 'gpus')})"
        )
        log.add(
            td.file,
            td.line("gpus"),
            "gpus",
            f"{gp.server} nic{gp.nic} ({gp.leaf} {gp.name}) is {held}",
            "each GPU once" if first is td else "GPUs no other tenant holds",
        )
    return unique


def _check_block(
    td: TenantDoc, gpus: int, svi_leaves: int, need: int, reserved: Reserved, log: ProblemLog
) -> None:
    """The address block holds what the tenant needs and overlaps no underlay pool or management
    address."""
    t = td.tenant
    block = t.address_block
    if block.num_addresses < need:
        on = f" and {svi_leaves} leaf SVI addresses" if svi_leaves else ""
        log.add(
            td.file,
            td.line("address_block"),
            "address_block",
            f"{block} has {block.num_addresses} addresses; {gpus} GPUs in isolation {t.isolation}{on} need {need}",
            f"a prefix of /{32 - (need - 1).bit_length()} or larger",
        )
    for name in reserved_hits(block, reserved):
        log.add(
            td.file,
            td.line("address_block"),
            "address_block",
            f"{block} overlaps {name}",
            "an address block outside the underlay pools and management addresses",
        )


def block_need(gpus: int, isolation: str, svi_leaves: int = 0) -> int:
    """Addresses a tenant block must hold: l3 a /31 per GPU port; l2 one per GPU, the network,
    the anycast gateway and the broadcast, plus one per leaf whose SVI needs its own address."""
    return 2 * gpus if isolation == "l3" else gpus + 3 + svi_leaves


def svi_leaf_order(ports: Iterable[GpuPort], fabric: Fabric | FabricView) -> list[str]:
    """The leaves of an l2 tenant whose NOS gives the SVI an address of its own besides the
    anycast gateway (Platform.svi_address: Cumulus Linux VRR), in the order the tenant's GPU list
    first reaches them. GPUs appended to a tenant keep every leaf's place, so its address."""
    fabric = read_fabric(fabric)
    out: list[str] = []
    seen: set[str] = set()
    for gp in ports:
        if gp.leaf not in seen:
            seen.add(gp.leaf)
            leaf = fabric.switch(gp.leaf)
            if leaf is not None and get_platform(leaf.platform).svi_address:
                out.append(gp.leaf)
    return out


def svi_addresses(block: IPv4Network, leaves: list[str]) -> dict[str, str]:
    """Each leaf's own SVI address, from the top of the tenant's block down: the n-th leaf takes
    the broadcast address minus n. Hosts number up from the gateway (`block[2]`), so the two
    meet only in a block too small, which validate refuses (block_need)."""
    top = int(block.broadcast_address)
    return {leaf: f"{IPv4Address(top - n)}/{block.prefixlen}" for n, leaf in enumerate(leaves, start=1)}


def _check_reserved_name(td: TenantDoc, platforms: list[Platform], log: ProblemLog) -> None:
    """A tenant name becomes VRF, ACL and VSI names on every leaf: refuse one a NOS of this
    fabric keeps for itself (a tenant `mgmt` would land in the management VRF, outside the
    owned scope: never pushed, never removed, and verify would not notice)."""
    for platform in platforms:
        why = platform.reserved(td.tenant.name)
        if why is not None:
            allowed = sorted({n for p in platforms for n in p.reserved_list()})
            log.add(
                td.file,
                td.line("name"),
                "name",
                f"{td.tenant.name!r} is reserved: {why}",
                f"a name other than {', '.join(allowed)}",
            )
            return


def _check_reserved_vlan(td: TenantDoc, vlan: int, platforms: list[Platform], log: ProblemLog) -> None:
    """An l2 tenant's VLAN is a VLAN of every leaf's bridge: refuse one a NOS of this fabric keeps
    for itself (NVUE's internal and L3VNI ranges), where the switch would refuse the bridge VLAN."""
    for platform in platforms:
        for low, high in platform.reserved_vlans:
            if low <= vlan <= high:
                field = ("overlay", "vlan") if td.tenant.overlay.vlan else ("id",)
                log.add(
                    td.file,
                    td.line(*field),
                    ".".join(field),
                    f"VLAN {vlan} is in {low}-{high}, which {platform.title} keeps for itself",
                    f"a VLAN outside {low}-{high} (set overlay.vlan explicitly, or another id)",
                )
                return


@dataclass(frozen=True)
class Reserved:
    """What no tenant block may overlap: the underlay pools (a few networks) and the switches'
    management addresses (one per switch, sorted, so a block finds its hits by bisection)."""

    pools: list[tuple[str, IPv4Network]]
    hosts: list[tuple[int, str]]  # (address as int, switch), sorted


def reserved_networks(fabric: Fabric | FabricView) -> Reserved:
    fabric = read_fabric(fabric)
    pools = [(f"the fabric's {name} {net}", net) for name, net in fabric.settings.underlay.pools()]
    hosts = sorted((int(net.network_address), sw) for sw, net in management_addresses(fabric))
    return Reserved(pools, hosts)


def reserved_hits(block: IPv4Network, reserved: Reserved) -> list[str]:
    """How each reserved range `block` overlaps is named in an error, in order."""
    hits = [name for name, net in reserved.pools if block.overlaps(net)]
    lo, hi = int(block.network_address), int(block.broadcast_address)
    i = bisect.bisect_left(reserved.hosts, (lo, ""))
    while i < len(reserved.hosts) and reserved.hosts[i][0] <= hi:
        address, sw = reserved.hosts[i]
        hits.append(f"the management address {IPv4Address(address)} of {sw} (inventory/hosts.yaml)")
        i += 1
    return hits


def _check_overlaps(docs: list[TenantDoc], log: ProblemLog) -> None:
    """Address blocks must not overlap: sort by network and compare neighbours (n log n)."""
    ordered = sorted(
        docs,
        key=lambda d: (d.tenant.address_block.network_address, -d.tenant.address_block.prefixlen),
    )
    widest: TenantDoc | None = None
    for td in ordered:
        if widest is not None and td.tenant.address_block.overlaps(widest.tenant.address_block):
            log.add(
                td.file,
                td.line("address_block"),
                "address_block",
                f"{td.tenant.address_block} overlaps {widest.tenant.address_block} of tenant {widest.tenant.name} ({widest.file})",
                "a block no other tenant uses",
            )
        if (
            widest is None
            or td.tenant.address_block.broadcast_address > widest.tenant.address_block.broadcast_address
        ):
            widest = td


def _link_peers(allocs: list[TenantAllocation], docs: dict[str, TenantDoc], log: ProblemLog) -> None:
    """A shared_with exception counts only when both tenants list each other."""
    by_name = {a.name: a for a in allocs}
    declared = {a.name: set(a.tenant.shared_with) for a in allocs}  # sets: 16,384 peers stay linear
    for a in allocs:
        td = docs[a.name]
        first: dict[str, int] = {}
        for i, peer in enumerate(a.tenant.shared_with):
            other = by_name.get(peer)
            if peer in first:
                log.add(
                    td.file,
                    td.line("shared_with", i),
                    f"shared_with[{i}]",
                    f"{peer!r} is listed twice (first as shared_with[{first[peer]}])",
                    "each tenant once",
                )
                continue
            first[peer] = i
            if other is None:
                log.add(
                    td.file,
                    td.line("shared_with", i),
                    f"shared_with[{i}]",
                    f"unknown tenant {peer!r}",
                    "names of tenants in tenants/",
                )
            elif peer == a.name:
                log.add(
                    td.file,
                    td.line("shared_with", i),
                    f"shared_with[{i}]",
                    "a tenant cannot share with itself",
                    "other tenants",
                )
            elif a.name not in declared[peer]:
                log.add(
                    td.file,
                    td.line("shared_with", i),
                    f"shared_with[{i}]",
                    f"one-sided exception: {peer} does not list {a.name} in its shared_with ({other.file})",
                    "exceptions both tenants declare",
                )
            else:
                a.peers.append(other)
        a.peers.sort(key=lambda p: p.tenant.id)


def _acl_rules(a: TenantAllocation) -> list[AclRule]:
    block = a.tenant.address_block
    rules = [AclRule(INTRA_SEQ, "permit", block, block, f"{a.name} internal")]
    for peer in a.peers:
        rules.append(
            AclRule(
                PEER_SEQ_BASE + peer.tenant.id,
                "permit",
                block,
                peer.tenant.address_block,
                f"shared with {peer.name}",
            )
        )
    rules.append(AclRule(DENY_SEQ, "deny", None, None, "everything else"))
    return rules


def leaf_budget(fabric: Fabric | FabricView, leaf_name: str) -> dict[str, int]:
    """What one leaf may carry, per kind (platform datasheet, `limits:` of fabric.yaml over it)."""
    fabric = read_fabric(fabric)
    leaf = fabric.switch(leaf_name)
    assert leaf is not None
    limits = get_platform(leaf.platform).limits_with(fabric.settings.limits, leaf.model)
    return {
        "VRFs": limits.max_vrfs,
        "VLANs": limits.max_vlans,
        "VNIs": limits.max_vnis,
        "ACL entries": limits.max_acl_entries,
    }


def leaf_use(leaf_name: str, tenants: list[TenantAllocation]) -> dict[str, int]:
    """What the tenants on one leaf use of its budget, per kind (the keys of `leaf_budget`)."""
    vrfs = len(tenants)
    vlans = sum(1 for a in tenants if a.vlan is not None)
    entries = sum(len(a.acl) * sum(1 for p in a.ports if p.gpu.leaf == leaf_name) for a in tenants)
    return {"VRFs": vrfs, "VLANs": vlans, "VNIs": vrfs + vlans, "ACL entries": entries}


def _check_budgets(
    fabric: FabricView,
    by_leaf: dict[str, list[TenantAllocation]],
    docs: dict[str, TenantDoc],
    log: ProblemLog,
) -> None:
    """Per-leaf hardware budgets (platform data, fabric overrides) counted from the allocation."""
    for leaf_name, tenants in by_leaf.items():
        leaf = fabric.switch(leaf_name)
        assert leaf is not None
        budget = leaf_budget(fabric, leaf_name)
        for what, used in leaf_use(leaf_name, tenants).items():
            limit = budget[what]
            if used > limit:
                last = tenants[-1]
                log.add(
                    last.file,
                    docs[last.name].line("gpus"),
                    "gpus",
                    f"{leaf_name} would carry {used} {what}, over its budget of {limit} ({leaf.platform})",
                    f"at most {limit} {what} per leaf (limits.max_{what.split()[0].lower()}{'_entries' if 'ACL' in what else ''} in fabric.yaml)",
                )
