"""`fabricctl plan | apply | drift | force-unlock`: thin click shells over the deploy stage."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from fabricctl.deploy.credentials import CredentialError, redact
from fabricctl.deploy.plan import Plan, PlanError

root_option = click.option(
    "--root",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("."),
    show_default="current directory",
    help="Fabric repository (holds inventory/ and tenants/).",
)
lab_option = click.option("--lab", is_flag=True, help="Target the lab fabric (lab login and endpoints).")
limit_option = click.option(
    "--limit", multiple=True, metavar="NAME|ROLE", help="Switch name or role (spine, leaf); repeatable."
)
timeout_option = click.option(
    "--timeout",
    type=click.FloatRange(min=1),
    default=30.0,
    show_default=True,
    help="Per-command timeout (s).",
)


def _echo(text: str, err: bool = False) -> None:
    click.echo(redact(text), nl=False, err=err)


def _fail(msg: str) -> click.ClickException:
    return click.ClickException(redact(msg))


def _prepare(root: Path, limit: tuple[str, ...]) -> Any:
    from fabricctl.cli import compile_root, select_switches
    from fabricctl.deploy.plan import prepare

    compiled = compile_root(root)
    names = list(select_switches(compiled, limit))
    try:
        return prepare(root, compiled, names)
    except PlanError as exc:
        raise _fail(str(exc)) from None


def compute_plan(root: Path, lab: bool, limit: tuple[str, ...], timeout: float) -> tuple[Plan, Any]:
    """Compile, verify, fetch and diff: the plan and the prepared inputs it rests on."""
    from fabricctl.deploy.context import open_fabric
    from fabricctl.deploy.fetch import fetch_running
    from fabricctl.deploy.plan import make_plan

    prepared = _prepare(root, limit)
    try:
        with open_fabric(root, lab, set(prepared.names)) as nr:
            fetched = fetch_running(nr, timeout)
    except CredentialError as exc:
        raise _fail(str(exc)) from None
    return make_plan(prepared, fetched, list(limit)), prepared


def render_plan(plan: Plan, fmt: str) -> str:
    from fabricctl.report.json import dumps
    from fabricctl.report.markdown import plan_markdown
    from fabricctl.report.text import plan_text

    if fmt == "json":
        return dumps(plan.to_dict())
    if fmt == "markdown":
        return plan_markdown(plan)
    return plan_text(plan)


@click.command("plan")
@root_option
@lab_option
@limit_option
@click.option(
    "-o", "--out", "out_path", type=click.Path(path_type=Path, dir_okay=False), help="Write the plan file."
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "markdown", "json"]), default="text", show_default=True
)
@click.option("--detailed-exitcode", is_flag=True, help="Exit 2 when there are changes, 0 when none.")
@timeout_option
def plan_cmd(
    root: Path,
    lab: bool,
    limit: tuple[str, ...],
    out_path: Path | None,
    fmt: str,
    detailed_exitcode: bool,
    timeout: float,
) -> None:
    """Diff every switch's running config against the intent (read-only); optionally save the plan."""
    from fabricctl.deploy.plan import save_plan

    plan, _ = compute_plan(root, lab, limit, timeout)
    _echo(render_plan(plan, fmt))
    if out_path is not None:
        save_plan(plan, out_path)
        if fmt != "json":
            _echo(f"plan saved to {out_path}\n", err=True)
    if plan.unreachable:
        raise _fail(
            f"plan incomplete: {len(plan.unreachable)} switch(es) unreachable: {', '.join(plan.unreachable)}"
        )
    if detailed_exitcode and plan.changed:
        sys.exit(2)  # click in non-standalone mode drops Exit codes; main() lets SystemExit through


@click.command("drift")
@root_option
@lab_option
@limit_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@timeout_option
def drift_cmd(root: Path, lab: bool, limit: tuple[str, ...], as_json: bool, timeout: float) -> None:
    """Read-only: exit 2 when a switch's owned config differs from the intent (0 none, 1 error)."""
    from fabricctl.report.json import dumps

    plan, _ = compute_plan(root, lab, limit, timeout)
    if as_json:
        data = {
            "drift": bool(plan.changed),
            "switches": {n: plan.switches[n].diff for n in plan.changed},
            "unreachable": {n: plan.switches[n].error for n in plan.unreachable},
        }
        _echo(dumps(data))
    else:
        for name in plan.changed:
            _echo(plan.switches[name].diff)
        for name in plan.unreachable:
            _echo(f"! {name}: unreachable ({plan.switches[name].error})\n")
        _echo(f"drift: {', '.join(plan.changed)}\n" if plan.changed else "no drift\n")
    if plan.unreachable:
        raise _fail(f"{len(plan.unreachable)} switch(es) could not be read: {', '.join(plan.unreachable)}")
    if plan.changed:
        sys.exit(2)  # click in non-standalone mode drops Exit codes; main() lets SystemExit through


@click.command("force-unlock")
@root_option
@click.option("--yes", is_flag=True, help="Do not ask.")
def force_unlock_cmd(root: Path, yes: bool) -> None:
    """Remove the apply lock of this fabric (after making sure no apply is running)."""
    from fabricctl.deploy.lock import read_lock, remove_lock

    info = read_lock(root)
    if info is None:
        _echo("no lock held\n")
        return
    _echo(f"lock held by {info.describe()}\n")
    if not yes:
        if not sys.stdin.isatty():
            raise _fail("force-unlock needs --yes when not on a terminal")
        click.confirm("Remove it?", abort=True)
    remove_lock(root)
    _echo("lock removed\n")


def deploy_commands() -> list[click.Command]:
    from fabricctl.deploy.apply_cli import apply_cmd

    return [plan_cmd, apply_cmd, drift_cmd, force_unlock_cmd]
