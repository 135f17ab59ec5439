"""`fabricctl apply [PLAN]`: plan (or load a reviewed plan), approve, lock, push, report."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from fabricctl.cli.common import (
    MAX_CONFIRM_TIMEOUT,
    MAX_SWITCHES,
    CliError,
    allow_gpu_moves_option,
    check_output_file,
    echo,
    fabric_root,
    insecure_host_keys_option,
    lab_option,
    limit_option,
    log_options,
    one_line_flag,
    parallelism_option,
    root_option,
    select_switches,
    stage_lines,
    timeout_option,
)
from fabricctl.cli.deploy import compute_plan, diff_options, prune_option, tenant_options, tenant_scope

if TYPE_CHECKING:
    from fabricctl.compile.build import Compiled
    from fabricctl.deploy.apply import RunReport


@click.command("apply")
@click.argument("plan_file", required=False, type=click.Path(path_type=Path, dir_okay=False, exists=True))
@root_option
@lab_option
@insecure_host_keys_option
@limit_option
@click.option("--auto-approve", is_flag=True, help="Do not ask for confirmation.")
@parallelism_option("pushed")
@click.option(
    "--canary",
    type=click.IntRange(min=0, max=MAX_SWITCHES),
    default=0,
    show_default=True,
    help="Switches pushed first, alone.",
)
@click.option(
    "--batch-size",
    type=click.IntRange(min=1, max=MAX_SWITCHES),
    default=None,
    help="Switches per batch [parallelism].",
)
@click.option(
    "--max-failures",
    type=click.IntRange(min=0, max=MAX_SWITCHES),
    default=0,
    show_default=True,
    help="Stop starting new switches after more failures than this.",
)
@click.option(
    "--confirm-timeout",
    type=click.IntRange(min=1, max=MAX_CONFIRM_TIMEOUT),
    default=120,
    show_default=True,
    help=f"Seconds a switch waits for the confirm before reverting by itself, 1-{MAX_CONFIRM_TIMEOUT}.",
)
@click.option(
    "--rollback-on-failure", is_flag=True, help="Revert switches this run changed if any switch fails."
)
@click.option(
    "--allow-disruptive",
    is_flag=True,
    help="Push a plan that affects running tenants (removed, moved, re-addressed, isolation changed, ports flapped) without a canary.",
)
@click.option(
    "--no-health-gate",
    "no_health_gate",
    is_flag=True,
    help="Confirm without the health gate (a check that passed before a switch's change and fails after it undoes that switch).",
)
@allow_gpu_moves_option
@click.option("--json", "as_json", is_flag=True, help="Print the run report as JSON.")
@click.option(
    "--report",
    "report_file",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="Also write the run record to FILE (it is always kept under .fabricctl/runs/).",
)
@click.option(
    "--shard",
    metavar="pod:N|superspine|all",
    help="Apply one failure domain of the reviewed PLAN (a CI matrix job per pod, then the super-spines).",
)
@click.option(
    "--run-group",
    metavar="ID",
    help="The run the shards belong to (e.g. the CI run's id) [the plan's hash]; history shows it as one run.",
)
@click.option(
    "--reason",
    metavar="TEXT",
    help="Why this apply runs (kept in the run record and shown by history).",
)
@click.option(
    "--ticket",
    "tickets",
    multiple=True,
    metavar="ID",
    help="Change ticket id (repeatable) [also read from FABRICCTL_PR_TITLE / FABRICCTL_PR_LABELS / a 'Ticket:' trailer of HEAD].",
)
@prune_option
@tenant_options
@diff_options
@timeout_option
@log_options
def apply_cmd(
    plan_file: Path | None,
    root: Path,
    lab: bool,
    limit: tuple[str, ...],
    auto_approve: bool,
    parallelism: int,
    canary: int,
    batch_size: int | None,
    max_failures: int,
    confirm_timeout: int,
    rollback_on_failure: bool,
    allow_disruptive: bool,
    no_health_gate: bool,
    allow_gpu_moves: bool,
    as_json: bool,
    report_file: Path | None,
    shard: str | None,
    run_group: str | None,
    reason: str | None,
    tickets: tuple[str, ...],
    prune: bool,
    tenant: str | None,
    tenant_base: str,
    diff: str | None,
    timeout: float,
) -> None:
    """Push a plan safely: per switch load, device diff, commit with confirm timer, verify, confirm, save."""
    from fabricctl.cli.output import ApplyDisplay, color_enabled
    from fabricctl.deploy.apply import ApplyOptions
    from fabricctl.deploy.audit import tenants_by_switch, tickets_of
    from fabricctl.deploy.plan import check_fabric, load_plan
    from fabricctl.deploy.record import record_path
    from fabricctl.deploy.service import (
        ApplyHooks,
        apply_safely,
        compile_stage,
        load_reviewed,
        locked,
        record_nothing_to_do,
        refuse_disruptive,
        start_report,
    )
    from fabricctl.deploy.shards import check_group, shard_members
    from fabricctl.report.text import interrupted_text, plan_text, run_text
    from fabricctl.secrets import redacted_json

    if report_file is not None:
        check_output_file(report_file, root)  # before anything is read or pushed
    for flag, value in (("--shard", shard), ("--run-group", run_group), ("--reason", reason)):
        one_line_flag(flag, value)
    if (shard or run_group) and plan_file is None:
        raise CliError(
            "--shard and --run-group apply one failure domain of a reviewed plan: give the PLAN file"
        )
    group = run_group or (plan_digest(plan_file) if shard and plan_file is not None else None)
    if group is not None:
        check_group(group)
    opts = ApplyOptions(
        parallelism=parallelism,
        canary=canary,
        batch_size=batch_size,
        max_failures=max_failures,
        confirm_timeout=confirm_timeout,
        rollback_on_failure=rollback_on_failure,
        timeout=timeout,
        health_gate=not no_health_gate,
        allow_disruptive=allow_disruptive,
    )
    argv = (click.get_current_context().find_root().obj or {}).get("argv")
    stages = stage_lines()
    sharded = (group, shard or "all") if group is not None else None

    def audit(report: RunReport) -> None:
        """Why, under which tickets, which tenants on which switch; the shard and its run."""
        if sharded is not None:
            report.context.update(run_group=sharded[0], shard=sharded[1])
        report.context.update(
            reason=reason or "",
            tickets=tickets_of(root, tickets),
            tenants=tenants_by_switch(plan.changes, plan.changed),
        )

    with (
        locked(root, lambda message: echo(message, err=True), lab, sharded),  # also with nothing to change
        contextlib.ExitStack() as scopes,  # --tenant: the inputs of one tenant's change, for the run
    ):
        if sharded is not None:
            refuse_after_a_failed_wave(root, lab, *sharded)
        if plan_file is not None:
            reviewed = load_plan(plan_file)
            if limit and sorted(limit) != sorted(reviewed.limit):
                made = f"--limit {','.join(reviewed.limit)}" if reviewed.limit else "no --limit"
                raise CliError(
                    f"--limit {','.join(limit)}: {plan_file} was made with {made}, and a plan is applied "
                    "as reviewed (allowed: no --limit, or a new plan made with this --limit)"
                )
            if prune and not reviewed.prune:
                raise CliError(
                    f"--prune: {plan_file} was made without it, so it removes no look-alike "
                    "(allowed: a plan made with 'fabricctl plan --prune')"
                )
            moves = reviewed.changes.get("gpu_moves") or []
            if moves and not allow_gpu_moves:
                raise CliError(
                    f"{plan_file} moves {len(moves)} held GPU(s) (listed in the plan): "
                    "apply it with --allow-gpu-moves"
                )

            def pick(c: Compiled) -> list[str]:  # a plan of this fabric, whose --limit still names switches
                check_fabric(reviewed, c, plan_file)
                names = list(select_switches(c, tuple(reviewed.limit)))
                if shard:  # one failure domain: the rest of the plan is other shards' work
                    members = shard_members(c, shard)
                    reviewed.switches = {n: s for n, s in reviewed.switches.items() if n in members}
                    names = [n for n in names if n in members]
                return names

            scoped = reviewed.changes.get("scope") or {}
            if tenant is not None and scoped.get("tenant") != tenant:
                raise CliError(
                    f"--tenant {tenant}: {plan_file} is not a plan of that tenant's change "
                    f"(allowed: a plan made with 'fabricctl plan --tenant {tenant}')"
                )
            scope = scopes.enter_context(tenant_scope(root, scoped.get("tenant"), scoped.get("base", "HEAD")))
            inputs = scope.inputs if scope is not None else root
            compiled, _, configs = compile_stage(fabric_root(inputs), stages, pick)
            plan, prepared = load_reviewed(compiled, inputs, plan_file, stages, configs, reviewed)
            refuse_disruptive(plan, opts)
        else:
            plan, prepared = compute_plan(
                root,
                lab,
                limit,
                timeout,
                stages=stages,
                workers=parallelism,
                allow_gpu_moves=allow_gpu_moves,
                prune=prune,
                scope=scopes.enter_context(tenant_scope(root, tenant, tenant_base)),
            )
            stream = sys.stderr if as_json else sys.stdout
            text = plan_text(
                plan, prepared.verify, prepared.compiled, diff=diff or "auto", color=color_enabled(stream)
            )
            echo(text, err=as_json)
            if not plan.changed and not plan.unreachable:
                report = start_report(root, plan, prepared, opts, argv, lab)
                audit(report)
                path = record_nothing_to_do(root, plan, prepared, opts, report, stages, report_file)
                if as_json:
                    echo(redacted_json({"changed": 0, "switches": {}}))
                echo(f"nothing to change; record: {_shown(path)}\n", err=True)
                return
            refuse_disruptive(plan, opts)  # before anyone is asked to approve
            if not auto_approve:
                if not sys.stdin.isatty():
                    raise CliError("refusing to apply without confirmation: no terminal; pass --auto-approve")
                if not click.confirm("Apply these changes?", default=False, err=True):
                    raise CliError("apply cancelled")
        report = start_report(root, plan, prepared, opts, argv, lab)
        audit(report)
        path = record_path(root, report.run_id)
        lines = stages.listener
        display = ApplyDisplay(plan, getattr(lines, "console", None))
        hooks = ApplyHooks(display.started, display.finished, display.interrupted)
        try:
            with display, _routed(lines, display):
                report, path = apply_safely(
                    root, plan, prepared, lab, opts, plan_file is not None,
                    hooks=hooks, report=report, stages=stages, copy_to=report_file,
                )  # fmt: skip
        except KeyboardInterrupt:
            echo(
                "Stopped at once (third interrupt): the switches in flight may be mid-push; each is "
                "protected by its commit-confirm timer and the next 'fabricctl plan' shows it as pending.\n"
                + interrupted_text(report, _shown(path)),
                err=True,
            )
            sys.exit(130)
    problem = (report.context.get("shared") or {}).get("problem")
    if problem:
        echo(f"warning: the run record is {problem}\n", err=True)
    if as_json:
        echo(redacted_json(report.to_dict()))
        echo(f"record: {_shown(path)}\n", err=True)
    else:
        echo(run_text(report, color_enabled(sys.stdout), record=_shown(path)))
    if report.interrupted:
        echo(interrupted_text(report, _shown(path)), err=True)
        sys.exit(130)
    if report.not_applied:
        said = []
        for status, word in (("failed", "failed"), ("rolled back", "rolled back")):
            names = [n for n in report.not_applied if report.switches[n].status == status]
            shown = [f"{n} ({report.switches[n].cause})" if report.switches[n].cause else n for n in names]
            if names:
                said.append(f"{len(names)} switch(es) {word}: {', '.join(shown)}")
        raise CliError("; ".join(said))


def plan_digest(plan_file: Path) -> str:
    """The default run group of a plan's shards: its hash (one reviewed plan, one run)."""
    import hashlib

    return hashlib.sha256(plan_file.read_bytes()).hexdigest()[:16]


def refuse_after_a_failed_wave(root: Path, lab: bool, group: str, shard: str) -> None:
    """A shard starts only when no other shard of its run failed or stopped (inside the lock)."""
    from fabricctl.deploy.gitstate import read_records, shared_remote
    from fabricctl.deploy.shards import earlier_wave_problem, group_records

    remote = shared_remote(root, lab)
    shared = read_records(remote) if remote is not None else {}
    problem = earlier_wave_problem(group_records(root, shared, group), shard)
    if problem:
        raise CliError(f"--shard {shard}: not started, an earlier wave of run {group} failed: {problem}")


@contextlib.contextmanager
def _routed(lines: Any, display: Any) -> Iterator[None]:
    """Stage lines go through the live display while it owns the terminal."""
    if lines is not None and hasattr(lines, "sink"):
        lines.sink = display.line
    try:
        yield
    finally:
        if lines is not None and hasattr(lines, "sink"):
            lines.sink = None


def _shown(path: Path) -> str:
    """A record path as the user typed --root: relative when that is shorter."""
    import os

    rel = os.path.relpath(path)
    return rel if len(rel) < len(str(path)) else str(path)


@click.command("shards")
@click.argument("plan_file", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@root_option
def shards_cmd(plan_file: Path, root: Path) -> None:
    """Print the failure domains a reviewed plan changes, as JSON for a CI matrix: pods, then super-spines."""
    from fabricctl.compile.build import compile_fabric
    from fabricctl.deploy.plan import check_fabric, load_plan
    from fabricctl.deploy.shards import shards_of

    plan = load_plan(plan_file)
    compiled = compile_fabric(fabric_root(root))
    check_fabric(plan, compiled, plan_file)
    echo(json.dumps(shards_of(compiled, plan)) + "\n")
