"""`apply [PLAN]` from flags to record: lock, plan (or the reviewed plan, checked against the flags
and the fabric), approval, push, record. It prints nothing and asks nothing itself: the caller's
`ApplyUi` shows the plan, asks for approval and follows the push (the CLI's is a terminal).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from fabricctl.errors import StageError
from fabricctl.model.text import printable

if TYPE_CHECKING:
    from fabricctl.compile.build import Compiled
    from fabricctl.deploy.apply import ApplyOptions, RunReport
    from fabricctl.deploy.changed import RefFabric
    from fabricctl.deploy.plan import Plan, PlanFile, Prepared
    from fabricctl.deploy.service import ApplyHooks, Claim, Notify, PlanOptions, Select
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
    digest: str | None = None  # `--digest`: the reviewed plan file's (the PR comment shows it)
    allow_dirty: bool = False  # apply inputs that differ from the commit (the record says so)
    approved_by: tuple[str, ...] = ()  # who approved the change (GitOps: the PR's reviewers)
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


def resumed_run(root: Path, lab: bool, digest: str, sharded: tuple[str, str] | None) -> str | None:
    """The earlier try of this reviewed plan (and shard) that did not end cleanly, if any: the
    switches it brought to the plan are then read back and not pushed again (service.recheck)."""
    from fabricctl.deploy.gitstate import read_records, shared_remote
    from fabricctl.deploy.shards import all_records, unfinished_run

    remote = shared_remote(root, lab)
    shared = read_records(remote) if remote is not None else {}
    return unfinished_run(all_records(root, shared), digest, sharded[1] if sharded is not None else "")


def run_apply(request: ApplyRequest, ui: ApplyUi) -> ApplyOutcome:
    """Lock the fabric, plan (or load and check the reviewed PLAN), ask, push, write the record.

    Refusals (a stale or contradicted plan, a disruptive one without consent, an earlier failed
    wave) raise before any switch is pushed; a third interrupt raises `ApplyInterrupted`.
    """
    from fabricctl.deploy.record import record_path
    from fabricctl.deploy.scope import tenant_change
    from fabricctl.deploy.service import (
        apply_safely,
        lease_shard,
        locked,
        plan_fabric,
        record_nothing_to_do,
        refuse_disruptive,
        start_report,
    )

    root, opts = request.root, request.options
    dirty = _uncommitted(root, request.allow_dirty)
    group = run_group(request)
    sharded = (group, request.shard or "all") if group is not None else None
    stages = ui.stages

    def audit(report: RunReport, plan: Plan) -> None:
        _audit(report, plan, request, sharded, dirty)

    with (
        locked(root, ui.notify, request.lab, sharded),  # also with nothing to change
        contextlib.ExitStack() as scopes,  # --tenant: the inputs of one tenant's change, for the run
    ):
        if sharded is not None:
            refuse_after_a_failed_wave(root, request.lab, *sharded)
        claim = None
        if request.plan_file is not None:
            plan, prepared, claim = _reviewed(request, request.plan_file, ui, scopes)
            if sharded is not None:  # two runners of the run never push one switch
                lease_shard(root, request.lab, sharded, prepared.names, ui.notify)
            claim.resumes = resumed_run(root, request.lab, claim.file.digest, sharded)
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
        if claim is not None:
            report.plan_hash = claim.file.digest
        audit(report, plan)
        path = record_path(root, report.run_id)
        try:
            with ui.watch(plan) as hooks:
                report, path = apply_safely(
                    root, plan, prepared, request.lab, opts, claim,
                    hooks=hooks, report=report, stages=stages, copy_to=request.report_file,
                )  # fmt: skip
        except KeyboardInterrupt:
            raise ApplyInterrupted(report, path) from None
    return ApplyOutcome(report, path)


def _uncommitted(root: Path, allow_dirty: bool) -> list[str]:
    """The input files with uncommitted changes; refused unless `--allow-dirty` (the record then
    lists them)."""
    from fabricctl.deploy.plan import INPUT_DIRS
    from fabricctl.gitinfo import uncommitted

    dirty = uncommitted(root, INPUT_DIRS)
    if dirty and not allow_dirty:
        shown = ", ".join(dirty[:5]) + (f" and {len(dirty) - 5} more" if len(dirty) > 5 else "")
        raise ApplyRefused(
            f"uncommitted changes under inventory/, tenants/ or templates/ ({shown}): nothing applied; "
            "commit them (the run record names the commit applied), or apply with --allow-dirty "
            "(the record then lists them)"
        )
    return dirty


def _audit(
    report: RunReport, plan: Plan, request: ApplyRequest, sharded: tuple[str, str] | None, dirty: list[str]
) -> None:
    """Why, under which tickets, which tenants on which switch; the shard and its run."""
    from fabricctl.deploy.audit import tenants_by_switch, tickets_of

    if sharded is not None:
        report.context.update(run_group=sharded[0], shard=sharded[1])
    report.context.update(
        reason=request.reason,
        tickets=tickets_of(request.root, request.tickets),
        tenants=tenants_by_switch(plan.changes, plan.changed),
        actor=printable(os.environ.get("FABRICCTL_ACTOR", ""))[:100],
        approved_by=list(request.approved_by),
        allow_dirty=request.allow_dirty,
    )
    report.context["git"] = {**report.context.get("git", {}), "uncommitted": dirty[:100]}


def _reviewed(
    request: ApplyRequest, plan_file: Path, ui: ApplyUi, scopes: contextlib.ExitStack
) -> tuple[Plan, Prepared, Claim]:
    """The reviewed PLAN, refused when a flag contradicts it (a plan is applied as reviewed) or
    when it needs a flag the command line does not give (nothing a file says widens what apply
    may do), and the inputs as they are now (rendered and verified again), for the switches the
    plan's selection gives now. The switches are read and the plan derived again at the push
    (service.recheck)."""
    from fabricctl.deploy.changed import select_changed
    from fabricctl.deploy.plan import check_fabric, prepare, read_plan
    from fabricctl.deploy.scope import tenant_change
    from fabricctl.deploy.service import Claim, compile_stage
    from fabricctl.deploy.shards import shard_members

    file = read_plan(plan_file)
    reviewed = file.plan
    scoped = _check_as_reviewed(request, file, plan_file)
    shard = request.shard
    members: set[str] | None = None

    def pick(c: Compiled) -> list[str]:  # a plan of this fabric, whose --limit still names switches
        nonlocal members
        check_fabric(reviewed, c, plan_file)
        try:
            names = list(ui.select(c, tuple(reviewed.limit)))
        except Exception as exc:  # the caller's --limit parser: its message names what exists
            said = getattr(exc, "message", None) or str(exc)
            raise ApplyRefused(f"{plan_file}: limit: {said}") from None
        if shard:  # one failure domain: the rest of the plan is other shards' work
            members = shard_members(c, shard)
            reviewed.switches = {n: s for n, s in reviewed.switches.items() if n in members}
            names = [n for n in names if n in members]
        return names

    scope = scopes.enter_context(
        tenant_change(request.root, scoped.get("tenant"), scoped.get("base", "HEAD"))
    )
    inputs = scope.inputs if scope is not None else request.root
    compiled, names, configs = compile_stage(inputs, ui.stages, pick)
    ref = _reviewed_ref(request.root, reviewed, plan_file)
    prepared = prepare(inputs, compiled, names, ui.stages, configs)
    if ref is not None:
        from fabricctl.deploy.changed import fingerprints

        prepared.names = select_changed(ref, fingerprints(compiled, configs), prepared.names)
    if scope is not None:
        from fabricctl.deploy.changed import fingerprints
        from fabricctl.deploy.scope import tenant_switches

        prepared.names = tenant_switches(
            request.root, scope.commit, fingerprints(compiled, configs), prepared.names
        )
    claim = Claim(file, ref, members, request.plan.allow_gpu_moves)
    return reviewed, prepared, claim


def _check_as_reviewed(request: ApplyRequest, file: PlanFile, plan_file: Path) -> dict[str, str]:
    """Refuse a flag that contradicts the reviewed plan or a change it makes that needs a flag the
    command line does not give; the plan's tenant scope."""
    from fabricctl.deploy.service import disruptive

    limit = request.plan.limit
    reviewed = file.plan
    if request.digest is not None and file.digest != request.digest:
        raise ApplyRefused(
            f"{plan_file}: its digest is {file.digest}, not the reviewed plan's {request.digest} "
            "(--digest): nothing applied (allowed: the plan file the reviewed comment was made from)"
        )
    if limit and sorted(limit) != sorted(reviewed.limit):
        made = f"--limit {','.join(reviewed.limit)}" if reviewed.limit else "no --limit"
        raise ApplyRefused(
            f"--limit {','.join(limit)}: {plan_file} was made with {made}, and a plan is applied "
            "as reviewed (allowed: no --limit, or a new plan made with this --limit)"
        )
    if request.plan.prune != reviewed.prune:
        raise ApplyRefused(
            f"--prune: {plan_file} was made without it, so it removes no look-alike "
            "(allowed: a plan made with 'fabricctl plan --prune')"
            if request.plan.prune
            else f"{plan_file}: prune: it removes look-alikes (made with --prune): apply it with --prune"
        )
    moves = reviewed.changes.get("gpu_moves") or []
    if moves and not request.plan.allow_gpu_moves:
        raise ApplyRefused(
            f"{plan_file}: changes.gpu_moves: it moves {len(moves) if isinstance(moves, list) else 'some'} "
            "held GPU(s) (listed in the plan): apply it with --allow-gpu-moves"
        )
    found = disruptive(reviewed) if isinstance(reviewed.changes.get("tenants", []), list) else {}
    opts = request.options
    if found and not (opts.allow_disruptive or opts.canary > 0):
        shown = "; ".join(f"{name} ({', '.join(classes)})" for name, classes in list(found.items())[:8])
        raise ApplyRefused(
            f"{plan_file}: changes.tenants: it affects {len(found)} running tenant(s): {shown}; nothing applied; "
            "apply it with --allow-disruptive (or --canary N to push N switches first)"
        )
    scoped = _scope_of(reviewed, plan_file)
    tenant = request.tenant
    if tenant is not None and scoped.get("tenant") != tenant:
        raise ApplyRefused(
            f"--tenant {tenant}: {plan_file} is not a plan of that tenant's change "
            f"(allowed: a plan made with 'fabricctl plan --tenant {tenant}')"
        )
    return scoped


def _reviewed_ref(root: Path, reviewed: Plan, plan_file: Path) -> RefFabric | None:
    """The commit a `--changed-since` plan was made against, to select the same switches again."""
    from fabricctl.deploy.changed import load_ref

    ref = None
    commit = reviewed.changed_since_commit
    if commit is not None:  # the selection and tenant changes it was made with, at that commit
        if not re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", commit):
            raise ApplyRefused(
                f"{plan_file}: changed_since_commit: {printable(commit)[:80]!r} is not a commit id"
            )
        try:
            ref = load_ref(root, commit)
        except StageError as exc:
            raise ApplyRefused(f"{plan_file}: changed_since_commit: {exc}") from None
        if ref.problem:
            raise ApplyRefused(
                f"{plan_file}: changed_since_commit: cannot derive the plan again: {ref.problem}"
            )
        ref = replace(ref, ref=reviewed.changed_since or ref.ref)
    return ref


def _scope_of(plan: Plan, plan_file: Path) -> dict[str, str]:
    """The plan's `changes.scope` ({"tenant", "base"} of `plan --tenant`), checked for its shape."""
    scope = plan.changes.get("scope")
    if scope is None:
        return {}
    if (
        not isinstance(scope, dict)
        or set(scope) != {"tenant", "base"}
        or not all(isinstance(v, str) for v in scope.values())
    ):
        raise ApplyRefused(
            f'{plan_file}: changes.scope is not {{"tenant": NAME, "base": COMMIT}}: nothing applied'
        )
    return scope
