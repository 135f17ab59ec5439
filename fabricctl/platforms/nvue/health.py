"""NVUE links, LLDP and BGP for health checks, from NVUE's own JSON (`nv show ... -o json`: the
same objects the NVUE REST API returns, keyed by interface or peer)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fabricctl.platforms.health import HealthReader, Probe, SwitchHealth, gbps, session_state

INTERFACES = "nv show interface"
LLDP = "nv show interface lldp-detail"
BGP = "nv show vrf default router bgp neighbor"


def _objects(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def ports(answer: Any) -> tuple[dict[str, tuple[bool, bool]], dict[str, int]]:
    """(port -> (admin up, link up), port -> Gbps) for the switch ports of `nv show interface -o
    json`: each interface's `link` has `admin-status`, `oper-status` and `speed` ("800G")."""
    states: dict[str, tuple[bool, bool]] = {}
    speeds: dict[str, int] = {}
    for name, body in _objects(answer).items():
        body = _objects(body)
        if body.get("type") != "swp":
            continue
        link = _objects(body.get("link"))
        states[name] = (link.get("admin-status") == "up", link.get("oper-status") == "up")
        speed = gbps(str(link.get("speed") or ""))
        if speed is not None:
            speeds[name] = speed
    return states, speeds


def neighbors(answer: Any) -> dict[str, tuple[str, str]]:
    """Local port -> (neighbor system name, its port) from `nv show interface lldp-detail -o
    json`: per port, `lldp.neighbor.<id>` with `chassis.system-name` and `port.name` (the object
    `nv show interface swp51 lldp neighbor spine01` prints: NVUE Command Reference 5.17, Show
    Commands > LLDP)."""
    out: dict[str, tuple[str, str]] = {}
    for name, body in _objects(answer).items():
        for neighbor in _objects(_objects(_objects(body).get("lldp")).get("neighbor")).values():
            neighbor = _objects(neighbor)
            system = _objects(neighbor.get("chassis")).get("system-name")
            port = _objects(neighbor.get("port")).get("name")
            if system and port:
                out[name] = (str(system), str(port))
    return out


def sessions(answer: Any) -> dict[str, str]:
    """Peer -> session state from `nv show vrf default router bgp neighbor -o json` (`state`:
    `established`, `idle`, `active`, ...), spelled as the other platforms' readers spell it."""
    out = {}
    for peer, body in _objects(answer).items():
        state = _objects(body).get("state")
        if state:
            out[peer] = session_state(str(state).capitalize())
    return out


def parse(rows: dict[str, Any]) -> SwitchHealth:
    health = SwitchHealth()
    health.ports, health.speeds = ports(rows.get(INTERFACES))
    health.lldp = neighbors(rows.get(LLDP))
    health.bgp = sessions(rows.get(BGP))
    return health


HEALTH = HealthReader(
    probes=(
        Probe(INTERFACES, json_command=f"{INTERFACES} -o json"),
        Probe(LLDP, json_command=f"{LLDP} -o json"),
        Probe(BGP, json_command=f"{BGP} -o json"),
    ),
    parse=parse,
    sessions=(BGP,),
)
