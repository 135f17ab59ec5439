"""`fabricctl reboot --rolling`: the switches that wait for a reboot (and those named, for an
upgrade), a wave at a time: drained, traffic gone, rebooted, healthy, back in service. The roll
itself is deploy/rolling.py; here are its flags, the applies it asks for and what it prints."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import click

from fabricctl import pipeline
from fabricctl.cli.common import (
    CliError,
    Duration,
    echo,
    insecure_host_keys_option,
    lab_option,
    limit_option,
    one_line_flag,
    root_option,
    select_switches,
    timeout_option,
)

if TYPE_CHECKING:
    from fabricctl.compile.build import Compiled
    from fabricctl.deploy.rolling import Roll, RollOptions


@click.command("reboot")
@click.argument("switches", nargs=-1, metavar="[SWITCH]...")
@root_option
@click.option(
    "--rolling", is_flag=True, help="One wave at a time: drain, traffic gone, reboot, healthy, undrain."
)
@limit_option
@click.option(
    "--wave",
    type=click.Choice(["switch", "pod", "plane"]),
    default="switch",
    show_default=True,
    help="What a wave may hold one of: one switch, or one per pod or plane whose drains prove safe together.",
)
@click.option(
    "--allow-disruptive",
    is_flag=True,
    help="Reboot leaves too: their GPUs lose the fabric while they reboot (the drain names their tenants).",
)
@click.option(
    "--idle-pps",
    type=click.IntRange(min=0, max=1_000_000),
    default=100,
    show_default=True,
    help="Packets a second a drained switch's fabric port may still carry (its control plane) before it reboots.",
)
@click.option(
    "--traffic-timeout",
    type=Duration(10, 3600),
    default="5m",
    show_default=True,
    help="How long traffic may take to leave a drained switch (by its clock) before the roll stops.",
)
@click.option(
    "--boot-timeout",
    type=Duration(30, 3600),
    default="15m",
    show_default=True,
    help="How long a rebooted switch may take to pass every health check again before the roll stops.",
)
@click.option("--reason", metavar="TEXT", default="", help="Why (kept in maintenance.yaml and the records).")
@click.option(
    "--abandon",
    is_flag=True,
    help="Forget the roll in progress (nothing contacted; drains it added stay in maintenance.yaml).",
)
@lab_option
@insecure_host_keys_option
@timeout_option
def reboot_cmd(
    switches: tuple[str, ...],
    root: Path,
    rolling: bool,
    limit: tuple[str, ...],
    wave: str,
    allow_disruptive: bool,
    idle_pps: int,
    traffic_timeout: float,
    boot_timeout: float,
    reason: str,
    abandon: bool,
    lab: bool,
    timeout: float,
) -> None:
    """Reboot the switches with settings pending a reboot (or named), one wave at a time, drained and proven first; resumes where it stopped."""
    from fabricctl.deploy.rolling import RollOptions, busy_elsewhere, read_roll, save_roll

    one_line_flag("--reason", reason)
    for name in switches:
        one_line_flag("Invalid value for [SWITCH]...", name)
        if not re.fullmatch(r"[a-z][a-z0-9-]{0,31}", name):
            raise CliError(
                f"Invalid value for [SWITCH]...: {name[:40]!r} is not a switch name (allowed: a switch of the inventory)"
            )
    if not rolling and not abandon:
        raise CliError(
            "reboot needs --rolling (allowed: `fabricctl reboot --rolling [SWITCH]... [--limit ...]`: "
            "one wave at a time, drained, rebooted, checked and put back)"
        )
    roll = read_roll(root)
    if abandon:
        if roll is None:
            raise CliError("--abandon: no rolling reboot is in progress (allowed: only while one is)")
        save_roll(root, None)
        kept = ", ".join(roll.ours) if roll.ours else ""
        echo(
            f"rolling reboot {roll.run_id} forgotten: done {', '.join(roll.done) or 'none'}"
            + (f"; still drained in maintenance.yaml by it: {kept} (`fabricctl undrain`)" if kept else "")
            + "\n",
            err=True,
        )
        return
    if roll is not None:
        busy = busy_elsewhere(roll)
        if busy:
            raise CliError(f"{busy}: nothing contacted")
        if switches or limit or wave != "switch":
            raise CliError(
                f"a rolling reboot is in progress ({len(roll.done)} of {len(roll.switches)} switch(es) done, "
                f"at {', '.join(roll.wave) or 'the next wave'}): resume it with `fabricctl reboot --rolling` "
                "and no SWITCH, --limit or --wave (allowed: those of the roll; or --abandon)"
            )
        wave = str(roll.options.get("wave", "switch"))
    compiled = pipeline.compile(root)
    unknown = [n for n in switches if n not in compiled.intents]
    if unknown:
        names = list(compiled.intents)
        raise CliError(
            f"SWITCH {unknown[0]}: no such switch (allowed: {names[0]}..{names[-1]})"
            if names
            else f"SWITCH {unknown[0]}: the fabric has no switches"
        )
    selected = list(select_switches(compiled, limit)) if roll is None else []
    opts = RollOptions(
        wave=wave,
        allow_disruptive=allow_disruptive,
        idle_pps=float(idle_pps),
        traffic_timeout=traffic_timeout,
        boot_timeout=boot_timeout,
        timeout=timeout,
        poll=0.5 if lab else 5.0,
        reason=reason,
    )
    _roll(root, lab, compiled, roll, opts, list(switches), selected, limit)


def _roll(
    root: Path,
    lab: bool,
    compiled: Compiled,
    roll: Roll | None,
    opts: RollOptions,
    named: list[str],
    selected: list[str],
    limit: tuple[str, ...],
) -> None:
    import os
    import socket

    from fabricctl.deploy.apply import new_run_id
    from fabricctl.deploy.record import run_context
    from fabricctl.deploy.rolling import (
        Hooks,
        Roll,
        Roller,
        RollRecord,
        RollStopped,
        proves_together,
        save_roll,
        waves_of,
    )

    run_id = new_run_id()
    argv = (click.get_current_context().find_root().obj or {}).get("argv")
    if roll is None:
        order = _to_reboot(root, lab, compiled, named, selected, limit, opts.timeout)
        roll = Roll(run_id=run_id, switches=order, options={"wave": opts.wave, "named": named})
    roll.runs.append(run_id)
    roll.host, roll.pid = socket.gethostname(), os.getpid()
    record = RollRecord(root, run_id, run_context(root, argv, lab), roll, opts.reason)
    if not roll.switches:
        record.finish()
        echo("nothing waits for a reboot (and no switch was named): nothing to do\n", err=True)
        return
    save_roll(root, roll)
    resumed = (
        f" (resuming roll {roll.run_id} at {', '.join(roll.wave)}, step {roll.step})" if roll.wave else ""
    )
    echo(f"rolling reboot of {len(roll.todo)} switch(es): {', '.join(roll.todo)}{resumed}\n", err=True)
    hooks = Hooks(
        apply=lambda names, disruptive, undrain, why: _apply(
            root, lab, opts, names, disruptive, undrain, why
        ),
        say=lambda line: echo(line + "\n", err=True),
        progress=lambda line: echo(line + "\n", err=True),
    )
    roller = Roller(root, lab, roll, opts, hooks, record)

    def waves(c: Compiled, todo: list[str]) -> list[str]:
        return waves_of(c, todo, opts.wave, lambda names: proves_together(c, names))[0]

    try:
        roller.run(lambda: pipeline.compile(root), waves)
    except RollStopped as stop:
        path = record.finish(str(stop))
        raise CliError(f"{stop}; record: {path}") from None
    except KeyboardInterrupt:
        record.finish(f"interrupted at {', '.join(roll.wave)}, step {roll.step}: run again to resume")
        raise
    save_roll(root, None)
    path = record.finish()
    echo(f"rolling reboot done: {', '.join(roll.switches)} rebooted and back in service; record: {path}\n")


def _to_reboot(
    root: Path,
    lab: bool,
    compiled: Compiled,
    named: list[str],
    selected: list[str],
    limit: tuple[str, ...],
    timeout: float,
) -> list[str]:
    """The named switches and those of the selection that report a setting pending a reboot,
    in fabric order. A switch of the selection that cannot be read stops the roll before it starts."""
    from fabricctl.deploy.rolling import pending_switches

    pending: list[str] = []
    if selected and (limit or not named):
        health = pipeline.check(compiled, root, selected, lab=lab, timeout=timeout)
        unread = health.unread
        if unread:
            raise CliError(
                f"cannot tell whether {', '.join(unread)} wait(s) for a reboot: {health.states[unread[0]]}; "
                "nothing changed (allowed: reachable switches, or --limit without them)"
            )
        pending = pending_switches(health.checks)
    chosen = set(pending) | set(named)
    return [n for n in compiled.intents if n in chosen]


def _apply(
    root: Path,
    lab: bool,
    opts: RollOptions,
    names: list[str],
    disruptive: bool,
    undrain: tuple[str, ...],
    reason: str,
) -> str | None:
    """maintenance.yaml applied to `names` as `fabricctl apply --limit` does (approved: the roll
    is the approval); None when it completed, else why not."""
    from fabricctl.cli.apply import _terminal
    from fabricctl.deploy.apply import ApplyOptions
    from fabricctl.deploy.apply_flow import ApplyRequest
    from fabricctl.deploy.service import PlanOptions
    from fabricctl.errors import StageError
    from fabricctl.report.text import run_text

    request = ApplyRequest(
        root=root,
        lab=lab,
        options=ApplyOptions(
            timeout=opts.timeout, allow_disruptive=disruptive, allow_undrain=undrain, parallelism=len(names)
        ),
        plan=PlanOptions(limit=tuple(names), timeout=opts.timeout),
        reason=reason,
        argv=(click.get_current_context().find_root().obj or {}).get("argv"),
    )
    try:
        outcome = pipeline.apply(request, _terminal(False, True, None))
    except (StageError, click.ClickException) as exc:
        return str(getattr(exc, "message", None) or exc)
    if outcome.nothing_to_do:
        return None
    echo(run_text(outcome.report, False, record=str(outcome.record)))
    report = outcome.report
    if report.interrupted or report.not_applied:
        failed = [
            f"{n} {report.switches[n].status}: {report.switches[n].message}" for n in report.not_applied
        ]
        return "; ".join(failed) or "interrupted"
    return None
