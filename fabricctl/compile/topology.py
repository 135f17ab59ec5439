"""Expand the cabling rules into ports, links and addresses (the physical fabric, derived)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from ipaddress import IPv4Address, IPv4Network

from fabricctl.model.fabric import Switch, expand_ports
from fabricctl.model.load import Fabric
from fabricctl.model.problems import ProblemLog
from fabricctl.platforms import get_platform

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
    """One leaf-spine cable, numbered /31: spine side even, leaf side odd."""

    leaf: str
    leaf_port: str
    spine: str
    spine_port: str
    spine_ip: IPv4Address
    leaf_ip: IPv4Address


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


def build_topology(fabric: Fabric, log: ProblemLog) -> Topology | None:
    """Derive every port and link from the cabling rules; problems go to `log`."""
    cab = fabric.settings.cabling
    und = fabric.settings.underlay
    fabric_file = fabric.root / "inventory" / "fabric.yaml"
    spines, leaves = fabric.spines, fabric.leaves
    uplinks = expand_ports(cab.leaf_uplink_ports)
    gpu_ports = expand_ports(cab.leaf_gpu_ports)
    downlinks = expand_ports(cab.spine_downlink_ports)
    per_spine = cab.leaf_uplinks_per_spine
    n = cab.nics_per_server
    ok = True
    if not spines or not leaves:
        log.add(
            fabric.root / "inventory" / "hosts.yaml",
            1,
            "",
            "the fabric needs at least one spine and one leaf",
        )
        return None
    if len(uplinks) < len(spines) * per_spine:
        log.add(
            fabric_file,
            fabric.settings_line("cabling", "leaf_uplink_ports"),
            "cabling.leaf_uplink_ports",
            f"{len(uplinks)} ports cannot reach {len(spines)} spines x {per_spine} uplinks",
            f"at least {len(spines) * per_spine} ports",
        )
        ok = False
    if len(downlinks) < max(s.index for s in leaves) * per_spine:
        log.add(
            fabric_file,
            fabric.settings_line("cabling", "spine_downlink_ports"),
            "cabling.spine_downlink_ports",
            f"{len(downlinks)} ports cannot reach leaf index {max(s.index for s in leaves)} x {per_spine} links",
            f"at least {max(s.index for s in leaves) * per_spine} ports",
        )
        ok = False
    if len(leaves) % n:
        log.add(
            fabric_file,
            fabric.settings_line("cabling", "nics_per_server"),
            "cabling.nics_per_server",
            f"{len(leaves)} leaves do not split into rail groups of {n}",
            "a divisor of the leaf count",
        )
        ok = False
    links_needed = len(leaves) * len(spines) * per_spine
    for pool_name, pool, need in (
        ("underlay.spine_loopbacks", und.spine_loopbacks, max(s.index for s in spines) + 1),
        ("underlay.leaf_loopbacks", und.leaf_loopbacks, max(s.index for s in leaves) + 1),
        ("underlay.vtep_loopbacks", und.vtep_loopbacks, max(s.index for s in leaves) + 1),
        (
            "underlay.p2p_links",
            und.p2p_links,
            2 * (max(s.index for s in leaves) * len(spines) * per_spine) + 1,
        ),
    ):
        if pool.num_addresses < need:
            log.add(
                fabric_file,
                fabric.settings_line(*pool_name.split(".")),
                pool_name,
                f"{pool} is too small ({pool.num_addresses} addresses, {need} needed for {links_needed} links)"
                if "p2p" in pool_name
                else f"{pool} is too small for switch index {need - 1}",
                f"a prefix with at least {need} addresses",
            )
            ok = False
    ok = _check_numbering(fabric, log) and ok
    if not ok:
        return None

    lanes: list[int | None] = [1, 2] if cab.gpu_port_breakout == "2x200G" else [None]
    slots = [(p, lane) for p in gpu_ports for lane in lanes]
    pods = len(leaves) // n
    topo = Topology(servers=[cab.server_name.format(i + 1) for i in range(pods * len(slots))])
    for leaf in leaves:
        plat = get_platform(leaf.platform)
        pos = leaves.index(leaf)
        pod, rail = divmod(pos, n)
        ports = []
        for i, (port, lane) in enumerate(slots):
            server = topo.servers[pod * len(slots) + i]
            gp = GpuPort(leaf.name, port, lane, plat.port_name(port, lane), server, rail)
            ports.append(gp)
            topo.by_leaf_port[(leaf.name, gp.key)] = gp
            topo.by_server.setdefault(server, [None] * n)[rail] = gp  # type: ignore[list-item]
        topo.gpu_ports[leaf.name] = ports
        if cab.gpu_port_breakout != "none":
            topo.breakout_parents[leaf.name] = [plat.port_name(p) for p in gpu_ports]
        used = set(uplinks[: len(spines) * per_spine]) | set(gpu_ports)
        topo.unused_ports[leaf.name] = [
            plat.port_name(p) for p in range(1, plat.port_count + 1) if p not in used
        ]
    for spine in spines:
        topo.loopback[spine.name] = _host(und.spine_loopbacks, spine.index)  # type: ignore[assignment]
        topo.asn[spine.name] = und.spine_asn
    for leaf in leaves:
        topo.loopback[leaf.name] = _host(und.leaf_loopbacks, leaf.index)  # type: ignore[assignment]
        topo.vtep[leaf.name] = _host(und.vtep_loopbacks, leaf.index)  # type: ignore[assignment]
        topo.asn[leaf.name] = und.leaf_asn_base + leaf.index
        _cable(topo, leaf, spines, uplinks, downlinks, per_spine, und.p2p_links)
    cabled = {(ln.spine, ln.spine_port) for ln in topo.links}
    for spine in spines:
        plat = get_platform(spine.platform)
        topo.unused_ports[spine.name] = [
            plat.port_name(p)
            for p in range(1, plat.port_count + 1)
            if (spine.name, plat.port_name(p)) not in cabled
        ]
    return topo


def _cable(
    topo: Topology,
    leaf: Switch,
    spines: list[Switch],
    uplinks: list[int],
    downlinks: list[int],
    per_spine: int,
    pool: IPv4Network,
) -> None:
    leaf_plat = get_platform(leaf.platform)
    for s_pos, spine in enumerate(spines):
        spine_plat = get_platform(spine.platform)
        for k in range(per_spine):
            number = ((leaf.index - 1) * len(spines) + s_pos) * per_spine + k
            base = pool.network_address + 2 * number
            topo.links.append(
                FabricLink(
                    leaf=leaf.name,
                    leaf_port=leaf_plat.port_name(uplinks[s_pos * per_spine + k]),
                    spine=spine.name,
                    spine_port=spine_plat.port_name(downlinks[(leaf.index - 1) * per_spine + k]),
                    spine_ip=base,
                    leaf_ip=base + 1,
                )
            )


#: The highest 4-byte ASN a switch may take (4294967295 is reserved, RFC 7300).
MAX_ASN = 4294967294


def _check_numbering(fabric: Fabric, log: ProblemLog) -> bool:
    """What the cabling rules and pools imply for the switches of this inventory: every leaf ASN
    in range and none the spines' own, every cabled port on the switch, no pool holding a
    management address. Returns False after logging any problem."""
    und = fabric.settings.underlay
    cab = fabric.settings.cabling
    fabric_file = fabric.root / "inventory" / "fabric.yaml"
    ok = True

    def add(path: str, message: str, allowed: str) -> None:
        nonlocal ok
        ok = False
        log.add(fabric_file, fabric.settings_line(*path.split(".")), path, message, allowed)

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
    for path, spec, switches in (
        ("cabling.leaf_uplink_ports", cab.leaf_uplink_ports, fabric.leaves),
        ("cabling.leaf_gpu_ports", cab.leaf_gpu_ports, fabric.leaves),
        ("cabling.spine_downlink_ports", cab.spine_downlink_ports, fabric.spines),
    ):
        highest = max(expand_ports(spec))
        small = min(switches, key=lambda s: get_platform(s.platform).port_count)
        count = get_platform(small.platform).port_count
        if highest > count:
            add(
                path,
                f"port {highest} is not on {small.name}, which has {count} ports ({get_platform(small.platform).title})",
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
    return ok


def management_addresses(fabric: Fabric) -> list[tuple[str, IPv4Network]]:
    """(switch, /32) for every switch whose inventory hostname is an IPv4 address (a DNS name has
    none fabricctl can know): the management subnet, as the inventory spells it."""
    out = []
    for sw in fabric.switches:
        try:
            out.append((sw.name, IPv4Network(sw.hostname)))
        except ValueError:
            continue
    return out
