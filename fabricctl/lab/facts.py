"""What a lab switch's own config says about its ports, BGP and VTEP: the inputs of its state.

The lab reads its running tree itself (it never imports fabricctl's parsers): a real switch
derives state from what it holds, not from what the tool meant. One reader per platform (lab/devices/<platform>/facts.py), each
for the lines its command reference (lab/devices/<platform>/commands.yaml) accepts; these are
the facts they fill in and the helpers they share.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from ipaddress import IPv4Address, IPv4Interface, IPv4Network

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
