"""Routes, ARP and MAC tables of the lab fabric, derived from the switches' own configs.

What each switch would hold once its protocols have converged, from the same inputs as its
links and sessions (fabric_state.py) and nothing of fabricctl's intent:

- **connected**: the subnet of every up interface with an address, in the interface's VRF;
- **static**: `ip route` / `ip route-static` whose next hop is on a connected subnet;
- **BGP, default VRF**: what each switch originates (`network`) travels over Established IPv4
  sessions, eBGP style: a switch takes no path that carries its own AS, prefers the fewest AS
  hops and installs up to `maximum-paths` / `balance` equal paths (ECMP next hops), under the
  system cap the switch booted with (Comware `max-ecmp-num`); paths whose AS paths differ count
  as equal only where the switch relaxes the rule (EOS by default, Comware `balance as-path-relax`);
- **EVPN type 5, tenant VRFs**: the connected subnets of a VRF that redistributes them reach every
  VTEP that hears the exporting VTEP over Established EVPN sessions and whose VRF imports one of
  its route targets; the next hop is the remote VTEP, one path per VTEP that advertises it;
- **hosts**: a GPU NIC cabled to an up port answers ARP: on a routed port at the other address of
  the port's subnet, on a bridged port at the address its segment's gateway subnet gives it (the
  NICs of a segment numbered from the gateway up, in server order); its MAC is stable per NIC;
- **ARP**: those hosts, and the switch at the far end of every up point-to-point link whose port
  has an address in the link's subnet (the neighbor BGP talks to), at that switch's own MAC;
- **BFD**: a session to every BGP peer the switch registers with BFD; up when the BGP session is
  Established and the peer registers this switch too (single hop over the link, multihop between
  loopbacks), down otherwise;
- **EVPN routes by type**: each VTEP originates a type-3 (inclusive multicast) route per L2 VNI,
  a type-2 route per NIC in a stretched segment (MAC, and MAC-IP once the NIC has an address) and
  a type-5 route per connected subnet of a VRF it redistributes, with the RD and export route
  targets of its config; a switch holds its own routes and those of the VTEPs it hears over
  EVPN whose route targets it imports (a switch with no VTEP, a route server, holds them all).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network

import fabricctl.lab.gshut as gshut
from fabricctl.lab.fabric_state import FabricState, _components, _graph
from fabricctl.lab.nos import lab_nos
from fabricctl.lab.ports import chassis_digits
from fabricctl.lab.reference import reference
from fabricctl.macs import mac_as


@dataclass(frozen=True)
class Hop:
    """One next hop: the neighbor's address (None for a connected route) and the way out."""

    address: IPv4Address | None
    interface: str  # the egress port, or "" for a route through a VXLAN tunnel
    vtep: IPv4Address | None = None  # a route learned over EVPN: the VTEP behind the tunnel


@dataclass(frozen=True)
class Route:
    prefix: IPv4Network
    kind: str  # connected | static | ebgp | evpn
    hops: tuple[Hop, ...]
    as_path: tuple[int, ...] = ()  # BGP: the ASes the route crossed, nearest first


@dataclass(frozen=True)
class Host:
    """A GPU NIC as a leaf sees it."""

    vrf: str
    address: IPv4Address | None  # None: the segment has no gateway subnet to number it from
    mac: str  # aa:bb:cc:dd:ee:ff
    port: str  # the leaf port it is cabled to
    segment: tuple[str, str] | None  # its L2 segment when the port is bridged
    gateway: str | None  # the routed interface its ARP entry sits on (the port, or the segment's SVI)


@dataclass(frozen=True)
class ArpEntry:
    """One entry of a switch's ARP table."""

    vrf: str
    address: IPv4Address
    mac: str  # aa:bb:cc:dd:ee:ff
    interface: str  # the routed interface it sits on (the port, or the segment's SVI)
    port: str  # the port it was learned on


@dataclass(frozen=True)
class BfdSession:
    """A BFD session BGP registered for one peer."""

    peer: IPv4Address
    local: IPv4Address | None  # the address it runs from
    interface: str  # the port of a single-hop session, "" for a multihop one
    up: bool
    remote_bgp: bool  # the far end registers this switch too (it answers)


@dataclass(frozen=True)
class EvpnRoute:
    """One EVPN NLRI (RFC 7432 types 2 and 3, RFC 9136 type 5) as a VTEP originates it."""

    kind: int  # 2 MAC/IP advertisement, 3 inclusive multicast, 5 IP prefix
    rd: str
    vni: int  # the L2 VNI (types 2, 3) or the L3 VNI (type 5)
    vtep: IPv4Address  # the originating VTEP: next hop, and the IMET route's address
    origin: str  # the switch that originates it
    route_targets: tuple[str, ...]
    mac: str | None = None  # type 2
    ip: IPv4Address | None = None  # type 2 with the NIC's address
    prefix: IPv4Network | None = None  # type 5


@dataclass(frozen=True)
class Trace:
    """Where a packet from one switch to an address goes: the switches it crosses, whether the
    address answers, the smallest IP MTU on the way (there and back), and why not when it fails."""

    hops: tuple[str, ...]  # switches crossed after the first, the answering one last
    reachable: bool
    path_mtu: int
    reason: str = ""  # "no route" | "no answer"


def switch_mac(state: FabricState, switch: str) -> str:
    """A lab switch's own MAC (what its routed ports answer ARP with)."""
    return str(
        mac_as(lab_nos(state.facts[switch].platform).mac_prefix + chassis_digits(switch), "MAC_COLON_TWO")
    )


def nic_mac(server: str, nic: str) -> str:
    """A stable, locally administered MAC per GPU NIC (the lab invents NIC addresses)."""
    digest = hashlib.sha256(f"{server}/{nic}".encode()).hexdigest()
    return "02:" + ":".join(digest[i : i + 2] for i in range(0, 10, 2))


def routing(state: FabricState) -> Routing:
    """The routes and hosts of `state` (derived once per state, on first use)."""
    found = state.derived.get("routing")
    if not isinstance(found, Routing):
        found = state.derived["routing"] = Routing(state)
    return found


class Routing:
    """Routes and hosts of every switch of one FabricState."""

    def __init__(self, state: FabricState) -> None:
        self.state = state
        self._ribs: dict[str, dict[str, dict[IPv4Network, Route]]] | None = None
        self._hosts: dict[str, list[Host]] | None = None

    # --- routes ---------------------------------------------------------------------------
    def routes(self, device: str) -> dict[str, dict[IPv4Network, Route]]:
        """VRF -> prefix -> the route the switch installs (default VRF first, then by name)."""
        if self._ribs is None:
            self._ribs = self._derive()
        return self._ribs.get(device, {})

    def _derive(self) -> dict[str, dict[str, dict[IPv4Network, Route]]]:
        st = self.state
        ribs: dict[str, dict[str, dict[IPv4Network, Route]]] = {}
        for name, facts in st.facts.items():
            rib = ribs.setdefault(name, {"default": {}})
            for vrf in sorted({p.vrf for p in facts.ports.values()} | set(facts.rds)):
                rib.setdefault(vrf, {})
            for port in facts.ports.values():
                if not st.oper_up(name, port.name):
                    continue
                for addr in port.addresses:
                    rib.setdefault(port.vrf, {}).setdefault(
                        addr.network, Route(addr.network, "connected", (Hop(None, port.name),))
                    )
            for vrf, prefix, hop in facts.static:
                via = next((r for r in rib.get(vrf, {}).values() if hop in r.prefix), None)
                if via is not None and via.kind == "connected":
                    rib[vrf].setdefault(prefix, Route(prefix, "static", (Hop(hop, via.hops[0].interface),)))
        self._underlay(ribs)
        self._overlay(ribs)
        return ribs

    def _underlay(self, ribs: dict[str, dict[str, dict[IPv4Network, Route]]]) -> None:
        """eBGP over the Established IPv4 sessions, one origin at a time."""
        st = self.state
        hops_to: dict[tuple[str, str], list[Hop]] = {}  # (switch, neighbor) -> its hops to the neighbor
        for name, sessions in st.sessions.items():
            for s in sessions.values():
                owner = st._owner(s.peer)
                if s.state != "Established" or "ipv4" not in s.families or owner is None:
                    continue
                end = st.far_end(*owner)  # a direct session runs over the cable to the peer's port
                if end is not None and end[0] == name:
                    hops_to.setdefault((name, owner[0]), []).append(Hop(s.peer, end[1]))
        if gshut.shaped(st.facts):  # a session's routes are shaped (a drain): ranked as BGP does
            heard_from = gshut.heard(hops_to)
            for origin, facts in st.facts.items():
                prefixes = [p for p in facts.networks if p in ribs[origin]["default"]]
                for name, chosen in gshut.best_paths(st, origin, heard_from).items() if prefixes else ():
                    for prefix in prefixes:
                        ribs[name]["default"].setdefault(
                            prefix, Route(prefix, "ebgp", chosen.hops, chosen.path)
                        )
            return
        neighbors: dict[str, list[str]] = {}
        for here, there in hops_to:
            neighbors.setdefault(there, []).append(here)  # `here` hears what `there` advertises
        ecmp: dict[tuple[str, ...], tuple[Hop, ...]] = {}
        asn = {name: facts.asn for name, facts in st.facts.items()}
        router_id = {name: self._router_id(name) for name in st.facts}
        for origin, facts in st.facts.items():
            connected = ribs[origin]["default"]
            # BGP originates only what the switch has a route to; its prefixes share their paths.
            prefixes = [p for p in facts.networks if p in connected]
            if not prefixes:
                continue
            paths: dict[str, tuple[int, ...]] = {origin: ()}
            frontier = [origin]
            while frontier:
                #: switch -> (AS path, neighbor) of every shortest path it hears
                offers: dict[str, list[tuple[tuple[int, ...], str]]] = {}
                for here in frontier:
                    here_path = (asn[here] or 0, *paths[here])
                    for there in neighbors.get(here, []):
                        if there not in paths and asn[there] not in here_path:
                            offers.setdefault(there, []).append((here_path, here))
                for there, heard in offers.items():
                    facts = st.facts[there]
                    # Equal length; the best is the lowest router id's (RFC 4271 9.1.2.2 f), and
                    # multipath takes only its AS path unless the switch relaxes the rule.
                    best = min(heard, key=lambda o: router_id[o[1]])[0]
                    heres = [h for p, h in heard if facts.multipath_relax or p == best]
                    key = (there, *heres)  # a leaf takes most prefixes from the same spines
                    if key not in ecmp:
                        ecmp[key] = tuple(h for here in heres for h in hops_to[(there, here)])[
                            : facts.ecmp_width
                        ]
                    paths[there] = best
                    table, hops = ribs[there]["default"], ecmp[key]
                    for prefix in prefixes:
                        if prefix not in table:
                            table[prefix] = Route(prefix, "ebgp", hops, best)
                frontier = list(offers)

    def _overlay(self, ribs: dict[str, dict[str, dict[IPv4Network, Route]]]) -> None:
        """EVPN type-5 routes of the tenant VRFs."""
        st = self.state
        reach = _components(_graph(st.sessions, st._owners, "evpn"))
        asn_of = {f.vtep: f.asn for f in st.facts.values() if f.vtep is not None}
        #: What each VTEP advertises: (its component, VTEP, export RTs, connected prefixes) per VRF.
        exported = [
            (
                reach.get(other, other),
                theirs.vtep,
                theirs.route_targets.get(("vrf", vrf), (set(), set()))[1],
                [p for p, r in ribs[other].get(vrf, {}).items() if r.kind == "connected"],
            )
            for other, theirs in st.facts.items()
            if theirs.vtep is not None
            for vrf in theirs.redistributed
        ]
        for name, facts in st.facts.items():
            if facts.vtep is None:
                continue
            via = next((s.remote_as for s in st.sessions[name].values() if "evpn" in s.families), None)
            paths: dict[tuple[IPv4Address, ...], tuple[tuple[Hop, ...], tuple[int, ...]]] = {}
            for vrf in {owner[1] for owner in facts.vnis.values() if owner[0] == "vrf"}:
                imports = facts.route_targets.get(("vrf", vrf), (set(), set()))[0]
                learned: dict[IPv4Network, list[IPv4Address]] = {}
                for component, vtep, exports, prefixes in exported:
                    if vtep != facts.vtep and component == reach.get(name, name) and imports & exports:
                        for prefix in prefixes:
                            learned.setdefault(prefix, []).append(vtep)
                table = ribs[name].setdefault(vrf, {})
                for prefix, vteps in learned.items():
                    key = tuple(vteps)
                    if key not in paths:  # most prefixes share their VTEPs: one hop tuple each
                        ordered = sorted(set(vteps))[: facts.ecmp_width]
                        hops = tuple(Hop(v, "", v) for v in ordered)
                        paths[key] = hops, tuple(a for a in (via, asn_of[ordered[0]]) if a is not None)
                    hops, path = paths[key]
                    if prefix not in table:
                        table[prefix] = Route(prefix, "evpn", hops, path)

    def _router_id(self, switch: str) -> tuple[int, str]:
        rid = self.state.facts[switch].router_id
        return (int(rid) if rid is not None else 0, switch)

    def lookup(self, device: str, vrf: str, address: IPv4Address) -> Route | None:
        """The longest-prefix match for `address` in the switch's VRF."""
        table = self.routes(device).get(vrf, {})
        best = [r for p, r in table.items() if address in p]
        return max(best, key=lambda r: r.prefix.prefixlen) if best else None

    # --- hosts -----------------------------------------------------------------------------
    def hosts(self, device: str) -> list[Host]:
        """The GPU NICs behind the switch's up ports, in port order."""
        if self._hosts is None:
            self._hosts = self._derive_hosts()
        return self._hosts.get(device, [])

    def _nics(self) -> Iterator[tuple[str, str, str, str]]:
        """(leaf, port, server, nic) of every cabled GPU NIC."""
        st = self.state
        for (dev, port), (server, nic) in st.cabling.peer.items():
            if dev in st.facts and server not in st.facts:
                yield dev, port, server, nic

    def _derive_hosts(self) -> dict[str, list[Host]]:
        st = self.state
        by_segment: dict[tuple[str, str], list[tuple[str, str]]] = {}  # fabric-wide: segment -> NICs
        for dev, port, server, nic in self._nics():
            seg = st.facts[dev].ports[port].segment if port in st.facts[dev].ports else None
            if seg is not None:
                by_segment.setdefault(seg, []).append((server, nic))
        out: dict[str, list[Host]] = {}
        for dev, port, server, nic in sorted(self._nics()):
            facts = st.facts[dev]
            here = facts.ports.get(port)
            if here is None or not st.link_up(dev, port):
                continue
            mac = nic_mac(server, nic)
            if here.addresses:
                net = here.addresses[0].network
                mine = here.addresses[0].ip
                address = next((a for a in (net.hosts() if net.prefixlen < 31 else net) if a != mine), None)
                out.setdefault(dev, []).append(Host(here.vrf, address, mac, port, None, port))
            elif here.segment is not None:
                gateway = facts.gateways.get(here.segment)
                svi = facts.ports.get(gateway or "")
                address = None
                if svi is not None and svi.addresses:
                    index = sorted(by_segment[here.segment]).index((server, nic))
                    candidates = [a for a in svi.addresses[0].network.hosts() if a != svi.addresses[0].ip]
                    address = candidates[index] if index < len(candidates) else None
                vrf = svi.vrf if svi is not None else "default"
                out.setdefault(dev, []).append(Host(vrf, address, mac, port, here.segment, gateway))
        for hosts in out.values():
            hosts.sort(key=lambda h: _port_key(h.port))
        return out

    def trace(self, device: str, vrf: str, dst: IPv4Address, src: IPv4Address | None) -> Trace:
        """Follow `dst` hop by hop from `device` (its VRF's table at each switch, the VTEP's for
        an EVPN route) to the switch or NIC that holds it, then the reply back to `src`."""
        there = self._walk(device, vrf, dst)
        if not there.reachable or src is None:
            return there
        owner = there.hops[-1] if there.hops else device
        if owner not in self.state.facts:  # a NIC answers over the link it is on
            return there
        back = self._walk(owner, vrf, src)
        return Trace(there.hops, back.reachable, min(there.path_mtu, back.path_mtu), back.reason)

    def _walk(self, device: str, vrf: str, dst: IPv4Address) -> Trace:
        st = self.state
        here, mtu = device, 1 << 16
        hops: list[str] = []
        for _ in range(32):
            facts = st.facts[here]
            if facts.owns(dst) is not None and st.oper_up(here, facts.owns(dst) or ""):
                return Trace(tuple(hops), True, mtu)
            route = self.lookup(here, vrf, dst)
            if route is None:
                return Trace(tuple(hops), False, mtu, "no route")
            hop = route.hops[0]
            if hop.vtep is not None:  # over the tunnel: the VTEP's switch routes it on
                owner = next((n for n, f in st.facts.items() if f.vtep == hop.vtep), None)
                if owner is None:
                    return Trace(tuple(hops), False, mtu, "no answer")
                here = owner
                hops.append(here)
                continue
            mtu = min(mtu, self._ip_mtu(here, hop.interface))
            target = dst if route.kind == "connected" else hop.address
            far = st.far_end(here, hop.interface)
            if far is None or not st.link_up(here, hop.interface):
                return Trace(tuple(hops), False, mtu, "no answer")
            if far[0] not in st.facts:  # a GPU NIC: it answers at the address the lab gave it
                nic = next(
                    (h for h in self.hosts(here) if h.port == hop.interface and h.address == dst), None
                )
                return Trace((*hops, far[1]), nic is not None, mtu, "" if nic else "no answer")
            if st.facts[far[0]].owns(target or dst) is None and route.kind == "connected":
                return Trace(tuple(hops), False, mtu, "no answer")
            here = far[0]
            hops.append(here)
        return Trace(tuple(hops), False, mtu, "no answer")

    def _ip_mtu(self, device: str, port: str) -> int:
        """A port's IP MTU: its `mtu`, else its NOS's documented default (the command reference)."""
        facts = self.state.facts[device]
        here = facts.ports.get(port)
        if here is not None and here.mtu:
            return here.mtu
        nos = lab_nos(facts.platform)
        default = reference(facts.platform).default(*nos.mtu_at(port, nos.port_view(port)))
        return int(default) if default and default.isdigit() else 1500

    def arp(self, device: str) -> list[ArpEntry]:
        """The switch's ARP table: its point-to-point neighbors and its hosts, in port order."""
        st = self.state
        out = [
            ArpEntry(h.vrf, h.address, h.mac, h.gateway or h.port, h.port)
            for h in self.hosts(device)
            if h.address is not None
        ]
        for port in st.facts[device].ports.values():
            far = st.far_end(device, port.name)
            if (
                far is None
                or far[0] not in st.facts
                or not port.addresses
                or not st.link_up(device, port.name)
            ):
                continue
            there = st.facts[far[0]].ports.get(far[1])
            net = port.addresses[0].network
            found = next((a.ip for a in (there.addresses if there else []) if a.ip in net), None)
            if found is not None:
                out.append(ArpEntry(port.vrf, found, switch_mac(st, far[0]), port.name, port.name))
        return sorted(out, key=lambda e: (_port_key(e.port), int(e.address)))

    def bfd(self, device: str) -> list[BfdSession]:
        """The BFD sessions BGP registered on the switch, by peer address."""
        st = self.state
        facts = st.facts[device]
        out = []
        for peer in sorted(facts.peers.values(), key=lambda p: p.ip):
            if not peer.bfd:
                continue
            session = st.sessions.get(device, {}).get(peer.ip)
            owner = st._owner(peer.ip)
            back = False
            if owner is not None:
                theirs = st.facts[owner[0]].peers.values()
                back = any(p.bfd and facts.owns(p.ip) is not None for p in theirs)
            port = st._connected_port(device, peer.ip)
            local = facts.ports[port].addresses[0].ip if port else facts.router_id
            up = session is not None and session.state == "Established" and back
            out.append(BfdSession(peer.ip, local, port or "", up, back))
        return out

    def evpn_routes(self, device: str) -> list[EvpnRoute]:
        """The EVPN routes the switch holds, its own first, then by originator, type, key."""
        st = self.state
        facts = st.facts[device]
        reach = _components(_graph(st.sessions, st._owners, "evpn"))
        held = []
        for name, other in st.facts.items():
            if other.vtep is None:
                continue
            if name != device and reach.get(device, device) != reach.get(name, name):
                continue
            for route in self._originated(name):
                if name == device or facts.vtep is None or self._imports(device, route):
                    held.append(route)
        return sorted(
            held, key=lambda r: (r.origin != device, r.origin, r.kind, r.vni, r.mac or "", str(r.prefix))
        )

    def evpn_exchanged(self, device: str, peer: str) -> tuple[int, int]:
        """(received, sent) EVPN routes of the Established session between two switches: what
        the peer holds that this one imports, and what this one passes on (a VTEP its own
        routes, a route server every route the peer did not originate)."""
        theirs = set(self.evpn_routes(peer))
        held = self.evpn_routes(device)
        vtep = self.state.facts[device].vtep is not None
        received = sum(1 for r in held if r.origin != device and r in theirs)
        sent = sum(1 for r in held if r.origin != peer and (not vtep or r.origin == device))
        return received, sent

    def _imports(self, device: str, route: EvpnRoute) -> bool:
        facts = self.state.facts[device]
        layer = "vrf" if route.kind == 5 else "segment"
        return any(
            set(route.route_targets) & targets[0]
            for owner, targets in facts.route_targets.items()
            if (owner[0] == "vrf") == (layer == "vrf") and owner in facts.vnis.values()
        )

    def _originated(self, switch: str) -> list[EvpnRoute]:
        st = self.state
        facts = st.facts[switch]
        assert facts.vtep is not None
        rid = facts.router_id or facts.vtep
        out: list[EvpnRoute] = []
        hosts = self.hosts(switch)
        ribs = self.routes(switch)
        for vni, owner in sorted(facts.vnis.items()):
            exports = tuple(sorted(facts.route_targets.get(owner, (set(), set()))[1]))
            if owner[0] == "vrf":
                if owner[1] not in facts.redistributed:
                    continue
                rd = facts.rds.get(owner[1], f"{rid}:{vni}")
                for prefix, r in ribs.get(owner[1], {}).items():
                    if r.kind == "connected":
                        out.append(EvpnRoute(5, rd, vni, facts.vtep, switch, exports, prefix=prefix))
                continue
            rd = facts.segment_rds.get(owner, f"{rid}:{vni}")
            out.append(EvpnRoute(3, rd, vni, facts.vtep, switch, exports))
            for h in hosts:
                if h.segment == owner:
                    out.append(EvpnRoute(2, rd, vni, facts.vtep, switch, exports, mac=h.mac))
                    if h.address is not None:
                        out.append(
                            EvpnRoute(2, rd, vni, facts.vtep, switch, exports, mac=h.mac, ip=h.address)
                        )
        return out

    def remote_macs(self, device: str) -> list[tuple[tuple[str, str], str, IPv4Address]]:
        """(segment, MAC, VTEP) of the NICs other VTEPs teach this one over EVPN type 2: the
        bridged NICs of every segment this switch stretches (its VNI imports their route target)."""
        st = self.state
        facts = st.facts[device]
        remote = st.remote_vteps(device)
        by_vtep = {f.vtep: name for name, f in st.facts.items() if f.vtep is not None}
        out = []
        for vni, (kind, key) in sorted(facts.vnis.items()):
            if kind == "vrf":
                continue
            for vtep in sorted(remote.get(vni, set())):
                other = by_vtep[vtep]
                their = {k: v for v, k in st.facts[other].vnis.items()}
                for host in self.hosts(other):
                    if host.segment is not None and their.get(host.segment) == vni:
                        out.append(((kind, key), host.mac, vtep))
        return out


def _port_key(name: str) -> tuple[object, ...]:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))
