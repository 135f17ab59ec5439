"""EOS `show` commands about BGP: sessions and neighbors, the BGP tables (IPv4 and EVPN by
route type) and the BFD sessions BGP registers, from the lab's derived state (fabric_state.py:
sessions; routing.py: routes, EVPN routes, BFD). Text and eAPI JSON, as show.py.
"""

from __future__ import annotations

import re
import time
import zlib
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network
from typing import Any

from netutils.mac import is_valid_mac, mac_normalize

from fabricctl.lab.devices.eos.show_routing import _route_tables
from fabricctl.lab.devices.eos.spelling import duration
from fabricctl.lab.dialect import CliError
from fabricctl.lab.fabric_state import Session
from fabricctl.lab.routing import EvpnRoute, Route, switch_mac
from fabricctl.lab.view import Shown, View, registry
from fabricctl.macs import mac_as

SHOWS, show = registry()
_UP = 600.0  # seconds an Established session has been up (the lab's sessions come up at once)
#: EOS's defaults for a neighbor: the route limit (`maximum-routes`), BFD's timers (single hop
#: and, unless `router bfd` sets them, multihop): microseconds as eAPI gives them.
DEFAULT_MAX_ROUTES = 12000
BFD_INTERVAL_US, BFD_MULTIPLIER = 300_000, 3


@dataclass
class PeerConfig:
    """What `router bgp` says of one neighbor, its own lines over its peer group's."""

    group: str = ""
    max_routes: int = DEFAULT_MAX_ROUTES
    send_community: bool = False
    multihop: int | None = None  # ebgp-multihop TTL
    update_source: str = ""
    bfd: bool = False


def _peer_configs(view: View) -> dict[str, PeerConfig]:
    """Neighbor address -> its configuration (`neighbor GROUP ...` applies to its members)."""
    node = next((n for t, n in view.running.children.items() if t.startswith("router bgp ")), None)
    lines = [t.split() for t in (node.children if node else {}) if t.startswith("neighbor ")]
    groups: dict[str, str] = {w[1]: w[4] for w in lines if w[2:4] == ["peer", "group"] and len(w) == 5}

    def settings(name: str, into: PeerConfig) -> None:
        for w in lines:
            if w[1] != name or len(w) < 3:
                continue
            if w[2] == "maximum-routes" and len(w) >= 4 and w[3].isdigit():
                into.max_routes = int(w[3])
            elif w[2] == "send-community":
                into.send_community = True
            elif w[2] == "ebgp-multihop":
                into.multihop = int(w[3]) if len(w) >= 4 and w[3].isdigit() else 255
            elif w[2] == "update-source" and len(w) == 4:
                into.update_source = w[3]
            elif w[2] == "bfd":
                into.bfd = True

    out: dict[str, PeerConfig] = {}
    for peer in {w[1] for w in lines if w[1][:1].isdigit()}:
        conf = PeerConfig(group=groups.get(peer, ""))
        if conf.group:
            settings(conf.group, conf)
        settings(peer, conf)
        out[peer] = conf
    return out


# --- BGP --------------------------------------------------------------------------------------------


def _sessions(view: View) -> list[Session]:
    return sorted(view.state.sessions.get(view.name, {}).values(), key=lambda s: s.peer)


def _prefixes(view: View, s: Session, family: str) -> tuple[int, int]:
    """(received, sent) prefixes of an Established session in one address family."""
    if s.state != "Established" or family not in s.families:
        return 0, 0
    if family == "ipv4":
        routes = view.routing.routes(view.name).get("default", {}).values()
        received = sum(1 for r in routes if any(h.address == s.peer for h in r.hops))
        sent = sum(
            1
            for r in routes
            if (r.kind == "ebgp" and (s.remote_as not in r.as_path))
            or (r.kind == "connected" and r.prefix in view.facts.networks)
        )
        return received, sent - received if sent > received else sent
    owner = view.state._owner(s.peer)
    return view.routing.evpn_exchanged(view.name, owner[0]) if owner else (0, 0)


def _local_address(view: View, s: Session) -> str:
    port = view.state._connected_port(view.name, s.peer)
    if port is not None:
        here = view.facts.ports[port].addresses[0]
        return str(here.ip)
    return str(view.facts.router_id or "0.0.0.0")


def _bgp_vrfs(view: View) -> list[str]:
    """The VRFs `router bgp` runs in: default, then each `vrf` under it."""
    return ["default", *sorted(view.facts.rds)]


_AFI_KEY = {"ipv4": "ipv4Unicast", "evpn": "l2VpnEvpn"}


def _summary(view: View, vrfs: list[str], families: tuple[str, ...]) -> Shown:
    facts = view.facts
    rid = str(facts.router_id or "0.0.0.0")
    texts, data = [], {}
    for vrf in vrfs:
        peers: dict[str, Any] = {}
        rows = [
            f"BGP summary information for VRF {vrf}",
            f"Router identifier {rid}, local AS number {facts.asn or 0}",
            "Neighbor Status Codes: m - Under maintenance",
            "  Description              Neighbor         V AS           MsgRcvd   MsgSent  InQ OutQ  Up/Down State   PfxRcd PfxAcc",
        ]
        for s in _sessions(view) if vrf == "default" else []:
            if not set(families) & s.families:
                continue
            up = s.state == "Established"
            received = sum(_prefixes(view, s, f)[0] for f in families)
            msgs = int(_UP // 60) + 3 if up else 0
            desc = (s.description or "").replace(" ", "-")[:24]
            rows.append(
                f"  {desc:<24} {s.peer!s:<16} 4 {s.remote_as or 0:<12} {msgs:>9} {msgs:>9}"
                f"    0    0 {duration(_UP) if up else '0:00:00':>8} {'Estab' if up else s.state:<7} {received:>6} {received:>6}"
            )
            entry: dict[str, Any] = {
                "description": s.description,
                "version": 4,
                "msgReceived": msgs,
                "msgSent": msgs,
                "inMsgQueue": 0,
                "outMsgQueue": 0,
                "asn": str(s.remote_as or 0),
                "peerAsn": str(s.remote_as or 0),
                "prefixAccepted": received,
                "prefixReceived": received,
                "upDownTime": view.calendar - _UP,
                "underMaintenance": False,
                "peerState": "Established" if up else s.state,
            }
            for family in s.families:
                got = _prefixes(view, s, family)[0]
                entry[_AFI_KEY[family]] = {
                    "afiSafiState": "negotiated" if up else "configured",
                    "nlrisReceived": got,
                    "nlrisAccepted": got,
                }
            peers[str(s.peer)] = entry
        texts.append("\n".join(rows))
        data[vrf] = {"routerId": rid, "asn": str(facts.asn or 0), "vrf": vrf, "peers": peers}
    return "\n\n".join(texts), {"vrfs": data}


def _vrf_arg(view: View, vrf: str | None) -> list[str]:
    if vrf is None:
        return ["default"]
    if vrf == "all":
        return _bgp_vrfs(view)
    if vrf not in _bgp_vrfs(view):
        raise CliError(f"% BGP is not configured for VRF {vrf}", eapi=f"BGP is not configured for VRF {vrf}")
    return [vrf]


@show(r"show (?:ip bgp|bgp ipv4 unicast) summary(?: vrf (?P<vrf>\S+))?")
def ip_bgp_summary(view: View, m: re.Match[str]) -> Shown:
    return _summary(view, _vrf_arg(view, m["vrf"]), ("ipv4",))


@show(r"show bgp evpn summary(?: vrf (?P<vrf>\S+))?")
def evpn_summary(view: View, m: re.Match[str]) -> Shown:
    return _summary(view, _vrf_arg(view, m["vrf"]), ("evpn",))


@show(r"show bgp summary(?: vrf (?P<vrf>\S+))?")
def bgp_summary(view: View, m: re.Match[str]) -> Shown:
    """Every address family (what ANTA's VerifyBGPPeerCount reads)."""
    return _summary(view, _vrf_arg(view, m["vrf"]), ("ipv4", "evpn"))


@show(r"show ipv6 bgp (?P<what>summary|peers)(?: vrf (?P<vrf>\S+))?")
def ipv6_bgp(view: View, m: re.Match[str]) -> Shown:
    """No IPv6 sessions in this fabric: the VRFs with no peers, as EOS prints them."""
    vrfs = _vrf_arg(view, m["vrf"])
    rid = str(view.facts.router_id or "0.0.0.0")
    if m["what"] == "peers":
        return "", {"vrfs": {v: {"peerList": []} for v in vrfs}}
    text = "\n\n".join(
        f"BGP summary information for VRF {v}\nRouter identifier {rid}, local AS number {view.facts.asn or 0}\n"
        "Neighbor Status Codes: m - Under maintenance\n"
        "  Neighbor         V AS           MsgRcvd   MsgSent  InQ OutQ  Up/Down State   PfxRcd PfxAcc"
        for v in vrfs
    )
    data = {v: {"routerId": rid, "asn": str(view.facts.asn or 0), "vrf": v, "peers": {}} for v in vrfs}
    return text, {"vrfs": data}


# long: a field table: every key EOS's eAPI prints for one BGP neighbor, in its order
def _neighbor(view: View, s: Session, conf: PeerConfig) -> tuple[str, dict[str, Any]]:
    facts = view.facts
    up = s.state == "Established"
    v4 = _prefixes(view, s, "ipv4")
    evpn = _prefixes(view, s, "evpn")
    local = _local_address(view, s)
    direct = view.state._connected_port(view.name, s.peer) is not None
    ttl = conf.multihop or 1
    msgs = int(_UP // 60) + 3 if up else 0
    caps = {_AFI_KEY[f]: {"advertised": True, "received": up, "enabled": up} for f in sorted(s.families)}
    cap = {"advertised": True, "received": up, "enabled": up}
    communities = dict.fromkeys(("standard", "extended", "large"), conf.send_community)
    entry: dict[str, Any] = {
        "peerAddress": str(s.peer),
        "localAsn": str(facts.asn or 0),
        "asn": str(s.remote_as or 0),
        "routerId": str(s.peer_router_id or "0.0.0.0"),
        "localRouterId": str(facts.router_id or "0.0.0.0"),
        "vrf": "default",
        "state": s.state,
        "description": s.description,
        "prefixesReceived": v4[0],
        "prefixesSent": v4[1],
        "v6PrefixesReceived": 0,
        "v6PrefixesSent": 0,
        "establishedTime": _UP if up else 0,
        "establishedTransitions": 1 if up else 0,
        "holdTime": 180,
        "keepaliveTime": 60,
        "configuredHoldTime": 180,
        "configuredKeepaliveTime": 60,
        "ttl": ttl,
        "maxTtlHops": ttl,
        "updateSource": conf.update_source,
        "localIp": local,
        "peerTcpInfo": {
            "state": "ESTABLISHED" if up else "CLOSED",
            "inputQueueLength": 0,
            "outputQueueLength": 0,
        },
        "neighborCapabilities": {
            "multiprotocolCaps": caps,
            "fourOctetAsnCap": cap,
            "routeRefreshCap": cap,
            "enhancedRouteRefreshCap": cap,
            "sendEorMessages": caps,
        },
        "peerGroupName": conf.group,
        "maxTotalRoutes": conf.max_routes,
        "advertisedCommunities": communities,
        "bfdState": ("up" if _bfd_up(view, s.peer) else "down") if conf.bfd else "disabled",
        "dropStats": {
            "inDropAsloop": 0,
            "inDropClusterIdLoop": 0,
            "inDropMalformedMpbgp": 0,
            "inDropOrigId": 0,
            "inDropNhLocal": 0,
            "inDropNhAfV6": 0,
            "prefixDroppedMartianV4": 0,
            "prefixDroppedMaxRouteLimitViolatedV4": 0,
            "prefixDroppedMartianV6": 0,
            "prefixDroppedMaxRouteLimitViolatedV6": 0,
            "prefixLuDroppedV4": 0,
            "prefixLuDroppedV6": 0,
            "prefixEvpnDroppedUnsupportedRouteType": 0,
            "prefixBgpLsDroppedReceptionUnsupported": 0,
            "outDropV4LocalAddr": 0,
            "outDropV6LocalAddr": 0,
            "prefixVpnIpv4DroppedImportMatchFailure": 0,
            "prefixVpnIpv4DroppedMaxRouteLimitViolated": 0,
            "prefixVpnIpv6DroppedImportMatchFailure": 0,
            "prefixVpnIpv6DroppedMaxRouteLimitViolated": 0,
            "prefixEvpnDroppedImportMatchFailure": 0,
            "prefixEvpnDroppedMaxRouteLimitViolated": 0,
            "prefixRtMembershipDroppedLocalAsReject": 0,
            "prefixRtMembershipDroppedMaxRouteLimitViolated": 0,
        },
        "peerInUpdateErrors": {
            "inUpdErrWithdraw": 0,
            "inUpdErrIgnore": 0,
            "inUpdErrDisableAfiSafi": 0,
            "disabledAfiSafi": "None",
            "lastUpdErrTime": 0,
        },
        "statsSent": {
            "opens": 1 if up else 0,
            "updates": 2 if up else 0,
            "keepalives": msgs,
            "notifications": 0,
        },
        "statsReceived": {
            "opens": 1 if up else 0,
            "updates": 2 if up else 0,
            "keepalives": msgs,
            "notifications": 0,
        },
    }
    if not up:
        entry["idleReason"] = s.reason
    families = {"ipv4": "IPv4 Unicast", "evpn": "L2VPN EVPN"}
    lines = [
        f"BGP neighbor is {s.peer}, remote AS {s.remote_as or 0}, external link",
        *([f"  Description: {s.description}"] if s.description else []),
        *([f"  Member of peer-group {conf.group}"] if conf.group else []),
        f"  BGP version 4, remote router ID {s.peer_router_id or '0.0.0.0'}, VRF default",
        "  Negotiated BGP version 4",
        "  Last read 00:00:06, last write 00:00:06",
        "  Hold time is 180, keepalive interval is 60 seconds",
        "  Configured hold time is 180, keepalive interval is 60 seconds",
        "  Connect timer is inactive",
        f"  BGP state is {s.state}, up for {duration(_UP)}" if up else f"  BGP state is {s.state}",
        f"  Number of transitions to established: {1 if up else 0}",
        "  Last state was OpenConfirm" if up else "  Last state was Connect",
        "  Last event was RecvKeepAlive" if up else "  Last event was ConnectRetryTimerExpires",
        *([f"  Last idle reason: {s.reason}"] if not up else []),
        "  Neighbor Capabilities:",
        *[
            f"    Multiprotocol {families[f]}: advertised{' and received and negotiated' if up else ''}"
            for f in sorted(s.families)
        ],
        f"    Four Octet ASN: advertised{' and received' if up else ''}",
        f"    Route Refresh: advertised{' and received and negotiated' if up else ''}",
        f"    Enhanced route refresh: advertised{' and received and negotiated' if up else ''}",
        "  Message statistics:",
        "    InQ depth is 0",
        "    OutQ depth is 0",
        "                         Sent      Rcvd",
        f"    Opens:             {1 if up else 0:>6}    {1 if up else 0:>6}",
        f"    Updates:           {2 if up else 0:>6}    {2 if up else 0:>6}",
        f"    Keepalives:        {msgs:>6}    {msgs:>6}",
        f"    Total messages:    {msgs + 3 if up else 0:>6}    {msgs + 3 if up else 0:>6}",
        "  Prefix statistics:",
        "                         Sent      Rcvd",
        f"    IPv4 Unicast:      {v4[1]:>6}    {v4[0]:>6}",
        "    IPv6 Unicast:           0         0",
        f"    L2VPN EVPN:        {evpn[1]:>6}    {evpn[0]:>6}",
        f"  Maximum total number of routes is {conf.max_routes or 'unlimited'}",
        *(["  Send-community is enabled: standard, extended, large"] if conf.send_community else []),
        *([f"  BFD is enabled and state is {'Up' if _bfd_up(view, s.peer) else 'Down'}"] if conf.bfd else []),
        f"Local AS is {facts.asn or 0}, local router ID {facts.router_id or '0.0.0.0'}",
        f"TTL is {ttl}{'' if direct else f', BGP neighbor may be up to {ttl} hops away'}",
        f"Local TCP address is {local}, local port is 179",
        f"Remote TCP address is {s.peer}, remote port is 49152",
        "",
    ]
    return "\n".join(lines), entry


@show(r"show (?:ip )?bgp neighbors(?: (?P<peer>\d+\.\d+\.\d+\.\d+))?(?: vrf (?P<vrf>\S+))?")
def bgp_neighbors(view: View, m: re.Match[str]) -> Shown:
    vrfs = _vrf_arg(view, m["vrf"])
    texts: list[str] = []
    data: dict[str, dict[str, list[dict[str, Any]]]] = {v: {"peerList": []} for v in vrfs}
    configs = _peer_configs(view)
    for s in _sessions(view) if "default" in vrfs else []:
        if m["peer"] and str(s.peer) != m["peer"]:
            continue
        text, entry = _neighbor(view, s, configs.get(str(s.peer), PeerConfig()))
        texts.append(text)
        data["default"]["peerList"].append(entry)
    return "\n".join(texts), {"vrfs": data}


#: The table's legend and columns, as real EOS output shows them (ntc-templates' arista_eos
#: `show ip bgp` captures, tests/captures).
_HEADER = [
    "Route status codes: s - suppressed, * - valid, > - active, # - not installed, E - ECMP head, e - ECMP",
    "                    S - Stale, c - Contributing to ECMP, b - backup, L - labeled-unicast",
    "Origin codes: i - IGP, e - EGP, ? - incomplete",
    "AS Path Attributes: Or-ID - Originator ID, C-LST - Cluster List, LL Nexthop - Link Local Nexthop",
    "",
    "         Network                Next Hop            Metric  LocPref Weight  Path",
]


def _route_type(active: bool, ecmp: bool) -> dict[str, Any]:
    return {
        "active": active,
        "valid": True,
        "ecmpHead": active and ecmp,
        "ecmp": ecmp,
        "ecmpContributor": ecmp,
        "atomicAggregator": False,
        "suppressed": False,
        "queued": False,
        "backup": False,
        "stale": False,
        "origin": "Igp",
    }


def _path(
    hop: str, peer_rid: str, as_path: str, active: bool, ecmp: bool, local: bool = False
) -> dict[str, Any]:
    return {
        "nextHop": hop,
        "asPathEntry": {"asPath": as_path, "asPathType": "Local" if local else "External"},
        "importedRoute": False,
        "routeType": _route_type(active, ecmp),
        "localPreference": 100,
        "med": 0,
        "weight": 0,
        "peerEntry": {"peerAddr": hop, "peerRouterId": peer_rid},
        "routeDetail": {"origin": "Igp", "communityList": [], "extCommunityList": []},
        "reasonNotBestpath": "" if active else "ecmpPath",
    }


def _paths(view: View, vrf: str, r: Route) -> tuple[list[dict[str, Any]], list[str]] | None:
    """The BGP paths of one route (one per ECMP next hop, the first best) and their table rows;
    None when BGP does not carry the route."""
    facts = view.facts
    own = r.kind == "connected" and (r.prefix in facts.networks or vrf in facts.redistributed)
    if r.kind not in ("ebgp", "evpn") and not own:
        return None
    if own:
        path = _path("0.0.0.0", str(facts.router_id or "0.0.0.0"), "i", True, False, local=True)
        return [path], [f" {'*>':<8} {r.prefix!s:<22} {'-':<19} {'-':<7} {'-':<7} {0:<7} i"]
    peers = {s.peer: s for s in _sessions(view)}
    paths, rows = [], []
    for i, h in enumerate(r.hops):
        hop = h.vtep if h.vtep is not None else h.address
        session = peers.get(hop) if h.vtep is None and hop is not None else None
        as_path = " ".join(str(a) for a in r.as_path) + " i"
        rid = str(session.peer_router_id if session else hop)
        paths.append(_path(str(hop), rid, as_path, i == 0, len(r.hops) > 1))
        code = ("*>E" if len(r.hops) > 1 else "*>") if i == 0 else "*ec"
        rows.append(f" {code:<8} {r.prefix!s:<22} {hop!s:<19} {0:<7} {100:<7} {0:<7} {as_path}")
    return paths, rows


def _table(
    view: View, vrf: str, routes: dict[IPv4Network, Route], keep: Any = None
) -> tuple[list[str], dict[str, Any]]:
    """`show ip bgp` rows and entries of one VRF; `keep(route, paths)` filters the paths shown."""
    facts = view.facts
    rows = [
        f"BGP routing table information for VRF {vrf}",
        f"Router identifier {facts.router_id or '0.0.0.0'}, local AS number {facts.asn or 0}",
        *_HEADER,
    ]
    entries: dict[str, Any] = {}
    for prefix, r in sorted(routes.items(), key=lambda x: (int(x[0].network_address), x[0].prefixlen)):
        found = _paths(view, vrf, r)
        if found is None:
            continue
        paths, lines = found
        if keep is not None:
            picked = [(p, ln) for p, ln in zip(paths, lines, strict=True) if keep(r, p)]
            if not picked:
                continue
            paths, lines = [p for p, _ in picked], [ln for _, ln in picked]
        rows += lines
        entries[str(prefix)] = {
            "address": str(prefix.network_address),
            "maskLength": prefix.prefixlen,
            "totalPaths": len(paths),
            "bgpRoutePaths": paths,
        }
    return rows, {
        "routerId": str(facts.router_id or "0.0.0.0"),
        "asn": str(facts.asn or 0),
        "vrf": vrf,
        "bgpRouteEntries": entries,
    }


@show(
    r"show ip bgp(?: (?P<prefix>\d+\.\d+\.\d+\.\d+(?:/\d+)?))?(?: (?P<longer>longer-prefixes))?"
    r"(?: vrf (?P<vrf>\S+))?(?: (?P<detail>detail))?"
)
def ip_bgp(view: View, m: re.Match[str]) -> Shown:
    """The BGP table: every path to each prefix (one per ECMP next hop), the best marked; what
    NAPALM's get_route_to and ANTA's route tests read. `detail` prints each path's attributes."""
    texts, data = [], {}
    for vrf in _vrf_arg(view, m["vrf"]):
        routes = view.routing.routes(view.name).get(vrf, {})
        if m["prefix"]:
            routes = _route_tables(view, [vrf], m["prefix"], None)[vrf]
        rows, data[vrf] = _table(view, vrf, routes)
        if m["detail"]:
            rows = rows[:2] + _detail_rows(data[vrf]["bgpRouteEntries"])
        texts.append("\n".join(rows))
    return "\n\n".join(texts), {"vrfs": data}


def _detail_rows(entries: dict[str, Any]) -> list[str]:
    """`show ip bgp detail`: per prefix its paths and their attributes, in the layout of real EOS
    output (ntc-templates' arista_eos `show ip bgp detail` captures)."""
    rows = []
    for prefix, entry in entries.items():
        paths = entry["bgpRoutePaths"]
        rows.append(f"BGP routing table entry for {prefix}")
        rows.append(f" Paths: {len(paths)} available")
        for p in paths:
            local = p["asPathEntry"]["asPathType"] == "Local"
            kind = "best" if p["routeType"]["active"] else "ECMP, ECMP contributor"
            rid = p["peerEntry"]["peerRouterId"]
            rows += [
                "  Local" if local else f"  {p['asPathEntry']['asPath'].removesuffix(' i')}",
                f"    - from - ({rid})"
                if local
                else f"    {p['nextHop']} from {p['peerEntry']['peerAddr']} ({rid})",
                f"      Origin IGP, metric 0, localpref 100, IGP metric 0, weight 0, received {duration(_UP)} ago, "
                f"valid, {'local' if local else 'external'}, {kind}",
                "      Rx SAFI: Unicast",
            ]
    return rows


@show(
    r"show (?:ip )?bgp neighbors (?P<peer>\d+\.\d+\.\d+\.\d+) (?P<what>advertised-routes|routes|received-routes)"
    r"(?: vrf (?P<vrf>\S+))?"
)
def neighbor_routes(view: View, m: re.Match[str]) -> Shown:
    """The routes exchanged with one peer: received (its paths, `routes`) or advertised (the best
    path of every route BGP carries that the peer's AS is not already on: own networks, and
    what the other peers taught)."""
    vrf = _vrf_arg(view, m["vrf"])[0]
    session = next((s for s in _sessions(view) if str(s.peer) == m["peer"]), None)
    if session is None or vrf != "default":
        raise CliError(f"% No such neighbor {m['peer']}", eapi=f"No such neighbor {m['peer']}", code=1000)
    routes = view.routing.routes(view.name).get(vrf, {})
    up = session.state == "Established" and "ipv4" in session.families

    def received(r: Route, p: dict[str, Any]) -> bool:
        return up and p["nextHop"] == m["peer"]

    def advertised(r: Route, p: dict[str, Any]) -> bool:
        own = p["asPathEntry"]["asPathType"] == "Local"
        return up and p["routeType"]["active"] and (own or session.remote_as not in r.as_path)

    rows, data = _table(view, vrf, routes, advertised if m["what"] == "advertised-routes" else received)
    if m["what"] == "advertised-routes":
        for entry in data["bgpRouteEntries"].values():  # as sent: this switch is the next hop
            for p in entry["bgpRoutePaths"]:
                p["nextHop"] = _local_address(view, session)
    return "\n".join(rows), {"vrfs": {vrf: data}}


@show(r"show bgp instance(?: vrf (?P<vrf>\S+))?")
def instance(view: View, m: re.Match[str]) -> Shown:
    """BGP's per-VRF settings: what each VRF redistributes (tenant VRFs: their connected subnets)."""
    facts = view.facts
    data, rows = {}, []
    for vrf in _vrf_arg(view, m["vrf"]):
        redistributed = [{"proto": "Connected"}] if vrf in facts.redistributed else []
        data[vrf] = {
            "vrf": vrf,
            "localAs": str(facts.asn or 0),
            "routerId": str(facts.router_id or "0.0.0.0"),
            "afiSafiConfig": {"v4u": {"redistributedRoutes": redistributed}} if redistributed else {},
        }
        rows += [
            f"BGP instance information for VRF {vrf}",
            f"BGP Local AS: {facts.asn or 0}, Router ID: {facts.router_id or '0.0.0.0'}",
            *(["IPv4 Unicast: Redistributed routes: Connected"] if redistributed else []),
            "",
        ]
    return "\n".join(rows).rstrip("\n"), {"vrfs": data}


# --- EVPN ------------------------------------------------------------------------------------------

_NLRI = {2: "mac-ip", 3: "imet", 5: "ip-prefix"}
_TYPE_WORD = {"mac-ip": 2, "imet": 3, "ip-prefix": 5, "auto-discovery": 1, "ethernet-segment": 4}


def _evpn_key(r: EvpnRoute) -> str:
    if r.kind == 2:
        return f"RD: {r.rd} mac-ip {mac_as(r.mac or '', 'MAC_DOT_FOUR')}{f' {r.ip}' if r.ip else ''}"
    if r.kind == 3:
        return f"RD: {r.rd} imet {r.vtep}"
    return f"RD: {r.rd} ip-prefix {r.prefix}"


def _evpn_path(view: View, r: EvpnRoute, hop_rid: str, as_path: str, active: bool) -> dict[str, Any]:
    mine = r.origin == view.name
    communities = [f"Route-Target-AS:{rt}" for rt in r.route_targets] + ["TunnelEncap:tunnelTypeVxlan"]
    if r.kind == 5 or (r.kind == 2 and r.ip is not None):
        communities.append(f"EvpnRouterMac:{switch_mac(view.state, r.origin)}")
    return {
        "nextHop": "" if mine else str(r.vtep),
        "asPathEntry": {"asPath": as_path, "asPathType": "Local" if mine else "External"},
        "importedEvpnRoute": False,
        "routeType": {
            "active": active,
            "valid": True,
            "ecmp": False,
            "ecmpHead": False,
            "ecmpContributor": False,
            "origin": "Igp",
            "stale": False,
        },
        "peerEntry": {"peerAddr": "" if mine else hop_rid, "peerRouterId": hop_rid},
        "weight": 0,
        "localPreference": 100,
        "routeDetail": {
            "origin": "Igp",
            "extCommunities": communities,
            "label": r.vni,
            "tunnelEncap": "vxlan",
        },
    }


def _evpn_entries(view: View, routes: list[EvpnRoute]) -> tuple[list[str], dict[str, Any]]:
    """EVPN routes as `show bgp evpn` gives them: one entry per NLRI, one path per session that
    brought it (a leaf hears each remote route from every spine), the first best."""
    facts = view.facts
    evpn_peers = [s for s in _sessions(view) if s.state == "Established" and "evpn" in s.families]
    rows = [
        "BGP routing table information for VRF default",
        f"Router identifier {facts.router_id or '0.0.0.0'}, local AS number {facts.asn or 0}",
        "Route status codes: * - valid, > - active, S - Stale, E - ECMP head, e - ECMP",
        "                    c - Contributing to ECMP, % - Pending best path selection",
        "Origin codes: i - IGP, e - EGP, ? - incomplete",
        "AS Path Attributes: Or-ID - Originator ID, C-LST - Cluster List, LL Nexthop - Link Local Nexthop",
        "",
        "          Network                Next Hop              Metric  LocPref Weight  Path",
    ]
    entries: dict[str, Any] = {}
    origin_as = {n: f.asn for n, f in view.state.facts.items()}
    for r in routes:
        key = _evpn_key(r)
        if r.origin == view.name:
            paths = [_evpn_path(view, r, str(facts.router_id or ""), "i", True)]
        else:
            carriers = [s for s in evpn_peers if _carries(view, s, r)]
            paths = []
            for i, s in enumerate(carriers):
                hops = [s.remote_as] if s.remote_as != origin_as[r.origin] else []
                as_path = " ".join(str(a) for a in [*hops, origin_as[r.origin]]) + " i"
                paths.append(_evpn_path(view, r, str(s.peer_router_id or s.peer), as_path, i == 0))
            if not paths:
                continue
        detail: dict[str, Any] = {"rd": r.rd, "nlriType": _NLRI[r.kind], "domain": "local"}
        if r.kind == 2:
            detail |= {"mac": r.mac, "ip": str(r.ip) if r.ip else "", "etherTag": 0}
        elif r.kind == 3:
            detail |= {"ipGenAddr": str(r.vtep), "etherTag": 0}
        else:
            detail |= {"ipGenPrefix": str(r.prefix), "etherTag": 0}
        entries[key] = {"routeKeyDetail": detail, "totalPaths": len(paths), "evpnRoutePaths": paths}
        for p in paths:
            code = "* >" if p["routeType"]["active"] else "*  "
            rows.append(
                f" {code:<8} {key:<50} {p['nextHop'] or '-':<15} -       100     0       {p['asPathEntry']['asPath']}"
            )
    return rows, entries


def _carries(view: View, s: Session, r: EvpnRoute) -> bool:
    """Whether the EVPN session to `s` brings route `r`: a VTEP passes on its own routes, a
    route server (no VTEP) every route it holds."""
    owner = view.state._owner(s.peer)
    if owner is None:
        return False
    peer = owner[0]
    if peer == r.origin:
        return True
    return view.state.facts[peer].vtep is None and any(x == r for x in view.routing.evpn_routes(peer))


def _evpn_reply(view: View, routes: list[EvpnRoute]) -> Shown:
    facts = view.facts
    rows, entries = _evpn_entries(view, routes)
    data = {
        "vrf": "default",
        "routerId": str(facts.router_id or "0.0.0.0"),
        "asn": facts.asn or 0,
        "evpnRoutes": entries,
    }
    return "\n".join(rows), data


@show(r"show bgp evpn(?: (?P<detail>detail))?")
def evpn(view: View, m: re.Match[str]) -> Shown:
    return _evpn_reply(view, view.routing.evpn_routes(view.name))


@show(
    r"show bgp evpn route-type (?P<type>mac-ip|imet|ip-prefix|auto-discovery|ethernet-segment)"
    r"(?: (?P<key>(?!vni|rd|detail)\S+)(?: (?P<ip>(?!vni|rd|detail)\d+\.\d+\.\d+\.\d+))?)?"
    r"(?: rd (?P<rd>\S+))?(?: vni (?P<vni>\d+))?(?: (?P<detail>detail))?"
)
def evpn_route_type(view: View, m: re.Match[str]) -> Shown:
    """The EVPN routes of one type, narrowed to a MAC or IP (mac-ip), an address (imet), a prefix
    or address (ip-prefix), a route distinguisher or a VNI."""
    kind = _TYPE_WORD[m["type"]]
    key, ip = m["key"], m["ip"]
    picked = []
    for r in view.routing.evpn_routes(view.name):
        if r.kind != kind or (m["vni"] and r.vni != int(m["vni"])) or (m["rd"] and r.rd != m["rd"]):
            continue
        if key and not _evpn_match(r, key, ip):
            continue
        picked.append(r)
    return _evpn_reply(view, picked)


def _evpn_match(r: EvpnRoute, key: str, ip: str | None) -> bool:
    if r.kind == 2:
        if is_valid_mac(key):
            return (
                r.mac is not None
                and mac_normalize(r.mac.lower()) == mac_normalize(key.lower())
                and (ip is None or str(r.ip) == ip)
            )
        return r.ip is not None and str(r.ip) == key
    if r.kind == 3:
        return str(r.vtep) == key
    try:
        net = IPv4Network(key, strict=False)
    except ValueError:
        return False
    return r.prefix == net if "/" in key else r.prefix is not None and IPv4Address(key) in r.prefix


# --- BFD -------------------------------------------------------------------------------------------


def _bfd_up(view: View, peer: IPv4Address) -> bool:
    return any(b.up for b in view.routing.bfd(view.name) if b.peer == peer)


def _discriminator(a: str, b: str) -> int:
    """A session's local discriminator, stable per (switch, peer) and never zero."""
    return zlib.crc32(f"{a}/{b}".encode()) or 1


def _bfd_timers(view: View) -> tuple[int, int, int]:
    """Multihop interval, min-rx (microseconds) and multiplier: `router bfd` / `multihop
    interval X min-rx Y multiplier Z`, else EOS's defaults (the same as single hop)."""
    node = view.running.children.get("router bfd")
    for w in (t.split() for t in (node.children if node else {})):
        if w[:2] == ["multihop", "interval"] and len(w) == 7:
            return int(w[2]) * 1000, int(w[4]) * 1000, int(w[6])
    return BFD_INTERVAL_US, BFD_INTERVAL_US, BFD_MULTIPLIER


@show(r"show bfd peers(?: (?P<detail>detail))?(?: vrf (?P<vrf>\S+))?")
def bfd_peers(view: View, m: re.Match[str]) -> Shown:
    """The BFD sessions BGP registered: single hop over the /31 (keyed by the local interface),
    multihop between loopbacks (keyed ""), up when both ends run them over an Established
    session."""
    boot = view.calendar - view.uptime
    neighbors: dict[str, Any] = {}
    rows = [
        "VRF name: default",
        "-----------------",
        "DstAddr         MyDisc     YourDisc   Interface/Transport    Type          LastUp            LastDown  LastDiag    State",
        "--------------- ---------- ---------- ---------------------- ------------- ----------------- --------- ----------- -----",
    ]
    multihop = _bfd_timers(view)
    for b in view.routing.bfd(view.name):
        mine = _discriminator(view.name, str(b.peer))
        owner = view.state._owner(b.peer)
        yours = _discriminator(owner[0], str(b.local)) if owner and b.up else 0
        tx, rx, mult = (BFD_INTERVAL_US, BFD_INTERVAL_US, BFD_MULTIPLIER) if b.interface else multihop
        stats: dict[str, Any] = {
            "status": "up" if b.up else "down",
            "sessType": "sessionTypeNormal" if b.interface else "sessionTypeMultihop",
            "localDisc": mine,
            "remoteDisc": yours,
            "lastUp": boot + 5 if b.up else 0.0,
            "lastDown": 0.0,
            "lastDiag": "diagNone",
            "l3intf": b.interface,
            "kernelIfIndex": 0,
            "authType": "authNone",
            "authProfileName": "",
            "localIpAddr": str(b.local),
            "peerStatsDetail": {
                "role": "active",
                "apps": ["bgp"],
                "operTxInterval": tx,
                "operRxInterval": rx,
                "detectMult": mult,
                "detectTime": rx * mult,
                "localDiag": "diagNone",
                "remoteDiag": "diagNone",
                "rxCount": int(view.uptime * 1_000_000 // rx) if b.up else 0,
                "txCount": int(view.uptime * 1_000_000 // tx),
            },
        }
        if not m["detail"]:
            stats.pop("peerStatsDetail")
        neighbors[str(b.peer)] = {"peerStats": {b.interface: stats}}
        last_up = time.strftime("%m/%d/%y %H:%M", time.gmtime(boot + 5)) if b.up else "NA"
        where = f"{b.interface}" if b.interface else f"{b.local}"
        rows.append(
            f"{b.peer!s:<15} {mine:<10} {yours:<10} {where:<22} {'normal' if b.interface else 'multihop':<13} "
            f"{last_up:<17} {'NA':<9} {'No Diag':<11} {'Up' if b.up else 'Down'}"
        )
    vrfs = _vrf_arg(view, m["vrf"]) if m["vrf"] else ["default"]
    data = {v: {"ipv4Neighbors": neighbors if v == "default" else {}, "ipv6Neighbors": {}} for v in vrfs}
    return "\n".join(rows), {"vrfs": data}
