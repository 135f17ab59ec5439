"""Best paths in the lab's underlay once some session is gracefully shut down (RFC 8326).

What each switch's config does to a session's routes is in its facts (`PeerFacts`): the
GRACEFUL_SHUTDOWN community added to the routes sent, the sender's AS prepended to them, a
LOCAL_PREF given to the routes heard, communities sent at all. A route keeps the community from
hop to hop while every sender sends communities. A receiver ranks the paths it hears as BGP does
(RFC 4271 9.1.2.2): the highest LOCAL_PREF (0 for a route with the community where the NOS honours
it, `DeviceFacts.honors_gshut`, or whatever its import policy sets; 100 otherwise), then the
shortest AS path; it installs the ties (same AS path, or any of the same length where it relaxes
the rule) up to its ECMP width, and announces its best. So a drained spine's routes lose to every
other spine's, and the leaves' ECMP narrows by the drained uplinks; where no other path exists,
the drained one is still used (RFC 8326 section 1: the community lowers preference, it withdraws
nothing).

The paths are found by repeating rounds of announcements until nothing changes (a path vector
needs as many rounds as the fabric is deep), per origin switch. routing.py calls this only when
some session carries a policy: the plain breadth-first search stays the fast case.
"""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import IPv4Address
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from fabricctl.lab.facts import DeviceFacts, PeerFacts

if TYPE_CHECKING:
    from fabricctl.lab.fabric_state import FabricState


class HopLike(Protocol):
    """A next hop as routing.py keeps it: the neighbor's address and the port towards it."""

    @property
    def address(self) -> IPv4Address | None: ...

    @property
    def interface(self) -> str: ...


H = TypeVar("H", bound=HopLike)

#: LOCAL_PREF of a route no policy touches (RFC 4271: the usual default).
DEFAULT_LOCAL_PREF = 100


def shaped(facts: dict[str, DeviceFacts]) -> bool:
    """Whether any session's routes are shaped: graceful shutdown, a prepend, a LOCAL_PREF."""
    return any(
        p.gshut or p.prepend or p.local_pref_in is not None for f in facts.values() for p in f.peers.values()
    )


@dataclass(frozen=True)
class Best(Generic[H]):
    path: tuple[int, ...]  # AS path as announced onward (the switch's own AS not yet added)
    gshut: bool  # carries the GRACEFUL_SHUTDOWN community
    hops: tuple[H, ...]  # the ties installed, at most the switch's ECMP width


def heard(hops_to: dict[tuple[str, str], list[H]]) -> dict[str, list[tuple[str, H]]]:
    """Receiver -> (sender, hop) per session, from (switch, neighbor) -> its hops to the neighbor."""
    out: dict[str, list[tuple[str, H]]] = {}
    for (here, there), hops in sorted(hops_to.items()):
        out.setdefault(here, []).extend((there, h) for h in hops)
    return out


def best_paths(
    state: FabricState, origin: str, heard_from: dict[str, list[tuple[str, H]]]
) -> dict[str, Best[H]]:
    """Every switch's best route to what `origin` announces (the origin itself left out)."""
    facts = state.facts
    best: dict[str, Best[H]] = {origin: Best((), False, ())}
    for _ in range(2 * len(facts) + 2):  # a Clos settles in as many rounds as it is deep
        changed = False
        for here in sorted(heard_from):
            if here == origin:
                continue
            chosen = _choose(state, here, heard_from[here], best)
            if chosen != best.get(here):
                changed = True
                if chosen is None:
                    best.pop(here, None)
                else:
                    best[here] = chosen
        if not changed:
            break
    del best[origin]
    return best


def _choose(
    state: FabricState, here: str, sessions: list[tuple[str, H]], best: dict[str, Best[H]]
) -> Best[H] | None:
    facts = state.facts
    mine = facts[here]
    offers: list[tuple[int, int, tuple[int, ...], bool, str, H]] = []
    for there, hop in sessions:
        theirs = best.get(there)
        if theirs is None:
            continue
        sender = facts[there]
        out = _sender_side(state, here, there, hop)
        prepends = (out.prepend if out is not None else 0) + 1
        path = (sender.asn or 0,) * prepends + theirs.path
        if mine.asn in path:
            continue  # loop prevention
        sends = out is not None and out.send_community
        gshut = sends and ((out is not None and out.gshut) or theirs.gshut)  # travels only if sent
        inbound = mine.peers.get(hop.address) if hop.address is not None else None
        if inbound is not None and inbound.local_pref_in is not None:
            pref = inbound.local_pref_in
        else:
            pref = 0 if gshut and mine.honors_gshut else DEFAULT_LOCAL_PREF
        offers.append((pref, len(path), path, gshut, there, hop))
    if not offers:
        return None
    top = max(offers, key=lambda o: (o[0], -o[1], -_router_id(facts[o[4]].router_id), o[4]))
    ties = [
        o for o in offers if o[0] == top[0] and o[1] == top[1] and (mine.multipath_relax or o[2] == top[2])
    ]
    hops = tuple(o[5] for o in ties)[: mine.ecmp_width]
    return Best(top[2], top[3], hops)


def _sender_side(state: FabricState, here: str, there: str, hop: HopLike) -> PeerFacts | None:
    """The sender's statement for the session that `hop` (here's hop to there) runs over: the
    neighbor entry of `there` for here's address on that link."""
    port = state.facts[here].ports.get(hop.interface)
    if port is None or hop.address is None:
        return None
    for a in port.addresses:
        if hop.address in a.network:
            return state.facts[there].peers.get(a.ip)
    return None


def _router_id(rid: IPv4Address | None) -> int:
    return int(rid) if rid is not None else 0
