"""`fabricctl apply [PLAN]`: plan (or load a reviewed plan), approve, lock, push, report."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Any

import click

from fabricctl.cli.common import (
    MAX_CONFIRM_TIMEOUT,
    MAX_PARALLELISM,
    MAX_SWITCHES,
    CliError,
    compile_root,
    echo,
    lab_option,
    limit_option,
    root_option,
    select_switches,
    timeout_option,
)
from fabricctl.cli.deploy import compute_plan


def _progress(as_json: bool, total: int) -> tuple[Any, Any]:
    """(callback, rich progress or None): rich on a terminal, nothing for machines or pipes."""
    if as_json or not sys.stderr.isatty() or total == 0:
        return None, None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    progress = Progress(
        TextColumn("[bold]apply"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
        console=Console(stderr=True),
        transient=True,
    )
    task = progress.add_task("", total=total)

    def on_done(outcome: Any) -> None:
        if outcome.status in ("changed", "failed", "skipped"):
            progress.update(task, advance=1, description=f"{outcome.name}: {outcome.status}")

    return on_done, progress


@click.command("apply")
@click.argument("plan_file", required=False, type=click.Path(path_type=Path, dir_okay=False, exists=True))
@root_option
@lab_option
@limit_option
@click.option("--auto-approve", is_flag=True, help="Do not ask for confirmation.")
@click.option(
    "--parallelism",
    type=click.IntRange(min=1, max=MAX_PARALLELISM),
    default=20,
    show_default=True,
    help=f"Switches pushed at once, 1-{MAX_PARALLELISM}.",
)
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
    "--no-health-gate",
    "no_health_gate",
    is_flag=True,
    help="Confirm without the health gate (a check that passed before a switch's change and fails after it undoes that switch).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the run report as JSON.")
@timeout_option
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
    no_health_gate: bool,
    as_json: bool,
    timeout: float,
) -> None:
    """Push a plan safely: per switch load, device diff, commit with confirm timer, verify, confirm, save."""
    from fabricctl.deploy.apply import ApplyOptions
    from fabricctl.deploy.service import apply_safely, load_reviewed, locked
    from fabricctl.report.text import plan_text, run_text
    from fabricctl.secrets import redacted_json

    opts = ApplyOptions(
        parallelism,
        canary,
        batch_size,
        max_failures,
        confirm_timeout,
        rollback_on_failure,
        timeout,
        health_gate=not no_health_gate,
    )
    with locked(root, lambda message: echo(message, err=True)):  # also when there is nothing to change
        if plan_file is not None:
            compiled = compile_root(root)
            plan, prepared = load_reviewed(compiled, root, plan_file)
            select_switches(compiled, tuple(plan.limit))  # the plan's --limit must still name switches
        else:
            plan, prepared = compute_plan(root, lab, limit, timeout)
            echo(plan_text(plan), err=as_json)
            if not plan.changed and not plan.unreachable:
                if as_json:
                    echo(redacted_json({"changed": 0, "switches": {}}))
                return
            if not auto_approve:
                if not sys.stdin.isatty():
                    raise CliError("refusing to apply without confirmation: no terminal; pass --auto-approve")
                if not click.confirm("Apply these changes?", default=False, err=True):
                    raise CliError("apply cancelled")
        callback, progress = _progress(as_json, len(plan.changed))
        with progress if progress is not None else contextlib.nullcontext():
            report, path = apply_safely(root, plan, prepared, lab, opts, plan_file is not None, callback)
    if as_json:
        echo(redacted_json(report.to_dict()))
    else:
        echo(run_text(report))
        echo(f"report: {path}\n", err=True)
    if report.stopped_reason.startswith("interrupted"):
        echo("interrupted: no new switch was started; the record says which ones changed\n", err=True)
        sys.exit(130)
    if report.failed:
        raise CliError(f"{len(report.failed)} switch(es) failed: {', '.join(report.failed)}")
