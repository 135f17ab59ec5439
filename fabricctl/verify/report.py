"""VerifyReport: plain data (violations, allowed exceptions, capacity rows) and its text/JSON forms.

plan/apply read `report.ok`; the CLI prints `render_text` or `to_json`. Nothing here knows how a
fact was proven; each Violation carries the switch, object, config line and a counterexample.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from rich.console import Console
from rich.table import Table

from fabricctl.verify.link_ends import GpuPortsProof, LinkProof


@dataclass(frozen=True, order=True)
class Violation:
    """One broken property: where it is (switch, object, line) and a concrete witness."""

    check: str  # e.g. "rt-leak", "vni-shared", "acl-leak", "pfc", "mtu"
    switch: str
    object: str  # interface, VRF, ACL, VNI ...
    line: int | None  # 1-based line of the config text; None when the line is missing
    text: str  # the config line (or what is missing)
    counterexample: str

    @property
    def message(self) -> str:
        """One line for callers that print a short list (plan refusing to push)."""
        where = f"line {self.line}: {self.text}" if self.line else self.text
        return f"{self.object} ({where}): {self.counterexample}"


@dataclass(frozen=True, order=True)
class AllowedException:
    """A cross-tenant path both tenants declared (shared_with both ways), shown for review."""

    tenants: tuple[str, str]
    mechanism: str  # "route-target" | "acl"
    detail: str


@dataclass(frozen=True)
class CapacityRow:
    """One budget: used against its limit. `limit` None = informational."""

    scope: str  # switch or tenant name, or "fabric"
    metric: str
    used: float
    limit: float | None
    ok: bool
    detail: str = ""


@dataclass(frozen=True)
class EcmpRow:
    """The narrowest ECMP width from one tier of one pod towards the VTEPs of another (or every
    leaf's, in a 2-tier fabric): installed equal paths against the uplinks cabled."""

    scope: str  # "pod 1 leaves", "pod 1 spines", "leaves" (a 2-tier fabric)
    towards: str  # "VTEPs of pod 2", "VTEP of leaf07"
    width: int
    uplinks: int
    ok: bool
    switch: str  # the switch with that width


@dataclass(frozen=True)
class TenantPaths:
    """What a drain leaves one tenant: its worst pair of leaves, before and after."""

    tenant: str
    leaves: int
    pair: str  # "leaf1 -> leaf3" (the worst), or "" for a tenant on one leaf (no fabric path)
    paths_before: int
    paths_after: int
    gbps_before: float
    gbps_after: float
    only_drained: bool  # the pair keeps paths only through drained switches or links
    ok: bool

    @property
    def kept(self) -> float:
        """The share of its fabric bandwidth the tenant keeps (1.0 when nothing is lost)."""
        return self.gbps_after / self.gbps_before if self.gbps_before else 1.0


@dataclass
class DrainProof:
    """The proof of one maintenance.yaml: plain data for the plan (JSON, text, Markdown)."""

    drained: list[str]  # what maintenance.yaml names, as the command line does
    max_loss: float  # fabric.yaml drain.max_bandwidth_loss
    links: int  # fabric links out of the forwarding path
    tenants: list[TenantPaths] = field(default_factory=list)
    #: Tenant -> its GPUs on a drained leaf ("gpu001 nic0 (leaf3)"): they lose the fabric.
    cut_off: dict[str, list[str]] = field(default_factory=dict)
    #: Switches whose routes still cross a drained switch or link although another path exists
    #: (the GRACEFUL_SHUTDOWN community did not reach them, or their NOS does not honour it).
    still_crossing: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(t.ok for t in self.tenants)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DrainProof:
        """A proof as a plan file holds it (to_dict)."""
        return cls(
            drained=list(data["drained"]),
            max_loss=float(data["max_bandwidth_loss"]),
            links=int(data["links"]),
            tenants=[TenantPaths(**t) for t in data["tenants"]],
            cut_off={str(k): list(v) for k, v in data["cut_off"].items()},
            still_crossing=list(data["still_crossing"]),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "drained": self.drained,
            "max_bandwidth_loss": self.max_loss,
            "links": self.links,
            "ok": self.ok,
            "tenants": [asdict(t) for t in self.tenants],
            "cut_off": self.cut_off,
            "still_crossing": self.still_crossing,
        }


@dataclass
class VerifyReport:
    violations: list[Violation] = field(default_factory=list)
    exceptions: list[AllowedException] = field(default_factory=list)
    capacity: list[CapacityRow] = field(default_factory=list)
    ecmp: list[EcmpRow] = field(default_factory=list)
    #: What the proofs take as given because no vendor document states it (docs/verify.md).
    assumptions: list[str] = field(default_factory=list)
    #: Each fabric link's two ends as their configs set PFC (verify/proofs.py), and each leaf's
    #: lossless GPU ports: what the lossless proof shows a reviewer.
    links: list[LinkProof] = field(default_factory=list)
    gpu_ports: list[GpuPortsProof] = field(default_factory=list)
    #: What the proofs rely on that a vendor documents per switch model (tunnel QoS defaults), and
    #: the fabric links they proved alike at both ends across NOSes.
    notes: list[str] = field(default_factory=list)
    switches: int = 0
    tenants: int = 0
    #: What maintenance.yaml leaves every tenant (verify/drain.py); None: nothing is drained.
    drain: DrainProof | None = None

    @property
    def ok(self) -> bool:
        """True when nothing may block a push."""
        return not self.violations

    def by_check(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for v in self.violations:
            counts[v.check] = counts.get(v.check, 0) + 1
        return dict(sorted(counts.items()))

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "switches": self.switches,
            "tenants": self.tenants,
            "summary": self.by_check(),
            "violations": [asdict(v) for v in self.violations],
            "exceptions": [asdict(e) for e in self.exceptions],
            "capacity": [asdict(r) for r in self.capacity],
            "ecmp": [asdict(r) for r in self.ecmp],
            "assumptions": self.assumptions,
            "links": [link.model_dump() for link in self.links],
            "gpu_ports": [g.model_dump() for g in self.gpu_ports],
            "notes": self.notes,
            **({"drain": self.drain.to_dict()} if self.drain is not None else {}),
        }


def to_json(report: VerifyReport) -> str:
    """Machine-readable report (stable key order, no colour)."""
    return json.dumps(report.to_dict(), indent=2, sort_keys=False)


def render_text(report: VerifyReport, console: Console, max_rows: int = 40) -> None:
    """Human report: each violation with its line and counterexample, exceptions, capacity tables."""
    for v in report.violations:
        where = f"line {v.line}" if v.line else "missing"
        console.print(f"[red]✗ {v.check}[/red] [bold]{v.switch}[/bold] {v.object} ({where}: {v.text!s})")
        console.print(f"    {v.counterexample}", markup=False)
    if report.exceptions:
        console.print(f"[bold]Allowed exceptions[/bold] (declared by both tenants): {len(report.exceptions)}")
        for e in report.exceptions[:max_rows]:
            console.print(f"  ✓ {e.tenants[0]} <-> {e.tenants[1]} ({e.mechanism}): {e.detail}", markup=False)
        if len(report.exceptions) > max_rows:
            console.print(f"  ... {len(report.exceptions) - max_rows} more (see --format json)")
    _capacity_tables(report, console, max_rows)
    _ecmp_table(report, console, max_rows)
    if report.notes:
        console.print("[bold]Documented[/bold] (per switch model, with its source) and proven across NOSes:")
        for n in report.notes:
            console.print(f"  · {n}", markup=False)
    if report.assumptions:
        console.print("[bold]Assumed[/bold] (no vendor document states it; check it on a switch):")
        for a in report.assumptions:
            console.print(f"  ? {a}", markup=False)
    if report.ok:
        console.print(
            f"[green]verify: ok[/green] ({report.switches} switches, {report.tenants} tenants): "
            "isolation, lossless consistency, ECMP width and capacity hold"
        )
    else:
        summary = ", ".join(f"{k} {n}" for k, n in report.by_check().items())
        console.print(f"[red]verify: {len(report.violations)} violation(s)[/red]: {summary}")


def _capacity_tables(report: VerifyReport, console: Console, max_rows: int) -> None:
    """Per metric: every failing row, else the busiest switch (JSON carries every row)."""
    switch_rows = [r for r in report.capacity if not r.metric.startswith("tenant")]
    tenant_rows = [r for r in report.capacity if r.metric.startswith("tenant")]
    if switch_rows:
        table = Table(title="Capacity (per metric: failures, else the busiest switch)")
        for col in ("scope", "metric", "used", "limit", "ok", "detail"):
            table.add_column(col)
        by_metric: dict[str, list[CapacityRow]] = {}
        for r in switch_rows:
            by_metric.setdefault(r.metric, []).append(r)
        for metric, group in by_metric.items():
            failing = [r for r in group if not r.ok]
            shown = failing[:max_rows] or [max(group, key=_load)]
            for r in shown:
                n = f" (of {len(group)})" if len(group) > 1 else ""
                table.add_row(
                    r.scope + n,
                    metric,
                    _num(r.used),
                    "-" if r.limit is None else _num(r.limit),
                    "yes" if r.ok else "[red]NO[/red]",
                    r.detail,
                )
        console.print(table)
    if tenant_rows:
        table = Table(title=f"GPUs per tenant ({len(tenant_rows)} tenants)")
        for col in ("tenant", "GPUs", "detail"):
            table.add_column(col)
        for r in sorted(tenant_rows, key=lambda r: -r.used)[:max_rows]:
            table.add_row(r.scope, _num(r.used), r.detail)
        if len(tenant_rows) > max_rows:
            table.add_row(f"... {len(tenant_rows) - max_rows} more", "", "")
        console.print(table)


def _ecmp_table(report: VerifyReport, console: Console, max_rows: int) -> None:
    """Per tier and pod pair, the narrowest width: every short row, else the narrowest few."""
    if not report.ecmp:
        return
    short = [r for r in report.ecmp if not r.ok]
    rows = short or sorted(report.ecmp, key=lambda r: (r.width / max(r.uplinks, 1), r.scope, r.towards))
    table = Table(title=f"ECMP width (equal paths installed / uplinks; {len(report.ecmp)} pairs)")
    for col in ("from", "towards", "width", "uplinks", "ok", "switch"):
        table.add_column(col)
    for r in rows[:max_rows]:
        table.add_row(
            r.scope, r.towards, str(r.width), str(r.uplinks), "yes" if r.ok else "[red]NO[/red]", r.switch
        )
    if len(rows) > max_rows:
        table.add_row(f"... {len(rows) - max_rows} more", "", "", "", "", "")
    console.print(table)


def _load(r: CapacityRow) -> float:
    return r.used / r.limit if r.limit else r.used


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.2f}"
