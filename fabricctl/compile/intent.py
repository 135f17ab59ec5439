"""DeviceIntent: everything one switch must carry, vendor-neutral. Templates read only this.

It is written next to the rendered config (`<switch>.intent.yaml`) so a reviewer can read the
intent diff before the CLI diff. Lists are kept in a stable order (ports by number, tenants by id)
so the same inputs always give byte-identical files.
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

InterfaceRole = Literal["uplink", "downlink", "gpu", "unused"]

#: One "fields given" set per distinct set of names, shared by every node built with it.
_FIELDS_GIVEN: dict[frozenset[str], set[str]] = {}


class Node(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    def model_post_init(self, context: Any, /) -> None:
        """Share pydantic's per-object set of the fields given: a 100,000-GPU fabric's intents
        hold about five million nodes, and one set each was a fifth of the compile's memory.
        Safe because nodes are frozen: nothing adds to the set after construction."""
        names = frozenset(self.__pydantic_fields_set__)
        shared = _FIELDS_GIVEN.get(names)
        if shared is None:
            shared = _FIELDS_GIVEN[names] = set(names)
        object.__setattr__(self, "__pydantic_fields_set__", shared)


class Loopback(Node):
    """Loopback0 = router id / EVPN peering; Loopback1 = VTEP source (leaves)."""

    number: int
    description: str
    ipv4: str  # CIDR, /32


class Interface(Node):
    """A front-panel port (or breakout lane) and everything configured on it."""

    name: str
    role: InterfaceRole
    description: str
    enabled: bool = True
    routed: bool = True
    mtu: int | None = None
    ipv4: str | None = None  # CIDR on routed ports
    vrf: str | None = None
    access_vlan: int | None = None  # l2 tenant GPU ports
    acl_in: str | None = None
    lossless: bool = False  # the RoCE lossless QoS profile (trust, PFC, ECN, ETS, watchdog)
    speed_gbps: int | None = None  # lossless ports: the speed the link runs at (the slower end's)
    cable_m: int | None = None  # lossless ports: the cable the headroom is sized for (both ends alike)
    headroom: int | None = None  # lossless ports: PFC headroom bytes (compile/buffers.py), where sized
    tenant: str | None = None
    peer: str | None = None  # "spine01 FourHundredGigE1/0/3" or "gpu001 nic0"


class Breakout(Node):
    """A port split into lanes (a breakout mode its platform offers); the lanes appear as their own Interfaces."""

    port: str
    mode: str


class Vlan(Node):
    """An l2 tenant's VLAN: L2VNI, MAC-VRF and its anycast gateway (SVI) in the tenant VRF."""

    id: int
    name: str
    description: str  # of the SVI / VSI: the fabric's mark (config/rules.py) and the tenant
    tenant: str
    l2vni: int
    rd: str
    route_target: str
    vrf: str
    gateway: str  # CIDR of the anycast gateway
    #: CIDR of this switch's own address on the SVI, where its platform needs one besides the
    #: anycast gateway (Platform.svi_address; compile/allocate.py numbers it)
    address: str | None = None
    acl_in: str
    mtu: int


class Vrf(Node):
    """A tenant IP-VRF with its L3VNI (symmetric IRB / type-5 routes)."""

    name: str
    tenant: str
    tenant_id: int
    description: str  # the fabric's mark (config/rules.py) and the tenant
    l3vni: int
    l3vni_interface: int  # number of the L3VNI's interface on platforms that need one (never a VLAN id)
    rd: str
    route_targets_import: list[str]
    route_targets_export: list[str]


class AclEntry(Node):
    seq: int
    action: Literal["permit", "deny"]
    source: str | None  # CIDR, None = any
    destination: str | None
    remark: str = ""


class Acl(Node):
    """Ingress isolation on a tenant's ports: own block, declared peers, then deny."""

    name: str
    tenant: str
    description: str  # the fabric's mark (config/rules.py) and the tenant
    entries: list[AclEntry]


class BgpNeighbor(Node):
    ip: str
    asn: int
    description: str
    kind: Literal["underlay", "overlay"]
    bfd: bool = False


class Bgp(Node):
    """eBGP underlay on the /31s; EVPN overlay between loopbacks (spines keep the next hop)."""

    asn: int
    router_id: str
    max_paths: int
    #: The system-wide ECMP cap to set where the platform's default is below max_paths (a
    #: `max-ecmp-num`, which takes effect after a reboot); None: nothing to set.
    max_ecmp: int | None = None
    graceful_restart: bool = False
    overlay_bfd: bool = False  # BFD on the EVPN (multihop) sessions
    networks: list[str]  # CIDRs advertised into the underlay (loopbacks)
    neighbors: list[BgpNeighbor]
    evpn: bool
    evpn_next_hop_unchanged: bool  # spines, super-spines: re-advertise EVPN routes with the VTEP as next hop
    evpn_retain_all_routes: bool  # spines, super-spines carry no VRFs: keep EVPN routes of every route target
    #: The whole switch is out of the forwarding path (maintenance.yaml): RFC 8326 graceful
    #: shutdown of every underlay session, where the NOS has a switch-wide form of it.
    graceful_shutdown: bool = False
    #: The underlay peers whose sessions are gracefully shut down (a drained switch: all of them;
    #: a drained link: the peer at its other end), in address order.
    graceful_shutdown_peers: list[str] = []


class Vtep(Node):
    source_interface: int  # Loopback number
    source_ip: str
    udp_port: int = 4789
    #: The tunnel QoS steps a configuration line sets on this model (config/readback.py TUNNEL_*
    #: keys: "marking-encap", "ecn-propagation", "class-decap"); the others are the model's default.
    tunnel_qos: list[str] = []


class Qos(Node):
    """The lossless RoCEv2 class as this switch applies it."""

    profile_name: str
    dscp_to_class: dict[int, int]  # RoCE DSCP -> lossless class, CNP DSCP -> CNP class
    lossless_class: int  # PFC no-drop priority, queue with ECN
    cnp_class: int  # strict-priority queue
    protocol_class: int | None  # network control (BGP, BFD, LLDP): strict priority where the NOS queues it
    default_class: int  # everything else
    lossless_bandwidth_percent: int
    mtu: int  # IP MTU of fabric links
    tenant_mtu: int  # IP MTU of GPU ports and tenant gateways
    roce_mtu: int  # the RDMA path MTU every hop must carry whole
    cell_bytes: int | None  # the buffer cell headroom is counted in (the model's, or fabric.yaml qos.buffer)
    tuning: dict[str, int | float | str | None]  # the platform's own QoS values (fabric.yaml qos.<platform>)


class DeviceIntent(Node):
    """The per-switch contract between compile and render (and verify, plan, apply)."""

    name: str
    platform: str
    role: Literal["spine", "leaf", "superspine"]
    model: str
    os_version: str  # the NOS release the config is rendered for (Platform.releases)
    fabric: str
    loopbacks: list[Loopback]
    breakouts: list[Breakout]
    interfaces: list[Interface]
    vrfs: list[Vrf]
    vlans: list[Vlan]
    acls: list[Acl]
    bgp: Bgp
    vtep: Vtep | None
    anycast_gateway_mac: str | None
    qos: Qos


def intent_digest(intent: DeviceIntent) -> str:
    """What one switch must carry, as a hash: pydantic's JSON of the intent, the same content as its
    YAML file and ten times cheaper to make for the 4,160 switches of a 100k fabric."""
    return hashlib.sha256(intent.model_dump_json().encode()).hexdigest()
