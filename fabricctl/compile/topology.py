"""Expand the cabling rules into ports, links and addresses (the physical fabric, derived)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from ipaddress import IPv4Address, IPv4Network

from fabricctl.compile.view import FabricView, read_fabric
from fabricctl.compile.view import switch_model as switch_model  # its home before view.py
from fabricctl.model.fabric import Switch
from fabricctl.model.load import Fabric
from fabricctl.model.problems import ProblemLog
from fabricctl.platforms import get_platform
from fabricctl.platforms.base import NO_BREAKOUT, PortNamer, breakout_lanes

#: str() of an address or network, memoised: every switch spells the same loopbacks, link
#: addresses and tenant blocks, and ipaddress formats them in Python each time.
addr_str = functools.lru_cache(maxsize=1 << 16, typed=True)(str)


@dataclass(frozen=True)
class GpuPort:
    """A leaf port facing one GPU NIC. `key` is how tenants name it: '40' or '40:2'."""

    leaf: str
    port: int
    lane: int | None
    name: str
    server: str
    nic: int

    @property
    def key(self) -> str:
        return str(self.port) if self.lane is None else f"{self.port}:{self.lane}"


@dataclass(frozen=True)
class FabricLink:
    """One fabric cable, numbered /31: upper side even, lower side odd.

    `leaf` is the lower end and `spine` the upper: a leaf and a spine (tier "leaf-spine"), or, in
    a multi-pod fabric, a spine and a super-spine (tier "spine-superspine").
    """

    leaf: str
    leaf_port: str
    spine: str
    spine_port: str
    spine_ip: IPv4Address
    leaf_ip: IPv4Address
    tier: str = "leaf-spine"


@dataclass
class Topology:
    servers: list[str]
    gpu_ports: dict[str, list[GpuPort]] = field(default_factory=dict)
    by_server: dict[str, list[GpuPort]] = field(default_factory=dict)
    by_leaf_port: dict[tuple[str, str], GpuPort] = field(default_factory=dict)
    links: list[FabricLink] = field(default_factory=list)
    loopback: dict[str, IPv4Address] = field(default_factory=dict)
    vtep: dict[str, IPv4Address] = field(default_factory=dict)
    asn: dict[str, int] = field(default_factory=dict)
    unused_ports: dict[str, list[str]] = field(default_factory=dict)
    breakout_parents: dict[str, list[str]] = field(default_factory=dict)

    def links_of(self, switch: str) -> list[FabricLink]:
        """Links with `switch` at either end, in cabling order (indexed once: O(links), not per call)."""
        index = self.__dict__.get("_links_by_switch")
        if index is None or index[0] != len(self.links):
            by: dict[str, list[FabricLink]] = {}
            for ln in self.links:
                by.setdefault(ln.leaf, []).append(ln)
                if ln.spine != ln.leaf:
                    by.setdefault(ln.spine, []).append(ln)
            index = self.__dict__["_links_by_switch"] = (len(self.links), by)
        return list(index[1].get(switch, ()))


def _host(pool: IPv4Network, index: int) -> IPv4Address | None:
    return pool[index] if index < pool.num_addresses - 1 else None


def pod_pool(pool: IPv4Network, pod: int | None, max_pods: int) -> IPv4Network | None:
    """Pod `pod`'s share of a fabric pool: the pod-th of max_pods equal prefixes (the whole pool in
    a 2-tier fabric); None when the pool is too small to split that far."""
    if pod is None:
        return pool
    bits = max_pods.bit_length() - 1
    if pool.prefixlen + bits > 31:
        return None
    size = pool.num_addresses >> bits
    return IPv4Network((int(pool.network_address) + (pod - 1) * size, pool.prefixlen + bits))


def port_namer(sw: Switch) -> PortNamer:
    """How the switch names its ports (its model's names, else its platform's)."""
    return get_platform(sw.platform).port_namer(sw.model)


def _model_title(sw: Switch) -> str:
    """The platform's title, and the model when the switch names one."""
    title = get_platform(sw.platform).title
    return f"{title} {sw.model}" if sw.model else title


def build_topology(model: Fabric | FabricView, log: ProblemLog) -> Topology | None:
    """Derive every port and link from the cabling rules; problems go to `log`."""
    fabric = read_fabric(model)
    spines, leaves = fabric.spines, fabric.leaves
    if not spines or not leaves:
        log.add(
            fabric.root / "inventory" / "hosts.yaml",
            1,
            "",
            "the fabric needs at least one spine and one leaf",
        )
        return None
    pod_spines: dict[int | None, list[Switch]] = {}
    pod_leaves: dict[int | None, list[Switch]] = {}
    for sw in spines:
        pod_spines.setdefault(sw.pod, []).append(sw)
    for sw in leaves:
        pod_leaves.setdefault(sw.pod, []).append(sw)
    if not _check_fabric(fabric, log, pod_spines, pod_leaves):
        return None
    topo = Topology(servers=[])
    first = _number_servers(fabric, topo, pod_leaves)
    position = {leaf.name: i for pod_list in pod_leaves.values() for i, leaf in enumerate(pod_list)}
    for leaf in leaves:
        _leaf_ports(fabric, topo, leaf, position[leaf.name], first, pod_spines, pod_leaves)
    _underlay(fabric, topo, pod_spines)
    if fabric.settings.pods is not None:
        _cable_superspines(fabric, topo, pod_spines)
    _unused_spine_ports(fabric, topo)
    return topo


def _max_pods(fabric: FabricView) -> int:
    pods = fabric.settings.pods
    return pods.max_pods if pods else 1


def _check_fabric(
    fabric: FabricView,
    log: ProblemLog,
    pod_spines: dict[int | None, list[Switch]],
    pod_leaves: dict[int | None, list[Switch]],
) -> bool:
    """Every pod's switches against the cabling rules and pools, the super-spines, the numbering."""
    ok = True
    for pod in fabric.pods:
        where = f"pod {pod}: " if pod is not None else ""
        p_spines, p_leaves = pod_spines.get(pod, []), pod_leaves.get(pod, [])
        if not p_spines or not p_leaves:
            log.add(
                fabric.root / "inventory" / "hosts.yaml",
                1,
                "",
                f"{where}every pod needs at least one spine and one leaf",
            )
            ok = False
            continue
        ok = _check_pod(fabric, log, where, p_spines, p_leaves, pod, _max_pods(fabric)) and ok
    ok = _check_superspines(fabric, log, pod_spines) and ok
    return _check_numbering(fabric, log) and ok


def _number_servers(
    fabric: FabricView, topo: Topology, pod_leaves: dict[int | None, list[Switch]]
) -> dict[int | None, int]:
    """Name every server into `topo.servers`, pod by pod; where each pod's servers start there."""
    cab = fabric.settings.cabling
    n, gpu_ports = cab.nics_per_server, fabric.ports.leaf_gpu_ports
    lanes = breakout_lanes(cab.gpu_port_breakout)
    # Each pod numbers its servers as one block. In a multi-pod fabric the block has room for
    # the most lanes a breakout of its leaves' platforms gives, so a later breakout adds servers
    # inside each pod's block and never renumbers the pods after it (a 2-tier fabric's one block
    # just grows).
    offered = {m for leaf in fabric.leaves for m in fabric.model(leaf).breakouts}
    room = (
        max(len(breakout_lanes(m)) for m in {NO_BREAKOUT, *offered})
        if fabric.settings.pods is not None
        else len(lanes)
    )
    first: dict[int | None, int] = {}  # pod -> where its servers start in topo.servers
    number = 0  # the numbers before the pod's block
    for pod in fabric.pods:
        first[pod] = len(topo.servers)
        per_lane = len(pod_leaves[pod]) // n * len(gpu_ports)
        topo.servers += [cab.server_name.format(number + i + 1) for i in range(per_lane * len(lanes))]
        number += per_lane * room
    return first


def _leaf_ports(
    fabric: FabricView,
    topo: Topology,
    leaf: Switch,
    position: int,
    first: dict[int | None, int],
    pod_spines: dict[int | None, list[Switch]],
    pod_leaves: dict[int | None, list[Switch]],
) -> None:
    """One leaf's GPU ports (lane by lane, each cabled to its server's NIC on the leaf's rail),
    its breakout parents and its unused ports, into `topo`."""
    cab = fabric.settings.cabling
    n, lanes = cab.nics_per_server, breakout_lanes(cab.gpu_port_breakout)
    uplinks, gpu_ports = fabric.ports.leaf_uplinks, fabric.ports.leaf_gpu_ports
    per_spine = cab.leaf_uplinks_per_spine
    name_port = port_namer(leaf)
    group, rail = divmod(position, n)
    per_lane = len(pod_leaves[leaf.pod]) // n * len(gpu_ports)  # servers on one lane of the pod
    ports = []
    for i, port in enumerate(gpu_ports):
        for lane_index, lane in enumerate(lanes):
            # Lane by lane: lane 1 (the whole port without a breakout) keeps the numbers the
            # pod had before a breakout, so every cabled server stays where it is; the new
            # lanes number after them.
            server = topo.servers[first[leaf.pod] + lane_index * per_lane + group * len(gpu_ports) + i]
            gp = GpuPort(leaf.name, port, lane, name_port(port, lane), server, rail)
            ports.append(gp)
            topo.by_leaf_port[(leaf.name, gp.key)] = gp
            if lane == 1:  # port P names its first lane: a tenant's "47" is still its GPU
                topo.by_leaf_port[(leaf.name, str(port))] = gp
            topo.by_server.setdefault(server, [None] * n)[rail] = gp  # type: ignore[list-item]  # every rail is filled in before the list is read (one GPU per rail)
    topo.gpu_ports[leaf.name] = ports
    if cab.gpu_port_breakout != NO_BREAKOUT:
        topo.breakout_parents[leaf.name] = [name_port(p) for p in gpu_ports]
    used = set(uplinks[: len(pod_spines[leaf.pod]) * per_spine]) | set(gpu_ports)
    topo.unused_ports[leaf.name] = [
        name_port(p) for p in range(1, fabric.model(leaf).ports + 1) if p not in used
    ]


def _underlay(fabric: FabricView, topo: Topology, pod_spines: dict[int | None, list[Switch]]) -> None:
    """Loopbacks, VTEP addresses and ASNs of spines and leaves, and the leaf-spine links."""
    und = fabric.settings.underlay
    max_pods = _max_pods(fabric)
    uplinks, downlinks = fabric.ports.leaf_uplinks, fabric.ports.spine_downlinks
    per_spine = fabric.settings.cabling.leaf_uplinks_per_spine
    for spine in fabric.spines:
        topo.loopback[spine.name] = _host(pod_pool(und.spine_loopbacks, spine.pod, max_pods), spine.index)  # type: ignore[arg-type,assignment]  # pools and indices were checked to fit by validate above (None only for a refused fabric)
        topo.asn[spine.name] = und.spine_asn + (spine.pod - 1 if spine.pod else 0)
    for leaf in fabric.leaves:
        topo.loopback[leaf.name] = _host(pod_pool(und.leaf_loopbacks, leaf.pod, max_pods), leaf.index)  # type: ignore[arg-type,assignment]  # pools and indices were checked to fit by validate above (None only for a refused fabric)
        topo.vtep[leaf.name] = _host(pod_pool(und.vtep_loopbacks, leaf.pod, max_pods), leaf.index)  # type: ignore[arg-type,assignment]  # pools and indices were checked to fit by validate above (None only for a refused fabric)
        topo.asn[leaf.name] = leaf_asn(fabric, leaf)
        pool = pod_pool(und.p2p_links, leaf.pod, max_pods)
        _cable(topo, leaf, pod_spines[leaf.pod], uplinks, downlinks, per_spine, pool)  # type: ignore[arg-type]  # the pod's pool was checked to split by validate above


def _unused_spine_ports(fabric: FabricView, topo: Topology) -> None:
    """The ports of spines and super-spines no link cables."""
    cabled = {(ln.spine, ln.spine_port) for ln in topo.links} | {(ln.leaf, ln.leaf_port) for ln in topo.links}
    for sw in [*fabric.spines, *fabric.superspines]:
        name_port = port_namer(sw)
        topo.unused_ports[sw.name] = [
            name_port(p)
            for p in range(1, fabric.model(sw).ports + 1)
            if (sw.name, name_port(p)) not in cabled
        ]


def leaf_asn(fabric: FabricView, leaf: Switch) -> int:
    """leaf_asn_base + index; in pod p of a multi-pod fabric, + (p - 1) * pods.leaf_asn_stride."""
    und, pods = fabric.settings.underlay, fabric.settings.pods
    offset = (leaf.pod - 1) * pods.leaf_asn_stride if pods is not None and leaf.pod else 0
    return und.leaf_asn_base + offset + leaf.index


def superspine_slots(fabric: FabricView) -> int:
    """Super-spines one plane can have: a spine reaches at most this many with its uplink ports."""
    pods = fabric.settings.pods
    assert pods is not None
    return len(fabric.ports.spine_uplinks) // pods.spine_uplinks_per_superspine


def _check_pod(
    fabric: FabricView,
    log: ProblemLog,
    where: str,
    spines: list[Switch],
    leaves: list[Switch],
    pod: int | None,
    max_pods: int,
) -> bool:
    """The cabling rules and pools against one pod's switches (the whole 2-tier fabric when
    pod is None; its messages are those of a 2-tier fabric)."""
    cab = fabric.settings.cabling
    fabric_file = fabric.root / "inventory" / "fabric.yaml"
    uplinks, downlinks = fabric.ports.leaf_uplinks, fabric.ports.spine_downlinks
    per_spine = cab.leaf_uplinks_per_spine
    n = cab.nics_per_server
    ok = True
    if len(uplinks) < len(spines) * per_spine:
        log.add(
            fabric_file,
            fabric.settings_line("cabling", "leaf_uplink_ports"),
            "cabling.leaf_uplink_ports",
            f"{where}{len(uplinks)} ports cannot reach {len(spines)} spines x {per_spine} uplinks",
            f"at least {len(spines) * per_spine} ports",
        )
        ok = False
    elif len(uplinks) > len(spines) * per_spine:
        used = len(spines) * per_spine
        log.add(
            fabric_file,
            fabric.settings_line("cabling", "leaf_uplink_ports"),
            "cabling.leaf_uplink_ports",
            f"{where}{len(uplinks) - used} of its {len(uplinks)} ports would stay unused: "
            f"{len(spines)} spines x {per_spine} uplinks cable {used}",
            f"exactly {used} ports"
            + (
                f", or leaf_uplinks_per_spine: {len(uplinks) // len(spines)}"
                if len(uplinks) % len(spines) == 0
                else ""
            ),
        )
        ok = False
    if len(downlinks) < max(s.index for s in leaves) * per_spine:
        log.add(
            fabric_file,
            fabric.settings_line("cabling", "spine_downlink_ports"),
            "cabling.spine_downlink_ports",
            f"{where}{len(downlinks)} ports cannot reach leaf index {max(s.index for s in leaves)} x {per_spine} links",
            f"at least {max(s.index for s in leaves) * per_spine} ports",
        )
        ok = False
    if len(leaves) % n:
        log.add(
            fabric_file,
            fabric.settings_line("cabling", "nics_per_server"),
            "cabling.nics_per_server",
            f"{where}{len(leaves)} leaves do not split into rail groups of {n}",
            "a divisor of the leaf count" + (" of every pod" if where else ""),
        )
        ok = False
    return _check_pools(fabric, log, where, spines, leaves, pod, max_pods) and ok


def _check_pools(
    fabric: FabricView,
    log: ProblemLog,
    where: str,
    spines: list[Switch],
    leaves: list[Switch],
    pod: int | None,
    max_pods: int,
) -> bool:
    """The underlay pools (a pod's share of each, in a multi-pod fabric) hold an address for
    every switch index and every link."""
    und = fabric.settings.underlay
    fabric_file = fabric.root / "inventory" / "fabric.yaml"
    per_spine = fabric.settings.cabling.leaf_uplinks_per_spine
    ok = True
    links_needed = len(leaves) * len(spines) * per_spine
    for pool_name, whole, need in (
        ("underlay.spine_loopbacks", und.spine_loopbacks, max(s.index for s in spines) + 1),
        ("underlay.leaf_loopbacks", und.leaf_loopbacks, max(s.index for s in leaves) + 1),
        ("underlay.vtep_loopbacks", und.vtep_loopbacks, max(s.index for s in leaves) + 1),
        (
            "underlay.p2p_links",
            und.p2p_links,
            2 * (max(s.index for s in leaves) * len(spines) * per_spine) + 1,
        ),
    ):
        pool = pod_pool(whole, pod, max_pods)
        share = f" (pod {pod}'s 1/{max_pods} of {whole})" if pod is not None else ""
        if pool is None or pool.num_addresses < need:
            size = pool.num_addresses if pool is not None else 0
            log.add(
                fabric_file,
                fabric.settings_line(*pool_name.split(".")),
                pool_name,
                f"{where}{pool or whole}{share} is too small ({size} addresses, {need} needed for {links_needed} links)"
                if "p2p" in pool_name
                else f"{where}{pool or whole}{share} is too small for switch index {need - 1}",
                f"a prefix with at least {need} addresses" + (f" per pod ({max_pods} pods)" if share else ""),
            )
            ok = False
    return ok


class _SettingsProblems:
    """Logs problems located in fabric.yaml by field path; `ok` until the first one."""

    def __init__(self, fabric: FabricView, log: ProblemLog) -> None:
        self.fabric, self.log, self.ok = fabric, log, True

    def __call__(self, path: str, message: str, allowed: str) -> None:
        self.ok = False
        fabric_file = self.fabric.root / "inventory" / "fabric.yaml"
        self.log.add(fabric_file, self.fabric.settings_line(*path.split(".")), path, message, allowed)


def _check_superspines(
    fabric: FabricView, log: ProblemLog, pod_spines: dict[int | None, list[Switch]]
) -> bool:
    """The super-spine tier's cabling rules and pools against the inventory's super-spines."""
    pods = fabric.settings.pods
    supers = fabric.superspines
    if pods is None:
        return True
    und = fabric.settings.underlay
    add = _SettingsProblems(fabric, log)

    if not supers:
        log.add(
            fabric.root / "inventory" / "hosts.yaml",
            1,
            "",
            "a multi-pod fabric needs super-spines (role superspine, plane: N)",
        )
        return False
    per = pods.spine_uplinks_per_superspine
    up, down = fabric.ports.spine_uplinks, fabric.ports.superspine_downlinks
    slots = len(up) // per
    top = max(s.index for s in supers)
    if top > slots:
        add(
            "pods.spine_uplink_ports",
            f"{len(up)} ports cannot reach super-spine index {top} x {per} uplinks",
            f"at least {top * per} ports",
        )
    top_pod = max(p for p in pod_spines if p is not None)
    if len(down) < top_pod * per:
        add(
            "pods.superspine_downlink_ports",
            f"{len(down)} ports cannot reach pod {top_pod} x {per} links",
            f"at least {top_pod * per} ports",
        )
    planes = {s.plane for s in supers if s.plane is not None}
    for spine in fabric.spines:
        if spine.index not in planes:
            log.add(
                fabric.root / "inventory" / "hosts.yaml",
                1,
                "",
                f"{spine.name} (pod {spine.pod}, index {spine.index}) uplinks to plane {spine.index}, which has no super-spine",
            )
            add.ok = False
            break
    top_plane = max(planes)
    need_lo = (top_plane - 1) * slots + top + 1
    assert und.superspine_loopbacks is not None and und.superspine_p2p_links is not None
    if und.superspine_loopbacks.num_addresses < need_lo:
        add(
            "underlay.superspine_loopbacks",
            f"{und.superspine_loopbacks} is too small for plane {top_plane} ({slots} super-spines a plane)",
            f"a prefix with at least {need_lo} addresses",
        )
    top_spine = max(s.index for s in fabric.spines)
    need = 2 * top_spine * len(up) + 1
    pool = pod_pool(und.superspine_p2p_links, 1, pods.max_pods)
    if pool is None or pool.num_addresses < need:
        add(
            "underlay.superspine_p2p_links",
            f"{und.superspine_p2p_links} is too small (each of {pods.max_pods} pods needs {need} addresses)",
            f"a prefix with at least {need * pods.max_pods} addresses",
        )
    return add.ok


def _cable_superspines(
    fabric: FabricView, topo: Topology, pod_spines: dict[int | None, list[Switch]]
) -> None:
    """Spine k of every pod to every super-spine of plane k: /31s from the pod's share of the
    super-spine link pool, spine side odd (it is the lower end, as a leaf is below a spine)."""
    pods = fabric.settings.pods
    und = fabric.settings.underlay
    assert pods is not None and und.superspine_loopbacks is not None and und.superspine_p2p_links is not None
    per = pods.spine_uplinks_per_superspine
    up, down = fabric.ports.spine_uplinks, fabric.ports.superspine_downlinks
    slots = superspine_slots(fabric)
    by_plane: dict[int, list[Switch]] = {}
    for ss in fabric.superspines:
        assert ss.plane is not None
        by_plane.setdefault(ss.plane, []).append(ss)
        topo.loopback[ss.name] = _host(und.superspine_loopbacks, (ss.plane - 1) * slots + ss.index)  # type: ignore[assignment]  # the super-spine pool was checked to fit by validate above
        assert und.superspine_asn is not None
        topo.asn[ss.name] = und.superspine_asn
    for pod in fabric.pods:
        assert pod is not None
        pool = pod_pool(und.superspine_p2p_links, pod, pods.max_pods)
        assert pool is not None
        for spine in pod_spines.get(pod, []):
            spine_port = port_namer(spine)
            for ss in by_plane.get(spine.index, []):
                ss_port = port_namer(ss)
                for k in range(per):
                    slot = (ss.index - 1) * per + k
                    base = pool.network_address + 2 * ((spine.index - 1) * len(up) + slot)
                    topo.links.append(
                        FabricLink(
                            leaf=spine.name,
                            leaf_port=spine_port(up[slot]),
                            spine=ss.name,
                            spine_port=ss_port(down[(pod - 1) * per + k]),
                            spine_ip=base,
                            leaf_ip=base + 1,
                            tier="spine-superspine",
                        )
                    )


def _cable(
    topo: Topology,
    leaf: Switch,
    spines: list[Switch],
    uplinks: list[int],
    downlinks: list[int],
    per_spine: int,
    pool: IPv4Network,
) -> None:
    leaf_port = port_namer(leaf)
    for s_pos, spine in enumerate(spines):
        spine_port = port_namer(spine)
        for k in range(per_spine):
            number = ((leaf.index - 1) * len(spines) + s_pos) * per_spine + k
            base = pool.network_address + 2 * number
            topo.links.append(
                FabricLink(
                    leaf=leaf.name,
                    leaf_port=leaf_port(uplinks[s_pos * per_spine + k]),
                    spine=spine.name,
                    spine_port=spine_port(downlinks[(leaf.index - 1) * per_spine + k]),
                    spine_ip=base,
                    leaf_ip=base + 1,
                )
            )


#: The highest 4-byte ASN a switch may take (4294967295 is reserved, RFC 7300).
MAX_ASN = 4294967294


def _check_numbering(fabric: FabricView, log: ProblemLog) -> bool:
    """What the cabling rules and pools imply for the switches of this inventory: every leaf ASN
    in range and none the spines' own, every cabled port on the switch, no pool holding a
    management address. Returns False after logging any problem."""
    und = fabric.settings.underlay
    add = _SettingsProblems(fabric, log)

    pods = fabric.settings.pods
    if pods is None:
        top = max(fabric.leaves, key=lambda s: s.index)
        if und.leaf_asn_base + top.index > MAX_ASN:
            add(
                "underlay.leaf_asn_base",
                f"{top.name} (index {top.index}) would get ASN {und.leaf_asn_base + top.index}, above {MAX_ASN}",
                f"leaf_asn_base at most {MAX_ASN - top.index}",
            )
        same = [leaf for leaf in fabric.leaves if und.leaf_asn_base + leaf.index == und.spine_asn]
        if same:
            add(
                "underlay.spine_asn",
                f"{und.spine_asn} is also the ASN of {same[0].name} (leaf_asn_base + index {same[0].index})",
                f"an ASN outside {und.leaf_asn_base + 1}-{und.leaf_asn_base + top.index}",
            )
    else:
        _check_pod_asns(fabric, add)
    if add.ok:
        _check_reserved_asns(fabric, add)
    ports = [
        ("cabling.leaf_uplink_ports", fabric.ports.leaf_uplinks, fabric.leaves),
        ("cabling.leaf_gpu_ports", fabric.ports.leaf_gpu_ports, fabric.leaves),
        ("cabling.spine_downlink_ports", fabric.ports.spine_downlinks, fabric.spines),
    ]
    if pods is not None:
        ports += [
            ("pods.spine_uplink_ports", fabric.ports.spine_uplinks, fabric.spines),
            ("pods.superspine_downlink_ports", fabric.ports.superspine_downlinks, fabric.superspines),
        ]
    for path, expanded, switches in ports:
        if not switches:
            continue
        highest = max(expanded)
        small = min(switches, key=lambda s: fabric.model(s).ports)
        count = fabric.model(small).ports
        if highest > count:
            add(
                path,
                f"port {highest} is not on {small.name}, which has {count} ports ({_model_title(small)})",
                f"ports 1-{count}",
            )
    managed = management_addresses(fabric)
    for name, pool in und.pools():
        for sw, address in managed:
            if address.overlaps(pool):
                add(
                    f"underlay.{name}",
                    f"{pool} holds the management address {address.network_address} of {sw} (inventory/hosts.yaml)",
                    "a pool outside the switches' management addresses",
                )
                break
    return add.ok


#: ASNs no switch may take and no route target may carry: AS_TRANS stands in for any 4-byte
#: ASN on a 2-byte speaker (RFC 6793 section 9), 65535 is reserved (RFC 7300).
RESERVED_ASNS = {
    23456: "AS_TRANS (RFC 6793): a 2-byte BGP speaker's stand-in for any 4-byte ASN",
    65535: "reserved (RFC 7300)",
}


def _check_reserved_asns(fabric: FabricView, add: Callable[[str, str, str], None]) -> None:
    """No switch gets a reserved ASN from the underlay's bases, and route targets carry none."""
    und, pods = fabric.settings.underlay, fabric.settings.pods
    for sw in fabric.switches:
        if sw.role == "leaf":
            asn, path, how = leaf_asn(fabric, sw), "underlay.leaf_asn_base", "leaf_asn_base + index"
        elif sw.role == "spine":
            asn = und.spine_asn + (sw.pod - 1 if pods is not None and sw.pod else 0)
            path, how = "underlay.spine_asn", "spine_asn" + (" + pod - 1" if pods is not None else "")
        else:
            asn, path, how = und.superspine_asn or 0, "underlay.superspine_asn", "superspine_asn"
        if asn in RESERVED_ASNS:
            add(
                path,
                f"{sw.name} would get ASN {asn} ({how}), {RESERVED_ASNS[asn]}",
                f"an ASN other than {asn}",
            )
            return
    rt = fabric.settings.overlay.route_target_asn
    if rt in RESERVED_ASNS:
        add("overlay.route_target_asn", f"{rt} is {RESERVED_ASNS[rt]}", f"an ASN other than {rt}")


def _check_pod_asns(fabric: FabricView, add: Callable[[str, str, str], None]) -> None:
    """Multi-pod ASNs (RFC 7938 section 5.2.1): the three runs - spine ASNs one per pod, leaf ASNs
    a stride per pod, the one super-spine ASN - stay in range and never meet."""
    und, pods = fabric.settings.underlay, fabric.settings.pods
    assert pods is not None and und.superspine_asn is not None
    top = max(fabric.leaves, key=lambda s: s.index)
    if top.index > pods.leaf_asn_stride:
        add(
            "pods.leaf_asn_stride",
            f"{top.name} (index {top.index}) is above the stride {pods.leaf_asn_stride}: its ASN would be the next pod's",
            f"leaf_asn_stride at least {top.index}",
        )
        return
    runs = [
        ("underlay.spine_asn", "spine ASNs", und.spine_asn, und.spine_asn + pods.max_pods - 1),
        (
            "underlay.leaf_asn_base",
            "leaf ASNs",
            und.leaf_asn_base + 1,
            und.leaf_asn_base + pods.max_pods * pods.leaf_asn_stride,
        ),
        ("underlay.superspine_asn", "the super-spine ASN", und.superspine_asn, und.superspine_asn),
    ]
    for path, what, lo, hi in runs:
        if hi > MAX_ASN:
            add(path, f"{what} {lo}-{hi} run above {MAX_ASN}", f"a base at most {MAX_ASN - (hi - lo)}")
            return
    for i, (path, what, lo, hi) in enumerate(runs):
        for _p, other, lo2, hi2 in runs[:i]:
            if lo <= hi2 and lo2 <= hi:
                run = f"{what} {lo}" + (f"-{hi} meet" if hi > lo else " meets")
                add(
                    path,
                    f"{run} the {other} {lo2}-{hi2} ({pods.max_pods} pods)",
                    f"{'a range' if hi > lo else 'an ASN'} apart from {lo2}-{hi2}",
                )


def management_addresses(fabric: FabricView) -> list[tuple[str, IPv4Network]]:
    """(switch, /32) for every switch whose inventory hostname is an IPv4 address (a DNS name has
    none fabricctl can know): the management subnet, as the inventory spells it."""
    out = []
    for sw in fabric.switches:
        try:
            out.append((sw.name, IPv4Network(sw.hostname)))
        except ValueError:
            continue
    return out
