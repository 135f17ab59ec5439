"""`fabricctl apply [PLAN]`: plan (or load a reviewed plan), approve, lock, push, report."""

from __future__ import annotations

import contextlib
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
    lab_option,
    limit_option,
    log_options,
    parallelism_option,
    root_option,
    select_switches,
    stage_lines,
    timeout_option,
)
from fabricctl.cli.deploy import compute_plan, diff_options, prune_option

if TYPE_CHECKING:
    from fabricctl.compile.build import Compiled


@click.command("apply")
@click.argument("plan_file", required=False, type=click.Path(path_type=Path, dir_okay=False, exists=True))
@root_option
@lab_option
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
@prune_option
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
    prune: bool,
    diff: str | None,
    timeout: float,
) -> None:
    """Push a plan safely: per switch load, device diff, commit with confirm timer, verify, confirm, save."""
    from fabricctl.cli.output import ApplyDisplay, color_enabled
    from fabricctl.deploy.apply import ApplyOptions
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
    from fabricctl.report.text import interrupted_text, plan_text, run_text
    from fabricctl.secrets import redacted_json

    if report_file is not None:
        check_output_file(report_file, root)  # before anything is read or pushed
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
    with locked(root, lambda message: echo(message, err=True)):  # also when there is nothing to change
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
                return list(select_switches(c, tuple(reviewed.limit)))

            compiled, _, configs = compile_stage(fabric_root(root), stages, pick)
            plan, prepared = load_reviewed(compiled, root, plan_file, stages, configs, reviewed)
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
            )
            stream = sys.stderr if as_json else sys.stdout
            text = plan_text(
                plan, prepared.verify, prepared.compiled, diff=diff or "auto", color=color_enabled(stream)
            )
            echo(text, err=as_json)
            if not plan.changed and not plan.unreachable:
                report = start_report(root, plan, prepared, opts, argv)
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
        report = start_report(root, plan, prepared, opts, argv)
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
