"""What the fabric holds, as rows for `fabricctl show gpus|free` (table, JSON or CSV).

* gpus: one row per GPU port a tenant holds: tenant, server, NIC, leaf, port, switch IP, host
  IP (l3: the /31's two ends), VLAN/VNI, VRF: what the server team and an IPAM need.
* free: per leaf, its rail (the NIC number its GPU ports face), how many GPU ports are free
  out of how many, and which servers those free ports belong to.

Rows are plain dicts with the same keys in every format; the numbers come from the allocation,
nothing is computed twice.
"""

from __future__ import annotations

import csv
import io
import json
from typing import TYPE_CHECKING, Any

from fabricctl.report.summary import span

if TYPE_CHECKING:
    from fabricctl.compile.build import Compiled

GPU_COLUMNS = ("tenant", "server", "nic", "leaf", "port", "switch_ip", "host_ip", "vlan", "vni", "vrf")
FREE_COLUMNS = ("leaf", "rail", "free", "total", "free_ports", "free_servers")
ALLOCATION_COLUMNS = (
    "id", "tenant", "vrf", "l3vni", "route_target", "l2vni", "vlan", "l2_route_target", "gateway",
    "svi_addresses", "acl", "gpus", "first_port_ip", "last_port_ip",
)  # fmt: skip


def allocation_rows(compiled: Compiled) -> list[dict[str, Any]]:
    """Every number derived per tenant (they all follow from its id)."""
    rows = []
    for a in compiled.allocation.tenants:
        ips = [p for p in a.ports if p.leaf_ip]
        rows.append(
            {
                "id": a.tenant.id,
                "tenant": a.name,
                "vrf": a.vrf,
                "l3vni": a.l3vni,
                "route_target": a.route_target,
                "l2vni": a.l2vni,
                "vlan": a.vlan,
                "l2_route_target": a.l2_route_target,
                "gateway": a.gateway,
                # each leaf's own SVI address where its NOS needs one (Cumulus Linux VRR)
                "svi_addresses": [f"{leaf}={addr}" for leaf, addr in a.svi_addresses.items()],
                "acl": a.acl_name,
                "gpus": len(a.ports),
                "first_port_ip": f"{ips[0].leaf_ip}/31" if ips else None,
                "last_port_ip": f"{ips[-1].leaf_ip}/31" if ips else None,
            }
        )
    return rows


def gpu_rows(compiled: Compiled) -> list[dict[str, Any]]:
    rows = []
    for a in compiled.allocation.tenants:
        for p in a.ports:
            rows.append(
                {
                    "tenant": a.name,
                    "server": p.gpu.server,
                    "nic": p.gpu.nic,
                    "leaf": p.gpu.leaf,
                    "port": p.gpu.name,
                    "switch_ip": f"{p.leaf_ip}/31" if p.leaf_ip else (a.gateway or None),
                    "host_ip": f"{p.gpu_ip}/31" if p.gpu_ip else None,
                    "vlan": a.vlan,
                    "vni": a.l2vni if a.l2vni else a.l3vni,
                    "vrf": a.vrf,
                }
            )
    return rows


def free_rows(compiled: Compiled, out_of_service: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Free GPU ports per leaf; a port of a server in `out_of_service` (its rack is not accepted,
    compile/racks.py) is not free."""
    held = set(compiled.allocation.port_owner)
    away = out_of_service or {}
    rows = []
    for leaf, ports in compiled.topology.gpu_ports.items():
        free = [p for p in ports if (leaf, p.name) not in held and p.server not in away]
        rails = sorted({p.nic for p in ports})
        rows.append(
            {
                "leaf": leaf,
                "rail": ",".join(map(str, rails)),
                "free": len(free),
                "total": len(ports),
                "free_ports": [p.name for p in free],
                "free_servers": sorted({p.server for p in free}, key=_natural),
            }
        )
    return rows


def _natural(name: str) -> tuple[str, int]:
    digits = name.lstrip("abcdefghijklmnopqrstuvwxyz-_")
    return (name[: len(name) - len(digits)], int(digits) if digits.isdigit() else 0)


def to_json(rows: list[dict[str, Any]]) -> str:
    return json.dumps(rows, indent=2) + "\n"


def to_csv(rows: list[dict[str, Any]], columns: tuple[str, ...]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(
            {k: " ".join(v) if isinstance(v, list) else ("" if v is None else v) for k, v in row.items()}
        )
    return buf.getvalue()


def free_cell(names: list[str]) -> str:
    """Free servers or ports in a table cell: ranges, at most a few names."""
    return span(names, 4) if names else "-"
