"""The fabric a set of tenants lands on: switches (from the Nornir inventory) and fabric-wide settings.

Everything here is written by people in inventory/; models forbid unknown keys so a typo is an
error, not a silently ignored setting.
"""

from __future__ import annotations

import difflib
import itertools
from ipaddress import IPv4Address, IPv4Network
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    create_model,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from fabricctl.model.bounds import MAX_PORT
from fabricctl.model.network import Network
from fabricctl.platforms import PLATFORMS, breakout_modes
from fabricctl.platforms.base import NO_BREAKOUT, Platform, QosTuning

#: "1-32,40": at most MAX_PORT ports, each written in at most 4 digits and a separator.
PortRange = Annotated[str, Field(pattern=r"^\d+(-\d+)?(,\d+(-\d+)?)*$", max_length=5 * MAX_PORT)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def expand_ports(spec: str) -> list[int]:
    """'1-32,40' -> [1..32, 40]: port lists are written as ranges, like on a switch.

    Only for specs Cabling has validated (numbers 1..MAX_PORT, no port twice), so at most
    MAX_PORT ports come out.
    """
    ports: list[int] = []
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        ports.extend(range(int(lo), int(hi or lo) + 1))
    return ports


def check_ports(spec: str) -> None:
    """Raise ValueError unless `spec` names ports 1..MAX_PORT, low-high, each once.

    Linear and bounded: numbers are checked before any range is expanded, and expansion stops
    once more ports than MAX_PORT were named (some must then repeat).
    """
    seen: set[int] = set()
    twice: set[int] = set()
    count = 0
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        for number in (lo, hi):
            if number and (len(number) > 4 or int(number) > MAX_PORT):
                raise ValueError(f"port {number[:12]} is above {MAX_PORT} (ports are numbered 1-{MAX_PORT})")
        if hi and int(hi) < int(lo):
            raise ValueError(f"range {part} runs backwards (write low-high)")
        if int(lo) < 1:
            raise ValueError("ports are numbered from 1")
        for port in range(int(lo), int(hi or lo) + 1):
            (twice if port in seen else seen).add(port)
            count += 1
            if count > MAX_PORT:
                break
        if count > MAX_PORT:
            break
    if twice:
        raise ValueError(f"port(s) {', '.join(map(str, sorted(twice)))} listed more than once")


class Underlay(Strict):
    """eBGP underlay: one ASN for all spines, one per leaf, numbered /31 fabric links.

    A multi-pod fabric (`pods:` in fabric.yaml) adds a super-spine tier: one ASN for every
    super-spine (superspine_asn, RFC 7938 section 5.2.1), the spines of pod p take
    spine_asn + p - 1, and the super-spines number their loopbacks and spine links from pools of
    their own.
    """

    spine_asn: StrictInt = Field(ge=1, le=4294967294)
    leaf_asn_base: StrictInt = Field(ge=1, le=4294967294)
    spine_loopbacks: Network
    leaf_loopbacks: Network
    vtep_loopbacks: Network
    p2p_links: Network
    max_paths: StrictInt = Field(default=64, ge=1, le=512)
    #: BFD on the underlay sessions: a dead link leaves ECMP in milliseconds, not a hold time.
    bfd: StrictBool = True
    #: BGP graceful restart: a control-plane restart keeps forwarding (peers keep the routes).
    graceful_restart: StrictBool = True
    #: Multi-pod fabrics only: the one ASN of every super-spine (RFC 7938 section 5.2.1), so a route
    #: between pods carries the same AS path over every plane and ECMP uses every uplink.
    superspine_asn: StrictInt | None = Field(default=None, ge=1, le=4294967294)
    superspine_loopbacks: Network | None = None
    superspine_p2p_links: Network | None = None

    @model_validator(mode="after")
    def _pools_apart(self) -> Underlay:
        """Each pool numbers its own kind of address: two that overlap give two switches one IP."""
        for (a, net_a), (b, net_b) in itertools.combinations(self.pools(), 2):
            if net_a.overlaps(net_b):
                raise ValueError(f"{b} {net_b} overlaps {a} {net_a} (every pool needs its own range)")
        return self

    def pools(self) -> list[tuple[str, Network]]:
        """(field name, network) of every address pool, in the order fabric.yaml lists them."""
        pools = [
            ("spine_loopbacks", self.spine_loopbacks),
            ("leaf_loopbacks", self.leaf_loopbacks),
            ("vtep_loopbacks", self.vtep_loopbacks),
            ("p2p_links", self.p2p_links),
        ]
        if self.superspine_loopbacks is not None:
            pools.append(("superspine_loopbacks", self.superspine_loopbacks))
        if self.superspine_p2p_links is not None:
            pools.append(("superspine_p2p_links", self.superspine_p2p_links))
        return pools


#: Route distinguishers of `rd_format: router-id` (a 16-bit number after the router id): a VRF's
#: number is its tenant id (1-32767), an l2 segment's is 32767 + its VLAN (32768-36861), as Cisco
#: NX-OS derives `rd auto` for a Layer-2 VNI, so the two runs never meet on one switch.
RD_SEGMENT_BASE = 32767


class Overlay(Strict):
    """EVPN/VXLAN numbering: every tenant number follows from its explicit id."""

    l3vni_base: StrictInt = Field(ge=1, le=16_000_000)
    l2vni_base: StrictInt = Field(ge=1, le=16_000_000)
    vlan_base: StrictInt = Field(ge=0, le=4000)
    route_target_asn: StrictInt = Field(ge=1, le=65535)
    #: BFD on the EVPN sessions (multihop, loopback to loopback) where the NOS documents it, as
    #: the vendor's own fabric design sets it (docs/eos-design.md): a dead route server leaves in
    #: under a second.
    bfd: StrictBool = True
    #: How route distinguishers are written (docs/multipod.md, "Route distinguishers"):
    #: `router-id`: `<router-id>:<tenant id>` for a VRF, `<router-id>:<32767 + VLAN>` for an l2
    #: segment (RFC 4364 section 4.2 type 1: a 16-bit number, unique per switch); `asn`:
    #: `<route_target_asn>:<VNI>` (type 0: a 32-bit number, the same on every leaf), for fabrics
    #: with tenant ids above what a 16-bit number leaves room for.
    rd_format: Literal["router-id", "asn"] = "router-id"
    anycast_gateway_mac: str = Field(pattern=r"^[0-9a-f]{2}(:[0-9a-f]{2}){5}$")
    tenant_id_max: StrictInt = Field(default=9999, ge=1, le=99999)
    #: A tenant's L3VNI interface (where the NOS needs one) is base + id, above every VLAN id so it
    #: never meets an l2 gateway's. A setting, not a constant: no vendor document found gives the
    #: Vsi-interface number range (docs/emitted-syntax.md).
    l3vni_interface_base: StrictInt = Field(default=4096, ge=4094, le=1_000_000)
    #: Where `fabricctl tenant new` takes a new tenant's address block from: the first free block
    #: of the size the tenant needs, clear of every tenant block, underlay pool and management
    #: address. Existing tenants may hold blocks outside it. Default 10.0.0.0/8.
    tenant_pool: Network = Field(
        default=IPv4Network("10.0.0.0/8"),
        description="Address pool new tenant blocks are taken from (fabricctl tenant new); "
        "a prefix of /8 to /24, default 10.0.0.0/8.",
    )

    @field_validator("tenant_pool")
    @classmethod
    def _pool_size(cls, value: IPv4Network) -> IPv4Network:
        """Big enough for a few tenants, small enough to be a pool and not the whole internet."""
        if not 8 <= value.prefixlen <= 24:
            raise ValueError(f"{value} is a /{value.prefixlen}; a tenant pool is a /8 to a /24")
        return value

    @field_validator("anycast_gateway_mac")
    @classmethod
    def _unicast(cls, value: str) -> str:
        """Hosts answer ARP with this MAC: a group address (I/G bit set) or zero is no host's."""
        if int(value[:2], 16) & 1:
            raise ValueError(
                f"{value} is a multicast MAC (the lowest bit of the first octet is set); "
                "use a unicast MAC such as 00:1c:73:00:00:99"
            )
        if value == "00:00:00:00:00:00":
            raise ValueError(
                "00:00:00:00:00:00 is no host's MAC; use a unicast MAC such as 00:1c:73:00:00:99"
            )
        return value

    @model_validator(mode="after")
    def _rds_fit(self) -> Overlay:
        """A type 1 RD's number is 16 bits (RFC 4364 section 4.2); VRFs take 1..tenant_id_max and
        segments 32768 and up, so tenant ids must stay below 32768 (a switch refuses the line)."""
        if self.rd_format == "router-id" and self.tenant_id_max > RD_SEGMENT_BASE:
            raise ValueError(
                f"tenant_id_max {self.tenant_id_max} gives VRF route distinguishers <router-id>:<id> up to "
                f"<router-id>:{self.tenant_id_max}, but an IP-address RD holds a 16-bit number and VRFs may use "
                f"only 1-{RD_SEGMENT_BASE} (segments use {RD_SEGMENT_BASE + 1}-{RD_SEGMENT_BASE + 4094}); "
                f"set tenant_id_max at most {RD_SEGMENT_BASE}, or rd_format: asn "
                "(<route_target_asn>:<VNI>, a 32-bit number)"
            )
        return self

    @model_validator(mode="after")
    def _vni_ranges_apart(self) -> Overlay:
        """Tenant ids 1..tenant_id_max give L3VNIs and L2VNIs from their bases: the two runs
        must not meet, or one tenant's L2VNI is another's L3VNI."""
        l3 = (self.l3vni_base + 1, self.l3vni_base + self.tenant_id_max)
        l2 = (self.l2vni_base + 1, self.l2vni_base + self.tenant_id_max)
        if l2[0] <= l3[1] and l3[0] <= l2[1]:
            raise ValueError(
                f"l2vni_base {self.l2vni_base} gives L2VNIs {l2[0]}-{l2[1]}, which meet the L3VNIs "
                f"{l3[0]}-{l3[1]} of l3vni_base {self.l3vni_base} (tenant ids 1-{self.tenant_id_max}); "
                f"the bases must be at least tenant_id_max ({self.tenant_id_max}) apart"
            )
        return self


#: Bytes VXLAN adds to a tenant packet on a fabric link: inner Ethernet 14 + VXLAN 8 + UDP 8 +
#: outer IPv4 20 (RFC 7348 section 5), so the fabric IP MTU must be the tenant IP MTU + 50.
VXLAN_OVERHEAD = 50
#: IP bytes of a full RoCEv2 packet beyond its RDMA payload: IPv4 20 + UDP 8 + BTH 12 + RETH 16 +
#: ImmDt 4 + ICRC 4 (InfiniBand Architecture Specification vol. 1, ch. 9, and Annex A17 RoCEv2).
ROCE_HEADERS = 64
#: Ethernet header and FCS around an untagged IP packet: a port's frame limit must be IP MTU + 18.
ETHERNET_OVERHEAD = 18


#: Cable length classes (SONiC's buffer profiles are keyed by 5m, 40m and 300m): a rack's DAC, a
#: row's AOC, a hall's fibre. PFC headroom grows with the bytes a cable holds (compile/buffers.py).
CableLength = Literal["5m", "40m", "100m", "300m"]


def cable_meters(length: str) -> int:
    return int(length.removesuffix("m"))


class BufferModel(Strict):
    """How PFC headroom is sized (compile/buffers.py, SONiC's dynamic-buffer headroom calculation).

    small_packet_percent: the share of minimum-size packets the lossless class is sized for (100:
    the worst case, every cell holds one). cell_bytes, mac_phy_delay_bytes and
    pipeline_latency_bytes: the ASIC figures for switch models whose vendor publishes none (each
    published model carries its own, platforms/<nos>/__init__.py); a platform that takes the
    headroom as a size needs them (validate says which switch lacks them).
    """

    cell_bytes: StrictInt | None = Field(default=None, ge=64, le=1024)
    mac_phy_delay_bytes: StrictInt | None = Field(default=None, ge=0, le=1_000_000)
    pipeline_latency_bytes: StrictInt | None = Field(default=None, ge=0, le=10_000_000)
    small_packet_percent: StrictInt = Field(default=100, ge=0, le=100)


class _QosPolicy(Strict):
    """The lossless RoCEv2 class, fabric-wide; per-platform tuning where syntax differs.

    mtu is the IP MTU of the fabric links (they carry tenant packets VXLAN-encapsulated);
    tenant_mtu the IP MTU of GPU ports and tenant gateways (default mtu - 50); roce_mtu the RDMA
    path MTU the hosts use, which every hop must carry whole (verify proves it on the configs).
    """

    roce_dscp: StrictInt = Field(default=26, ge=0, le=63)
    lossless_priority: StrictInt = Field(default=3, ge=0, le=7)
    cnp_dscp: StrictInt = Field(default=48, ge=0, le=63)
    cnp_class: StrictInt | None = Field(default=None, ge=0, le=7)
    mtu: StrictInt = Field(default=9000, ge=1500, le=9416)
    tenant_mtu: StrictInt | None = Field(default=None, ge=1500, le=9416)
    roce_mtu: Literal[1024, 2048, 4096] = 4096
    lossless_bandwidth_percent: StrictInt = Field(default=50, ge=1, le=99)
    profile_name: str = Field(default="ROCE-LOSSLESS", pattern=r"^[A-Z][A-Z0-9_-]{0,30}$")
    #: How much PFC headroom each lossless port needs, from its speed and cable (compile/buffers.py).
    buffer: BufferModel = Field(default_factory=BufferModel)

    @model_validator(mode="after")
    def _distinct(self) -> _QosPolicy:
        if self.roce_dscp == self.cnp_dscp:
            raise ValueError(f"roce_dscp and cnp_dscp must differ (both are {self.roce_dscp})")
        if self.cnp_class is not None and self.cnp_class == self.lossless_priority:
            raise ValueError(f"cnp_class must differ from lossless_priority (both are {self.cnp_class})")
        if self.gpu_mtu + VXLAN_OVERHEAD > self.mtu:
            raise ValueError(
                f"tenant_mtu {self.gpu_mtu} + {VXLAN_OVERHEAD} bytes of VXLAN is more than the fabric mtu "
                f"{self.mtu}: a full tenant packet would not cross a fabric link"
            )
        if self.roce_mtu + ROCE_HEADERS > self.gpu_mtu:
            raise ValueError(
                f"roce_mtu {self.roce_mtu} needs an IP MTU of {self.roce_mtu + ROCE_HEADERS} on GPU ports, "
                f"above tenant_mtu {self.gpu_mtu}"
            )
        return self

    @property
    def gpu_mtu(self) -> int:
        """The IP MTU of GPU ports and tenant gateways: tenant_mtu, or the fabric mtu less VXLAN."""
        return self.tenant_mtu if self.tenant_mtu is not None else self.mtu - VXLAN_OVERHEAD

    def tuning_for(self, platform: Platform) -> QosTuning:
        """The platform's QoS values: `qos.<platform>` in fabric.yaml, or the platform's defaults."""
        tuning = getattr(self, platform.name, None)
        return tuning if isinstance(tuning, QosTuning) else platform.qos_tuning()


def _strict(tuning: type[QosTuning]) -> type[QosTuning]:
    """The platform's tuning model, strict: `ecn_minimum: true` is not 1, `"5"` is not 5. Named
    in this module under a name of its own, so a fabric pickles (the compile cache keeps one)."""
    qualname = f"_Strict{tuning.__name__}"
    strict = type(
        tuning.__name__,
        (tuning,),
        {
            "model_config": ConfigDict(strict=True),
            "__module__": __name__,
            "__qualname__": qualname,
            "__doc__": tuning.__doc__,
        },
    )
    globals()[qualname] = strict
    return strict


#: `qos:` of fabric.yaml: the policy, plus one block of tuning values per platform (`qos.<name>`).
if TYPE_CHECKING:
    QosPolicy = _QosPolicy  # the per-platform blocks are read through tuning_for, typed QosTuning
else:
    QosPolicy = create_model(
        "QosPolicy",
        __base__=_QosPolicy,
        __doc__=_QosPolicy.__doc__,
        **{
            name: (_strict(p.qos_tuning), Field(default_factory=p.qos_tuning))
            for name, p in PLATFORMS.items()
        },
    )


class Cabling(Strict):
    """Cabling rules instead of hand-written links: uplinks per spine, rail-optimized GPU servers."""

    leaf_uplinks_per_spine: StrictInt = Field(ge=1, le=8)
    leaf_uplink_ports: PortRange
    leaf_gpu_ports: PortRange
    spine_downlink_ports: PortRange
    gpu_port_breakout: str = Field(
        default=NO_BREAKOUT,
        description="How each GPU port is used: none (one GPU per port) or a breakout mode the leaves' "
        "platform offers (2x200G: each port split in two 200G lanes, twice the GPUs on the same "
        "leaves; uplinks unchanged). Splitting keeps every "
        "server where it is cabled: the GPU on port P stays on its first lane P:1 (a tenant's P still "
        "names it), the second lanes are new servers numbered after the existing ones (docs/expansion.md).",
    )
    #: The leaf tier's declared oversubscription (GPU-port bandwidth : uplink bandwidth); verify
    #: flags a leaf above it. 1 is non-blocking.
    max_oversubscription: float = Field(default=1.0, ge=1.0, le=16.0, strict=True)
    nics_per_server: StrictInt = Field(default=8, ge=1, le=16)
    server_name: str = Field(default="gpu{:03d}", pattern=r"^[a-z][a-z0-9-]*\{:0?\d?d\}$")
    #: Cable length classes: leaf to GPU NIC, and leaf to spine (PFC headroom follows them).
    gpu_cable: CableLength = "5m"
    uplink_cable: CableLength = "40m"

    @field_validator("gpu_port_breakout")
    @classmethod
    def _known_breakout(cls, value: str) -> str:
        """A mode some platform offers (validate then checks every leaf's platform offers it)."""
        modes = breakout_modes()
        if value not in modes:
            quoted = [f"'{m}'" for m in modes]
            expected = " or ".join([", ".join(quoted[:-1]), quoted[-1]] if len(quoted) > 1 else quoted)
            raise PydanticCustomError("literal_error", "Input should be {expected}", {"expected": expected})
        return value

    @field_validator("leaf_uplink_ports", "leaf_gpu_ports", "spine_downlink_ports")
    @classmethod
    def _increasing(cls, value: str) -> str:
        check_ports(value)
        return value

    @model_validator(mode="after")
    def _disjoint(self) -> Cabling:
        shared = set(expand_ports(self.leaf_uplink_ports)) & set(expand_ports(self.leaf_gpu_ports))
        if shared:
            ports = ", ".join(map(str, sorted(shared)))
            raise ValueError(f"leaf_gpu_ports overlap leaf_uplink_ports on port(s) {ports}")
        return self


class Pods(Strict):
    """A multi-pod fabric: pods (each a 2-tier leaf/spine block, cabled by `cabling:`) joined by a
    super-spine tier, as in the 5-stage Clos of RFC 7938 section 3.2.

    Spine k of every pod is in plane k: it uplinks to every super-spine of plane k,
    spine_uplinks_per_superspine cables each, on spine_uplink_ports in super-spine index order;
    super-spine j of a plane takes pod p's spine on superspine_downlink_ports (pod p gets the
    p-th group of spine_uplinks_per_superspine ports). Each pool of `underlay:` is split into
    max_pods equal sub-pools and pod p numbers from the p-th, so a pod's loopbacks and links
    summarise to one prefix; leaf ASNs are leaf_asn_base + (pod - 1) * leaf_asn_stride + index.
    """

    max_pods: StrictInt = Field(ge=2, le=256)
    leaf_asn_stride: StrictInt = Field(default=100, ge=1, le=100_000)
    spine_uplink_ports: PortRange
    spine_uplinks_per_superspine: StrictInt = Field(default=1, ge=1, le=64)
    superspine_downlink_ports: PortRange
    #: The spine tier's declared oversubscription (leaf-facing : super-spine-facing bandwidth).
    max_oversubscription: float = Field(default=1.0, ge=1.0, le=16.0, strict=True)
    #: Cable length class between a spine and its super-spines.
    uplink_cable: CableLength = "300m"

    @field_validator("max_pods")
    @classmethod
    def _power_of_two(cls, value: int) -> int:
        if value & (value - 1):
            raise ValueError(f"{value} is not a power of two (pools split into max_pods equal prefixes)")
        return value

    @field_validator("spine_uplink_ports", "superspine_downlink_ports")
    @classmethod
    def _ports(cls, value: str) -> str:
        check_ports(value)
        return value


class DrainFloor(Strict):
    """The floor a drain may not take a tenant below (`drain:` in fabric.yaml; maintenance.yaml
    names what is drained). A plan that would take any tenant below it is refused, naming the
    tenant: a switch or link leaves service only while every tenant keeps enough of its fabric,
    and never while two of its leaves would keep paths only through what is drained (a path
    lost: graceful shutdown keeps using a drained path when nothing else is left)."""

    #: The share of a tenant's fabric bandwidth (its leaves' uplinks, and the spines' uplinks for
    #: a tenant across pods) the drained switches and links may take together. 1/8: one spine of
    #: eight, or two uplinks of sixteen, leave every tenant at least 7/8 of what it leases.
    max_bandwidth_loss: float = Field(default=0.125, ge=0.0, le=1.0, strict=True)


class LinkHealth(Strict):
    """When `fabricctl check --links` calls a fabric link marginal (`links:` in fabric.yaml), from
    counters read twice a window apart on the switches' clocks. A marginal link still carries
    traffic: each errored frame is a RoCE retransmission for some tenant, and a flap stalls every
    flow on it, so it is drained (a plan `check --links` proposes) before it fails."""

    #: Errored frames (FCS/CRC) a minute a port may receive. IEEE 802.3bs allows a 400GBASE-R
    #: link a frame loss ratio below 6.2e-10: at 400 Gb/s of 4 KiB RoCE frames (about 12 million
    #: frames a second) that is under one errored frame every two minutes; 6 a minute is ten
    #: times more than the standard's worst, well above a cosmic-ray bit flip.
    max_errors_per_minute: float = Field(default=6.0, ge=0.0, le=1_000_000.0, strict=True)
    #: Link flaps a port may show in the window: any flap of a fabric link is marginal by default.
    max_flaps: StrictInt = Field(default=0, ge=0, le=1000)


class Ztp(Strict):
    """Day-0 provisioning (`fabricctl ztp render|serve`, docs/day0.md): the management subnet a
    DHCP server (ISC Kea) serves to factory-default switches, and where they fetch their files."""

    management: Network = Field(description="The management subnet: every rack switch's address is in it")
    gateway: IPv4Address = Field(description="The management subnet's router (DHCP option 3)")
    pool: str = Field(
        pattern=r"^\d+\.\d+\.\d+\.\d+-\d+\.\d+\.\d+\.\d+$",
        description="first-last: the addresses `fabricctl rack add` gives new switches",
    )
    server: IPv4Address = Field(
        description="The address `fabricctl ztp serve` is reached at (boot file URLs)"
    )
    port: StrictInt = Field(default=8080, ge=1, le=65535)
    interface: str = Field(
        default="*",
        pattern=r"^(\*|[A-Za-z0-9][A-Za-z0-9_.:-]{0,14})$",
        description="The interface Kea listens on ('*': all)",
    )

    @model_validator(mode="after")
    def _inside(self) -> Ztp:
        first, last = self.pool_range()
        for name, address in (("gateway", self.gateway), ("server", self.server)):
            if address not in self.management:
                raise ValueError(f"{name} {address} is outside management {self.management}")
        if not (first in self.management and last in self.management and first <= last):
            raise ValueError(
                f"pool {self.pool} is not an ascending range inside management {self.management}"
            )
        for name, address in (("gateway", self.gateway), ("server", self.server)):
            if first <= address <= last:
                raise ValueError(f"pool {self.pool} holds the {name} address {address}")
        return self

    def pool_range(self) -> tuple[IPv4Address, IPv4Address]:
        first, last = self.pool.split("-")
        return IPv4Address(first), IPv4Address(last)


#: Keys of `limits:` in fabric.yaml (the fields of fabricctl.platforms.base.Limits).
LIMIT_NAMES = ("max_vrfs", "max_vlans", "max_vnis", "max_acl_entries")


class FabricSettings(Strict):
    """inventory/fabric.yaml."""

    name: str = Field(pattern=r"^[a-z][a-z0-9-]{0,31}$")
    description: str = Field(default="", max_length=200)
    underlay: Underlay
    overlay: Overlay
    qos: QosPolicy = Field(default_factory=QosPolicy)
    cabling: Cabling
    pods: Pods | None = None
    ztp: Ztp | None = None
    drain: DrainFloor = Field(default_factory=DrainFloor)
    links: LinkHealth = Field(default_factory=LinkHealth)
    limits: dict[str, StrictInt] = Field(
        default_factory=dict,
        description="Per-leaf budgets overriding the platform's datasheet figures: " + ", ".join(LIMIT_NAMES),
    )

    @model_validator(mode="after")
    def _pool_apart(self) -> FabricSettings:
        """A tenant pool inside an underlay pool has no address a tenant may use."""
        pool = self.overlay.tenant_pool
        for name, net in self.underlay.pools():
            if pool.subnet_of(net):
                raise ValueError(
                    f"overlay.tenant_pool {pool} lies inside underlay.{name} {net} "
                    "(a tenant pool needs addresses outside the underlay pools)"
                )
        return self

    @field_validator("limits")
    @classmethod
    def _known_limits(cls, value: dict[str, int]) -> dict[str, int]:
        for key, number in value.items():
            if key not in LIMIT_NAMES:
                close = difflib.get_close_matches(key, LIMIT_NAMES, n=1)
                hint = f"; did you mean '{close[0]}'?" if close else ""
                raise ValueError(f"{key} is not a known limit{hint} (known: {', '.join(LIMIT_NAMES)})")
            if number < 1:
                raise ValueError(f"{key} must be at least 1, not {number}")
        return value

    @model_validator(mode="after")
    def _pods_complete(self) -> FabricSettings:
        """A multi-pod fabric needs the super-spine tier's ASNs and pools; a 2-tier one none."""
        names = ("superspine_asn", "superspine_loopbacks", "superspine_p2p_links")
        if self.pods is not None:
            missing = [n for n in names if getattr(self.underlay, n) is None]
            if missing:
                raise ValueError(
                    f"pods needs underlay.{missing[0]} (a multi-pod fabric numbers its super-spines from "
                    + ", ".join(f"underlay.{n}" for n in names)
                    + ")"
                )
            shared = set(expand_ports(self.pods.spine_uplink_ports)) & set(
                expand_ports(self.cabling.spine_downlink_ports)
            )
            if shared:
                ports = ", ".join(map(str, sorted(shared)))
                raise ValueError(
                    f"pods spine_uplink_ports overlap cabling.spine_downlink_ports on port(s) {ports}"
                )
        else:
            given = [n for n in names if getattr(self.underlay, n) is not None]
            if given:
                raise ValueError(
                    f"underlay.{given[0]} is set but there is no pods: block (only multi-pod fabrics have super-spines)"
                )
        return self


#: What a switch does: leaves carry GPUs and tenants, spines join the leaves of a pod, super-spines
#: join the spines of every pod (multi-pod fabrics only).
Role = Literal["spine", "leaf", "superspine"]
ROLES = ("spine", "leaf", "superspine")


class Switch(Strict):
    """One switch from hosts.yaml with role and platform resolved through its groups."""

    name: str = Field(pattern=r"^[a-z][a-z0-9-]{0,31}$")
    role: Role
    platform: str
    index: StrictInt = Field(ge=1, le=4096)
    #: Multi-pod fabrics: the pod of a leaf or spine (a spine's index is its plane), and the plane
    #: of a super-spine (its index numbers it inside the plane).
    pod: StrictInt | None = Field(default=None, ge=1, le=256)
    plane: StrictInt | None = Field(default=None, ge=1, le=4096)
    model: str = ""
    #: The NOS release it runs (`data.os_version`); load fills in its platform's newest.
    os_version: str = ""
    hostname: str = ""  # the management address (or DNS name) Nornir connects to
    file: str = ""
    line: int = 0

    @field_validator("platform")
    @classmethod
    def _registered(cls, value: str) -> str:
        """A platform some package under fabricctl/platforms/ provides (looked up at run time)."""
        if value not in PLATFORMS:
            raise PydanticCustomError(
                "literal_error", "Input should be {expected}", {"expected": ", ".join(PLATFORMS)}
            )
        return value
