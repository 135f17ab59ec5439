"""The proofs a plan rests on, as data a reviewer (and a machine) reads: each with what was
checked, how, and what held or failed.

- isolation: every pair of tenants, the five ways one could reach another (verify/isolation.py:
  ports, route targets, VNIs, SVIs, transit) and the exceptions both tenants declared;
- lossless: per fabric link, each end's no-drop priorities, PFC headroom and the cable length it
  is sized for, and whether both ends agree; per leaf, its lossless GPU ports;
- ECMP: the narrowest width from each tier towards each other pod's VTEPs (verify/ecmp.py);
- capacity: per budget the busiest switch and every one over, the fabric's GPUs held and free;
- placement: for the tenants a change touches, where their GPUs are (leaves, servers, rails).

Everything here is derived from the inputs (the intended configs, read back as verify reads
them): the plan file carries it under `proofs`, and `fabricctl schema plan` publishes its shape.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from pydantic import Field

from fabricctl.verify.link_ends import Data, GpuPortsProof, LinkProof

if TYPE_CHECKING:
    from fabricctl.compile.build import Compiled
    from fabricctl.verify.report import VerifyReport


class Failure(Data):
    """One broken property: where (switch, object, line) and a witness (verify's Violation)."""

    check: str
    switch: str
    object: str
    line: int | None
    text: str
    counterexample: str


class Exception_(Data):
    """A cross-tenant path both tenants declared (shared_with both ways)."""

    tenants: list[str]
    mechanism: str  # route-target | acl
    detail: str


class IsolationProof(Data):
    ok: bool
    tenants: int
    pairs: int  # every pair of tenants, proven apart unless both declared the exception
    checked_how: list[str]
    exceptions: list[Exception_]
    failures: list[Failure] = Field(default_factory=list)


class LosslessProof(Data):
    ok: bool
    policy: dict[str, int]  # roce_dscp, lossless_priority, mtu
    links: list[LinkProof]
    gpu_ports: list[GpuPortsProof]
    assumptions: list[str]
    failures: list[Failure] = Field(default_factory=list)


class EcmpTier(Data):
    scope: str
    towards: str
    width: int
    uplinks: int
    ok: bool
    switch: str


class EcmpProof(Data):
    ok: bool
    tiers: list[EcmpTier]
    failures: list[Failure] = Field(default_factory=list)


class Budget(Data):
    scope: str
    metric: str
    used: float
    limit: float | None
    ok: bool
    detail: str = ""
    of: int = 1  # how many switches this row stands for (the busiest of them is shown)


class CapacityProof(Data):
    ok: bool
    budgets: list[Budget]
    failures: list[Failure] = Field(default_factory=list)


class TenantPlacement(Data):
    tenant: str
    gpus: int
    leaves: list[str]
    servers: int
    rails: list[int]  # the NIC numbers its GPUs use: one per rail on a rail-optimised fabric


class PlacementProof(Data):
    ok: bool
    tenants: list[TenantPlacement]


class Proofs(Data):
    """Every proof of a plan; `failed` names those that did not hold, in review order."""

    ok: bool
    failed: list[str]
    isolation: IsolationProof
    lossless: LosslessProof
    ecmp: EcmpProof
    capacity: CapacityProof
    placement: PlacementProof


#: How isolation is proven (verify/isolation.py), one line per way a tenant could reach another.
ISOLATION_METHODS = [
    "ports: each held port sits in its tenant's VRF or segment and its ACL denies every other "
    "tenant's block (first match); a free port is shut down; no other port joins a tenant VRF",
    "route targets: a VRF imports only route targets its own tenant or a declared peer exports",
    "VNIs: one VNI maps to one VRF or segment fabric-wide, the one the allocation gave it",
    "SVIs: a segment's gateway is in its tenant's VRF and applies its ACL",
    "transit: spines and super-spines hold no tenant VRF, segment or VNI",
]

#: Violation checks per proof (anything else counts for isolation, the strictest reading).
LOSSLESS_CHECKS = (
    "pfc", "ecn", "mtu", "frame", "dscp-map", "queue-map", "cnp", "protocol-strict", "watchdog",
    "trust", "headroom", "tunnel", "port-missing", "lossless",
)  # fmt: skip
CAPACITY_CHECKS = ("budget", "oversubscription")
ECMP_CHECKS = ("ecmp",)
ORDER = ("isolation", "lossless", "ecmp", "capacity", "placement")


def proof_of(check: str) -> str:
    """Which proof a violation breaks."""
    if check.startswith(CAPACITY_CHECKS):
        return "capacity"
    if check.startswith(ECMP_CHECKS):
        return "ecmp"
    if check.startswith(LOSSLESS_CHECKS):
        return "lossless"
    return "isolation"


def _failures(report: VerifyReport, proof: str) -> list[Failure]:
    return [
        Failure(
            check=v.check,
            switch=v.switch,
            object=v.object,
            line=v.line,
            text=v.text,
            counterexample=v.counterexample,
        )
        for v in report.violations
        if proof_of(v.check) == proof
    ]


def _budgets(report: VerifyReport) -> list[Budget]:
    """Per switch metric: every switch over its budget, else the busiest; fabric-wide rows whole."""
    out: list[Budget] = []
    by_metric: dict[str, list[Budget]] = {}
    for r in report.capacity:
        if r.metric.startswith("tenant"):
            continue
        row = Budget(
            scope=r.scope, metric=r.metric, used=float(r.used), limit=r.limit, ok=r.ok, detail=r.detail
        )
        if r.scope == "fabric":
            out.append(row)
        else:
            by_metric.setdefault(r.metric, []).append(row)
    for group in by_metric.values():
        failing = [r for r in group if not r.ok]
        if failing:
            out += failing
        else:
            busiest = max(group, key=lambda r: (r.used / r.limit if r.limit else r.used, r.scope))
            out.append(busiest.model_copy(update={"of": len(group)}))
    return out


def placement(compiled: Compiled, tenants: Iterable[str]) -> PlacementProof:
    """Where each named tenant's GPUs are: its leaves, whole servers and the NICs (rails) it uses."""
    allocs = {a.name: a for a in compiled.allocation.tenants}
    nics_per_server: dict[str, int] = {}
    for ports in compiled.topology.gpu_ports.values():
        for gp in ports:
            nics_per_server[gp.server] = nics_per_server.get(gp.server, 0) + 1
    rows = []
    for name in sorted(set(tenants)):
        a = allocs.get(name)
        if a is None:
            continue
        held: dict[str, int] = {}
        for pa in a.ports:
            held[pa.gpu.server] = held.get(pa.gpu.server, 0) + 1
        whole = sum(1 for server, n in held.items() if n == nics_per_server.get(server))
        rows.append(
            TenantPlacement(
                tenant=name,
                gpus=len(a.ports),
                leaves=sorted(a.leaves),
                servers=whole,
                rails=sorted({pa.gpu.nic for pa in a.ports}),
            )
        )
    return PlacementProof(ok=True, tenants=rows)


def proof_record(report: VerifyReport, compiled: Compiled, tenants: Iterable[str] = ()) -> Proofs:
    """The proofs of `report` (verify on the intended configs) as the plan carries them."""
    n = report.tenants
    q = compiled.fabric.settings.qos
    failures = {name: _failures(report, name) for name in ORDER}
    isolation = IsolationProof(
        ok=not failures["isolation"],
        tenants=n,
        pairs=n * (n - 1) // 2,
        checked_how=ISOLATION_METHODS,
        exceptions=[
            Exception_(tenants=list(e.tenants), mechanism=e.mechanism, detail=e.detail)
            for e in report.exceptions
        ],
        failures=failures["isolation"],
    )
    lossless = LosslessProof(
        ok=not failures["lossless"] and all(link.agree for link in report.links),
        policy={"roce_dscp": q.roce_dscp, "lossless_priority": q.lossless_priority, "mtu": q.mtu},
        links=report.links,
        gpu_ports=report.gpu_ports,
        assumptions=list(report.assumptions),
        failures=failures["lossless"],
    )
    ecmp = EcmpProof(
        ok=not failures["ecmp"],
        tiers=[
            EcmpTier(
                scope=r.scope, towards=r.towards, width=r.width, uplinks=r.uplinks, ok=r.ok, switch=r.switch
            )
            for r in report.ecmp
        ],
        failures=failures["ecmp"],
    )
    capacity = CapacityProof(
        ok=not failures["capacity"], budgets=_budgets(report), failures=failures["capacity"]
    )
    place = placement(compiled, tenants)
    held = {"isolation": isolation.ok, "lossless": lossless.ok, "ecmp": ecmp.ok, "capacity": capacity.ok}
    failed = [name for name in ORDER if not held.get(name, place.ok)]
    return Proofs(
        ok=not failed,
        failed=failed,
        isolation=isolation,
        lossless=lossless,
        ecmp=ecmp,
        capacity=capacity,
        placement=place,
    )
