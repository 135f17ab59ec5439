"""Fabric-wide indexes built once from the allocation, so every check is a lookup, not a pair scan.

Tenant blocks are kept as sorted, disjoint intervals: "which tenants does this prefix touch" is a
bisect plus a short walk, which is what lets one ACL be evaluated against 2,048 tenants at once.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from ipaddress import IPv4Network

from fabricctl.compile.allocate import TenantAllocation
from fabricctl.compile.build import Compiled


@dataclass
class TenantFacts:
    """What the allocation says a tenant owns, by name, number and address."""

    name: str
    vrf: str
    acl: str
    block: IPv4Network
    l3vni: int
    l2vni: int | None
    vlan: int | None
    rt: str
    l2rt: str | None
    lossless: bool
    isolation: str
    gpus: int
    peers: set[str] = field(default_factory=set)
    sample: str = ""  # "10.101.0.1 (llm-pretrain, leaf01 FourHundredGigE1/0/33)"
    host: str = ""  # "10.101.0.1 (llm-pretrain)"


class Facts:
    """Indexes over the allocation: name/VRF/ACL/VNI/RT/VLAN -> tenant, address -> tenant."""

    def __init__(self, compiled: Compiled) -> None:
        self.tenants: dict[str, TenantFacts] = {}
        for a in compiled.allocation.tenants:
            self.tenants[a.name] = _facts(a)
        self.by_vrf = {t.vrf: t for t in self.tenants.values()}
        self.by_acl = {t.acl: t for t in self.tenants.values()}
        self.by_vlan = {str(t.vlan): t for t in self.tenants.values() if t.vlan is not None}
        self.by_rt: dict[str, TenantFacts] = {}
        self.by_vni: dict[int, TenantFacts] = {}
        for t in self.tenants.values():
            self.by_rt[t.rt] = t
            self.by_vni[t.l3vni] = t
            if t.l2rt and t.l2vni is not None:
                self.by_rt[t.l2rt] = t
                self.by_vni[t.l2vni] = t
        ordered = sorted(self.tenants.values(), key=lambda t: int(t.block.network_address))
        self._starts = [int(t.block.network_address) for t in ordered]
        self._ordered = ordered

    def peers(self, a: str, b: str) -> bool:
        """True when both tenants declared the exception (the allocation links only two-sided ones)."""
        ta, tb = self.tenants.get(a), self.tenants.get(b)
        return bool(ta and tb and b in ta.peers and a in tb.peers)

    def segment_owner(self, key: str, label: str = "") -> TenantFacts | None:
        """A segment keyed by a VLAN id belongs to that VLAN's tenant; a named one to the tenant it names."""
        if key.isdigit():
            return self.by_vlan.get(key)
        return self.by_vrf.get(key) or self.by_vrf.get(label)  # named after the tenant's objects

    def touching(self, net: IPv4Network | None) -> list[TenantFacts]:
        """Tenants whose block overlaps `net` (None = any address), in address order."""
        if net is None:
            return list(self._ordered)
        lo, hi = int(net.network_address), int(net.broadcast_address)
        i = max(bisect_right(self._starts, lo) - 1, 0)
        out = []
        while i < len(self._ordered) and self._starts[i] <= hi:
            t = self._ordered[i]
            if int(t.block.broadcast_address) >= lo:
                out.append(t)
            i += 1
        return out


def _facts(a: TenantAllocation) -> TenantFacts:
    t = a.tenant
    block = t.address_block
    first = next((p for p in a.ports), None)
    if first is not None and first.gpu_ip is not None:
        ip = str(first.gpu_ip)
    else:
        ip = str(block[2] if block.num_addresses > 3 else block[-1])
    where = f", {first.gpu.leaf} {first.gpu.name}" if first else ""
    return TenantFacts(
        name=a.name,
        vrf=a.vrf,
        acl=a.acl_name,
        block=block,
        l3vni=a.l3vni,
        l2vni=a.l2vni,
        vlan=a.vlan,
        rt=a.route_target,
        l2rt=a.l2_route_target,
        lossless=t.lossless,
        isolation=t.isolation,
        gpus=len(a.ports),
        peers={p.name for p in a.peers},
        sample=f"{ip} ({a.name}{where})",
        host=f"{ip} ({a.name})",
    )
