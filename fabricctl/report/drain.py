"""The drain proof for people: what maintenance.yaml leaves every tenant (verify/drain.py).

One table, text or Markdown: per tenant its worst pair of leaves, the ECMP paths and fabric
bandwidth before and after, and whether it stays above the floor; then the tenants a drained leaf
cuts off (by GPU) and the switches a drain does not steer (they still spread traffic over a
drained path), and what a plan puts back into service. `fabricctl drain`, `plan` and the PR
comment show the same lines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fabricctl.verify.report import DrainProof, TenantPaths

if TYPE_CHECKING:
    from fabricctl.deploy.plan import Plan

#: Tenants shown in full; the rest are counted (the worst first, so none that matters is hidden).
MAX_ROWS = 40


def _order(t: TenantPaths) -> tuple[bool, float, str]:
    return (t.ok, t.kept, t.tenant)


def _row(t: TenantPaths) -> tuple[str, str, str, str, str, str]:
    if not t.pair:
        return (t.tenant, str(t.leaves), "one leaf: no fabric path", "", "", "ok")
    verdict = "ok" if t.ok else ("only through drained paths" if t.only_drained else "below the floor")
    return (
        t.tenant,
        str(t.leaves),
        t.pair,
        f"{t.paths_before} -> {t.paths_after}",
        f"{t.gbps_before:g} -> {t.gbps_after:g} ({t.kept:.0%})",
        verdict,
    )


HEAD = ("tenant", "leaves", "worst pair", "ECMP paths", "Gb/s (kept)", "")


def summary(proof: DrainProof) -> str:
    """One line: what is drained and whether every tenant keeps its floor."""
    below = sum(1 for t in proof.tenants if not t.ok)
    what = ", ".join(proof.drained)
    verdict = "every tenant above the floor" if not below else f"{below} tenant(s) below the floor"
    cut = f"; {len(proof.cut_off)} tenant(s) cut off by a drained leaf" if proof.cut_off else ""
    return (
        f"drained: {what} ({proof.links} fabric link(s) out of the forwarding path); {verdict} "
        f"(at most {proof.max_loss:.1%} of a tenant's fabric bandwidth, fabric.yaml drain.max_bandwidth_loss){cut}"
    )


def drain_text(proof: DrainProof) -> str:
    """The proof as aligned text."""
    rows = [_row(t) for t in sorted(proof.tenants, key=_order)[:MAX_ROWS]]
    widths = [max(len(r[i]) for r in [HEAD, *rows]) for i in range(len(HEAD))]
    lines = [summary(proof)]
    for r in [HEAD, *rows]:
        lines.append("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    more = len(proof.tenants) - len(rows)
    if more > 0:
        lines.append(f"  ... and {more} more tenant(s), every one above the worst shown")
    lines += _notes(proof)
    return "\n".join(lines) + "\n"


def drain_markdown(proof: DrainProof) -> str:
    """The proof as a Markdown section (PR comments)."""
    rows = [_row(t) for t in sorted(proof.tenants, key=_order)[:MAX_ROWS]]
    lines = [
        "### Drain",
        "",
        summary(proof),
        "",
        "| " + " | ".join(HEAD) + " |",
        "|---|---:|---|---|---|---|",
    ]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    more = len(proof.tenants) - len(rows)
    if more > 0:
        lines.append(f"\n... and {more} more tenant(s), every one above the worst shown")
    notes = _notes(proof)
    if notes:
        lines += ["", *(f"- {n.strip()}" for n in notes)]
    return "\n".join(lines) + "\n"


def _notes(proof: DrainProof) -> list[str]:
    out = []
    for tenant, gpus in sorted(proof.cut_off.items()):
        shown = ", ".join(gpus[:8]) + (f" and {len(gpus) - 8} more" if len(gpus) > 8 else "")
        out.append(f"  cut off (drained leaf): tenant {tenant}: {len(gpus)} GPU(s) lose the fabric: {shown}")
    if proof.still_crossing:
        names = ", ".join(proof.still_crossing[:8]) + ("..." if len(proof.still_crossing) > 8 else "")
        out.append(
            f"  not steered: {names} still spread traffic over a drained path (the GRACEFUL_SHUTDOWN "
            "community does not reach them, or their NOS does not honour it)"
        )
    return out


def plan_drain(plan: Plan) -> DrainProof | None:
    """The drain proof a plan holds (`changes["drain"]`), if anything is drained."""
    data = plan.changes.get("drain")
    return DrainProof.from_dict(data) if data else None


def undrain_line(plan: Plan) -> str | None:
    """What the plan puts back into the forwarding path (drained on the switches, gone from
    maintenance.yaml), in one line; None when nothing."""
    back = plan.changes.get("undrain") or []
    if not back:
        return None
    flags = " ".join(f"--allow-undrain {t}" for t in back[:8])
    return (
        f"back into the forwarding path: {', '.join(back)} (the switches run drained, maintenance.yaml "
        f"no longer drains them; apply needs {flags})"
    )


def drain_section(plan: Plan) -> list[str]:
    """The plan's text section: the proof and what goes back into service, headed like the others."""
    proof, back = plan_drain(plan), undrain_line(plan)
    if proof is None and back is None:
        return []
    lines = ["Drain (maintenance.yaml)"]
    if back is not None:
        lines.append(f"  ! {back}")
    return [*lines, *(drain_text(proof).splitlines() if proof is not None else []), ""]
