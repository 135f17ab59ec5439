"""What a lab switch's own config says about its ports, BGP and VTEP: the inputs of its state.

The lab reads its running tree itself (it never imports fabricctl's parsers): a real switch
derives state from what it holds, not from what the tool meant. One reader per platform (lab/devices/<platform>/facts.py), each
for the lines its command reference (lab/devices/<platform>/commands.yaml) accepts; these are
the facts they fill in and the helpers they share.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from ipaddress import IPv4Address, IPv4Interface, IPv4Network
from typing import Any

from fabricctl.lab.config_tree import Node


@dataclass
class PortFacts:
    name: str
    admin_up: bool
    description: str = ""
    addresses: list[IPv4Interface] = field(default_factory=list)
    vrf: str = "default"
    routed: bool = False
    pfc: bool = False  # priority-based flow control enabled on the port
    no_drop: tuple[int, ...] = ()  # the 802.1p priorities PFC keeps lossless
    segment: tuple[str, str] | None = (
        None  # the L2 segment a bridged port sits in: ("vlan", "112") / ("vsi", name)
    )
    mtu: int | None = None  # the configured `mtu` (None: the NOS default)
    #: Gb/s a front-panel port (or breakout lane) runs at; 0 for a port split by a breakout
    #: (its lanes are the interfaces that run); None for a logical interface.
    speed: int | None = None


@dataclass
class PeerFacts:
    ip: IPv4Address
    remote_as: int | None
    description: str = ""
    families: set[str] = field(default_factory=set)  # "ipv4" and/or "evpn"
    bfd: bool = False  # BGP registers the session with BFD (EOS `neighbor X bfd`, Comware `peer X bfd`)
    # What this switch's config does to the routes of the session (RFC 8326 graceful shutdown as
    # each NOS writes it, lab/gshut.py): communities sent at all, the GRACEFUL_SHUTDOWN community
    # added to the routes sent, its own AS prepended to them, LOCAL_PREF given to those heard.
    send_community: bool = False
    gshut: bool = False
    prepend: int = 0
    local_pref_in: int | None = None


@dataclass
class DeviceFacts:
    hostname: str
    platform: str = ""  # eos | comware
    model: str = ""  # what a neighbor learns from LLDP's system description
    ports: dict[str, PortFacts] = field(default_factory=dict)
    asn: int | None = None
    router_id: IPv4Address | None = None
    peers: dict[IPv4Address, PeerFacts] = field(default_factory=dict)
    vtep: IPv4Address | None = None
    vnis: dict[int, tuple[str, str]] = field(default_factory=dict)
    #: EVPN route targets per VNI owner (("vlan", "112"), ("vrf", "tnt-a"), ("vsi", "tnt-a-seg")):
    #: (import, export). Routes from another VTEP are installed only where these match.
    route_targets: dict[tuple[str, str], tuple[set[str], set[str]]] = field(default_factory=dict)
    networks: list[IPv4Network] = field(default_factory=list)  # what BGP originates in the default VRF
    redistributed: set[str] = field(default_factory=set)  # VRFs whose connected routes BGP advertises
    static: list[tuple[str, IPv4Network, IPv4Address]] = field(
        default_factory=list
    )  # (vrf, prefix, next hop)
    max_paths: int = 1  # ECMP paths BGP installs (EOS maximum-paths, Comware balance)
    #: Whether equal-length AS paths that differ load-balance (set by each NOS's reader: its default
    #: and the line that changes it).
    multipath_relax: bool = False
    #: The system's ECMP cap (Comware max-ecmp-num, documented default 8); None: no cap beyond
    #: max_paths. A config's own value; the device applies the one it booted with (device.py).
    ecmp_cap: int | None = None
    #: The NOS gives routes that arrive with the GRACEFUL_SHUTDOWN community LOCAL_PREF 0 (RFC
    #: 8326 receiver procedure) without any policy configured for it.
    honors_gshut: bool = False
    rds: dict[str, str] = field(default_factory=dict)  # VRF -> route distinguisher
    segment_rds: dict[tuple[str, str], str] = field(default_factory=dict)  # L2 segment -> its MAC-VRF's RD
    gateways: dict[tuple[str, str], str] = field(default_factory=dict)  # segment -> its gateway interface
    segment_names: dict[tuple[str, str], str] = field(default_factory=dict)  # segment -> its name
    _owned: dict[IPv4Address, str] | None = field(
        default=None, repr=False, compare=False
    )  # VNI -> ("vlan" | "vrf" | "vsi", its id)
    _subnets: tuple[list[int], dict[tuple[int, int], list[tuple[int, str, int]]]] | None = field(
        default=None, repr=False, compare=False
    )  # the prefix lengths, and (length, network) -> (port order, port, its address): connected_port

    @property
    def ecmp_width(self) -> int:
        """The most equal paths one route installs: BGP's limit, under the system cap."""
        return min(self.max_paths, self.ecmp_cap) if self.ecmp_cap else self.max_paths

    def owns(self, ip: IPv4Address) -> str | None:
        """The port that holds `ip`, if any."""
        return self.owned().get(ip)

    def owned(self) -> dict[IPv4Address, str]:
        """Address -> the port that holds it (built once per config read)."""
        if self._owned is None:
            self._owned = {a.ip: port.name for port in self.ports.values() for a in port.addresses}
        return self._owned

    def connected_port(self, ip: IPv4Address) -> str | None:
        """The first port (in config order) with a subnet that holds `ip` as another host's
        address: the port a directly connected session to `ip` runs over."""
        if self._subnets is None:
            subnets: dict[tuple[int, int], list[tuple[int, str, int]]] = {}
            for index, port in enumerate(self.ports.values()):
                for a in port.addresses:
                    key = (a.network.prefixlen, int(a.network.network_address))
                    subnets.setdefault(key, []).append((index, port.name, int(a.ip)))
            self._subnets = (sorted({length for length, _ in subnets}), subnets)
        lengths, subnets = self._subnets
        host = int(ip)
        best: tuple[int, str] | None = None
        for length in lengths:
            mask = (0xFFFFFFFF << (32 - length)) & 0xFFFFFFFF
            for index, name, own in subnets.get((length, host & mask), ()):
                if own != host:
                    if best is None or index < best[0]:
                        best = (index, name)
                    break  # listed in port order: the first is the earliest of this subnet
        return best[1] if best is not None else None


def child_words(node: Node) -> list[list[str]]:
    return [child.text.split() for child in node.children.values()]


def parse_ip(text: str) -> IPv4Address | None:
    try:
        return IPv4Address(text)
    except ValueError:
        return None


def add_static(facts: DeviceFacts, vrf: str, prefix: str, next_hop: str) -> None:
    hop = parse_ip(next_hop)
    if hop is not None:
        facts.static.append((vrf, IPv4Network(prefix, strict=False), hop))


# --- as plain data: what a lab shard publishes about the switches it serves -----------------------


def _ends(key: tuple[str, str]) -> list[str]:
    return [key[0], key[1]]


def _pair(item: object) -> tuple[str, str]:
    if not (isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item)):
        raise ValueError(f"not a [kind, name] pair: {item!r}")
    return item[0], item[1]


def facts_to_data(facts: DeviceFacts) -> dict[str, object]:
    """`facts` as JSON-ready data (`facts_from_data` reads it back, equal)."""
    return {
        "hostname": facts.hostname,
        "platform": facts.platform,
        "model": facts.model,
        "ports": [
            [
                p.name,
                p.admin_up,
                p.description,
                [str(a) for a in p.addresses],
                p.vrf,
                p.routed,
                p.pfc,
                list(p.no_drop),
                _ends(p.segment) if p.segment is not None else None,
                p.mtu,
                p.speed,
            ]
            for p in facts.ports.values()
        ],
        "asn": facts.asn,
        "router_id": str(facts.router_id) if facts.router_id is not None else None,
        "peers": [
            [
                str(p.ip),
                p.remote_as,
                p.description,
                sorted(p.families),
                p.bfd,
                p.send_community,
                p.gshut,
                p.prepend,
                p.local_pref_in,
            ]
            for p in facts.peers.values()
        ],
        "vtep": str(facts.vtep) if facts.vtep is not None else None,
        "vnis": [[vni, *_ends(owner)] for vni, owner in facts.vnis.items()],
        "route_targets": [
            [*_ends(owner), sorted(imports), sorted(exports)]
            for owner, (imports, exports) in facts.route_targets.items()
        ],
        "networks": [str(n) for n in facts.networks],
        "redistributed": sorted(facts.redistributed),
        "static": [[vrf, str(prefix), str(hop)] for vrf, prefix, hop in facts.static],
        "max_paths": facts.max_paths,
        "multipath_relax": facts.multipath_relax,
        "ecmp_cap": facts.ecmp_cap,
        "honors_gshut": facts.honors_gshut,
        "rds": facts.rds,
        "segment_rds": [[*_ends(k), v] for k, v in facts.segment_rds.items()],
        "gateways": [[*_ends(k), v] for k, v in facts.gateways.items()],
        "segment_names": [[*_ends(k), v] for k, v in facts.segment_names.items()],
    }


def facts_from_data(data: dict[str, Any]) -> DeviceFacts:
    """DeviceFacts from `facts_to_data`'s output; ValueError (or KeyError/TypeError) when it is
    not that shape: the caller treats such a file as absent."""
    facts = DeviceFacts(
        hostname=str(data["hostname"]),
        platform=str(data["platform"]),
        model=str(data["model"]),
        asn=_int_or_none(data["asn"]),
        router_id=IPv4Address(data["router_id"]) if data["router_id"] is not None else None,
        vtep=IPv4Address(data["vtep"]) if data["vtep"] is not None else None,
        max_paths=int(data["max_paths"]),
        multipath_relax=bool(data["multipath_relax"]),
        ecmp_cap=_int_or_none(data["ecmp_cap"]),
        honors_gshut=bool(data["honors_gshut"]),
    )
    for name, up, desc, addresses, vrf, routed, pfc, no_drop, segment, mtu, speed in data["ports"]:
        facts.ports[name] = PortFacts(
            str(name),
            bool(up),
            str(desc),
            [IPv4Interface(a) for a in addresses],
            str(vrf),
            bool(routed),
            bool(pfc),
            tuple(int(p) for p in no_drop),
            _pair(segment) if segment is not None else None,
            _int_or_none(mtu),
            _int_or_none(speed),
        )
    for ip, remote_as, desc, families, bfd, community, gshut, prepend, local_pref in data["peers"]:
        address = IPv4Address(ip)
        facts.peers[address] = PeerFacts(
            address,
            _int_or_none(remote_as),
            str(desc),
            set(families),
            bool(bfd),
            bool(community),
            bool(gshut),
            int(prepend),
            _int_or_none(local_pref),
        )
    facts.vnis = {int(vni): (str(kind), str(name)) for vni, kind, name in data["vnis"]}
    facts.route_targets = {
        (str(kind), str(name)): (set(imports), set(exports))
        for kind, name, imports, exports in data["route_targets"]
    }
    facts.networks = [IPv4Network(n) for n in data["networks"]]
    facts.redistributed = set(data["redistributed"])
    facts.static = [(str(vrf), IPv4Network(p), IPv4Address(h)) for vrf, p, h in data["static"]]
    facts.rds = {str(k): str(v) for k, v in data["rds"].items()}
    facts.segment_rds = {(str(a), str(b)): str(v) for a, b, v in data["segment_rds"]}
    facts.gateways = {(str(a), str(b)): str(v) for a, b, v in data["gateways"]}
    facts.segment_names = {(str(a), str(b)): str(v) for a, b, v in data["segment_names"]}
    return facts


def _int_or_none(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"not a number: {value!r}")
    return value
