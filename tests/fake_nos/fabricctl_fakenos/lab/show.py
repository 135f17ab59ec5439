"""TinyOS's show output, all of it JSON: `show health`, `show counters`, `show version`."""

from __future__ import annotations

from typing import Any

from fabricctl.lab.view import View


def health(view: View) -> dict[str, Any]:
    """The state fabricctl's health checks read (platform/health.py of this package)."""
    facts = view.facts
    return {
        "ports": {
            name: {"admin": port.admin_up, "up": view.state.oper_up(view.name, name)}
            for name, port in facts.ports.items()
        },
        "lldp": {port: {"system": system, "port": far} for port, system, far in view.state.lldp(view.name)},
        "bgp": {str(ip): s.state for ip, s in sorted(view.state.sessions.get(view.name, {}).items())},
        "vrfs": sorted(vrf for kind, vrf in facts.route_targets if kind == "vrf"),
        "vnis": sorted(facts.vnis),
        "remote-vteps": sorted(
            {str(ip) for ips in view.state.remote_vteps(view.name).values() for ip in ips}
        ),
    }


def counters(view: View) -> dict[str, Any]:
    """The switch's clock and each port's state and counters (nothing errs or pauses in the lab
    unless a fault says so)."""
    ports: dict[str, Any] = {}
    for name, port in view.facts.ports.items():
        entry: dict[str, Any] = {
            "admin": port.admin_up,
            "up": view.state.oper_up(view.name, name),
            "errors": 0,
            "discards": 0,
            "rx-packets": 0,
            "tx-packets": 0,
        }
        pauses = view.state.pauses(view.name, name, view.now)
        if pauses is not None:
            entry["pfc"] = {str(p): [pauses.received, pauses.sent] for p in pauses.priorities}
        ports[name] = entry
    return {"clock": view.now, "ports": ports}


def version(view: View) -> dict[str, Any]:
    return {"model": f"TinyOS {view.dev.spec.model}", "serial": view.dev.serial()}
