"""EOS links, LLDP and BGP for health checks, from the show commands ntc-templates parses."""

from __future__ import annotations

from fabricctl.platforms.health import HealthReader, Probe, Rows, SwitchHealth, session_state

STATUS, LLDP, BGP, EVPN = (
    "show interfaces status",
    "show lldp neighbors",
    "show ip bgp summary",
    "show bgp evpn summary",
)
#: `show interfaces status` and `show lldp neighbors` print short port names.
_SHORT = (("Et", "Ethernet"), ("Ma", "Management"), ("Lo", "Loopback"), ("Vl", "Vlan"), ("Vx", "Vxlan"))


def long_name(port: str) -> str:
    for short, full in _SHORT:
        if port.startswith(short) and not port.startswith(full) and port[len(short) :][:1].isdigit():
            return full + port[len(short) :]
    return port


def parse(rows: dict[str, Rows]) -> SwitchHealth:
    health = SwitchHealth()
    for r in rows.get(STATUS, []):
        health.ports[long_name(r["port"])] = (r["status"] != "disabled", r["status"] == "connected")
    for r in rows.get(LLDP, []):
        health.lldp[long_name(r["local_interface"])] = (
            r["neighbor_name"],
            long_name(r["neighbor_interface"]),
        )
    for command in (BGP, EVPN):
        for r in rows.get(command, []):
            health.bgp[r["bgp_neigh"]] = session_state(r["state"])
    return health


HEALTH = HealthReader(probes=tuple(Probe(c) for c in (STATUS, LLDP, BGP, EVPN)), parse=parse)
