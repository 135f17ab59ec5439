"""Plain-text plan and run reports for terminals and logs (no ANSI codes in here)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fabricctl.secrets import redact

if TYPE_CHECKING:
    from fabricctl.deploy.apply import RunReport
    from fabricctl.deploy.plan import Plan


def plan_summary_line(plan: Plan) -> str:
    s = plan.summary()
    pending = f" ({s['pending']} pending from an interrupted apply)" if s["pending"] else ""
    return (
        f"Plan: {s['changed']} to change{pending}, {s['unchanged']} unchanged, {s['unreachable']} unreachable "
        f"(+{s['added']} -{s['removed']} lines)"
    )


def plan_text(plan: Plan) -> str:
    """A unified diff per changed switch, unreachable switches, then the summary."""
    out: list[str] = []
    for sp in plan.switches.values():
        if sp.status in ("changed", "pending") and sp.diff:
            out.append(sp.diff.rstrip("\n"))
            out.append("")
    for name in plan.pending:
        out.append(
            f"! {name}: pending: {plan.switches[name].pending}; apply confirms it if the switch runs "
            "the intended config, else restores the switch's checkpoint"
        )
    if plan.pending:
        out.append("")
    for name in plan.unreachable:
        out.append(f"! {name}: unreachable ({plan.switches[name].error})")
    if plan.unreachable:
        out.append("")
    changed = plan.changed
    out.append(f"changed: {', '.join(changed) if changed else '-'}")
    out.append(
        plan_summary_line(plan) if changed or plan.unreachable else "No changes. " + plan_summary_line(plan)
    )
    return redact("\n".join(out) + "\n")


def run_text(report: RunReport) -> str:
    """One line per switch with its outcome, then totals."""
    out = [f"Run {report.run_id} ({report.fabric}):"]
    width = max((len(n) for n in report.switches), default=8)
    for name, sw in report.switches.items():
        stage = f" at {sw.stage}" if sw.stage else ""
        msg = f": {sw.message}" if sw.message else ""
        out.append(f"  {name:<{width}}  {sw.status}{stage}{msg}")
    counts = report.counts()
    out.append(
        "Result: " + ", ".join(f"{v} {k}" for k, v in counts.items() if v)
        if counts
        else "Result: nothing to do"
    )
    if report.stopped_reason:
        out.append(f"Stopped: {report.stopped_reason}")
    return redact("\n".join(out) + "\n")
