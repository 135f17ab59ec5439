"""Comware links, LLDP and BGP for health checks, from the display commands ntc-templates parses."""

from __future__ import annotations

from fabricctl.platforms.health import HealthReader, Probe, Rows, SwitchHealth, session_state

BRIEF, LLDP = "display interface brief", "display lldp neighbor-information list"
BGP, EVPN = "display bgp peer ipv4", "display bgp peer l2vpn evpn"
#: ntc-templates indexes only `display bgp peer ipv4`; the EVPN table has the same layout.
_BGP_TEMPLATE = "hp_comware_display_bgp_peer_ipv4.textfsm"


def parse(rows: dict[str, Rows]) -> SwitchHealth:
    health = SwitchHealth()
    for r in rows.get(BRIEF, []):
        health.ports[r["interface"]] = (r["link"] != "ADM", r["link"] == "UP")
    for r in rows.get(LLDP, []):
        health.lldp[r["local_interface"]] = (r["neighbor_name"], r["neighbor_interface"])
    for command in (BGP, EVPN):
        for r in rows.get(command, []):
            health.bgp[r["peer"]] = session_state(r["state"])
    return health


HEALTH = HealthReader(
    probes=(Probe(BRIEF), Probe(LLDP), Probe(BGP), Probe(EVPN, template=_BGP_TEMPLATE)),
    parse=parse,
)
