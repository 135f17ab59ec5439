"""EOS links, LLDP, BGP (show commands ntc-templates parses), VXLAN (EOS JSON) and PFC pause
counters (`show priority-flow-control counters` text, which no template parses) for health checks."""

from __future__ import annotations

from typing import Any

from fabricctl.platforms.eos.boot import ROUTING_MODEL, SHOW_ROUTE_SUMMARY, read_routing_model
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

STATUS, LLDP, BGP, EVPN = (
    "show interfaces status",
    "show lldp neighbors",
    "show ip bgp summary",
    "show bgp evpn summary",
)
VNI, VTEP = "show vxlan vni", "show vxlan vtep"  # JSON, the shapes ANTA's VerifyVxlan* tests read
PFC = "show priority-flow-control counters"
ROUTES = "show ip route"  # the default VRF; an ECMP route lists each `via` (ntc-templates next_hop)
#: `show interfaces status`, `show lldp neighbors` and the other tables print short port names
#: (ntc-templates' arista_eos captures: Et, Ma, Po, Lo, Vl, Vx).
SHORT_NAMES = {
    "Et": "Ethernet",
    "Ma": "Management",
    "Po": "Port-Channel",
    "Lo": "Loopback",
    "Vl": "Vlan",
    "Vx": "Vxlan",
}


def long_name(port: str) -> str:
    return expand_name(port, SHORT_NAMES)


def _bgp_state(row: dict[str, str]) -> str:
    """The session state of a summary row. EOS releases that print one `State/PfxRcd` column
    show the prefix count there once the session is Established (ntc-templates' capture
    arista_eos_show_ip_bgp_summary.raw), so a bare number means Established."""
    if not row["state"] and row.get("state_pfxrcd", "").isdigit():
        return "Established"
    return session_state(row["state"])


def pauses(text: str) -> dict[str, PauseSeen]:
    """`Port RxPfc TxPfc` rows: pause frames received and sent since the counters were cleared."""
    out = {}
    for line in text.splitlines():
        words = line.split()
        if len(words) == 3 and len(counts := numbers(words[1:])) == 2:
            out[long_name(words[0])] = PauseSeen(counts[0], counts[1])
    return out


def parse(rows: dict[str, Any]) -> SwitchHealth:
    health = SwitchHealth()
    health.speeds = {}
    for r in rows.get(STATUS, []):
        port = long_name(r["port"])
        health.ports[port] = (r["status"] != "disabled", r["status"] == "connected")
        speed = gbps(r.get("speed") or "")
        if speed is not None:
            health.speeds[port] = speed
    for r in rows.get(LLDP, []):
        health.lldp[long_name(r["local_interface"])] = (
            r["neighbor_name"],
            long_name(r["neighbor_interface"]),
        )
    for command in (BGP, EVPN):
        for r in rows.get(command, []):
            health.bgp[r["bgp_neigh"]] = _bgp_state(r)
    vxlan = rows.get(VNI, {}).get("vxlanIntfs", {}).get("Vxlan1")
    if vxlan is not None:
        health.vnis = {int(v) for v in (*vxlan.get("vniBindings", {}), *vxlan.get("vniBindingsToVrf", {}))}
        health.remote_vteps = set(rows.get(VTEP, {}).get("interfaces", {}).get("Vxlan1", {}).get("vteps", []))
    if isinstance(rows.get(PFC), str):
        health.pauses = pauses(rows[PFC])
    if ROUTES in rows:
        health.routes = next_hops(rows[ROUTES], lambda r: len(r["next_hop"]))
    if SHOW_ROUTE_SUMMARY in rows:
        model = read_routing_model(rows[SHOW_ROUTE_SUMMARY])
        health.boot = {ROUTING_MODEL.name: model} if model is not None else {}
    return health


HEALTH = HealthReader(
    probes=(
        *(Probe(c) for c in (STATUS, LLDP, BGP, EVPN)),
        Probe(VNI, json_command=f"{VNI} | json"),
        Probe(VTEP, json_command=f"{VTEP} | json"),
        Probe(PFC, text=True),
        Probe(ROUTES),
        Probe(SHOW_ROUTE_SUMMARY, json_command=f"{SHOW_ROUTE_SUMMARY} | json"),
    ),
    parse=parse,
    sessions=(BGP, EVPN),
)
