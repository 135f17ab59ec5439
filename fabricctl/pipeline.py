"""The stages of fabricctl, one public function each, in the order the data flows:

    load -> compile -> render -> verify -> plan -> apply -> check

Each takes and returns plain typed data (the models, frozen dataclasses and plain dicts the
stages already use); none prints or asks anything. The CLI, the GitOps commands, the exporter
and the tests reach the stages through these functions only (tests/test_architecture.py), so a
reader starts here and follows one call down into the stage's own package:

| stage | here | where the work is done |
|---|---|---|
| load | `load(root)` | model/ (inventory, tenants), compile/ (validation, allocation) |
| compile | `compile(root)` | compile/build.py |
| render | `render(intents, root)` | render.py |
| verify | `verify(compiled, configs)` | verify/api.py |
| plan | `plan(root, options, select)` | deploy/service.py, deploy/plan.py |
| apply | `apply(request, ui)` | deploy/apply_flow.py |
| check | `check(compiled, root, names)`; one tenant's scope with its counters: `check_tenant`; the fabric links' counters: `check_links` | deploy/health.py, deploy/tenant_health.py, deploy/links.py |

Every import of a stage is inside its function: importing this module costs nothing, so the
CLI's modules may import it at the top.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from fabricctl.compile.allocate import Allocation
    from fabricctl.compile.build import Compiled
    from fabricctl.compile.intent import DeviceIntent
    from fabricctl.compile.topology import Topology
    from fabricctl.deploy.apply_flow import ApplyOutcome, ApplyRequest, ApplyUi
    from fabricctl.deploy.health import Check
    from fabricctl.deploy.links import LinkReport
    from fabricctl.deploy.plan import Plan, Prepared
    from fabricctl.deploy.scope import TenantChange
    from fabricctl.deploy.service import Fetcher, Notify, PlanOptions, Select
    from fabricctl.deploy.stages import Stages
    from fabricctl.model.load import Fabric, TenantDoc
    from fabricctl.platforms.health import SwitchHealth
    from fabricctl.verify.report import VerifyReport


class Loaded(NamedTuple):
    """A fabric repository read and checked: its switches and settings, its tenants, the
    topology its cabling rules give and every tenant's numbers."""

    fabric: Fabric
    tenants: list[TenantDoc]
    topology: Topology
    allocation: Allocation


def load(root: Path) -> Loaded:
    """inventory/ and tenants/ of `root` read, validated and allocated; every problem found is
    raised at once (InputError, with file and line)."""
    from fabricctl.compile.build import load_and_check

    return Loaded(*load_and_check(root))


def compile(root: Path, only: set[str] | None = None) -> Compiled:
    """The fabric at `root` compiled: per switch its vendor-neutral DeviceIntent (only the
    switches `only` names, when given)."""
    from fabricctl.compile.build import compile_fabric

    return compile_fabric(root, only)


def render(intents: Mapping[str, DeviceIntent], root: Path | None = None) -> dict[str, str]:
    """Switch -> its configuration text, from the fabric's own templates (`root`/templates)
    first, then the built-in ones; a config rendered before from the same intent and templates
    comes from the store."""
    from fabricctl.render import Renderer

    return Renderer(root).render_all(intents)


def verify(
    compiled: Compiled, configs: Mapping[str, str], *, max_oversubscription: float | None = None
) -> VerifyReport:
    """Isolation, lossless consistency, ECMP, capacity and drain proofs of `configs` (switch ->
    config text, rendered or read from the switches) read back by each platform's parser."""
    from fabricctl.verify.api import verify_fabric

    return verify_fabric(compiled, dict(configs), max_oversubscription=max_oversubscription)


def plan(
    root: Path,
    options: PlanOptions,
    select: Select | None = None,
    *,
    lab: bool = False,
    fetch: Fetcher | None = None,
    scope: TenantChange | None = None,
    stages: Stages | None = None,
    notify: Notify | None = None,
) -> tuple[Plan, Prepared]:
    """The plan of the switches `select` picks by `options.limit` (all by default): the fabric
    compiled, rendered and verified, the switches read (over Nornir, from the lab with `lab`,
    or by `fetch`), and per switch the commands that bring it to its intent; with the prepared
    inputs it rests on, which `apply` re-derives."""
    from fabricctl.deploy.service import plan_fabric

    return plan_fabric(
        root,
        lab,
        options,
        select if select is not None else _everything,
        fetch=fetch,
        scope=scope,
        stages=stages,
        notify=notify,
    )


def _everything(compiled: Compiled, limit: tuple[str, ...]) -> Iterable[str]:
    """The default selection: every switch (a `limit` needs the caller's parser of it)."""
    if limit:
        raise ValueError(f"a limit ({', '.join(limit)}) needs a `select` that resolves it")
    return list(compiled.intents)


def apply(request: ApplyRequest, ui: ApplyUi) -> ApplyOutcome:
    """One apply, from its request to its run record: the lock, the plan made now (or the
    reviewed plan file re-derived and compared), the push under commit-confirm, the record."""
    from fabricctl.deploy.apply_flow import run_apply

    return run_apply(request, ui)


#: Reads the named switches' states: name -> its state, or why it could not be read.
HealthReader = Callable[[set[str]], "dict[str, SwitchHealth | str]"]


@dataclass(frozen=True)
class Health:
    """What `check` read: each switch's state (or why it could not be read) and every check."""

    states: dict[str, SwitchHealth | str]
    checks: list[Check]

    @property
    def unread(self) -> list[str]:
        """The switches that could not be read, sorted."""
        return sorted(n for n, s in self.states.items() if isinstance(s, str))


def check(
    compiled: Compiled,
    root: Path,
    names: Iterable[str],
    *,
    lab: bool = False,
    timeout: float = 30.0,
    read: HealthReader | None = None,
) -> Health:
    """The named switches' health, read from their own show commands (links, LLDP against the
    cabling, BGP/EVPN, VNIs, GPU ports, settings waiting for a reboot), over Nornir from the
    lab or the switches, or by `read` (tests: states given)."""
    from fabricctl.deploy.health import check_health
    from fabricctl.deploy.service import read_switch_health

    wanted = set(names)
    states = read(wanted) if read is not None else read_switch_health(root, lab, wanted, timeout)
    return Health(states, check_health(compiled, states))


def check_tenant(
    compiled: Compiled,
    root: Path,
    tenant: str,
    *,
    window: float = 300.0,
    only: set[str] | None = None,
    lab: bool = False,
    timeout: float = 30.0,
    progress: Callable[[str], None] | None = None,
) -> list[Check]:
    """`check --tenant`: every check of one tenant's scope (on the switches `only` names, when
    given): the proofs over its switches' running configs, their state, and their counters read
    twice `window` seconds apart by a switch's clock; `progress` hears each step. Raises
    UnknownTenant (deploy/tenant_health.py) before any switch is contacted."""
    from fabricctl.deploy.tenant_health import tenant_checks

    return tenant_checks(root, lab, compiled, tenant, window, timeout, only, progress or _silent)


def check_links(
    compiled: Compiled,
    root: Path,
    *,
    window: float = 30.0,
    lab: bool = False,
    timeout: float = 30.0,
    stages: Stages | None = None,
    progress: Callable[[str], None] | None = None,
) -> LinkReport:
    """`check --links`: every switch with a fabric link read twice `window` seconds apart, the
    marginal links ranked (errors, flaps, weak optics) and the drain that isolates them proved."""
    from fabricctl.deploy.links import link_checks

    return link_checks(root, lab, compiled, window, timeout, stages=stages, progress=progress or _silent)


def _silent(line: str) -> None:
    """A progress listener that hears nothing."""
