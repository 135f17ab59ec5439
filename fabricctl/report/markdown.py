"""Markdown plan for pull-request comments: summary table, then one folded diff per switch."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fabricctl.deploy.credentials import redact

if TYPE_CHECKING:
    from fabricctl.deploy.plan import Plan


def plan_markdown(plan: Plan) -> str:
    s = plan.summary()
    out = [
        f"### fabricctl plan: {plan.fabric}",
        "",
        "| changed | unchanged | unreachable | lines added | lines removed |",
        "|---:|---:|---:|---:|---:|",
        f"| {s['changed']} | {s['unchanged']} | {s['unreachable']} | {s['added']} | {s['removed']} |",
        "",
    ]
    if not plan.changed and not plan.unreachable:
        out.append("**No changes.** The switches already run the intended configuration.")
    for sp in plan.switches.values():
        if sp.status == "changed":
            out += [
                f"<details><summary><code>{sp.name}</code> (+{sp.added} -{sp.removed})</summary>",
                "",
                "```diff",
                sp.diff.rstrip("\n"),
                "```",
                "</details>",
                "",
            ]
        elif sp.status == "unreachable":
            out.append(f"- :warning: `{sp.name}` unreachable: {sp.error}")
    out.append("")
    out.append(f"inputs `{plan.inputs_hash[:12]}`")
    return redact("\n".join(out) + "\n")
