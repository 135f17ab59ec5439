"""Comware links, LLDP, BGP and VRFs for health checks, from the display commands ntc-templates
parses, and PFC pause counters from `display priority-flow-control interface` (no template)."""

from __future__ import annotations

from typing import Any

from fabricctl.platforms.comware.boot import MAX_ECMP, SHOW_MAX_ECMP, read_max_ecmp
from fabricctl.platforms.health import (
    HealthReader,
    PauseSeen,
    Probe,
    SwitchHealth,
    expand_name,
    gbps,
    next_hops,
    numbers,
    session_state,
)

#: A Comware V7 Ethernet interface's type name states its speed (H3C S9825 & S9855 'Ethernet
#: interface commands'; SHORT_NAMES above: 400GE, 200GE, 100GE).
_NAME_GBPS = {"FourHundredGigE": 400, "TwoHundredGigE": 200, "HundredGigE": 100}

BRIEF, LLDP = "display interface brief", "display lldp neighbor-information list"
BGP, EVPN = "display bgp peer ipv4", "display bgp peer l2vpn evpn"
VRF, PFC = "display ip vpn-instance", "display priority-flow-control interface"
ROUTES = "display ip routing-table"  # the public table; an ECMP route prints a row per next hop
#: The abbreviations Comware prints in `display interface brief`, `display lldp
#: neighbor-information list` and the other tables, and the names they stand for. Seen in real
#: captures (ntc-templates' hp_comware test fixtures): GE, XGE, FGE, BAGG, RAGG, Loop, InLoop,
#: NULL, REG, Vlan, M-GE. The speed-named forms of newer releases (25GE/40GE/100GE/200GE/400GE)
#: and WGE/HGE: public S9825/S98xx operator data (the Cluster_2000_A100 trace of H3C S9825
#: leaves prints `400GE1/0/8` for FourHundredGigE1/0/8); Vsi and Tun follow the same scheme.
SHORT_NAMES = {
    "GE": "GigabitEthernet",
    "XGE": "Ten-GigabitEthernet",
    "WGE": "Twenty-FiveGigE",
    "25GE": "Twenty-FiveGigE",
    "FGE": "FortyGigE",
    "40GE": "FortyGigE",
    "HGE": "HundredGigE",
    "100GE": "HundredGigE",
    "200GE": "TwoHundredGigE",
    "400GE": "FourHundredGigE",
    "M-GE": "M-GigabitEthernet",
    "MGE": "M-GigabitEthernet",
    "BAGG": "Bridge-Aggregation",
    "RAGG": "Route-Aggregation",
    "Loop": "LoopBack",
    "InLoop": "InLoopBack",
    "Vlan": "Vlan-interface",
    "Vsi": "Vsi-interface",
    "Tun": "Tunnel",
    "REG": "Register-Tunnel",
}


def long_name(port: str) -> str:
    return expand_name(port, SHORT_NAMES)


#: ntc-templates indexes only `display bgp peer ipv4`; the EVPN table has the same layout.
_BGP_TEMPLATE = "hp_comware_display_bgp_peer_ipv4.textfsm"


def pauses(text: str) -> dict[str, PauseSeen]:
    """Rows of PFC-enabled ports: name, AdminMode, OperMode, [Dot1pList], Prio, Recv, Send, Inpps,
    Outpps (H3C S9825 R913x PFC command reference, display priority-flow-control)."""
    out: dict[str, PauseSeen] = {}
    for line in text.splitlines():
        words = line.split()
        if len(words) < 7 or words[1] != "Enabled":
            continue
        counts = numbers(words[-4:])
        if len(counts) == 4:
            port = long_name(words[0])
            old = out.get(port, PauseSeen(0, 0, 0, 0))
            out[port] = PauseSeen(
                max(old.received, counts[0]),
                max(old.sent, counts[1]),
                max(old.received_pps or 0, counts[2]),
                max(old.sent_pps or 0, counts[3]),
            )
    return out


def pauses_by_priority(text: str) -> dict[str, dict[int | None, tuple[int, int]]]:
    """The same rows as `pauses`, per no-drop priority: port -> Prio -> (Recv, Send)."""
    out: dict[str, dict[int | None, tuple[int, int]]] = {}
    for line in text.splitlines():
        words = line.split()
        if len(words) < 7 or words[1] != "Enabled":
            continue
        counts = numbers(words[-5:])
        if len(counts) == 5:
            out.setdefault(long_name(words[0]), {})[counts[0]] = (counts[1], counts[2])
    return out


def parse(rows: dict[str, Any]) -> SwitchHealth:
    health = SwitchHealth()
    health.speeds = {}
    for r in rows.get(BRIEF, []):
        port = long_name(r["interface"])
        health.ports[port] = (r["link"] != "ADM", r["link"] == "UP")
        # Bridged ports print a speed; a routed port's speed is its type name (FourHundredGigE).
        speed = gbps(r.get("speed") or "") or _NAME_GBPS.get(port.rstrip("0123456789/:"))
        if speed is not None:
            health.speeds[port] = speed
    for r in rows.get(LLDP, []):
        health.lldp[long_name(r["local_interface"])] = (
            r["neighbor_name"],
            long_name(r["neighbor_interface"]),
        )
    for command in (BGP, EVPN):
        for r in rows.get(command, []):
            health.bgp[r["peer"]] = session_state(r["state"])
    if VRF in rows:
        health.vrfs = {r["name"] for r in rows[VRF]}
    if isinstance(rows.get(PFC), str):
        health.pauses = pauses(rows[PFC])
    if ROUTES in rows:
        health.routes = next_hops(rows[ROUTES], lambda r: 1)
    if isinstance(rows.get(SHOW_MAX_ECMP), str):
        cap = read_max_ecmp(rows[SHOW_MAX_ECMP])
        health.boot = {MAX_ECMP.name: cap} if cap is not None else {}
    return health


HEALTH = HealthReader(
    probes=(
        Probe(BRIEF),
        Probe(LLDP),
        Probe(BGP),
        Probe(EVPN, template=_BGP_TEMPLATE),
        Probe(VRF),
        Probe(PFC, text=True),
        Probe(ROUTES),
        Probe(SHOW_MAX_ECMP, text=True),
    ),
    parse=parse,
    sessions=(BGP, EVPN),
)
