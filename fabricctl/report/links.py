"""`fabricctl check --links` for people: the marginal links, worst first, and the drain proposed."""

from __future__ import annotations

import json
import shlex

from fabricctl.deploy.links import LinkReport
from fabricctl.report.drain import drain_markdown, drain_text

#: Marginal links shown in full (the worst first); the rest are counted.
MAX_LINKS = 40


def _commands(report: LinkReport) -> list[str]:
    return [
        f"fabricctl drain {shlex.quote(d.target)} --reason {shlex.quote(d.reason)}" for d in report.proposed
    ]


def _over(report: LinkReport) -> str:
    """The window: each switch's own, between the first and second read of it."""
    if round(report.shortest) >= round(report.window):
        return f"{report.window:.0f} s"
    return f"{report.shortest:.0f}-{report.window:.0f} s"


def _unjudged(report: LinkReport) -> str:
    shown = ", ".join(report.unjudged[:8]) + (
        f" and {len(report.unjudged) - 8} more" if len(report.unjudged) > 8 else ""
    )
    return (
        f"{len(report.unjudged)} link(s) not judged: neither end's switch prints errors, flaps or optics "
        f"to its counter reader ({shown})"
    )


def links_text(report: LinkReport) -> str:
    lines = [
        f"Fabric links: {report.links} read at both ends over {_over(report)} (by the switches' clocks); "
        f"{len(report.marginal)} marginal"
    ]
    for m in report.marginal[:MAX_LINKS]:
        mark = "~" if m.target in report.drained else "✗"
        state = " (drained already)" if m.target in report.drained else ""
        lines.append(f"  {mark} {m.target} <-> {m.far}{state}: {'; '.join(m.reasons)}")
    if len(report.marginal) > MAX_LINKS:
        lines.append(f"  ... and {len(report.marginal) - MAX_LINKS} more")
    for name, why in sorted(report.unread.items()):
        lines.append(f"  ✗ {name}: counters not read: {why}")
    if report.unjudged:
        lines.append(f"  ✗ {_unjudged(report)}")
    if report.proposed:
        lines.append("")
        lines.append("Proposed drain (maintenance.yaml entries, proven; nothing was written or pushed):")
        lines += [f"  {c}" for c in _commands(report)]
        if report.proof is not None:
            lines.append("")
            lines += drain_text(report.proof).splitlines()
    for target, why in report.held:
        lines.append(f"  ! {target} stays in service: draining it would fail the proof: {why}")
    if not report.marginal and not report.unread and not report.unjudged:
        lines.append("  ✓ no marginal link")
    return "\n".join(lines) + "\n"


def links_markdown(report: LinkReport) -> str:
    lines = [
        "### Fabric links",
        "",
        f"{report.links} links read at both ends over {_over(report)}; {len(report.marginal)} marginal.",
        "",
    ]
    if report.marginal:
        lines += ["| link | far end | evidence |", "|---|---|---|"]
        lines += [
            f"| `{m.target}` | `{m.far}` | {'; '.join(m.reasons)} |" for m in report.marginal[:MAX_LINKS]
        ]
    if report.proposed:
        lines += ["", "Proposed drain:", "", "```", *_commands(report), "```"]
        if report.proof is not None:
            lines += ["", drain_markdown(report.proof)]
    lines += [f"- `{t}` stays in service: {w}" for t, w in report.held]
    lines += [f"- `{n}`: counters not read: {w}" for n, w in sorted(report.unread.items())]
    lines += [f"- {_unjudged(report)}"] if report.unjudged else []
    return "\n".join(lines) + "\n"


def links_json(report: LinkReport) -> str:
    return json.dumps(report.to_dict(), indent=2) + "\n"
