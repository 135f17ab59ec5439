"""`fabricctl show tenant NAME`: one tenant as the fabric holds it (VRF, VNIs, route target,
leaves, GPU ports and addresses), each port's live state when the switches were read, and the
last recorded run whose changes touched it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fabricctl.model.text import printable
from fabricctl.report.holdings import allocation_rows, gpu_rows
from fabricctl.secrets import redact

if TYPE_CHECKING:
    from fabricctl.compile.build import Compiled
    from fabricctl.deploy.record import RunSummary
    from fabricctl.platforms.health import SwitchHealth


def tenant_view(
    compiled: Compiled,
    name: str,
    states: dict[str, SwitchHealth | str] | None = None,
    runs: list[RunSummary] | None = None,
) -> dict[str, Any]:
    """The tenant's data; `states` (leaf -> state or read error) adds each port's live state,
    `runs` (newest first) the last run that changed one of its switches for it."""
    alloc = next(a for a in compiled.allocation.tenants if a.name == name)
    (row,) = [r for r in allocation_rows(compiled) if r["tenant"] == name]
    ports = [r for r in gpu_rows(compiled) if r["tenant"] == name]
    for p in ports:
        if states is None:
            continue
        state = states.get(p["leaf"])
        if state is None or isinstance(state, str):
            p["live"] = f"unread: {state}" if isinstance(state, str) else "unread"
            continue
        admin, up = state.ports.get(p["port"], (False, False))
        p["live"] = "up" if up else ("admin down" if not admin else "down")
    last = next(
        (r for r in runs or [] if any(name in r.tenants.get(sw, []) for sw in r.changed)),
        None,
    )
    return {
        "tenant": name,
        "id": row["id"],
        "description": alloc.tenant.description,
        "isolation": alloc.tenant.isolation,
        "lossless": bool(alloc.tenant.lossless),
        "shared_with": [p.name for p in alloc.peers],
        "address_block": str(alloc.tenant.address_block),
        "vrf": row["vrf"],
        "l3vni": row["l3vni"],
        "route_target": row["route_target"],
        "l2vni": row["l2vni"],
        "vlan": row["vlan"],
        "gateway": row["gateway"],
        "acl": row["acl"],
        "leaves": sorted({p["leaf"] for p in ports}, key=list(compiled.intents).index),
        "ports": ports,
        "last_run": _run(last, name) if last is not None else None,
    }


def _run(r: RunSummary, tenant: str) -> dict[str, Any]:
    return {
        "run_id": r.run_id,
        "started": r.started,
        "by": f"{r.user}@{r.host}",
        "commit": r.commit,
        "switches": [sw for sw in r.changed if tenant in r.tenants.get(sw, [])],
        "tickets": r.tickets,
        "reason": r.reason,
    }


def tenant_text(view: dict[str, Any]) -> str:
    v = view
    lines = [
        f"tenant {v['tenant']} (id {v['id']}): {v['description'] or '-'}",
        f"  isolation {v['isolation']}, lossless {'yes' if v['lossless'] else 'no'}, "
        f"shared with {', '.join(v['shared_with']) or '-'}",
        f"  VRF {v['vrf']}  L3VNI {v['l3vni']}  route target {v['route_target']}"
        + (f"  L2VNI {v['l2vni']}  VLAN {v['vlan']}  gateway {v['gateway']}" if v["l2vni"] else ""),
        f"  address block {v['address_block']}, ACL {v['acl']}",
        f"  leaves ({len(v['leaves'])}): {', '.join(v['leaves'])}",
        f"  GPU ports ({len(v['ports'])}):",
    ]
    live = any("live" in p for p in v["ports"])
    for p in v["ports"]:
        addr = f"{p['switch_ip'] or '-'} <-> {p['host_ip'] or '-'}"
        state = f"  {p['live']}" if live else ""
        lines.append(f"    {p['leaf']:<10} {p['port']:<14} {p['server']} nic{p['nic']}  {addr}{state}")
    if live:
        down = [p for p in v["ports"] if p.get("live") != "up"]
        lines.append(f"  live: {len(v['ports']) - len(down)} of {len(v['ports'])} GPU ports up")
    last = v["last_run"]
    if last is None:
        lines.append("  last change: no recorded run changed it")
    else:
        extra = "".join(
            [
                f"; tickets {', '.join(last['tickets'])}" if last["tickets"] else "",
                f"; reason: {last['reason']}" if last["reason"] else "",
            ]
        )
        lines.append(
            f"  last change: run {last['run_id']} {last['started'][:19]} by {last['by']} "
            f"on {', '.join(last['switches'])}{extra}"
        )
    return redact("\n".join(printable(line) for line in lines) + "\n")
