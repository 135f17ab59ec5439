"""Plan facts shared by the Markdown and HTML reports: tenant rows, diff groups, object aggregates.

Reviewers of a fabric change read "what happens to which tenant" first and per-switch diffs last;
on a rail-optimised fabric most switches of one change carry the same diff, so identical diffs
are shown once for the whole group and identical top-level objects are counted across switches.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fabricctl.deploy.disruption import DISRUPTIVE
from fabricctl.model.text import printable

if TYPE_CHECKING:
    from fabricctl.deploy.plan import Plan, SwitchPlan

KIND_WORD = {"+": "added", "-": "removed", " ": "changed"}


def plural(n: int, word: str) -> str:
    if n == 1:
        return f"1 {word}"
    return f"{n} {word[:-1] + 'ies' if word.endswith('y') else word + 'es' if word.endswith('ch') else word + 's'}"


def switch_noun(plan: Plan, names: Sequence[str]) -> str:
    """'8 leaves', '2 spines', '10 switches' (mixed roles)."""
    roles = {plan.switches[n].role for n in names if n in plan.switches}
    n = len(names)
    if roles == {"leaf"}:
        return "1 leaf" if n == 1 else f"{n} leaves"
    if roles == {"spine"}:
        return plural(n, "spine")
    if roles == {"superspine"}:
        return plural(n, "super-spine")
    return plural(n, "switch")


_SPLIT = re.compile(r"^(.*?)(\d+)$")


def span(names: Sequence[str], limit: int = 6) -> str:
    """Compact list of switch names: runs of consecutive numbers as 'leaf01..leaf08'."""
    parts: list[str] = []
    run: list[str] = []

    def flush() -> None:
        if len(run) >= 3:
            parts.append(f"{run[0]}..{run[-1]}")
        else:
            parts.extend(run)
        run.clear()

    prev: tuple[str, int, int] | None = None
    for name in names:
        m = _SPLIT.match(name)
        key = (m.group(1), int(m.group(2)), len(m.group(2))) if m else None
        consecutive = (
            key is not None
            and prev is not None
            and key[0] == prev[0]
            and key[2] == prev[2]
            and key[1] == prev[1] + 1
        )
        if not consecutive:
            flush()
        run.append(name)
        prev = key
    flush()
    if len(parts) > limit:
        return ", ".join(parts[:limit]) + f" and {len(parts) - limit} more"
    return ", ".join(parts)


def diff_body(sp: SwitchPlan) -> str:
    """The diff without its ---/+++ header, the switch's own name replaced (for grouping)."""
    lines = [ln for ln in sp.diff.splitlines() if not ln.startswith(("--- ", "+++ "))]
    body = "\n".join(lines)
    return re.sub(rf"(?<![\w.-]){re.escape(sp.name)}(?![\w.-])", "\0switch\0", body)


@dataclass
class DiffGroup:
    """Switches whose diffs are identical apart from their own name; `diff` is the first one's."""

    names: list[str]
    diff: str
    added: int
    removed: int


def diff_groups(plan: Plan) -> list[DiffGroup]:
    """Changed switches grouped by identical diff text, in fabric order of each group's first switch."""
    groups: dict[str, DiffGroup] = {}
    for name in plan.changed:
        sp = plan.switches[name]
        key = diff_body(sp)
        if key in groups:
            groups[key].names.append(name)
        else:
            groups[key] = DiffGroup([name], sp.diff, sp.added, sp.removed)
    return list(groups.values())


@dataclass
class ObjectChange:
    """Top-level config objects changed the same way on the same set of switches."""

    kind: str  # '+', '-', ' '
    names: list[str]
    objects: list[str]


def object_changes(plan: Plan) -> list[ObjectChange]:
    """Top-level objects (sections or lines) added, removed or changed, aggregated across switches.

    Most switches first: what a change does fabric-wide reads before what it does on one switch.
    """
    where: dict[tuple[str, str], list[str]] = {}
    for name in plan.changed:
        sp = plan.switches[name]
        for line in sp.diff.splitlines():
            if line.startswith(("--- ", "+++ ")) or len(line) < 2 or line[1] == " ":
                continue
            pattern = re.sub(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])", "\0switch\0", line[1:])
            where.setdefault((line[0], pattern), []).append(name)
    grouped: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for (kind, pattern), names in where.items():
        shown = pattern.replace("\0switch\0", "<switch>")
        grouped.setdefault((kind, tuple(names)), []).append(shown)
    order = {"+": 0, " ": 1, "-": 2}
    out = [ObjectChange(kind, list(names), objs) for (kind, names), objs in grouped.items()]
    out.sort(key=lambda c: (-len(c.names), order[c.kind], c.names, c.objects[0]))
    return out


def tenant_rows(plan: Plan) -> list[dict[str, Any]]:
    """The plan's tenant changes in review order: added, changed, removed, then affected."""
    order = {"added": 0, "changed": 1, "removed": 2, "affected": 3}
    rows = list(plan.changes.get("tenants", []))
    rows.sort(key=lambda t: (order.get(t["change"], 9), t["name"]))
    return rows


def service_rows(plan: Plan) -> list[dict[str, Any]]:
    """Tenants whose running service the plan affects (deploy/disruption.py), most severe first."""
    rank = {c: i for i, c in enumerate(DISRUPTIVE)}
    rows = [r for r in plan.changes.get("tenants", []) if any(c in rank for c in r.get("classes", ()))]
    rows.sort(key=lambda r: (min(rank[c] for c in r["classes"] if c in rank), r["name"]))
    return rows


def service_classes(row: dict[str, Any]) -> list[str]:
    """A row's service-affecting classes, most severe first."""
    return [c for c in DISRUPTIVE if c in row.get("classes", ())]


def service_detail(row: dict[str, Any], most: int = 2) -> str:
    """'leaf17 Fo1/0/47: 10.105.0.0/31 -> 10.105.0.16/31 (+7 more)': the first evidence lines."""
    lines = [e for c in service_classes(row) for e in row.get("evidence", {}).get(c, [])]
    shown = "; ".join(lines[:most])
    return shown + (f" (+{len(lines) - most} more)" if len(lines) > most else "")


def gpu_text(row: dict[str, Any]) -> str:
    """'8', '8 -> 16', '8 -> 0' (GPU count, before -> after when it moved)."""
    before, after = row.get("gpus_before"), row["gpus"]
    if row["change"] == "removed" and before is None:
        return "-"  # read from the diff only: how many GPUs it had is not known
    if before is None or before == after:
        return str(after)
    return f"{before} -> {after}"


@dataclass
class PodRow:
    """One pod's share of a plan (pod None: the super-spine tier, which belongs to no pod)."""

    pod: int | None
    changed: int = 0  # changed or pending: what apply touches, as the plan's summary counts it
    unchanged: int = 0
    unreachable: int = 0
    added: int = 0
    removed: int = 0
    tenants: list[str] = field(default_factory=list)  # touched in this pod, in review order


def pod_rows(plan: Plan, pod_of: dict[str, int | None]) -> list[PodRow]:
    """Per-pod counts of a multi-pod plan, pods in order and the super-spines last (as apply's
    batches go), so a reviewer sees which pods a change reaches before reading any switch.

    `pod_of` is the inventory's `pod:` per switch (`Fabric.pod_of`); a tenant counts in every pod
    holding one of the switches its row in the plan names.
    """
    rows: dict[int | None, PodRow] = {}
    for name, sp in plan.switches.items():
        if name not in pod_of:
            continue
        row = rows.setdefault(pod_of[name], PodRow(pod_of[name]))
        if sp.status in ("changed", "pending"):
            row.changed += 1
        elif sp.status == "unreachable":
            row.unreachable += 1
        else:
            row.unchanged += 1
        row.added += sp.added
        row.removed += sp.removed
    for tenant in tenant_rows(plan):
        for pod in dict.fromkeys(pod_of[n] for n in tenant.get("leaves") or [] if n in pod_of):
            if pod in rows:
                rows[pod].tenants.append(tenant["name"])
    return [rows[k] for k in sorted(rows, key=lambda k: (k is None, k or 0))]


def basis(plan: Plan) -> tuple[str, str]:
    """(REF, short commit) the plan's tenant summary compares against; ('', '') for the running fabric."""
    if plan.changed_since:
        return plan.changed_since, (plan.changed_since_commit or "")[:12]
    return "", ""


def gpu_moves(plan: Plan) -> list[tuple[str, str, str, str]]:
    """(tenant, GPU, from, to) of every held GPU the plan moves (plan --allow-gpu-moves):
    ('uni-nlp', 'gpu079 nic0', 'leaf17 FourHundredGigE1/0/47', 'leaf09 TwoHundredGigE1/0/40:1')."""
    out = []
    for m in plan.changes.get("gpu_moves") or []:
        b, a = m["before"], m["after"]
        there = (
            f" (there: {a['server']} nic{a['nic']})"
            if (a["server"], a["nic"]) != (b["server"], b["nic"])
            else ""
        )
        out.append(
            (
                m["tenant"],
                f"{b['server']} nic{b['nic']}",
                f"{b['leaf']} {b['port']}",
                f"{a['leaf']} {a['port']}{there}",
            )
        )
    return out


def readdressed(plan: Plan) -> list[dict[str, str]]:
    """Every server NIC the plan re-addresses (deploy/disruption.py), tenant by tenant."""
    return list(plan.changes.get("readdressed") or [])


def readdress_text(row: dict[str, str]) -> str:
    """'team-hpc gpu079 nic0 (leaf17 Et1): 10.31.0.1/31 via 10.31.0.0 -> a host of 10.31.0.0/24
    via 10.31.0.1; the gateway on leaf17 takes its address'."""
    note = f"; {row['note']}" if row.get("note") else ""
    return f"{row['tenant']} {row['nic']} ({row['switch']} {row['port']}): {row['old']} -> {row['new']}{note}"


def at_boot_lines(plan: Plan) -> list[str]:
    """Settings of this change the switches apply only at their next boot, grouped by line."""
    by_line: dict[str, list[str]] = {}
    for name, sp in plan.switches.items():
        for line in sp.at_boot:
            by_line.setdefault(line, []).append(name)
    return [
        f"pending reboot: {printable(line)} on {len(names)} switch(es) ({span(names)}) takes effect at "
        "their next reboot; until then they keep the value they booted with"
        for line, names in by_line.items()
    ]
