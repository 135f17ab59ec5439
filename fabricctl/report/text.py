"""Plain-text plan and run reports for terminals and logs.

A plan reads like Terraform's: what happens to which tenant first, the proofs that held, one
line per switch, then the diffs, and the totals last (the line left on screen after a long
diff). Colour is an option of the caller (a terminal without NO_COLOR); the text is the same
with or without it, so logs, pipes and `-o plan.txt` get exactly the words a terminal shows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fabricctl.model.text import printable
from fabricctl.report.drain import drain_section
from fabricctl.report.summary import (
    at_boot_lines,
    gpu_moves,
    gpu_text,
    readdress_text,
    readdressed,
    service_classes,
    service_detail,
    service_rows,
    span,
    switch_noun,
    tenant_rows,
)
from fabricctl.secrets import redact

if TYPE_CHECKING:
    from fabricctl.deploy.apply import RunReport, SwitchOutcome
    from fabricctl.deploy.plan import Plan
    from fabricctl.deploy.record import RunSummary

RESET = "\x1b[0m"
STYLES = {
    "add": "\x1b[32m",
    "remove": "\x1b[31m",
    "change": "\x1b[33m",
    "head": "\x1b[1m",
    "dim": "\x1b[2m",
    "bad": "\x1b[1;31m",
    "warn": "\x1b[33m",
    "good": "\x1b[32m",
}
MANY = 12  # more changed switches than this: the run summary names them as one span
#: A plan prints its diffs by default only up to this many lines (`--diff`: always).
DIFF_LINES_SHOWN = 400
MARKS = {"added": "+", "changed": "~", "removed": "-", "affected": " "}
STATUS_STYLE = {
    "changed": "change",
    "pending": "warn",
    "unreachable": "bad",
    "unchanged": "dim",
    "failed": "bad",
    "rolled back": "warn",
    "skipped": "warn",
}


class Paint:
    """ANSI styles, or none at all (`color=False`: pipes, files, NO_COLOR)."""

    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, style: str, text: str) -> str:
        return f"{STYLES[style]}{text}{RESET}" if self.color and text else text

    def diff(self, text: str) -> str:
        if not self.color:
            return text
        out = []
        for line in text.split("\n"):
            if line.startswith(("--- ", "+++ ")):
                out.append(self("head", line))
            elif line.startswith("+"):
                out.append(self("add", line))
            elif line.startswith("-"):
                out.append(self("remove", line))
            else:
                out.append(line)
        return "\n".join(out)


def plan_summary_line(plan: Plan) -> str:
    s = plan.summary()
    pending = f" ({s['pending']} pending from an interrupted apply)" if s["pending"] else ""
    return (
        f"Plan: {s['changed']} to change{pending}, {s['unchanged']} unchanged, {s['unreachable']} unreachable "
        f"(+{s['added']} -{s['removed']} lines)"
    )


def _basis(plan: Plan) -> str:
    if plan.changed_since:
        commit = (plan.changed_since_commit or "")[:12]
        return f"changes since {plan.changed_since}" + (f" ({commit})" if commit else "")
    return "compared with the running fabric"


def service_section(plan: Plan, paint: Paint) -> list[str]:
    """Tenants whose running service the plan affects, first of all: what a reviewer must see."""
    rows = service_rows(plan)
    if not rows:
        return []
    out = [
        paint("bad", "Service-affecting")
        + f": {len(rows)} running tenant(s) (apply needs --allow-disruptive, or --canary N)"
    ]
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        classes = ", ".join(service_classes(r))
        detail = service_detail(r)
        out.append(paint("warn", f"  ! {r['name']:<{width}}  {classes}") + (f": {detail}" if detail else ""))
    return [*out, ""]


def readdress_section(plan: Plan, paint: Paint) -> list[str]:
    """Every server NIC whose address or gateway changes: the servers must follow."""
    rows = readdressed(plan)
    if not rows:
        return []
    head = paint(
        "warn", f"! {len(rows)} server NIC(s) to re-address (their switch port's address or gateway changes):"
    )
    return [head, *(f"  {readdress_text(r)}" for r in rows), ""]


def moves_section(plan: Plan, paint: Paint) -> list[str]:
    """Every held GPU the plan moves (allowed with --allow-gpu-moves), first: its tenant's server
    is re-cabled or its port renamed under it."""
    moves = gpu_moves(plan)
    if not moves:
        return []
    head = paint("warn", f"! {len(moves)} held GPU(s) move to another leaf or port (--allow-gpu-moves):")
    return [head, *(f"  {tenant} {gpu}: {old} -> {new}" for tenant, gpu, old, new in moves), ""]


def tenant_section(plan: Plan, paint: Paint) -> list[str]:
    """Added / changed / removed tenants with their GPUs and where they land."""
    rows = tenant_rows(plan)
    fabric_wide = plan.changes.get("fabric_wide") or []
    freed = plan.changes.get("freed_ports") or []
    if not rows and not fabric_wide and not freed:
        return []
    out = [paint("head", "Tenants")]
    width = max((len(r["name"]) for r in rows), default=0)
    counts: dict[str, int] = {}
    gpus: dict[str, int] = {}
    for r in rows:
        counts[r["change"]] = counts.get(r["change"], 0) + 1
        gpus[r["change"]] = gpus.get(r["change"], 0) + int(r.get("gpus") or 0)
        mark = MARKS.get(r["change"], " ")
        style = {"added": "add", "removed": "remove", "changed": "change"}.get(r["change"], "dim")
        fields = f" ({', '.join(r['fields'])})" if r.get("fields") else ""
        effects = service_classes(r)
        fields += f" [{', '.join(effects)}]" if effects and r["change"] != "removed" else ""
        leaves = r.get("leaves") or []
        where = f" on {switch_noun(plan, leaves)}: {span(leaves)}" if leaves else ""
        gpu = gpu_text(r)
        gpu_word = "" if gpu == "-" else f", {gpu} GPU{'s' if gpu != '1' else ''}"
        out.append(paint(style, f"  {mark} {r['name']:<{width}}  {r['change']}{fields}{gpu_word}{where}"))
    if rows:
        parts = [
            f"{n} {change}"
            + (f" ({gpus[change]:,} GPUs)" if gpus[change] and change in ("added", "changed") else "")
            for change, n in counts.items()
        ]
        out.append(f"  {len(rows)} tenant(s): {', '.join(parts)}")
    if fabric_wide:
        out.append(
            f"  fabric-wide lines (no tenant's) change on {switch_noun(plan, fabric_wide)}: {span(fabric_wide)}"
        )
    if freed:
        out.append(
            f"  free GPU ports (secure default: shut down) change on {switch_noun(plan, freed)}: {span(freed)}"
        )
    return [*out, ""]


def proof_section(plan: Plan, paint: Paint) -> list[str]:
    """What verify proved on the intended configs before any switch was read."""
    from fabricctl.report.proofs import load, summary

    record = load(plan.proofs)
    if record is None:
        return []
    out = [paint("head", "Proofs") + " (on the intended configs, before any switch was read)"]
    for proof in summary(record):
        mark = paint("good", "✓") if proof.ok else paint("bad", "✗")
        out.append(f"  {mark} {proof.name:<9} {proof.detail}")
    return [*out, ""]


def rack_section(plan: Plan, paint: Paint) -> list[str]:
    """New racks: what the plan changes on the switches in service (deploy/rack_expansion.py)."""
    data = plan.changes.get("racks")
    if not data:
        return []
    from fabricctl.deploy.rack_expansion import proof_line

    mark = paint("good", "✓") if data["ok"] else paint("bad", "✗")
    return [paint("head", "Racks"), f"  {mark} {proof_line(data)}", ""]


def switch_section(plan: Plan, paint: Paint) -> list[str]:
    """One line per switch that changes, is pending or unreachable; unchanged ones as one span."""
    shown = [n for n, sp in plan.switches.items() if sp.status != "unchanged"]
    unchanged = [n for n, sp in plan.switches.items() if sp.status == "unchanged"]
    if not shown and not unchanged:
        return []
    out = [paint("head", "Switches")]
    width = max((len(n) for n in shown), default=6)
    for name in shown:
        sp = plan.switches[name]
        status = paint(STATUS_STYLE.get(sp.status, "dim"), f"{sp.status:<11}")
        if sp.status in ("changed", "pending"):
            counts = f"{paint('add', f'+{sp.added:<6}')} {paint('remove', f'-{sp.removed}')}"
            out.append(f"  {name:<{width}}  {status} {counts}")
        else:
            out.append(f"  {name:<{width}}  {status} {sp.cause or ''}".rstrip())
    if unchanged:
        out.append(paint("dim", f"  {switch_noun(plan, unchanged)} unchanged: {span(unchanged, 8)}"))
    return [*out, ""]


#: Switches listed one per line in the look-alike section; the rest are counted.
LOOKALIKE_LINES = 20


def lookalike_lines(plan: Plan) -> list[str]:
    """One line per switch holding objects that look like fabricctl's but carry no proof it made
    them (no mark of this fabric, no tenant declares them): kept, unless the plan prunes them."""
    held = [(n, sp.lookalikes) for n, sp in plan.switches.items() if sp.lookalikes]
    out = []
    for name, objects in held[:LOOKALIKE_LINES]:
        them = "them" if len(objects) > 1 else "it"
        what = printable(", ".join(objects))  # read from the switch
        verdict = "removed (--prune)" if plan.prune else f"--prune to remove {them}"
        out.append(f"{name} holds {what}, which no tenant declares: {verdict}")
    if len(held) > LOOKALIKE_LINES:
        out.append(f"... and {len(held) - LOOKALIKE_LINES} more switches (see the plan file)")
    return out


def failure_lines(name: str, what: str, detail: str, hint: str | None, paint: Paint) -> list[str]:
    out = [paint("bad", f"! {name}: {what}") + f": {detail}"]
    if hint:
        out.append(paint("dim", f"    hint: {hint}"))
    return out


def plan_text(
    plan: Plan,
    *,
    compact: bool = False,
    color: bool = False,
    diff: str = "auto",
) -> str:
    """Service-affecting changes, tenants, proofs, switches, then the diffs, problems and the
    totals. `diff`: "full" prints every diff, "auto" only when they are short (a first apply of
    a whole fabric is tens of thousands of lines), `compact` none."""
    if compact:
        diff = "none"
    paint = Paint(color)
    out: list[str] = [
        paint("head", f"Plan for {plan.fabric}")
        + f": {_basis(plan)}, {len(plan.switches)} switch(es) selected.",
        "",
    ]
    out += service_section(plan, paint)
    out += readdress_section(plan, paint)
    out += moves_section(plan, paint)
    out += tenant_section(plan, paint)
    out += proof_section(plan, paint)
    out += drain_section(plan)
    out += rack_section(plan, paint)
    out += switch_section(plan, paint)
    diffs = [sp for sp in plan.switches.values() if sp.status in ("changed", "pending") and sp.diff]
    lines = sum(sp.diff.count("\n") for sp in diffs)
    if diffs and (diff == "full" or (diff == "auto" and lines <= DIFF_LINES_SHOWN)):
        for sp in diffs:
            out.append(paint.diff(sp.diff.rstrip("\n")))
            out.append("")
    elif diffs and diff == "auto":
        out.append(
            paint("dim", f"Diffs: {lines:,} lines on {len(diffs)} switch(es), not shown; ")
            + "--diff prints them (plan -o FILE keeps them, --format html shows them per switch)"
        )
        out.append("")
    for name in plan.pending:
        out.append(
            paint("warn", f"! {name}: pending")
            + f": {plan.switches[name].pending}; apply confirms it if the switch runs "
            "the intended config, else restores the switch's checkpoint"
        )
    if plan.pending:
        out.append("")
    for name in plan.unreachable:
        sp = plan.switches[name]
        from fabricctl.deploy.failures import CAUSE_WORDS

        what = f"unreachable ({CAUSE_WORDS.get(sp.cause or '', sp.cause)})" if sp.cause else "unreachable"
        out += failure_lines(name, what, sp.error or "", sp.hint, paint)
    if plan.unreachable:
        out.append("")
    lookalikes = lookalike_lines(plan)
    out += [paint("warn", "? ") + line for line in lookalikes] + ([""] if lookalikes else [])
    at_boot = at_boot_lines(plan)
    out += [paint("warn", "? ") + line for line in at_boot] + ([""] if at_boot else [])
    changed = plan.changed
    out.append(f"changed: {', '.join(changed) if changed else '-'}")
    summary = plan_summary_line(plan)
    out.append(paint("head", summary if changed or plan.unreachable else "No changes. " + summary))
    return redact("\n".join(out) + "\n")


def selected_nothing_text(plan: Plan) -> str:
    """`plan --changed-since REF` with no switch selected: say that nothing was read."""
    ref = plan.changed_since or "the given revision"
    commit = (plan.changed_since_commit or "")[:12]
    at = f" ({commit})" if commit else ""
    return redact(
        f"Nothing to plan: no switch's intent or config differs from {ref}{at}; "
        "no switch was contacted, so this says nothing about drift (run 'fabricctl drift' for that).\n"
    )


def outcome_line(sw: SwitchOutcome, width: int, paint: Paint) -> list[str]:
    """One switch of a run: status, what changed or why it failed, time; the hint under a failure."""
    from fabricctl.deploy.failures import CAUSE_WORDS

    status = paint(STATUS_STYLE.get(sw.status, "dim"), sw.status)
    took = f" ({sw.seconds:.1f} s)" if sw.seconds else ""
    if sw.status == "changed":
        lines = f" +{sw.added} -{sw.removed} lines" if sw.added or sw.removed else ""
        msg = f": {sw.message}" if sw.message else ""
        return [f"  {sw.name:<{width}}  {status}{lines}{took}{msg}"]
    if sw.status == "failed":
        cause = f" ({CAUSE_WORDS.get(sw.cause or '', sw.cause)})" if sw.cause else ""
        out = [f"  {sw.name:<{width}}  {status} at {sw.stage or '?'}{cause}{took}: {sw.message}"]
        if sw.hint:
            out.append(paint("dim", f"  {'':<{width}}  hint: {sw.hint}"))
        return out
    msg = f": {sw.message}" if sw.message else ""
    return [f"  {sw.name:<{width}}  {status}{took}{msg}"]


def run_text(report: RunReport, color: bool = False, record: str | None = None) -> str:
    """What changed or failed (one line each), the others counted, then totals and the record."""
    paint = Paint(color)
    out = [paint("head", f"Run {report.run_id} ({report.fabric})")]
    who = report.context
    if who.get("user"):
        git = who.get("git") or {}
        commit = (git.get("commit") or "")[:12]
        at = f", commit {commit}{' (dirty)' if git.get('dirty') else ''}" if commit else ""
        out[0] += f" by {who['user']}@{who.get('host', '?')}{at}"
    changed = [s for s in report.switches.values() if s.status == "changed"]
    shown = [s for s in report.switches.values() if s.status in ("failed", "rolled back")]
    if len(changed) > MANY:  # one line per switch has scrolled by already: say it once
        added, removed = sum(s.added for s in changed), sum(s.removed for s in changed)
        names = [s.name for s in changed]
        out.append(paint("change", f"  {len(changed)} changed")
                   + f" (+{added:,} -{removed:,} lines): {span(names, 12)}")  # fmt: skip
    else:
        shown = changed + shown
    width = max((len(s.name) for s in shown), default=8)
    for sw in sorted(shown, key=lambda s: list(report.switches).index(s.name)):
        out += outcome_line(sw, width, paint)
    rest: dict[str, list[str]] = {}
    for sw in report.switches.values():
        if sw.status not in ("changed", "failed", "rolled back"):
            rest.setdefault(sw.status, []).append(sw.name)
    for status, names in rest.items():
        why = {report.switches[n].message for n in names} - {""}
        reason = f" ({next(iter(why))})" if len(why) == 1 else ""
        out.append(paint("dim", f"  {len(names)} {status}{reason}: {span(names, 8)}"))
    counts = report.counts()
    out.append(
        paint("head", "Result: " + ", ".join(f"{v} {k}" for k, v in counts.items() if v))
        if counts
        else paint("head", "Result: nothing to do")
    )
    if report.stopped_reason:
        out.append(f"Stopped: {report.stopped_reason}")
    out += reboot_lines(report, paint)
    if record:
        out.append(f"Record: {record}")
    return redact("\n".join(out) + "\n")


def reboot_lines(report: RunReport, paint: Paint) -> list[str]:
    """The switches this run changed whose change takes effect at their next boot, by line."""
    waiting = report.needs_reboot
    if not waiting:
        return []
    by_line: dict[str, list[str]] = {}
    for name, lines in waiting.items():
        for line in lines:
            by_line.setdefault(line, []).append(name)
    out = [paint("warn", f"Reboot needed: {len(waiting)} switch(es): {span(list(waiting), 12)}")]
    out += [
        f"  {printable(line)} takes effect at the next boot of {span(names, 8)}"
        for line, names in by_line.items()
    ]
    out.append(
        "  until then `fabricctl check` reports them `pending reboot` (exit 2); the procedure: "
        "docs/plan-apply.md, 'Settings that wait for a reboot'"
    )
    return out


def interrupted_text(report: RunReport, record: str) -> str:
    """After SIGINT/SIGTERM: which switches changed, which failed, which never started, where the record is."""
    by: dict[str, list[str]] = {}
    for sw in report.switches.values():
        by.setdefault(sw.status, []).append(sw.name)
    changed = by.get("changed", []) + by.get("rolled back", [])
    lines = ["Interrupted: the switches in flight finished their push; no other switch was started."]
    lines.append(
        f"  changed in this run: {span(by['changed'], 12)}"
        if by.get("changed")
        else "  changed in this run: none"
    )
    if by.get("rolled back"):
        lines.append(f"  rolled back: {span(by['rolled back'], 12)}")
    if by.get("failed"):
        lines.append(f"  failed (each left as before): {span(by['failed'], 12)}")
    skipped = by.get("skipped", [])
    lines.append(f"  not started (skipped): {span(skipped, 12)}" if skipped else "  not started: none")
    lines.append(f"  record: {record}")
    if skipped or not changed:
        lines.append("  next: 'fabricctl plan' shows what is left; 'fabricctl apply' again finishes it.")
    return redact("\n".join(lines) + "\n")


def _audit_line(r: RunSummary) -> str:
    """The second line of a run in history: shards, tickets, reason, tenants touched."""
    tenants = sorted({t for names in r.tenants.values() for t in names})
    parts = [
        f"shards {', '.join(r.shards)} of run {r.run_group}" if r.run_group else "",
        f"tickets {', '.join(r.tickets)}" if r.tickets else "",
        f"reason: {r.reason}" if r.reason else "",
        f"tenants {span(tenants, 6)}" if tenants else "",
    ]
    text = "; ".join(p for p in parts if p)
    return f"    {printable(text)}" if text else ""


def history_text(runs: list[RunSummary], width: int = 100) -> str:
    """`fabricctl history`: one line per run (started, who, commit, what happened), at most
    `width` columns; the record's file name is the run id."""
    rows = [("STARTED (UTC)", "BY", "COMMIT", "RESULT")]
    details: list[str] = []
    for r in runs:  # every field comes from a file anyone with the repository can write: escaped
        when = printable(r.started.replace("T", " ")[:19] if r.started else r.run_id[:15])
        by = printable(f"{r.user}@{r.host}" if r.user else "-")
        by = by if len(by) <= 24 else by[:23] + "…"
        commit = printable((r.commit or "-")[:8]) + ("*" if r.dirty else "")
        if r.problem:
            result = f"unreadable record ({printable(r.problem)}): {printable(r.path)}"
        else:
            counts = ", ".join(f"{n} {k}" for k, n in r.counts.items() if n) or "nothing to do"
            failed = f" ({span(r.failed, 4)})" if r.failed else ""
            stopped = r.stopped_reason.split(":", 1)[0]
            note = f"; {stopped}" if stopped and stopped != "nothing to change" else ""
            result = printable(counts + failed + note)
        rows.append((when, by, commit, result))
        details.append(_audit_line(r))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    out = []
    for row, detail in zip(rows, ["", *details], strict=True):
        line = "  ".join(f"{v:<{w}}" for v, w in zip(row[:3], widths, strict=True)) + "  " + row[3]
        out.append(line if len(line) <= width else line[: width - 1] + "…")
        if detail:
            out.append(detail if len(detail) <= width else detail[: width - 1] + "…")
    out.append(f"{len(runs)} run(s); * dirty working tree; records: .fabricctl/runs/<run id>.json")
    return redact("\n".join(out) + "\n")
