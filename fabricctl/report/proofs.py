"""The proofs a plan rests on, one line each: isolation, lossless, ECMP, capacity (from the verify report).

verify runs on the intended configs before plan reads any switch (deploy/plan.py `prepare`);
a plan exists only when every proof held, so these lines say what exactly was proven.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fabricctl.compile.build import Compiled
    from fabricctl.verify.report import CapacityRow, VerifyReport

#: Violation checks per proof (anything else counts for isolation, the strictest reading).
LOSSLESS_CHECKS = (
    "pfc",
    "ecn",
    "mtu",
    "frame",
    "dscp-map",
    "queue-map",
    "cnp",
    "protocol-strict",
    "watchdog",
    "trust",
    "headroom",
    "tunnel",
    "port-missing",
    "lossless",
)
CAPACITY_CHECKS = ("budget", "oversubscription")
ECMP_CHECKS = ("ecmp",)


@dataclass(frozen=True)
class Proof:
    name: str
    ok: bool
    detail: str


def _kind(check: str) -> str:
    if check.startswith(CAPACITY_CHECKS):
        return "capacity"
    if check.startswith(ECMP_CHECKS):
        return "ecmp"
    if check.startswith(LOSSLESS_CHECKS):
        return "lossless"
    return "isolation"


def _busiest(rows: list[CapacityRow], metric: str) -> CapacityRow | None:
    group = [r for r in rows if r.metric == metric and r.limit]
    return max(group, key=lambda r: (r.used / r.limit if r.limit else 0, r.scope), default=None)


def proofs(report: VerifyReport, compiled: Compiled | None = None) -> list[Proof]:
    failing: dict[str, int] = {}
    for v in report.violations:
        failing[_kind(v.check)] = failing.get(_kind(v.check), 0) + 1
    exc = len(report.exceptions)
    isolation = f"{report.tenants} tenants, no route-target, VNI or ACL path between two" + (
        f" ({exc} declared exceptions)" if exc else ""
    )
    lossless = f"{report.switches} switches: every hop maps RoCE to one no-drop priority"
    if compiled is not None:
        q = compiled.fabric.settings.qos
        lossless = (
            f"{report.switches} switches: DSCP {q.roce_dscp} -> no-drop priority {q.lossless_priority}, "
            f"ECN, CNP strict, MTU {q.mtu}, every hop"
        )
    lossless += ", RoCE through every VXLAN tunnel"
    if report.assumptions:
        lossless += (
            f" (assuming {len(report.assumptions)} tunnel behaviour(s) no vendor document states: see verify)"
        )
    parts = []
    for metric, word in (("VRFs", "VRFs"), ("ACL entries", "ACL")):
        row = _busiest(report.capacity, metric)
        if row is not None and row.limit:
            parts.append(f"{word} {int(row.used):,}/{int(row.limit):,} ({row.scope})")
    over = [r for r in report.capacity if r.metric.startswith("oversubscription")]
    if over:
        parts.append(f"{max(r.used for r in over):.2f}:1")
    held = next((r for r in report.capacity if r.scope == "fabric" and r.metric == "GPUs held"), None)
    if held is not None and held.limit:
        parts.append(f"{int(held.used):,}/{int(held.limit):,} GPUs held")
    capacity = "within budget" + (f": {', '.join(parts)}" if parts else "")
    narrowest = min(
        report.ecmp, key=lambda r: (r.width / max(r.uplinks, 1), r.scope, r.towards), default=None
    )
    ecmp = "every leaf reaches every other VTEP over all its uplinks" + (
        f" ({len(report.ecmp)} tier pairs, narrowest {narrowest.width}/{narrowest.uplinks})"
        if narrowest
        else ""
    )
    out = []
    named = (("isolation", isolation), ("lossless", lossless), ("ecmp", ecmp), ("capacity", capacity))
    for name, detail in named:
        n = failing.get(name, 0)
        out.append(Proof(name, n == 0, detail if n == 0 else f"{n} violation(s): see 'fabricctl verify'"))
    return out
