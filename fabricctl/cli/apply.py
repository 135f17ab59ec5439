"""`fabricctl apply [PLAN]`: its flags, the approval prompt and what it prints; the flow (lock,
plan or the reviewed plan, push, record) is deploy/apply_flow.py."""

from __future__ import annotations

import contextlib
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from fabricctl import pipeline
from fabricctl.cli.common import (
    MAX_CONFIRM_TIMEOUT,
    MAX_SWITCHES,
    CliError,
    allow_gpu_moves_option,
    check_output_file,
    echo,
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
from fabricctl.cli.deploy import check_tenant_flags, diff_options, prune_option, tenant_options

if TYPE_CHECKING:
    from fabricctl.deploy.apply_flow import ApplyOutcome, ApplyUi
    from fabricctl.deploy.plan import Plan, Prepared


# long: a Click command whose 29 options make up half its length (the signature alone is 30 lines)
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
    "--allow-undrain",
    "allow_undrain",
    multiple=True,
    metavar="TARGET|all",
    help="Let the plan put this drained switch or link back into the forwarding path (as the plan names it; repeatable).",
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
@click.option(
    "--allow-dirty",
    is_flag=True,
    help="Apply inputs (inventory/, tenants/, templates/) that differ from the commit; the record lists them.",
)
@click.option(
    "--approved-by",
    "approved_by",
    multiple=True,
    envvar="FABRICCTL_APPROVED_BY",
    metavar="LOGIN",
    help="Who approved the change (repeatable or comma-separated; GitOps: the PR's approving reviewers) [env FABRICCTL_APPROVED_BY].",
)
@click.option(
    "--digest",
    metavar="SHA256",
    help="Apply PLAN only if its digest is this one (the reviewed plan comment shows it).",
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
    allow_undrain: tuple[str, ...],
    no_health_gate: bool,
    allow_gpu_moves: bool,
    as_json: bool,
    report_file: Path | None,
    shard: str | None,
    run_group: str | None,
    reason: str | None,
    tickets: tuple[str, ...],
    allow_dirty: bool,
    approved_by: tuple[str, ...],
    digest: str | None,
    prune: bool,
    tenant: str | None,
    tenant_base: str,
    diff: str | None,
    timeout: float,
) -> None:
    """Push a plan safely: per switch load, device diff, commit with confirm timer, verify, confirm, save."""
    from fabricctl.deploy.apply import ApplyOptions
    from fabricctl.deploy.apply_flow import ApplyInterrupted, ApplyRequest
    from fabricctl.deploy.service import PlanOptions
    from fabricctl.report.text import interrupted_text

    if report_file is not None:
        check_output_file(report_file, root)  # before anything is read or pushed
    _check_flags(
        root, plan_file, shard, run_group, reason, allow_undrain, tickets, tenant, tenant_base, digest
    )
    request = ApplyRequest(
        root=root,
        lab=lab,
        plan_file=plan_file,
        options=ApplyOptions(
            parallelism=parallelism,
            canary=canary,
            batch_size=batch_size,
            max_failures=max_failures,
            confirm_timeout=confirm_timeout,
            rollback_on_failure=rollback_on_failure,
            timeout=timeout,
            health_gate=not no_health_gate,
            allow_disruptive=allow_disruptive,
            allow_undrain=allow_undrain,
        ),
        plan=PlanOptions(
            limit=limit, timeout=timeout, workers=parallelism, allow_gpu_moves=allow_gpu_moves, prune=prune
        ),
        tenant=tenant,
        tenant_base=tenant_base,
        shard=shard,
        run_group=run_group,
        reason=reason or "",
        tickets=tickets,
        digest=digest,
        allow_dirty=allow_dirty,
        approved_by=_logins(approved_by),
        report_file=report_file,
        argv=(click.get_current_context().find_root().obj or {}).get("argv"),
    )
    try:
        outcome = pipeline.apply(request, _terminal(as_json, auto_approve, diff))
    except ApplyInterrupted as stop:
        echo(
            "Stopped at once (third interrupt): the switches in flight may be mid-push; each is "
            "protected by its commit-confirm timer and the next 'fabricctl plan' shows it as pending.\n"
            + interrupted_text(stop.report, _shown(stop.record)),
            err=True,
        )
        sys.exit(130)
    _say_outcome(outcome, as_json)


def _check_flags(
    root: Path,
    plan_file: Path | None,
    shard: str | None,
    run_group: str | None,
    reason: str | None,
    allow_undrain: tuple[str, ...],
    tickets: tuple[str, ...],
    tenant: str | None,
    tenant_base: str,
    digest: str | None,
) -> None:
    """The flags that say what to apply and why: one line each, a digest that is one, and a PLAN
    file for the flags that only a reviewed plan has."""
    for flag, value in (("--shard", shard), ("--run-group", run_group), ("--reason", reason)):
        one_line_flag(flag, value)
    for target in allow_undrain:
        one_line_flag("--allow-undrain", target)
    _check_tickets(tickets)
    check_tenant_flags(root, tenant, tenant_base)
    if digest is not None and not re.fullmatch(r"[0-9a-f]{64}", digest):
        raise CliError(
            f"--digest {digest[:80]!r}: not a plan digest (allowed: 64 hex digits, as the plan comment shows)"
        )
    if digest is not None and plan_file is None:
        raise CliError("--digest checks a reviewed plan file: give the PLAN file")
    if (shard or run_group) and plan_file is None:
        raise CliError(
            "--shard and --run-group apply one failure domain of a reviewed plan: give the PLAN file"
        )


def _say_outcome(outcome: ApplyOutcome, as_json: bool) -> None:
    """The run's report (text or JSON) and its record; exit 130 when interrupted, and a failure
    naming the switches failed or rolled back."""
    from fabricctl.cli.output import color_enabled
    from fabricctl.report.text import interrupted_text, run_text
    from fabricctl.secrets import redacted_json

    report, path = outcome.report, outcome.record
    if outcome.nothing_to_do:
        if as_json:
            echo(redacted_json({"changed": 0, "switches": {}}))
        echo(f"nothing to change; record: {_shown(path)}\n", err=True)
        return
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


def _check_tickets(tickets: tuple[str, ...]) -> None:
    """--ticket values: ids on one line, as many and as long as the run record keeps."""
    from fabricctl.deploy.audit import MAX_TICKET, MAX_TICKETS

    if len(tickets) > MAX_TICKETS:
        raise CliError(f"--ticket given {len(tickets)} times (allowed: at most {MAX_TICKETS} tickets a run)")
    for ticket in tickets:
        one_line_flag("--ticket", ticket)
        if not ticket.strip() or len(ticket) > MAX_TICKET:
            raise CliError(
                f"--ticket {ticket[:80]!r}: not a ticket id (allowed: 1-{MAX_TICKET} characters, e.g. NET-1234)"
            )


LOGIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]{0,99}")


def _logins(given: tuple[str, ...]) -> tuple[str, ...]:
    """--approved-by values (each may list several, comma-separated): account names only."""
    out: list[str] = []
    for item in given:
        for login in filter(None, (x.strip() for x in item.split(","))):
            if not LOGIN.fullmatch(login):
                raise CliError(
                    f"--approved-by {login[:80]!r}: not an account name (allowed: letters, digits, . _ @ + -)"
                )
            out.append(login)
    return tuple(dict.fromkeys(out))


def _terminal(as_json: bool, auto_approve: bool, diff: str | None) -> ApplyUi:
    """apply's side of the terminal: the plan on stdout (stderr with --json), the approval
    prompt, stage lines, and the live display while switches are pushed."""
    from fabricctl.cli.output import ApplyDisplay, color_enabled
    from fabricctl.deploy.apply_flow import ApplyUi
    from fabricctl.deploy.service import ApplyHooks
    from fabricctl.report.text import plan_text

    stages = stage_lines()

    def show_plan(plan: Plan, prepared: Prepared) -> None:
        stream = sys.stderr if as_json else sys.stdout
        text = plan_text(plan, diff=diff or "auto", color=color_enabled(stream))
        echo(text, err=as_json)

    def approve() -> None:
        if auto_approve:
            return
        if not sys.stdin.isatty():
            raise CliError("refusing to apply without confirmation: no terminal; pass --auto-approve")
        if not click.confirm("Apply these changes?", default=False, err=True):
            raise CliError("apply cancelled")

    @contextlib.contextmanager
    def watch(plan: Plan) -> Iterator[ApplyHooks]:
        lines = stages.listener
        display = ApplyDisplay(plan, getattr(lines, "console", None))
        with display, _routed(lines, display):
            yield ApplyHooks(display.started, display.finished, display.interrupted)

    return ApplyUi(
        select=select_switches,
        stages=stages,
        notify=lambda message: echo(message, err=True),
        show_plan=show_plan,
        approve=approve,
        watch=watch,
    )


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
    from fabricctl.deploy.plan import check_fabric, load_plan
    from fabricctl.deploy.shards import shards_of

    plan = load_plan(plan_file)
    compiled = pipeline.compile(root)
    check_fabric(plan, compiled, plan_file)
    echo(json.dumps(shards_of(compiled, plan)) + "\n")
