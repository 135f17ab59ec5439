"""`apply [PLAN]` from flags to record: lock, plan (or the reviewed plan, checked against the flags
and the fabric), approval, push, record. It prints nothing and asks nothing itself: the caller's
`ApplyUi` shows the plan, asks for approval and follows the push (the CLI's is a terminal).
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from fabricctl.errors import StageError

if TYPE_CHECKING:
    from fabricctl.compile.build import Compiled
    from fabricctl.deploy.apply import ApplyOptions, RunReport
    from fabricctl.deploy.plan import Plan, Prepared
    from fabricctl.deploy.service import ApplyHooks, Notify, PlanOptions, Select
    from fabricctl.deploy.stages import Stages


class ApplyRefused(StageError):
    """A flag contradicts the reviewed plan it applies: nothing read, nothing pushed."""


class ApplyInterrupted(KeyboardInterrupt):
    """Stopped at once (a third interrupt) while switches were in flight; the record so far."""

    def __init__(self, report: RunReport, record: Path) -> None:
        super().__init__()
        self.report, self.record = report, record


@dataclass(frozen=True, kw_only=True)
class ApplyRequest:
    """One `apply`: its inputs, the reviewed plan (or None: plan now), and how to push."""

    root: Path
    options: ApplyOptions
    plan: PlanOptions  # the switches (`limit`), how they are read, what the plan may propose
    lab: bool = False
    plan_file: Path | None = None
    tenant: str | None = None  # `--tenant`: one tenant's change (deploy/scope.py)
    tenant_base: str = "HEAD"
    shard: str | None = None  # one failure domain of the reviewed plan (deploy/shards.py)
    run_group: str | None = None
    reason: str = ""
    tickets: tuple[str, ...] = ()
    report_file: Path | None = None  # a copy of the run record
    argv: list[str] | None = None  # the command line, for the record


@dataclass(kw_only=True)
class ApplyUi:
    """The caller's side of an apply: how `--limit` is resolved, what a person sees and says."""

    select: Select
    stages: Stages
    notify: Notify  # one-line messages (a stale lock taken over)
    show_plan: Callable[[Plan, Prepared], None]  # a plan made now, before approval
    approve: Callable[[], None]  # raises to refuse
    #: Follows the push of `plan`: the hooks it hears while the context is open.
    watch: Callable[[Plan], AbstractContextManager[ApplyHooks]]


@dataclass
class ApplyOutcome:
    report: RunReport
    record: Path
    nothing_to_do: bool = False  # planned now and found nothing to change: nothing was pushed


def plan_digest(plan_file: Path) -> str:
    """The default run group of a plan's shards: its hash (one reviewed plan, one run)."""
    return hashlib.sha256(plan_file.read_bytes()).hexdigest()[:16]


def run_group(request: ApplyRequest) -> str | None:
    """The run a shard belongs to: `--run-group`, else the reviewed plan's hash (None: not sharded)."""
    from fabricctl.deploy.shards import check_group

    plan_file = request.plan_file
    group = request.run_group or (plan_digest(plan_file) if request.shard and plan_file is not None else None)
    if group is not None:
        check_group(group)
    return group


def refuse_after_a_failed_wave(root: Path, lab: bool, group: str, shard: str) -> None:
    """A shard starts only when no other shard of its run failed or stopped (inside the lock)."""
    from fabricctl.deploy.gitstate import read_records, shared_remote
    from fabricctl.deploy.shards import earlier_wave_problem, group_records

    remote = shared_remote(root, lab)
    shared = read_records(remote) if remote is not None else {}
    problem = earlier_wave_problem(group_records(root, shared, group), shard)
    if problem:
        raise ApplyRefused(f"--shard {shard}: not started, an earlier wave of run {group} failed: {problem}")


def run_apply(request: ApplyRequest, ui: ApplyUi) -> ApplyOutcome:
    """Lock the fabric, plan (or load and check the reviewed PLAN), ask, push, write the record.

    Refusals (a stale or contradicted plan, a disruptive one without consent, an earlier failed
    wave) raise before any switch is pushed; a third interrupt raises `ApplyInterrupted`.
    """
    from fabricctl.deploy.audit import tenants_by_switch, tickets_of
    from fabricctl.deploy.record import record_path
    from fabricctl.deploy.scope import tenant_change
    from fabricctl.deploy.service import (
        apply_safely,
        locked,
        plan_fabric,
        record_nothing_to_do,
        refuse_disruptive,
        start_report,
    )

    root, opts = request.root, request.options
    group = run_group(request)
    sharded = (group, request.shard or "all") if group is not None else None
    stages = ui.stages

    def audit(report: RunReport, plan: Plan) -> None:
        """Why, under which tickets, which tenants on which switch; the shard and its run."""
        if sharded is not None:
            report.context.update(run_group=sharded[0], shard=sharded[1])
        report.context.update(
            reason=request.reason,
            tickets=tickets_of(root, request.tickets),
            tenants=tenants_by_switch(plan.changes, plan.changed),
        )

    with (
        locked(root, ui.notify, request.lab, sharded),  # also with nothing to change
        contextlib.ExitStack() as scopes,  # --tenant: the inputs of one tenant's change, for the run
    ):
        if sharded is not None:
            refuse_after_a_failed_wave(root, request.lab, *sharded)
        if request.plan_file is not None:
            plan, prepared = _reviewed(request, request.plan_file, ui, scopes)
        else:
            scope = scopes.enter_context(tenant_change(root, request.tenant, request.tenant_base))
            plan, prepared = plan_fabric(
                root, request.lab, request.plan, ui.select, scope=scope, stages=stages, notify=ui.notify
            )
            ui.show_plan(plan, prepared)
            if not plan.changed and not plan.unreachable:
                report = start_report(root, plan, prepared, opts, request.argv, request.lab)
                audit(report, plan)
                path = record_nothing_to_do(root, plan, prepared, opts, report, stages, request.report_file)
                return ApplyOutcome(report, path, nothing_to_do=True)
            refuse_disruptive(plan, opts)  # before anyone is asked to approve
            ui.approve()
        report = start_report(root, plan, prepared, opts, request.argv, request.lab)
        audit(report, plan)
        path = record_path(root, report.run_id)
        try:
            with ui.watch(plan) as hooks:
                report, path = apply_safely(
                    root, plan, prepared, request.lab, opts, request.plan_file is not None,
                    hooks=hooks, report=report, stages=stages, copy_to=request.report_file,
                )  # fmt: skip
        except KeyboardInterrupt:
            raise ApplyInterrupted(report, path) from None
    return ApplyOutcome(report, path)


def _reviewed(
    request: ApplyRequest, plan_file: Path, ui: ApplyUi, scopes: contextlib.ExitStack
) -> tuple[Plan, Prepared]:
    """The reviewed PLAN, refused when a flag contradicts it (a plan is applied as reviewed), and
    the inputs as they are now (rendered and verified again)."""
    from fabricctl.deploy.plan import check_fabric, load_plan
    from fabricctl.deploy.scope import tenant_change
    from fabricctl.deploy.service import compile_stage, load_reviewed, refuse_disruptive
    from fabricctl.deploy.shards import shard_members

    limit = request.plan.limit
    reviewed = load_plan(plan_file)
    if limit and sorted(limit) != sorted(reviewed.limit):
        made = f"--limit {','.join(reviewed.limit)}" if reviewed.limit else "no --limit"
        raise ApplyRefused(
            f"--limit {','.join(limit)}: {plan_file} was made with {made}, and a plan is applied "
            "as reviewed (allowed: no --limit, or a new plan made with this --limit)"
        )
    if request.plan.prune and not reviewed.prune:
        raise ApplyRefused(
            f"--prune: {plan_file} was made without it, so it removes no look-alike "
            "(allowed: a plan made with 'fabricctl plan --prune')"
        )
    moves = reviewed.changes.get("gpu_moves") or []
    if moves and not request.plan.allow_gpu_moves:
        raise ApplyRefused(
            f"{plan_file} moves {len(moves)} held GPU(s) (listed in the plan): apply it with --allow-gpu-moves"
        )
    shard = request.shard

    def pick(c: Compiled) -> list[str]:  # a plan of this fabric, whose --limit still names switches
        check_fabric(reviewed, c, plan_file)
        names = list(ui.select(c, tuple(reviewed.limit)))
        if shard:  # one failure domain: the rest of the plan is other shards' work
            members = shard_members(c, shard)
            reviewed.switches = {n: s for n, s in reviewed.switches.items() if n in members}
            names = [n for n in names if n in members]
        return names

    scoped = reviewed.changes.get("scope") or {}
    tenant = request.tenant
    if tenant is not None and scoped.get("tenant") != tenant:
        raise ApplyRefused(
            f"--tenant {tenant}: {plan_file} is not a plan of that tenant's change "
            f"(allowed: a plan made with 'fabricctl plan --tenant {tenant}')"
        )
    scope = scopes.enter_context(
        tenant_change(request.root, scoped.get("tenant"), scoped.get("base", "HEAD"))
    )
    inputs = scope.inputs if scope is not None else request.root
    compiled, _, configs = compile_stage(inputs, ui.stages, pick)
    plan, prepared = load_reviewed(compiled, inputs, plan_file, ui.stages, configs, reviewed)
    refuse_disruptive(plan, request.options)
    return plan, prepared
