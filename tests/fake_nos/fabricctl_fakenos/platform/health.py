"""TinyOS's health: one command, `show health | json`, prints the state fabricctl checks (ports,
LLDP neighbours, BGP sessions, VRFs, VNIs and the VTEPs EVPN taught it) as one JSON object."""

from __future__ import annotations

from typing import Any

from fabricctl.platforms.health import HealthReader, Probe, SwitchHealth, session_state

HEALTH_COMMAND = "show health"


def parse(rows: dict[str, Any]) -> SwitchHealth:
    data = rows.get(HEALTH_COMMAND)
    data = data if isinstance(data, dict) else {}
    return SwitchHealth(
        ports={p: (bool(s["admin"]), bool(s["up"])) for p, s in (data.get("ports") or {}).items()},
        lldp={p: (str(n["system"]), str(n["port"])) for p, n in (data.get("lldp") or {}).items()},
        bgp={peer: session_state(str(state)) for peer, state in (data.get("bgp") or {}).items()},
        vrfs=set(data["vrfs"]) if "vrfs" in data else None,
        vnis={int(v) for v in data["vnis"]} if "vnis" in data else None,
        remote_vteps=set(data["remote-vteps"]) if "remote-vteps" in data else None,
    )


HEALTH = HealthReader(
    probes=(Probe(HEALTH_COMMAND, json_command=f"{HEALTH_COMMAND} | json"),),
    parse=parse,
    sessions=(HEALTH_COMMAND,),
)
