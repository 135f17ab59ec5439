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

from pydantic import BaseModel, ConfigDict, Field

from fabricctl.config.readback import SwitchConfig
from fabricctl.model.fabric import cable_meters

if TYPE_CHECKING:
    from fabricctl.compile.build import Compiled
    from fabricctl.verify.report import VerifyReport


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Failure(_Data):
    """One broken property: where (switch, object, line) and a witness (verify's Violation)."""

    check: str
    switch: str
    object: str
    line: int | None
    text: str
    counterexample: str


class Exception_(_Data):
    """A cross-tenant path both tenants declared (shared_with both ways)."""

    tenants: list[str]
    mechanism: str  # route-target | acl
    detail: str


class IsolationProof(_Data):
    ok: bool
    tenants: int
    pairs: int  # every pair of tenants, proven apart unless both declared the exception
    checked_how: list[str]
    exceptions: list[Exception_]
    failures: list[Failure] = Field(default_factory=list)


class LinkEnd(_Data):
    switch: str
    port: str
    no_drop: list[int]  # the PFC no-drop priorities the config enables on the port
    headroom_bytes: int | None  # the headroom sized for its speed and cable (the intent's)
    headroom_cells: int | None  # the headroom the config sets, where the NOS takes a size


class LinkProof(_Data):
    tier: str  # leaf-spine | spine-superspine
    cable_m: int
    speed_gbps: int | None
    ends: list[LinkEnd]
    agree: bool  # both ends: the same no-drop priorities and headroom
    why: str = ""  # what differs, when they do not


class GpuPortsProof(_Data):
    """A leaf's lossless GPU ports: the switch end only (the far end is a server NIC)."""

    switch: str
    ports: int
    no_drop: list[int]
    headroom_bytes: list[int]
    cable_m: int


class LosslessProof(_Data):
    ok: bool
    policy: dict[str, int]  # roce_dscp, lossless_priority, mtu
    links: list[LinkProof]
    gpu_ports: list[GpuPortsProof]
    assumptions: list[str]
    failures: list[Failure] = Field(default_factory=list)


class EcmpTier(_Data):
    scope: str
    towards: str
    width: int
    uplinks: int
    ok: bool
    switch: str


class EcmpProof(_Data):
    ok: bool
    tiers: list[EcmpTier]
    failures: list[Failure] = Field(default_factory=list)


class Budget(_Data):
    scope: str
    metric: str
    used: float
    limit: float | None
    ok: bool
    detail: str = ""
    of: int = 1  # how many switches this row stands for (the busiest of them is shown)


class CapacityProof(_Data):
    ok: bool
    budgets: list[Budget]
    failures: list[Failure] = Field(default_factory=list)


class TenantPlacement(_Data):
    tenant: str
    gpus: int
    leaves: list[str]
    servers: int
    rails: list[int]  # the NIC numbers its GPUs use: one per rail on a rail-optimised fabric


class PlacementProof(_Data):
    ok: bool
    tenants: list[TenantPlacement]


class Proofs(_Data):
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


def link_proofs(
    compiled: Compiled, parsed: dict[str, SwitchConfig]
) -> tuple[list[LinkProof], list[GpuPortsProof]]:
    """Each fabric link's two ends and each leaf's lossless GPU ports, as the configs set them."""
    settings = compiled.fabric.settings
    cable = {"leaf-spine": cable_meters(settings.cabling.uplink_cable)}
    if settings.pods is not None:
        cable["spine-superspine"] = cable_meters(settings.pods.uplink_cable)
    intents = compiled.intents

    def end(switch: str, port: str) -> tuple[LinkEnd, int | None]:
        intent = intents.get(switch)
        planned = next((i for i in intent.interfaces if i.name == port), None) if intent else None
        cfg = parsed.get(switch)
        qos = cfg.interfaces[port].qos if cfg is not None and port in cfg.interfaces else None
        no_drop = sorted(qos.no_drop) if qos is not None else []
        cells = [at.value for at in qos.headroom_cells.values()] if qos is not None else []
        headroom = planned.headroom if planned is not None else None
        speed = planned.speed_gbps if planned is not None else None
        return LinkEnd(
            switch=switch,
            port=port,
            no_drop=no_drop,
            headroom_bytes=headroom,
            headroom_cells=max(cells) if cells else None,
        ), speed

    links = []
    for ln in compiled.topology.links:
        (a, speed), (b, _) = end(ln.leaf, ln.leaf_port), end(ln.spine, ln.spine_port)
        differs = [
            what
            for what, x, y in (
                ("no-drop priorities", a.no_drop, b.no_drop),
                ("headroom", a.headroom_bytes, b.headroom_bytes),
                ("headroom cells", a.headroom_cells, b.headroom_cells),
            )
            if x != y
        ]
        missing = [e.switch for e in (a, b) if not e.no_drop]
        why = "; ".join(
            ([f"{', '.join(differs)} differ"] if differs else []) + [f"no PFC on {s}" for s in missing]
        )
        links.append(
            LinkProof(
                tier=ln.tier,
                cable_m=cable.get(ln.tier, 0),
                speed_gbps=speed,
                ends=[a, b],
                agree=not why,
                why=why,
            )
        )
    gpu: dict[str, tuple[int, set[int], set[int]]] = {}
    for (leaf, port), (alloc, _pa) in sorted(compiled.allocation.port_owner.items()):
        if not alloc.tenant.lossless:
            continue
        e, _ = end(leaf, port)
        count, prios, sizes = gpu.get(leaf, (0, set(), set()))
        gpu[leaf] = (
            count + 1,
            prios | set(e.no_drop),
            sizes | ({e.headroom_bytes} if e.headroom_bytes else set()),
        )
    gpu_cable = cable_meters(settings.cabling.gpu_cable)
    gpu_ports = [
        GpuPortsProof(switch=leaf, ports=n, no_drop=sorted(p), headroom_bytes=sorted(h), cable_m=gpu_cable)
        for leaf, (n, p, h) in gpu.items()
    ]
    return links, gpu_ports


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
