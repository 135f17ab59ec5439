"""`fabricctl drain | undrain TARGET`: edit maintenance.yaml after proving the change is safe.

A drain is intent like a tenant: the entry goes into maintenance.yaml (the fabric root, under
version control), and a plan and apply (here with --apply, or later, or by the GitOps pipeline)
push it as any change, with the diff, the guards, commit-confirm and the record. Before a line of
the file changes, the fabric is compiled with the new entry and proven: every tenant keeps its
floor (fabric.yaml drain.max_bandwidth_loss) and some path outside maintenance; a drained leaf
cuts its GPUs off the fabric and needs --allow-disruptive. A refused drain leaves the file as it was.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from fabricctl import pipeline
from fabricctl.cli.common import (
    CliError,
    echo,
    lab_option,
    one_line_flag,
    root_option,
    timeout_option,
)

if TYPE_CHECKING:
    from fabricctl.compile.build import Compiled
    from fabricctl.model.maintenance import Drain
    from fabricctl.verify.report import VerifyReport

_TARGET = "SWITCH or SWITCH:PORT (a fabric port of it)"


def _then_apply(f: Any) -> Any:
    f = click.option("--auto-approve", is_flag=True, help="With --apply: do not ask for confirmation.")(f)
    return click.option(
        "--apply",
        "then_apply",
        is_flag=True,
        help="Apply the change at once (plan, approval, commit-confirm, health gate, record), as `fabricctl apply` does.",
    )(f)


def _drain(target: str, reason: str) -> Drain:
    from pydantic import ValidationError

    from fabricctl.model.maintenance import Drain

    switch, _, port = target.partition(":")
    try:
        return Drain(switch=switch, port=port or None, reason=reason)
    except ValidationError as exc:
        field = str(exc.errors()[0]["loc"][0])
        raise CliError(f"{target!r} is not a drain target: bad {field} (allowed: {_TARGET})") from None


def _proof(compiled: Compiled, drained: list[Drain]) -> VerifyReport:
    from fabricctl.model.maintenance import Maintenance
    from fabricctl.verify.api import verify_maintenance

    return verify_maintenance(compiled, Maintenance(drained=drained), compiled.fabric.root)


def _show(report: VerifyReport) -> None:
    from fabricctl.report.drain import drain_text

    if report.drain is not None:
        echo(drain_text(report.drain))


def _refuse(report: VerifyReport, allow_disruptive: bool, what: str) -> None:
    """Refuse before the file changes: a proof that fails, or a leaf drain not allowed."""
    if not report.ok:
        shown = [f"  {v.switch}: {v.check}: {v.counterexample}" for v in report.violations[:10]]
        more = len(report.violations) - len(shown)
        raise CliError(
            f"{what} refused, maintenance.yaml unchanged: {len(report.violations)} proof(s) fail:\n"
            + "\n".join(shown)
            + (f"\n  ... and {more} more" if more > 0 else "")
        )
    cut = report.drain.cut_off if report.drain is not None else {}
    if cut and not allow_disruptive:
        tenants = ", ".join(f"{t} ({len(g)} GPU(s))" for t, g in sorted(cut.items()))
        raise CliError(
            f"{what} refused, maintenance.yaml unchanged: a drained leaf takes its GPUs off the fabric: "
            f"{tenants}; move those tenants first, or drain with --allow-disruptive (apply needs it too)"
        )


def _write(root: Path, text: str | None) -> None:
    from fabricctl.model.maintenance import MAINTENANCE_FILE
    from fabricctl.outputs import write_file

    path = root / MAINTENANCE_FILE
    if text is None:
        path.unlink(missing_ok=True)
    else:
        write_file(path, text, within=root)


def _current(root: Path) -> str | None:
    from fabricctl.model.maintenance import MAINTENANCE_FILE

    path = root / MAINTENANCE_FILE
    return path.read_text(encoding="utf-8") if path.is_file() else None


def _apply(
    ctx: click.Context,
    root: Path,
    lab: bool,
    auto_approve: bool,
    allow: bool,
    reason: str,
    timeout: float,
    undrain: tuple[str, ...] = (),
) -> None:
    from fabricctl.cli.apply import apply_cmd

    ctx.invoke(
        apply_cmd,
        root=root,
        lab=lab,
        auto_approve=auto_approve,
        allow_disruptive=allow,
        allow_undrain=undrain,  # `undrain TARGET --apply` consents to TARGET going back, nothing else
        reason=reason or None,
        timeout=timeout,
    )


@click.command("drain")
@click.argument("target", metavar="SWITCH[:PORT]")
@root_option
@click.option(
    "--reason", default="", metavar="TEXT", help="Why (kept in maintenance.yaml and the run record)."
)
@click.option(
    "--allow-disruptive",
    is_flag=True,
    help="Drain a leaf even though its GPUs lose the fabric (their tenants are named).",
)
@_then_apply
@lab_option
@timeout_option
@click.pass_context
def drain_cmd(
    ctx: click.Context,
    target: str,
    root: Path,
    reason: str,
    allow_disruptive: bool,
    then_apply: bool,
    auto_approve: bool,
    lab: bool,
    timeout: float,
) -> None:
    """Take a switch or fabric link out of the forwarding path (BGP graceful shutdown), proven safe per tenant first."""
    from fabricctl.compile.drain import target_problem
    from fabricctl.model.maintenance import with_drain

    one_line_flag("--reason", reason)
    one_line_flag("Invalid value for SWITCH[:PORT]", target)
    drain = _drain(target, reason)
    compiled = pipeline.compile(root)
    drained = list(compiled.fabric.maintenance.drained)
    problem = target_problem(compiled.fabric, compiled.topology, drained, drain)
    if problem is not None:
        raise CliError(f"drain {target}: {problem[1]} (allowed: {problem[2]})")
    report = _proof(compiled, [*drained, drain])
    _show(report)
    _refuse(report, allow_disruptive, f"drain {target}")
    _write(compiled.fabric.root, with_drain(_current(compiled.fabric.root), drain))
    echo(
        f"maintenance.yaml: {target} drained; `fabricctl plan` shows the change, `fabricctl apply` pushes it\n",
        err=True,
    )
    if then_apply:
        _apply(ctx, root, lab, auto_approve, allow_disruptive, reason or f"drain {target}", timeout)


@click.command("undrain")
@click.argument("target", metavar="SWITCH[:PORT]")
@root_option
@_then_apply
@lab_option
@timeout_option
@click.pass_context
def undrain_cmd(
    ctx: click.Context,
    target: str,
    root: Path,
    then_apply: bool,
    auto_approve: bool,
    lab: bool,
    timeout: float,
) -> None:
    """Put a drained switch or fabric link back into the forwarding path (its entry leaves maintenance.yaml)."""
    from fabricctl.compile.drain import plan_name
    from fabricctl.model.maintenance import without_drain

    one_line_flag("Invalid value for SWITCH[:PORT]", target)
    compiled = pipeline.compile(root)
    drained = list(compiled.fabric.maintenance.drained)
    if not any(d.target == target for d in drained):
        listed = ", ".join(d.target for d in drained) or "nothing is drained"
        raise CliError(f"undrain {target}: not in maintenance.yaml (allowed: {listed})")
    back = next(d for d in drained if d.target == target)
    left = [d for d in drained if d.target != target]
    if left:
        report = _proof(compiled, left)
        _show(report)
    _write(compiled.fabric.root, without_drain(_current(compiled.fabric.root) or "", target))
    echo(
        f"maintenance.yaml: {target} back in service; `fabricctl plan` shows the change, `fabricctl apply` pushes it\n",
        err=True,
    )
    if then_apply:
        name = plan_name(compiled.topology, back)
        _apply(ctx, root, lab, auto_approve, False, f"undrain {target}", timeout, undrain=(name,))
