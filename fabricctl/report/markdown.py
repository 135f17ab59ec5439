"""Markdown plan for pull-request comments, always under the comment size limit.

GitHub refuses comments over 65,536 characters, and a first plan of a 48-switch fabric is over
a megabyte of diff. So the comment is built in order of what a reviewer needs: tenants first,
then the switch table, then changes aggregated across switches, then diffs (identical ones
once per group) for as long as they fit; whatever is cut points to the full plan artifact.
A multi-pod fabric gets one row per pod (and one for the super-spines) right after the totals.
A hidden marker lets CI find and update its own comment instead of adding one per push.
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING, Any

from fabricctl.report.proofs import HOW, failures, link_rows, load, summary
from fabricctl.report.summary import (
    KIND_WORD,
    at_boot_lines,
    basis,
    diff_groups,
    gpu_moves,
    gpu_text,
    object_changes,
    plural,
    pod_rows,
    readdressed,
    service_classes,
    service_detail,
    service_rows,
    span,
    switch_noun,
    tenant_rows,
)
from fabricctl.secrets import redact
from fabricctl.verify.link_ends import GpuPortsProof, LinkEnd
from fabricctl.verify.proofs import IsolationProof, LosslessProof, Proofs

if TYPE_CHECKING:
    from fabricctl.deploy.plan import Plan
    from fabricctl.model.load import Fabric
    from fabricctl.report.summary import ObjectChange, PodRow

MARKER = "<!-- fabricctl-plan -->"
MAX_CHARS = 60_000  # GitHub's hard limit is 65,536; leave room for CI to add a line or two
DIFF_LINES = 120  # per diff block in the comment; the artifact has every line
DEFAULT_ARTIFACT = "the `plan.json` / `plan.html` artifact of this CI run"


def code(text: str) -> str:
    """Inline code that cannot break out of a table cell or the surrounding Markdown."""
    if "`" in text or "|" in text or "<" in text or "\n" in text:
        return "<code>" + html.escape(text.replace("\n", " ")).replace("|", "&#124;") + "</code>"
    return f"`{text}`"


def fence(text: str, lang: str = "diff") -> list[str]:
    """A fenced block longer than any backtick run inside it."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return [ticks + lang, text, ticks]


class _Budget:
    """Adds sections while they fit; remembers that something was cut."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        self.cut = False

    def fits(self, text: str) -> bool:
        return self.used + len(text) + 1 <= self.limit

    def take(self, lines: list[str], text: str) -> bool:
        if not self.fits(text):
            self.cut = True
            return False
        lines.append(text)
        self.used += len(text) + 1
        return True

    def take_rows(self, lines: list[str], rows: list[str], start: int, limit: int, more: str) -> None:
        """A section's rows while the section (begun at `start`) stays within `limit` and the
        comment within its cap; then the line `more` with the count of rows left in `{}`."""
        for i, row in enumerate(rows):
            if self.used - start + len(row) > limit or not self.take(lines, row):
                self.cut = True
                lines.append(more.format(len(rows) - i))
                return


def _basis(plan: Plan) -> str:
    ref, commit = basis(plan)
    if not ref:
        return "the running fabric"
    return f"{code(ref)} ({code(commit)})" if commit else code(ref)


def _header(plan: Plan) -> list[str]:
    out = [MARKER, f"### fabricctl plan: {plan.fabric}", ""]
    s = plan.summary()
    if plan.changed_since:
        n = len(plan.switches)
        out.append(
            f"Changes since {_basis(plan)}: "
            + (
                f"{plural(n, 'switch')} whose intent differs read and diffed; every other switch's "
                "intent is unchanged."
                if n
                else "no switch's intent differs, nothing was read."
            )
        )
    else:
        out.append(f"Compared with the running fabric: {plural(len(plan.switches), 'switch')} read.")
    out.append("")
    if not plan.changed and not plan.unreachable:
        out.append("**No changes.** The switches already run the intended configuration.")
    else:
        out.append(
            f"**{s['changed']} to change**, {s['unchanged']} unchanged, {s['unreachable']} unreachable "
            f"(+{s['added']} -{s['removed']} lines)"
        )
    out.append("")
    return out


def _moves(plan: Plan, budget: _Budget, limit: int) -> list[str]:
    """Every held GPU the plan moves, before anything else a reviewer reads."""
    moves = gpu_moves(plan)
    out: list[str] = []
    if not moves:
        return out
    start = budget.used
    budget.take(
        out, f"#### :warning: {len(moves)} held GPU(s) move to another leaf or port (--allow-gpu-moves)"
    )
    budget.take(out, "| tenant | GPU | from | to |")
    budget.take(out, "|---|---|---|---|")
    rows = [f"| {tenant} | {gpu} | {code(old)} | {code(new)} |" for tenant, gpu, old, new in moves]
    budget.take_rows(out, rows, start, limit, "| ... | {} more in the full plan | | |")
    out.append("")
    return out


def _readdressed(plan: Plan, budget: _Budget, limit: int) -> list[str]:
    """Every server NIC to re-address, right after the tenants whose service it affects."""
    rows = readdressed(plan)
    out: list[str] = []
    if not rows:
        return out
    start = budget.used
    budget.take(out, f"#### :warning: {len(rows)} server NIC(s) to re-address")
    budget.take(out, "| tenant | server NIC | switch port | now | after the change | note |")
    budget.take(out, "|---|---|---|---|---|---|")
    lines = [
        f"| {code(r['tenant'])} | {r['nic']} | {code(r['switch'] + ' ' + r['port'])} | {code(r['old'])} | "
        f"{code(r['new'])} | {html.escape(r.get('note') or '')} |"
        for r in rows
    ]
    budget.take_rows(out, lines, start, limit, "| ... | {} more in the full plan | | | | |")
    out.append("")
    return out


def _pods(plan: Plan, fabric: Fabric | None, budget: _Budget, limit: int) -> list[str]:
    """Multi-pod fabrics only: one row per pod the plan covers, the super-spine tier its own row, so
    a reviewer sees at once whether a change stays in its pod (a 2-tier fabric gets nothing here)."""
    if fabric is None or not fabric.multipod:
        return []
    rows = pod_rows(plan, fabric.pod_of(plan.switches))
    if not rows:
        return []
    out: list[str] = []
    start = budget.used
    budget.take(out, "#### Pods")
    budget.take(
        out, "| pod | changed | unchanged | unreachable | lines added | lines removed | tenants touched |"
    )
    budget.take(out, "|---|---:|---:|---:|---:|---:|---|")

    def line(row: PodRow) -> str:
        label = f"pod {row.pod}" if row.pod is not None else "super-spines"
        names = ", ".join(code(t) for t in row.tenants[:4])
        more = f" and {len(row.tenants) - 4} more" if len(row.tenants) > 4 else ""
        tenants = f"{len(row.tenants)}: {names}{more}" if row.tenants else "0"
        return (
            f"| {label} | {row.changed} | {row.unchanged} | {row.unreachable} | {row.added} | "
            f"{row.removed} | {tenants} |"
        )

    budget.take_rows(
        out, [line(r) for r in rows], start, limit, "| ... | {} more pods in the full plan | | | | | |"
    )
    out.append("")
    return out


def _service(plan: Plan, budget: _Budget, limit: int) -> list[str]:
    """Running tenants the plan affects, before anything else a reviewer reads."""
    rows = service_rows(plan)
    if not rows:
        return []
    out: list[str] = []
    start = budget.used
    budget.take(
        out,
        f"#### :warning: Service-affecting: {len(rows)} running tenant(s) "
        "(apply needs `--allow-disruptive` or `--canary N`)",
    )
    budget.take(out, "| tenant | what happens to it | e.g. |")
    budget.take(out, "|---|---|---|")
    lines = [
        f"| {code(r['name'])} | {', '.join(service_classes(r))} | {html.escape(service_detail(r, 1))} |"
        for r in rows
    ]
    budget.take_rows(out, lines, start, limit, "| ... | {} more tenants in the full plan | |")
    out.append("")
    return out


def _tenants(plan: Plan, budget: _Budget, limit: int) -> list[str]:
    rows = tenant_rows(plan)
    fabric_wide = plan.changes.get("fabric_wide", [])
    freed = plan.changes.get("freed_ports", [])
    if not rows and not fabric_wide and not freed:
        return []
    out: list[str] = []
    start = budget.used
    budget.take(out, f"#### Tenants (vs {_basis(plan)})")
    if rows:
        budget.take(out, "| tenant | change | GPUs | switches touched |")
        budget.take(out, "|---|---|---:|---|")

    def line(row: dict[str, Any]) -> str:
        change = row["change"] + (f" ({', '.join(row['fields'])})" if row.get("fields") else "")
        effects = service_classes(row)
        change += f" [{', '.join(effects)}]" if effects and row["change"] != "removed" else ""
        leaves = row.get("leaves") or []
        where = f"{switch_noun(plan, leaves) if leaves else '-'}"
        if leaves:
            where += f": {span(leaves)}"
        return f"| {code(row['name'])} | {change} | {gpu_text(row)} | {where} |"

    budget.take_rows(
        out, [line(r) for r in rows], start, limit, "| ... | {} more tenants in the full plan | | |"
    )
    notes = []
    if fabric_wide:
        notes.append(
            f"- fabric-wide lines (no tenant's) change on {switch_noun(plan, fabric_wide)}: {span(fabric_wide)}"
        )
    if freed:
        notes.append(
            f"- free GPU ports (secure default: shut down) change on {switch_noun(plan, freed)}: {span(freed)}"
        )
    out.append("")
    if notes:
        for note in notes:
            budget.take(out, note)
        out.append("")
    return out


def proofs_markdown(record: Proofs, budget: _Budget, limit: int) -> list[str]:
    """Each proof in one row (what held, how it was checked), failures first and in full, then
    the details a reviewer opens: every fabric link's two ends, the declared exceptions, the
    budgets, the ECMP width per tier."""
    out: list[str] = []
    start = budget.used
    rows = summary(record)
    if not record.ok:
        budget.take(out, f"#### :x: Proofs: {', '.join(record.failed)} failed; nothing was read or planned")
        budget.take(out, "| proof | check | switch | object | line | counterexample |")
        budget.take(out, "|---|---|---|---|---:|---|")
        lines = [
            f"| {name} | {code(f.check)} | {code(f.switch)} | {code(f.object)} | {f.line or '-'} | "
            f"{html.escape(f.counterexample)} |"
            for name, f in failures(record)
        ] + [
            f"| lossless | `link ends` | {code(ln.ends[0].switch)} | {code(ln.ends[0].port + ' - ' + ln.ends[1].switch + ' ' + ln.ends[1].port)} | - | {html.escape(ln.why)} |"
            for ln in record.lossless.links
            if not ln.agree
        ]
        budget.take_rows(out, lines, start, limit, "| ... | {} more in `fabricctl verify` | | | | |")
        out.append("")
    budget.take(out, "#### Proofs (verify, on the intended configs, before any switch was read)")
    budget.take(out, "| proof | holds | what | checked how |")
    budget.take(out, "|---|---|---|---|")
    for proof in sorted(rows, key=lambda r: r.ok):
        mark = ":white_check_mark:" if proof.ok else ":x:"
        budget.take(
            out, f"| {proof.name} | {mark} | {html.escape(proof.detail)} | {html.escape(HOW[proof.name])} |"
        )
    out.append("")
    out += _proof_details(record, budget, limit)
    return out


def _proof_details(record: Proofs, budget: _Budget, limit: int) -> list[str]:
    """The folded tables under the proofs: lossless link ends, isolation exceptions, ECMP and
    capacity budgets, each cut to what the comment's budget leaves."""
    out: list[str] = []
    _lossless_details(out, record.lossless, budget, limit)
    _isolation_details(out, record.isolation, budget, limit)
    _capacity_details(out, record, budget, limit)
    if out:
        out.append("")
    return out


def _lossless_details(out: list[str], ll: LosslessProof, budget: _Budget, limit: int) -> None:
    """Each fabric link's two ends, then the GPU ports, grouped by what they are set to."""
    if ll.links or ll.gpu_ports:
        start = budget.used
        budget.take(
            out, f"<details><summary>Lossless: each fabric link's two ends ({len(ll.links)} links)</summary>"
        )
        budget.take(out, "")
        budget.take(
            out,
            "| links | tier | cable | speed | end A no-drop, headroom | end B no-drop, headroom | both ends |",
        )
        budget.take(out, "|---|---|---:|---:|---|---|---|")

        def end(e: LinkEnd) -> str:
            cells = f" ({e.headroom_cells:,} cells)" if e.headroom_cells is not None else ""
            room = f"{e.headroom_bytes:,} B{cells}" if e.headroom_bytes is not None else "NOS-sized"
            return f"{','.join(map(str, e.no_drop)) or 'none'}, {room}"

        lines = []
        for links in link_rows(ll.links):
            ln = links[0]
            if len(links) == 1:
                which = f"{code(ln.ends[0].switch + ' ' + ln.ends[0].port)} - {code(ln.ends[1].switch + ' ' + ln.ends[1].port)}"
            else:
                lower = span(sorted({x.ends[0].switch for x in links}), 3)
                upper = span(sorted({x.ends[1].switch for x in links}), 3)
                which = f"{len(links)}: {lower} - {upper}"
            verdict = "agree" if ln.agree else ":x: " + html.escape(ln.why)
            lines.append(
                f"| {which} | {ln.tier} | {ln.cable_m} m | {ln.speed_gbps or '-'}G | {end(ln.ends[0])} "
                f"| {end(ln.ends[1])} | {verdict} |"
            )
        budget.take_rows(
            out,
            lines,
            start,
            limit,
            "| ... | {} more rows in the plan file (`proofs.lossless.links`) | | | | | |",
        )
        if ll.gpu_ports:
            groups: dict[tuple[Any, ...], list[GpuPortsProof]] = {}
            for g in ll.gpu_ports:
                groups.setdefault((tuple(g.no_drop), tuple(g.headroom_bytes), g.cable_m), []).append(g)
            budget.take(out, "")
            budget.take(out, "| leaves | lossless GPU ports | cable | no-drop | headroom |")
            budget.take(out, "|---|---:|---:|---|---|")
            budget.take_rows(
                out,
                [
                    f"| {span([g.switch for g in gs], 3)} | {sum(g.ports for g in gs):,} | {gs[0].cable_m} m | "
                    f"{','.join(map(str, gs[0].no_drop))} | "
                    f"{', '.join(f'{h:,} B' for h in gs[0].headroom_bytes) or 'NOS-sized'} |"
                    for gs in groups.values()
                ],
                start,
                limit,
                "| ... | {} more in the plan file | | | |",
            )
        budget.take(out, "")
        budget.take(out, "</details>")


def _isolation_details(out: list[str], iso: IsolationProof, budget: _Budget, limit: int) -> None:
    """The exceptions to isolation both tenants declared."""
    if iso.exceptions:
        start = budget.used
        budget.take(
            out,
            f"<details><summary>Isolation: exceptions both tenants declared ({len(iso.exceptions)})</summary>",
        )
        budget.take(out, "")
        budget.take(out, "| tenants | through | detail |")
        budget.take(out, "|---|---|---|")
        budget.take_rows(
            out,
            [
                f"| {code(' <-> '.join(e.tenants))} | {e.mechanism} | {html.escape(e.detail)} |"
                for e in iso.exceptions
            ],
            start,
            limit,
            "| ... | {} more in the plan file | |",
        )
        budget.take(out, "")
        budget.take(out, "</details>")


def _capacity_details(out: list[str], record: Proofs, budget: _Budget, limit: int) -> None:
    """ECMP width per tier, then the capacity budgets."""
    if record.ecmp.tiers or record.capacity.budgets:
        start = budget.used
        budget.take(out, "<details><summary>ECMP width per tier, capacity budgets</summary>")
        budget.take(out, "")
        if record.ecmp.tiers:
            budget.take(out, "| from | towards | width | uplinks | narrowest at |")
            budget.take(out, "|---|---|---:|---:|---|")
            budget.take_rows(
                out,
                [
                    f"| {t.scope} | {t.towards} | {t.width} | {t.uplinks} | {code(t.switch)} |"
                    for t in record.ecmp.tiers
                ],
                start,
                limit,
                "| ... | {} more tier pairs in the plan file | | | |",
            )
            budget.take(out, "")
        budget.take(out, "| budget | used | limit | where |")
        budget.take(out, "|---|---:|---:|---|")
        budget.take_rows(
            out,
            [
                f"| {b.metric} | {b.used:g} | {'-' if b.limit is None else f'{b.limit:g}'} | "
                f"{code(b.scope)}{f' (busiest of {b.of})' if b.of > 1 else ''} |"
                for b in record.capacity.budgets
            ],
            start,
            limit,
            "| ... | {} more in the plan file | | |",
        )
        budget.take(out, "")
        budget.take(out, "</details>")


def refused_markdown(fabric: str, record: Proofs, max_chars: int = MAX_CHARS) -> str:
    """The PR comment when verify refuses the plan: the failed proofs first, then the others."""
    budget = _Budget(max_chars - 400)
    out = [MARKER, f"### fabricctl plan: {fabric}", ""]
    out += proofs_markdown(record, budget, limit=max_chars // 2)
    out.append("Fix the inputs: `fabricctl verify` names each line and a path that crosses it.")
    return redact("\n".join(out) + "\n")


def _switch_table(plan: Plan, budget: _Budget, limit: int) -> list[str]:
    out: list[str] = []
    start = budget.used
    shown = [n for n, sp in plan.switches.items() if sp.status != "unchanged"]
    if not shown:
        return out
    budget.take(out, "#### Switches")
    budget.take(out, "| switch | status | lines added | lines removed |")
    budget.take(out, "|---|---|---:|---:|")

    def line(name: str) -> str:
        sp = plan.switches[name]
        status = sp.status if sp.status != "unreachable" else f"unreachable: {sp.error}"
        return f"| {code(name)} | {code(status) if sp.error else status} | {sp.added} | {sp.removed} |"

    budget.take_rows(out, [line(n) for n in shown], start, limit, "| ... | {} more in the full plan | | |")
    unchanged = [n for n, sp in plan.switches.items() if sp.status == "unchanged"]
    if unchanged:
        budget.take(out, f"| {switch_noun(plan, unchanged)} | unchanged: {span(unchanged)} | 0 | 0 |")
    out.append("")
    return out


def _objects(plan: Plan, budget: _Budget, limit: int) -> list[str]:
    changes = object_changes(plan)
    if not changes:
        return []
    out: list[str] = []
    start = budget.used
    budget.take(out, "#### Changes by object (aggregated across switches)")

    def line(ch: ObjectChange) -> str:
        shown = ", ".join(code(o) for o in ch.objects[:6])
        more = f" and {len(ch.objects) - 6} more" if len(ch.objects) > 6 else ""
        return f"- **{KIND_WORD[ch.kind]}** on {switch_noun(plan, ch.names)} ({span(ch.names, 4)}): {shown}{more}"

    budget.take_rows(
        out, [line(r) for r in changes], start, limit, "- ... {} more groups of changes in the full plan"
    )
    out.append("")
    return out


def _diff_block(plan: Plan, names: list[str], diff: str, added: int, removed: int) -> tuple[str, bool]:
    """One <details> block; (text, truncated)."""
    lines = diff.rstrip("\n").split("\n")
    truncated = len(lines) > DIFF_LINES
    if truncated:
        lines = [*lines[:DIFF_LINES], f"... {len(lines) - DIFF_LINES} more lines in the full plan"]
    if len(names) == 1:
        title = f"<code>{html.escape(names[0])}</code> (+{added} -{removed})"
    else:
        title = (
            f"{switch_noun(plan, names)} with identical changes: {html.escape(span(names, 8))} "
            f"(+{added} -{removed} each; shown for <code>{html.escape(names[0])}</code>)"
        )
    body = ["<details>", f"<summary>{title}</summary>", "", *fence("\n".join(lines)), "</details>", ""]
    return "\n".join(body), truncated


def _drain(plan: Plan, budget: _Budget) -> list[str]:
    """The drain proof (maintenance.yaml), when anything is drained, and what goes back into service."""
    from fabricctl.report.drain import drain_markdown, plan_drain, undrain_line

    proof, back = plan_drain(plan), undrain_line(plan)
    lines = [f"#### :warning: {back[0].upper()}{back[1:]}", ""] if back is not None else []
    lines += [*drain_markdown(proof).splitlines(), ""] if proof is not None else []
    out: list[str] = []
    for line in lines:
        budget.take(out, line)
    return out


def plan_markdown(
    plan: Plan, artifact: str | None = None, max_chars: int = MAX_CHARS, fabric: Fabric | None = None
) -> str:
    """The PR comment: summary, per-pod rows, tenants, switch table, aggregated changes, then diffs.

    `artifact` names or links the full plan (a URL becomes a link); it is shown whenever
    anything had to be cut, and always when given. `fabric` (the compiled inventory) gives a
    multi-pod fabric its per-pod rows; without it, or for a 2-tier fabric, there are none.
    """
    pointer = artifact or DEFAULT_ARTIFACT
    if re.match(r"^https?://", pointer):
        pointer = f"[plan.json / plan.html artifact]({pointer})"
    footer = [
        "",
        f"Full plan: {pointer}.",
        f"<sub>plan digest {code('sha256:' + plan.digest())} · inputs {code(plan.inputs_hash[:12])} · fabricctl plan"
        + (f" --changed-since {html.escape(plan.changed_since)}" if plan.changed_since else "")
        + "</sub>",
    ]
    reserve = sum(len(x) + 1 for x in footer) + 400  # room for the 'not shown' note
    budget = _Budget(max_chars - reserve)
    out: list[str] = []
    for line in _header(plan):
        budget.take(out, line)
    record = load(plan.proofs)
    if record is not None and not record.ok:  # a failed proof is the first thing a reviewer reads
        out += proofs_markdown(record, budget, limit=max_chars // 6)
    out += _service(plan, budget, limit=max_chars // 6)
    out += _readdressed(plan, budget, limit=max_chars // 6)
    out += _drain(plan, budget)
    out += _moves(plan, budget, limit=max_chars // 6)
    out += _pods(plan, fabric, budget, limit=max_chars // 6)
    out += _tenants(plan, budget, limit=max_chars // 4)
    if record is not None and record.ok:
        out += proofs_markdown(record, budget, limit=max_chars // 8)
    out += _switch_table(plan, budget, limit=max_chars // 5)
    out += _objects(plan, budget, limit=max_chars // 6)
    unreachable = plan.unreachable
    if unreachable:
        budget.take(out, f":warning: unreachable, not planned: {', '.join(unreachable)}")
        out.append("")
    held = [(n, sp.lookalikes) for n, sp in plan.switches.items() if sp.lookalikes]
    for name, objects in held:
        verdict = "removed (`--prune`)" if plan.prune else "kept; `--prune` removes them"
        budget.take(
            out,
            f":grey_question: {code(name)} holds {', '.join(code(o) for o in objects)}, which no tenant "
            f"declares: {verdict}",
        )
    if held:
        out.append("")
    at_boot = at_boot_lines(plan)
    for line in at_boot:
        budget.take(out, f":grey_question: {line}")
    if at_boot:
        out.append("")
    groups = diff_groups(plan)
    omitted: list[str] = []
    truncated = 0
    if groups:
        budget.take(out, "#### Diffs")
    for group in groups:
        block, cut = _diff_block(plan, group.names, group.diff, group.added, group.removed)
        if budget.take(out, block):
            truncated += cut
        else:
            omitted += group.names
    if omitted or truncated:
        budget.cut = True
        what = []
        if omitted:
            what.append(f"the diffs of {switch_noun(plan, omitted)} ({span(omitted, 4)}) are not shown")
        if truncated:
            what.append(f"{plural(truncated, 'diff')} shown in part (first {DIFF_LINES} lines)")
        out.append(f"> :scissors: {'; '.join(what)}: the comment is limited to {max_chars:,} characters.")
    out += footer if budget.cut or artifact else [footer[0], footer[2]]
    text = redact("\n".join(out) + "\n")
    if len(text) > max_chars:  # cannot happen with the reserve above; never post an oversized body
        text = text[: max_chars - 200] + f"\n\n(cut at {max_chars:,} characters) Full plan: {pointer}.\n"
    return text
