"""The proofs a plan rests on, for people: one line per proof (what held, how it was checked),
and the details a reviewer opens (every fabric link end, every declared exception, every budget).

The data is the plan's `proofs` (verify/proofs.py), derived from verify on the intended configs;
a plan is made only when every proof held, so a failed proof is shown by `plan` when it refuses
(`refused_*`), first of all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fabricctl.report.summary import plural
from fabricctl.verify.link_ends import LinkProof
from fabricctl.verify.proofs import ORDER, Proofs

#: What each proof checks, in a few words (the reviewer's "checked how").
HOW = {
    "isolation": "ports, route targets, VNIs, SVIs, transit: each closed by one check (verify)",
    "lossless": "every hop of every GPU-to-GPU path: trust, PFC no-drop, headroom, ECN, CNP strict, MTU",
    "ecmp": "equal paths each tier installs towards every VTEP, against the uplinks cabled",
    "capacity": "per switch: VRFs, VLANs/VSIs, VNIs, ACL entries against the model's budgets; "
    "oversubscription",
    "placement": "where the tenants this change touches hold GPUs",
}


@dataclass(frozen=True)
class Proof:
    name: str
    ok: bool
    detail: str


def load(data: dict[str, Any]) -> Proofs | None:
    """The plan's proof record, or None for a plan made before proofs were recorded."""
    return Proofs.model_validate(data) if data else None


def link_rows(links: list[LinkProof]) -> list[list[LinkProof]]:
    """Links that disagree one by one, first; the others grouped where both ends carry the same
    values (a rail-optimised fabric: one row for all its leaf-spine links)."""
    out: list[list[LinkProof]] = [[ln] for ln in links if not ln.agree]
    groups: dict[tuple[Any, ...], list[LinkProof]] = {}
    for ln in links:
        if ln.agree:
            values = tuple((tuple(e.no_drop), e.headroom_bytes, e.headroom_cells) for e in ln.ends)
            groups.setdefault((ln.tier, ln.cable_m, ln.speed_gbps, values), []).append(ln)
    return out + list(groups.values())


def _bytes(n: int | None, cells: int | None = None) -> str:
    if n is None:
        return "headroom the NOS sizes"
    return f"headroom {n:,} B" + (f" ({cells:,} cells)" if cells is not None else "")


def link_text(count: int, ln: LinkProof) -> str:
    """'32 leaf-spine links, 40 m at 400G: both ends no-drop 3, headroom 221,052 B, agree'."""
    a = ln.ends[0]
    speed = f" at {ln.speed_gbps}G" if ln.speed_gbps else ""
    prios = ",".join(map(str, a.no_drop)) or "none"
    verdict = "agree" if ln.agree else f"DIFFER: {ln.why}"
    return (
        f"{count} {ln.tier} link(s), {ln.cable_m} m{speed}: both ends no-drop {prios}, "
        f"{_bytes(a.headroom_bytes, a.headroom_cells)}, {verdict}"
    )


def summary(p: Proofs) -> list[Proof]:
    """One line per proof: what exactly held (or how many violations broke it)."""
    iso = p.isolation
    pairs = {tuple(e.tenants) for e in iso.exceptions}
    exc = f" but {len(pairs)} pair(s) both tenants declared" if pairs else ""
    isolation = f"{iso.tenants} tenants, {iso.pairs:,} pairs: none reaches another{exc}"
    ll = p.lossless
    pol = ll.policy
    groups = [(len(g), g[0]) for g in link_rows(ll.links)]
    gpu = sum(g.ports for g in ll.gpu_ports)
    lossless = (
        f"DSCP {pol['roce_dscp']} -> no-drop priority {pol['lossless_priority']}, MTU {pol['mtu']}, every hop; "
        f"{len(ll.links)} fabric link(s), both ends agree"
        + (f" ({'; '.join(link_text(n, ln) for n, ln in groups[:2])})" if groups else "")
        + (f"; {gpu} lossless GPU port(s)" if gpu else "")
        + (
            f"; assuming {len(ll.assumptions)} tunnel behaviour(s) no vendor document states"
            if ll.assumptions
            else ""
        )
    )
    narrowest = min(
        p.ecmp.tiers, key=lambda r: (r.width / max(r.uplinks, 1), r.scope, r.towards), default=None
    )
    ecmp = (
        f"{len(p.ecmp.tiers)} tier pair(s), narrowest {narrowest.width}/{narrowest.uplinks} "
        f"({narrowest.scope} -> {narrowest.towards}, {narrowest.switch})"
        if narrowest
        else "no VTEP pairs"
    )
    parts = []
    for b in p.capacity.budgets:
        if b.limit and b.metric in ("VRFs", "ACL entries", "GPUs held"):
            parts.append(f"{b.metric} {int(b.used):,}/{int(b.limit):,} ({b.scope})")
        elif b.metric == "oversubscription":
            parts.append(f"{b.used:.2f}:1 ({b.scope})")
    capacity = "within budget" + (f": {', '.join(parts)}" if parts else "")
    placement = "; ".join(
        f"{t.tenant}: {plural(t.gpus, 'GPU')} on {'1 leaf' if len(t.leaves) == 1 else f'{len(t.leaves)} leaves'}, "
        f"{plural(t.servers, 'whole server')}, {'rail' if len(t.rails) == 1 else 'rails'} {_rails(t.rails)}"
        for t in p.placement.tenants[:3]
    ) + (f" (+{len(p.placement.tenants) - 3} more)" if len(p.placement.tenants) > 3 else "")
    lines = {
        "isolation": isolation,
        "lossless": lossless,
        "ecmp": ecmp,
        "capacity": capacity,
        "placement": placement or "no tenant's GPUs change",
    }
    out = []
    for name in ORDER:
        part = getattr(p, name)
        failures = getattr(part, "failures", [])
        ok = part.ok
        detail = (
            lines[name]
            if ok
            else f"{len(failures)} violation(s)"
            + (
                f": {failures[0].switch} {failures[0].object}: {failures[0].counterexample}"
                if failures
                else ""
            )
        )
        if name == "lossless" and not ok and not failures:
            detail = "; ".join(link_text(1, ln) for ln in ll.links if not ln.agree)[:400]
        out.append(Proof(name, ok, detail))
    return out


def _rails(rails: list[int]) -> str:
    if rails and rails == list(range(rails[0], rails[-1] + 1)) and len(rails) > 2:
        return f"{rails[0]}-{rails[-1]}"
    return ",".join(map(str, rails))


def failures(p: Proofs) -> list[tuple[str, Any]]:
    """(proof, failure) of every failure, in review order."""
    return [(name, f) for name in ORDER for f in getattr(getattr(p, name), "failures", [])]
