"""The lab fabric's state, derived from what every switch holds and how the racks are cabled.

A port is up when both ends exist, neither is shut down and no fault holds the link down; LLDP
shows the switch at the other end of each up cable; a BGP session is Established only when both
ends name each other (addresses and ASNs agree), share an address family, and can reach each
other: a directly connected peer over its up cable, a loopback peer over Established underlay
sessions. Nothing here reads fabricctl's intent: a wrong config gives a down fabric.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, partial
from ipaddress import IPv4Address
from pathlib import Path

from fabricctl.lab.facts import DeviceFacts, PeerFacts, PortFacts
from fabricctl.lab.nos import lab_nos

End = tuple[str, str]  # (device or server, port)

#: Pause frames per second a stuck receiver sends in the lab's storm: far above any burst of
#: incast (a storm is a receiver that never drains, so it pauses its sender without pause).
STORM_PPS = 200_000


@dataclass
class Cabling:
    """Every cable of the fabric, both directions: switch-to-switch and switch-to-GPU-server.

    A cable has a speed (Gb/s): a switch port links only at its cable's speed, so a 400G cable
    in a port split 2 x 200G stays down until the rack is re-cabled with a breakout cable, one
    200G leg per lane; a GPU server's NIC runs at whatever its leg gives it."""

    peer: dict[End, End] = field(default_factory=dict)
    speed: dict[End, int] = field(default_factory=dict)  # both ends of a cable whose speed is known
    version: int = 0  # counts changes (derived state is cached per version)

    def add(self, a: End, b: End, speed: int | None = None) -> None:
        self.peer[a], self.peer[b] = b, a
        if speed is not None:
            self.speed[a] = self.speed[b] = speed
        self.version += 1

    def remove(self, a: End) -> None:
        b = self.peer.pop(a)
        del self.peer[b]
        self.speed.pop(a, None)
        self.speed.pop(b, None)
        self.version += 1

    def swap(self, a: End, b: End) -> None:
        """Two cables swapped at the `a` and `b` ends (a miscabled rack)."""
        speed_a, speed_b = self.speed.get(a), self.speed.get(b)
        far_a, far_b = self.peer[a], self.peer[b]
        self.remove(a)
        self.remove(b)
        self.add(a, far_b, speed_b)
        self.add(b, far_a, speed_a)

    def recable(self, plan: Cabling, switches: set[str]) -> list[End]:
        """The racks of `switches` re-cabled as `plan` says: every cable at them pulled, the
        plan's cables there put in. Returns the switch ports whose cable changed: they go down,
        and come up when the new cable links (a port the plan leaves without one stays down)."""
        ends = {e for e in self.peer if e[0] in switches} | {e for e in plan.peer if e[0] in switches}
        ends |= {self.peer[e] for e in ends if e in self.peer} | {
            plan.peer[e] for e in ends if e in plan.peer
        }
        was = {e: (self.peer.get(e), self.speed.get(e)) for e in ends}
        for end in sorted(ends):
            if end in self.peer and end[0] in switches:
                self.remove(end)
        for end in sorted(e for e in plan.peer if e[0] in switches):
            far = plan.peer[end]
            if end not in self.peer:
                if far in self.peer:  # moved here from wherever it was
                    self.remove(far)
                self.add(end, far, plan.speed.get(end))
        return sorted(e for e in ends if e[0] in switches and was[e] != (self.peer.get(e), self.speed.get(e)))

    @classmethod
    def from_inventory(cls, root: Path) -> Cabling:
        """The cabling the inventory's rules describe (empty when the inventory does not compile)."""
        from fabricctl.compile.topology import build_topology, switch_model
        from fabricctl.model.load import load_fabric
        from fabricctl.model.problems import ProblemLog

        cabling = cls()
        log = ProblemLog(root)
        try:
            fabric = load_fabric(root, log)
            topo = build_topology(fabric, log) if fabric is not None else None
        except Exception:
            return cabling
        if topo is None or fabric is None:
            return cabling
        # A front-panel port's speed is its switch model's (the datasheet figure).
        gbps = {sw.name: switch_model(sw).port_gbps for sw in fabric.switches}.__getitem__

        for ln in topo.links:  # a fabric cable runs at the slower of its two ports
            cabling.add(
                (ln.leaf, ln.leaf_port), (ln.spine, ln.spine_port), min(gbps(ln.leaf), gbps(ln.spine))
            )
        for leaf, ports in topo.gpu_ports.items():
            lanes = Counter(gp.port for gp in ports)  # a port split in N lanes carries N GPU ports
            for gp in ports:
                speed = gbps(leaf) if gp.lane is None else gbps(leaf) // lanes[gp.port]
                cabling.add((leaf, gp.name), (gp.server, f"nic{gp.nic}"), speed)
        return cabling


@dataclass(frozen=True)
class Session:
    peer: IPv4Address
    remote_as: int | None
    local_as: int | None
    description: str
    families: frozenset[str]
    state: str  # Established | Active | Idle
    reason: str  # why it is not Established ("" when it is)
    peer_router_id: IPv4Address | None


@dataclass(frozen=True)
class Pauses:
    """PFC pause frames of one port on its no-drop priorities, since the lab started."""

    priorities: tuple[int, ...]
    received: int = 0
    sent: int = 0
    received_pps: int = 0
    sent_pps: int = 0


class FabricState:
    """Link, LLDP and BGP state of every lab switch at one moment."""

    def __init__(
        self,
        facts: dict[str, DeviceFacts],
        cabling: Cabling,
        links_down: dict[str, set[str]],
        bgp_down: dict[str, set[str]],
        storms: dict[str, dict[str, float]] | None = None,
        onsets: dict[str, dict[str, dict[str, float]]] | None = None,
        boots: dict[str, float] | None = None,
    ) -> None:
        self.facts = facts
        self.cabling = cabling
        self.links_down = links_down
        self._bgp_down = bgp_down
        self._storms = storms or {}  # device -> port -> lab time its storm began
        self._onsets = onsets or {}  # device -> counter fault -> port -> lab time it began
        self._boots = boots or {}  # device -> lab time it last booted (its counters start there)
        #: What other modules derive from this state once (routes, hosts), by name.
        self.derived: dict[str, object] = {}
        self._owners = {  # address -> (switch, port) that holds it
            a.ip: (name, port.name)
            for name, facts in facts.items()
            for port in facts.ports.values()
            for a in port.addresses
        }

    # --- links ----------------------------------------------------------------------------
    def far_end(self, device: str, port: str) -> End | None:
        return self.cabling.peer.get((device, port))

    def link_up(self, device: str, port: str) -> bool:
        here = self.facts[device].ports.get(port)
        far = self.far_end(device, port)
        if here is None or not here.admin_up or far is None or not self._speed_fits(here, (device, port)):
            return False
        if port in self.links_down.get(device, set()) or far[1] in self.links_down.get(far[0], set()):
            return False
        if far[0] not in self.facts:  # a GPU server's NIC: up when cabled (it runs at its leg's speed)
            return True
        there = self.facts[far[0]].ports.get(far[1])
        return there is not None and there.admin_up and self._speed_fits(there, far)

    def _speed_fits(self, port: PortFacts, end: End) -> bool:
        """A port split by a breakout never links; another links only at its cable's speed."""
        cable = self.cabling.speed.get(end)
        return port.speed != 0 and (port.speed is None or cable is None or port.speed == cable)

    def lldp(self, device: str) -> list[tuple[str, str, str]]:
        """(local port, neighbor system name, neighbor port) for every up cable to a switch."""
        out = []
        for port in self.facts[device].ports:
            far = self.far_end(device, port)
            if far is not None and far[0] in self.facts and self.link_up(device, port):
                out.append((port, self.facts[far[0]].hostname, far[1]))
        return out

    def oper_up(self, device: str, port: str) -> bool:
        """Line protocol: a cabled port's link; a loopback, VLAN or VSI interface when not shut down."""
        facts = self.facts[device].ports.get(port)
        if facts is None:
            return False
        if self.far_end(device, port) is not None or self._physical(device, port):
            return self.link_up(device, port)
        return facts.admin_up

    # --- PFC -----------------------------------------------------------------------------
    def pauses(self, device: str, port: str, now: float) -> Pauses | None:
        """The port's pause counters at lab time `now` (None: PFC is off on the port).

        A storming port receives pauses while its link is up; when the far end is a lab switch
        with PFC on, that port counts the same frames as sent. A storm that began at `since`
        has run one second when first read (counters never read zero during a storm).
        """
        facts = self.facts[device].ports.get(port)
        if facts is None or not facts.pfc:
            return None
        up = self.link_up(device, port)

        boot = self.booted(device)

        def frames(since: float | None) -> tuple[int, int]:
            if since is None or not up:
                return 0, 0
            return int(STORM_PPS * (max(now - max(since, boot), 0.0) + 1.0)), STORM_PPS

        received, received_pps = frames(self._storms.get(device, {}).get(port))
        far = self.far_end(device, port)
        sent, sent_pps = frames(self._storms.get(far[0], {}).get(far[1]) if far else None)
        return Pauses(facts.no_drop, received, sent, received_pps, sent_pps)

    def booted(self, device: str) -> float:
        """Lab time the device last booted: a switch counts from its boot, as a real one does."""
        return self._boots.get(device, 0.0)

    def onset(self, device: str, fault: str, port: str) -> float | None:
        """Lab time a counter fault (faults.COUNTER_FAULTS) began on the port, None when it is not set."""
        return self._onsets.get(device, {}).get(fault, {}).get(port)

    # --- EVPN / VXLAN ----------------------------------------------------------------------
    def remote_vteps(self, device: str) -> dict[int, set[IPv4Address]]:
        """VNI -> the other VTEPs whose EVPN routes this VNI installs: routes that reach this
        switch over EVPN sessions and carry a route target the VNI's VRF (type-5) or segment
        (type-2/3) imports."""
        facts = self.facts[device]
        if facts.vtep is None:
            return {}
        reach = _components(_graph(self.sessions, self._owners, "evpn"))
        out: dict[int, set[IPv4Address]] = {vni: set() for vni in facts.vnis}
        for name, other in self.facts.items():
            if name == device or other.vtep is None or reach.get(device, device) != reach.get(name, name):
                continue
            for vni, owner in facts.vnis.items():
                imports = facts.route_targets.get(owner, (set(), set()))[0]
                layer = _layer(owner[0])
                if any(
                    imports & other.route_targets.get(theirs, (set(), set()))[1]
                    for theirs in other.vnis.values()
                    if _layer(theirs[0]) == layer
                ):
                    out[vni].add(other.vtep)
        return out

    # --- BGP ------------------------------------------------------------------------------
    def _owner(self, ip: IPv4Address) -> tuple[str, str] | None:
        return self._owners.get(ip)

    @cached_property
    def sessions(self) -> dict[str, dict[IPv4Address, Session]]:
        """Every switch's BGP sessions, derived on first use (link and LLDP reads never need them)."""
        self._sessions: dict[str, dict[IPv4Address, Session]] = {}
        self._derive_bgp()
        return self._sessions

    def _derive_bgp(self) -> None:
        direct: dict[str, set[str]] = {}  # device -> devices it has an Established direct session with
        pending: list[tuple[str, PeerFacts]] = []
        for name, facts in self.facts.items():
            self._sessions[name] = {}
            for peer in facts.peers.values():
                pending.append((name, peer))
        for name, peer in pending:
            connected = self._connected_port(name, peer.ip)
            if connected is not None:
                session = self._session(name, peer, partial(self._cabled_to, name, connected))
                self._sessions[name][peer.ip] = session
                if session.state == "Established":
                    owner = self._owner(peer.ip)
                    if owner is not None:
                        direct.setdefault(name, set()).add(owner[0])
        component = _components(direct)
        for name, peer in pending:
            if peer.ip not in self._sessions[name]:
                self._sessions[name][peer.ip] = self._session(
                    name,
                    peer,
                    partial(_same_component, component, name),
                )

    def _connected_port(self, device: str, ip: IPv4Address) -> str | None:
        return self.facts[device].connected_port(ip)

    def _physical(self, device: str, port: str) -> bool:
        """A front-panel port (or breakout lane) of the device's NOS, cabled or not."""
        return port.startswith(lab_nos(self.facts[device].platform).front_panel)

    def _cabled_to(self, device: str, port: str, other: str) -> bool:
        far = self.far_end(device, port)
        return far is not None and far[0] == other and self.link_up(device, port)

    def _session(self, name: str, peer: PeerFacts, path_to: Callable[[str], bool]) -> Session:
        facts = self.facts[name]

        def make(state: str, reason: str, rid: IPv4Address | None = None) -> Session:
            return Session(
                peer.ip,
                peer.remote_as,
                facts.asn,
                peer.description,
                frozenset(peer.families),
                state,
                reason,
                rid,
            )

        owner = self._owner(peer.ip)
        if owner is None:
            return make("Active", "no switch answers at this address")
        other = self.facts[owner[0]]
        if str(peer.ip) in self._bgp_down.get(name, set()):
            return make("Idle", "peer held down (lab fault)")
        # The peer's statement for this switch: at the address this session runs from, the
        # connected port's for a direct session, a loopback's for a multihop one.
        local = self._connected_port(name, peer.ip)
        owned = facts.owned()
        mine = owned.keys() & other.peers.keys()  # the peer's statements for this switch's addresses
        back = next(
            (
                p
                for ip, p in other.peers.items()
                if ip in mine
                and (port := owned[ip]) is not None
                and (port == local if local else not self._physical(name, port))
            ),
            None,
        )
        if back is not None and str(back.ip) in self._bgp_down.get(owner[0], set()):
            return make("Idle", "peer held down (lab fault)")
        if not path_to(owner[0]):
            return make("Active", "no route to the peer")
        if back is None:
            return make("Active", f"{other.hostname} has no neighbor statement for this switch")
        if peer.remote_as != other.asn or back.remote_as != facts.asn:
            return make("Idle", f"AS mismatch: configured {peer.remote_as}, the peer is AS {other.asn}")
        if not peer.families & back.families:
            return make("Active", "no address family in common")
        return make("Established", "", other.router_id)


def _graph(
    sessions: dict[str, dict[IPv4Address, Session]], owners: dict[IPv4Address, tuple[str, str]], family: str
) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for name, by_peer in sessions.items():
        for s in by_peer.values():
            if s.state == "Established" and family in s.families and s.peer in owners:
                out.setdefault(name, set()).add(owners[s.peer][0])
    return out


def _same_component(component: dict[str, str], here: str, other: str) -> bool:
    return component.get(here, here) == component.get(other, other)


def _components(graph: dict[str, set[str]]) -> dict[str, str]:
    """Switch -> a representative of the switches it reaches over `graph` (sessions run both ways)."""
    label: dict[str, str] = {}
    for start in graph:
        if start in label:
            continue
        label[start], frontier = start, [start]
        while frontier:
            for nxt in graph.get(frontier.pop(), ()):
                if nxt not in label:
                    label[nxt] = start
                    frontier.append(nxt)
    return label


def _layer(kind: str) -> str:
    """A VRF's routes (type 5) are imported by VRFs, a segment's (types 2/3) by segments."""
    return "l3" if kind == "vrf" else "l2"
