"""The neutral model a config is read back into: only what the proofs need, each fact with its line.

Both platform parsers fill these classes; isolation, lossless and capacity checks read only these,
so one proof serves every platform. A fact that the text does not state is None or absent, never a
default guessed from the intent: verify proves what the switch will run. Where the NOS documents
a default (IP MTU 1500, a pre-defined priority map), the parser records it with a line-0 `Src`
that names the default, so a proof can say "the default 1500" instead of guessing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from ipaddress import IPv4Interface, IPv4Network
from typing import Generic, NamedTuple, TypeVar

T = TypeVar("T")

#: Keys of SwitchConfig.tunnel_qos: how a VTEP carries the lossless class through its tunnels.
TUNNEL_ECN = "ecn-propagation"  # ECN copied into the outer header and back out at decapsulation
TUNNEL_MARKING = "marking-encap"  # the outer header carries the inner packet's marking (DSCP)
TUNNEL_CLASS = "class-decap"  # decapsulated traffic is classified by the packet's marking


class Src(NamedTuple):
    """Where a fact comes from: line number and text, for the report (a tuple: cheap by the 100,000)."""

    line: int
    text: str


class At(NamedTuple, Generic[T]):
    """A value and the line that sets it."""

    value: T
    src: Src


@dataclass
class PortQos:
    """The lossless settings in force on one port, resolved through profiles and WRED tables."""

    trust_dscp: Src | None = None
    pfc_enabled: Src | None = None
    no_drop: dict[int, Src] = field(default_factory=dict)
    watchdog: Src | None = None
    ecn_queues: dict[int, Src] = field(default_factory=dict)
    strict_queues: dict[int, Src] = field(default_factory=dict)
    headroom: dict[int, Src] = field(default_factory=dict)  # PFC headroom reserved per priority
    #: The headroom a line sets, in buffer cells (where the NOS takes a size; absent: it sizes it).
    headroom_cells: dict[int, At[int]] = field(default_factory=dict)
    #: ECN marking thresholds per queue, as the config spells them (both ends of a link compare).
    ecn_values: dict[int, At[str]] = field(default_factory=dict)
    #: The cable length (m) the NOS sizes the headroom for, where a line gives it instead of a size.
    cable_m: At[int] | None = None
    profile: Src | None = None  # the service-profile / wred apply line, when there is one


@dataclass
class Interface:
    """A port, lane, SVI or loopback as configured."""

    name: str
    src: Src
    shutdown: Src | None = None
    vrf: At[str] | None = None
    ipv4: list[At[IPv4Interface]] = field(default_factory=list)
    #: Of `ipv4`, the anycast gateway address the segment's hosts route through where the
    #: interface also has an address of its own (Cumulus Linux VRR); None: `ipv4[0]` is it.
    anycast: At[IPv4Interface] | None = None
    acl_in: At[str] | None = None
    segment: At[str] | None = None  # L2 segment key: a VLAN id, or the segment's name
    mtu: At[int] | None = None  # IP MTU as configured (None: the platform's default)
    max_frame: At[int] | None = None  # largest frame the port passes, where the NOS sets it apart
    l3vni: At[int] | None = None  # an L3VNI bound to this interface (platforms that use one)
    qos: PortQos = field(default_factory=PortQos)


@dataclass
class RtHolder:
    """Anything that imports/exports EVPN route targets: an IP-VRF or a MAC-VRF (VSI/VLAN)."""

    kind: str  # "vrf" | "segment"
    name: str
    src: Src
    imports: list[At[str]] = field(default_factory=list)
    exports: list[At[str]] = field(default_factory=list)
    vni: At[int] | None = None
    vnis: list[At[int]] = field(default_factory=list)  # every VNI mapped to it (more than one is a fault)


@dataclass
class Segment(RtHolder):
    """An L2 segment (a VLAN or a named VSI) with its anycast gateway interface."""

    label: str = ""  # VLAN name / VSI name, for messages
    gateway: At[str] | None = None  # SVI interface name


@dataclass(frozen=True)
class AclRule:
    """One ACL entry; networks are None for `any`. `exact` is False for a non-prefix wildcard."""

    seq: int
    action: str
    proto: str
    source: IPv4Network | None
    destination: IPv4Network | None
    src: Src
    exact: bool = True


@dataclass
class Acl:
    name: str
    src: Src
    rules: list[AclRule] = field(default_factory=list)

    def ordered(self) -> list[AclRule]:
        """First-match order: by sequence number, as both platforms evaluate."""
        return sorted(self.rules, key=lambda r: r.seq)


@dataclass
class PeerPolicy:
    """What a config does to one session's routes beyond announcing them (a drain, RFC 8326):
    the GRACEFUL_SHUTDOWN community added to the routes sent, the switch's AS prepended to them,
    a LOCAL_PREF given to the routes heard. `src` is the line that does it."""

    src: Src
    gshut: bool = False
    prepend: int = 0
    local_pref: int | None = None


@dataclass
class BgpConfig:
    """What decides how many equal paths the underlay installs (verify/ecmp.py): the ASN, the
    IPv4 unicast sessions and what they announce, and the multipath settings."""

    asn: At[int] | None = None
    ipv4_peers: set[str] = field(default_factory=set)  # peers activated in IPv4 unicast
    networks: list[At[IPv4Network]] = field(default_factory=list)  # prefixes it announces
    max_paths: At[int] | None = None  # `balance N` / `maximum-paths N` (None: 1)
    #: Equal-length paths with different AS paths load-balance: the line that says so, or the
    #: platform's default (`multipath_relax_default`) when no line does.
    relax: At[bool] | None = None
    ecmp_limit: At[int] | None = None  # the system's ECMP cap (`max-ecmp-num`)
    policies: dict[str, PeerPolicy] = field(default_factory=dict)  # peer -> what shapes its routes
    #: Peers sent communities, where the NOS sends none without a line (None: every peer is).
    communities: set[str] | None = None


@dataclass
class SwitchConfig:
    """One switch's config text read back."""

    name: str
    platform: str
    interfaces: dict[str, Interface] = field(default_factory=dict)
    vrfs: dict[str, RtHolder] = field(default_factory=dict)
    segments: dict[str, Segment] = field(default_factory=dict)
    acls: dict[str, Acl] = field(default_factory=dict)
    dscp_map: dict[int, At[int]] = field(default_factory=dict)  # DSCP -> class (traffic class or dot1p)
    class_queue: dict[int, At[int]] = field(default_factory=dict)  # class -> queue where remapped
    bgp_neighbors: dict[str, At[int]] = field(default_factory=dict)  # peer ip -> remote AS
    bgp: BgpConfig = field(default_factory=BgpConfig)
    #: Tunnel QoS a VTEP sets (TUNNEL_* keys -> the line): what it does not state is the switch
    #: model's documented default (platforms/base.py TunnelQos, verify/lossless.py).
    tunnel_qos: dict[str, Src] = field(default_factory=dict)
    ip_mtu_default: int = 1500  # the IP MTU of a routed port without an mtu line
    #: Whether equal-length BGP paths with different AS paths load-balance when no line says
    #: (the NOS's default, docs/multipod.md), and the ECMP cap without a line (None: none).
    multipath_relax_default: bool = False
    #: Whether the NOS gives routes that arrive with the GRACEFUL_SHUTDOWN community LOCAL_PREF 0
    #: without a policy saying so (RFC 8326 receiver procedure; verify/drain.py).
    honors_gshut: bool = False
    ecmp_limit_default: int | None = None
    max_frame_default: int | None = None  # frame limit without a setting (None: IP MTU + header)
    #: The PFC watchdog / deadlock timers, as the config spells them (one setting per switch).
    watchdog_timers: At[str] | None = None
    lines: int = 0

    def ip_mtu(self, intf: Interface) -> At[int]:
        """The IP MTU in force on a port: its mtu line, or the platform default."""
        return intf.mtu or At(
            self.ip_mtu_default, Src(0, f"(no mtu line: the default {self.ip_mtu_default})")
        )

    def frame_limit(self, intf: Interface) -> At[int] | None:
        """The largest frame the port passes, when the NOS sets it apart from the IP MTU."""
        if intf.max_frame is not None:
            return intf.max_frame
        if self.max_frame_default is None:
            return None
        return At(self.max_frame_default, Src(0, f"(default frame limit {self.max_frame_default})"))

    def queue_of(self, cls: int) -> int:
        """The egress queue a class lands in (identity unless the config remaps it)."""
        at = self.class_queue.get(cls)
        return at.value if at else cls

    def vrf(self, name: str) -> RtHolder:
        return self.vrfs.setdefault(name, RtHolder("vrf", name, Src(0, f"(VRF {name} implied)")))
