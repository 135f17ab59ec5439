"""SONiC links, LLDP and BGP for health checks, from sonic-utilities' `show` commands (tables:
tables.py) and FRR's own JSON through `vtysh` (the layouts as sonic-utilities' tests and command
reference print them: tests/captures/sonic/):

- `show interfaces status` (intfutil): per port `Interface`, `Speed` (`40G`, `100M`), `Oper` and
  `Admin` (`up`, `down`, `N/A`). Port channels are not front-panel ports and are left out.
- `show lldp table`: `LocalPort`, `RemoteDevice`, `RemotePortID` (the management port `eth0` is
  not a fabric port and is left out).
- `vtysh -c "show bgp summary json"`: FRR's summary, an object per address family
  (`ipv4Unicast`, `l2VpnEvpn`) with `peers` -> `state` (sonic-utilities' `show ip bgp summary`
  reads the same object: tests/mock_tables/ipv4_bgp_summary.json).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fabricctl.platforms.health import HealthReader, Probe, SwitchHealth, gbps, session_state
from fabricctl.platforms.sonic.switch import port_position
from fabricctl.platforms.sonic.tables import TableError, text_tables

STATUS = "show interfaces status"
LLDP = "show lldp table"
BGP = 'vtysh -c "show bgp summary json"'


def _rows(text: Any, command: str) -> list[dict[str, str]]:
    if not isinstance(text, str):
        return []
    try:
        return text_tables(text, command)[0]
    except TableError:
        return []


def ports(text: Any) -> tuple[dict[str, tuple[bool, bool]], dict[str, int]]:
    states: dict[str, tuple[bool, bool]] = {}
    speeds: dict[str, int] = {}
    for row in _rows(text, STATUS):
        name = row.get("Interface", "")
        if port_position(name, 8) is None:
            continue
        states[name] = (row.get("Admin") == "up", row.get("Oper") == "up")
        speed = gbps(row.get("Speed", ""))
        if speed is not None:
            speeds[name] = speed
    return states, speeds


def neighbors(text: Any) -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for row in _rows(text, LLDP):
        local, device, port = (
            row.get("LocalPort", ""),
            row.get("RemoteDevice", ""),
            row.get("RemotePortID", ""),
        )
        if port_position(local, 8) is not None and device and port:
            out[local] = (device, port)
    return out


def sessions(answer: Any) -> dict[str, str]:
    out: dict[str, str] = {}
    families = answer if isinstance(answer, Mapping) else {}
    for family in families.values():
        peers = family.get("peers") if isinstance(family, Mapping) else None
        for peer, body in (peers if isinstance(peers, Mapping) else {}).items():
            state = body.get("state") if isinstance(body, Mapping) else None
            if state:
                out[peer] = session_state(str(state))
    return out


def parse(rows: dict[str, Any]) -> SwitchHealth:
    health = SwitchHealth()
    health.ports, health.speeds = ports(rows.get(STATUS))
    health.lldp = neighbors(rows.get(LLDP))
    health.bgp = sessions(rows.get(BGP))
    return health


HEALTH = HealthReader(
    probes=(Probe(STATUS, text=True), Probe(LLDP, text=True), Probe(BGP, json_command=BGP)),
    parse=parse,
    sessions=(BGP,),
)
