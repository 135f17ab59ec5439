"""`fabricctl reboot --rolling`: the switches that wait for a reboot, a wave at a time, without
taking a tenant below its floor.

Each wave (one switch, or one per pod or plane whose drains prove safe together) goes through
the same steps, and the step it has reached is written to `.fabricctl/reboot-roll.json` before
the next one starts:

1. `drain`: the switches must pass their health checks (a pending reboot aside) and run their
   intent (a roll pushes nothing but its drains); their entries go into maintenance.yaml, proven
   like `fabricctl drain`, and are applied to them (plan, commit-confirm, health gate, record).
2. `quiet`: their fabric ports' packet counters, read twice a window apart by the switch's own
   clock, until no port carries more than the idle rate (the control plane's) or the time runs out.
3. `reboot`: each told over its CLI, as its vendor documents the dialog; a switch that asks to
   save its running configuration is not rebooted (the change is not fabricctl's).
4. `back`: each read again until every health check passes (links and LLDP, BGP and EVPN
   sessions, VNIs, ECMP) and no setting waits for a boot any more, timed on another switch's clock.
5. `undrain`: the entries this roll added leave maintenance.yaml and are applied.

A failure stops the roll where it is and says so: the switch, whether it is drained, what to
run. Run again, the roll resumes at the step it stopped in: a switch done is never rebooted
again, and a drain the roll did not add is never removed. Each run writes a record like apply's
(`.fabricctl/runs/`, chained, listed by `fabricctl history`); the applies it makes write theirs.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fabricctl.errors import StageError

if TYPE_CHECKING:
    from nornir.core import Nornir

    from fabricctl.compile.build import Compiled
    from fabricctl.deploy.health import Check

#: The resumable state of a roll, relative to the fabric root; gone once the roll is done.
STATE_FILE = Path(".fabricctl") / "reboot-roll.json"
STEPS = ("drain", "quiet", "reboot", "back", "undrain")
WAVES = ("switch", "pod", "plane")


class RollStopped(StageError):
    """The roll stopped at a failure: the message says where and what to run."""


@dataclass(frozen=True)
class RollOptions:
    wave: str = "switch"  # switch | pod | plane: what a wave may hold one of
    allow_disruptive: bool = False  # a leaf may be rebooted (its GPUs lose the fabric meanwhile)
    #: Packets a second a fabric port of a drained switch may still carry (BGP, LLDP, BFD).
    idle_pps: float = 100.0
    window: float = 10.0  # seconds between two counter reads, by the switch's clock
    traffic_timeout: float = 300.0
    boot_timeout: float = 900.0
    timeout: float = 30.0  # per command
    poll: float = 5.0  # seconds between two polls of a condition (a clock read in between)
    reason: str = ""


@dataclass
class Roll:
    """The resumable state: the switches in order, the waves done, the one in progress."""

    run_id: str  # the run that started the roll
    switches: list[str]
    done: list[str] = field(default_factory=list)
    wave: list[str] = field(default_factory=list)
    step: str = "drain"
    ours: list[str] = field(default_factory=list)  # drains this roll added (and removes)
    rebooted: list[str] = field(default_factory=list)  # of the wave: told to reboot, and did
    options: dict[str, Any] = field(default_factory=dict)
    runs: list[str] = field(default_factory=list)
    host: str = ""
    pid: int = 0

    @property
    def todo(self) -> list[str]:
        return [n for n in self.switches if n not in self.done]


def read_roll(root: Path) -> Roll | None:
    """The roll in progress, or None. The file is a claim: anything not of its shape is an error
    naming the file, never a roll resumed on a guess."""
    path = Path(root) / STATE_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        roll = Roll(**data)
        names = [*roll.switches, *roll.done, *roll.wave, *roll.ours, *roll.rebooted, *roll.runs]
        if roll.step not in STEPS or not all(isinstance(n, str) for n in names):
            raise ValueError("step or names")
        if not set(roll.done) | set(roll.wave) <= set(roll.switches):
            raise ValueError("switches")
    except (OSError, ValueError, TypeError) as exc:
        raise RollStopped(
            f"{STATE_FILE}: not a rolling reboot's state ({type(exc).__name__}: {str(exc)[:80]}): "
            "nothing contacted; remove it only if no roll is under way"
        ) from None
    return roll


def save_roll(root: Path, roll: Roll | None) -> None:
    from fabricctl.outputs import write_file

    path = Path(root) / STATE_FILE
    if roll is None:
        path.unlink(missing_ok=True)
        return
    write_file(path, json.dumps(asdict(roll), indent=2) + "\n", within=Path(root))


@dataclass
class Hooks:
    """The caller's side: how a change is applied, and what a person sees."""

    #: Apply maintenance.yaml to `limit`: (switches, allow_disruptive, allow_undrain, reason) ->
    #: None when every switch changed (or had nothing to change), else why not.
    apply: Callable[[list[str], bool, tuple[str, ...], str], str | None]
    say: Callable[[str], None]  # a line for the operator
    progress: Callable[[str], None]  # a wait still going ("  waiting: ...")


# --- selection ------------------------------------------------------------------------------


def pending_switches(checks: list[Check]) -> list[str]:
    """The switches that report a setting waiting for a boot, in check order."""
    return list(dict.fromkeys(c.switch for c in checks if c.ok and c.pending))


def waves_of(
    compiled: Compiled, names: list[str], wave: str, proves: Callable[[list[str]], bool]
) -> list[list[str]]:
    """`names` in waves: one switch each, or (pod, plane) at most one switch of each pod or
    plane whose drains `proves` together, in fabric order; a switch that fits no wave yet waits
    for the next."""
    left = list(names)
    out: list[list[str]] = []
    while left:
        group: list[str] = []
        for name in list(left):
            if group and wave == "switch":
                break
            key = _domain(compiled, name, wave)
            if group and (key is None or key in {_domain(compiled, n, wave) for n in group}):
                continue
            if group and not proves([*group, name]):
                continue
            group.append(name)
            left.remove(name)
        out.append(group)
    return out


def _domain(compiled: Compiled, name: str, wave: str) -> int | None:
    """The pod or plane of a switch (None: it has none, so it goes alone)."""
    sw = compiled.fabric.switch(name)
    if sw is None:
        return None
    if wave == "pod":
        return sw.pod
    if sw.role == "superspine":
        return sw.plane
    return sw.index if sw.role == "spine" and sw.pod is not None else None


# --- the roll -------------------------------------------------------------------------------


class Roller:
    """One run of a roll: `run()` takes each wave through the steps until all are done or one fails."""

    def __init__(
        self, root: Path, lab: bool, roll: Roll, opts: RollOptions, hooks: Hooks, record: RollRecord
    ) -> None:
        self.root, self.lab, self.roll, self.opts, self.hooks, self.record = (
            root,
            lab,
            roll,
            opts,
            hooks,
            record,
        )

    def run(
        self, compiled_of: Callable[[], Compiled], waves: Callable[[Compiled, list[str]], list[str]]
    ) -> None:
        while True:
            compiled = compiled_of()
            if not self.roll.wave:
                if not self.roll.todo:
                    return
                self.roll.wave, self.roll.step, self.roll.ours, self.roll.rebooted = (
                    waves(compiled, self.roll.todo),
                    "drain",
                    [],
                    [],
                )
                self._save()
            wave = self.roll.wave
            self.hooks.say(f"wave: {', '.join(wave)} (step {self.roll.step})")
            for step, act in (
                ("drain", self._drain),
                ("quiet", self._quiet),
                ("reboot", self._reboot),
                ("back", self._back),
                ("undrain", self._undrain),
            ):
                if STEPS.index(self.roll.step) > STEPS.index(step):
                    continue
                act(compiled_of() if step in ("drain", "undrain") else compiled, wave)
                nxt = STEPS.index(step) + 1
                if nxt < len(STEPS):
                    self.roll.step = STEPS[nxt]
                    self._save()
            self.roll.done += wave
            for name in wave:
                self.record.switch(name, "rebooted", "drained, rebooted, healthy, back in service")
            self.roll.wave, self.roll.step, self.roll.ours, self.roll.rebooted = [], "drain", [], []
            self._save()

    def _save(self) -> None:
        save_roll(self.root, self.roll)
        for name in self.roll.wave:
            self.record.switch(name, f"at {self.roll.step}", "")

    def stop(self, name: str, why: str) -> None:
        drained = self.roll.step in ("quiet", "reboot", "back", "undrain") or (
            self.roll.step == "drain" and bool(self.roll.ours)
        )
        state = (
            f"{', '.join(self.roll.wave)} {'is' if len(self.roll.wave) == 1 else 'are'} drained in maintenance.yaml"
            if drained
            else f"{', '.join(self.roll.wave)} {'was' if len(self.roll.wave) == 1 else 'were'} not drained"
        )
        rebooted = f"; rebooted: {', '.join(self.roll.rebooted)}" if self.roll.rebooted else ""
        done = f"; done: {', '.join(self.roll.done)}" if self.roll.done else ""
        message = (
            f"rolling reboot stopped at {name}, step {self.roll.step}: {why}. State: {state}{rebooted}{done}. "
            f"Fix it (`fabricctl check` shows the fabric), then `fabricctl reboot --rolling` resumes at this step "
            f"(never rebooting a switch done); `fabricctl reboot --rolling --abandon` forgets the roll "
            f"(drains it added stay in maintenance.yaml: `fabricctl undrain`)"
        )
        self.record.switch(name, "failed", why)
        raise RollStopped(message)

    # --- steps ---------------------------------------------------------------------------

    def _drain(self, compiled: Compiled, wave: list[str]) -> None:
        from fabricctl.model.maintenance import Drain, with_drain

        if not self.roll.ours:  # nothing added yet: the switches must be sound and run their intent
            self._preflight(compiled, wave)
            drained = {d.target for d in compiled.fabric.maintenance.drained}
            added = [Drain(switch=n, reason=self._reason(n)) for n in wave if n not in drained]
            report = _proof(compiled, [*compiled.fabric.maintenance.drained, *added])
            if not report.ok:
                v = report.violations[0]
                self.stop(wave[0], f"the drain proof fails: {v.switch}: {v.check}: {v.counterexample}")
            cut = report.drain.cut_off if report.drain is not None else {}
            if cut and not self.opts.allow_disruptive:
                tenants = ", ".join(f"{t} ({len(g)} GPU(s))" for t, g in sorted(cut.items()))
                self.stop(
                    wave[0],
                    f"a drained leaf takes its GPUs off the fabric: {tenants}; "
                    "reboot leaves with --allow-disruptive once their tenants agree",
                )
            path = self.root / "maintenance.yaml"
            text = path.read_text(encoding="utf-8") if path.is_file() else None
            for d in added:
                text = with_drain(text, d)
            self.roll.ours = [d.switch for d in added]
            self._save()  # the state names the entries before the file holds them
            if added and text is not None:
                from fabricctl.outputs import write_file

                write_file(path, text, within=self.root)
            self.hooks.say(f"drained in maintenance.yaml: {', '.join(self.roll.ours) or '(already drained)'}")
        cut_off = any(_role(compiled, n) == "leaf" for n in wave)
        problem = self.hooks.apply(wave, cut_off, (), self._reason(wave[0]) + " (drain)")
        if problem:
            self.stop(wave[0], f"the drain's apply did not complete: {problem}")

    def _preflight(self, compiled: Compiled, wave: list[str]) -> None:
        from fabricctl.deploy.context import open_fabric
        from fabricctl.deploy.health import check_health, read_health

        with open_fabric(self.root, self.lab, set(wave)) as nr:
            states = read_health(nr, self.opts.timeout)
        failed = [c for c in check_health(compiled, states) if not c.ok]
        if failed:
            c = failed[0]
            self.stop(
                c.switch,
                f"{len(failed)} health check(s) fail before the reboot, e.g. {c.name} {c.subject}: "
                f"expected {c.expected}, seen {c.seen}; nothing changed for this wave",
            )
        differ = unapplied(self.root, self.lab, wave, self.opts.timeout)
        if differ:
            self.stop(
                differ[0],
                f"{', '.join(differ)} run(s) a configuration other than the intent: `fabricctl plan` "
                "shows it; apply it first (a rolling reboot pushes nothing but its drains)",
            )

    def _quiet(self, compiled: Compiled, wave: list[str]) -> None:
        from fabricctl.deploy.context import open_fabric

        ports = {n: _fabric_ports(compiled, n) for n in wave}
        with open_fabric(self.root, self.lab, set(wave)) as nr:
            busy = wait_quiet(nr, wave, ports, self.opts, self.hooks.progress)
        if busy is not None:
            name, why = busy
            self.stop(name, why)
        self.hooks.say(f"traffic has left {', '.join(wave)}")

    def _reboot(self, compiled: Compiled, wave: list[str]) -> None:
        from fabricctl.deploy.context import open_fabric

        with open_fabric(self.root, self.lab, set(wave), access="write") as nr:
            for name in wave:
                if name in self.roll.rebooted:
                    continue
                self.hooks.say(f"rebooting {name}")
                problem = reboot_switch(nr, name, self.opts.timeout)
                if problem:
                    self.stop(name, problem)
                self.roll.rebooted.append(name)
                self._save()

    def _back(self, compiled: Compiled, wave: list[str]) -> None:
        from fabricctl.deploy.context import open_fabric

        keeper = _keeper(compiled, wave)
        with open_fabric(self.root, self.lab, {*wave, *([keeper] if keeper else [])}) as nr:
            missing = wait_back(nr, compiled, wave, keeper, self.opts, self.hooks.progress)
        if missing is not None:
            self.stop(*missing)
        self.hooks.say(f"back: {', '.join(wave)} (every health check passes, nothing waits for a boot)")

    def _undrain(self, compiled: Compiled, wave: list[str]) -> None:
        from fabricctl.model.maintenance import without_drain

        path = self.root / "maintenance.yaml"
        ours = [n for n in self.roll.ours if any(d.target == n for d in compiled.fabric.maintenance.drained)]
        if ours and path.is_file():
            text: str | None = path.read_text(encoding="utf-8")
            for name in ours:
                text = without_drain(text or "", name)
            from fabricctl.outputs import write_file

            if text is None:
                path.unlink()
            else:
                write_file(path, text, within=self.root)
        problem = self.hooks.apply(wave, False, tuple(self.roll.ours), self._reason(wave[0]) + " (undrain)")
        if problem:
            self.stop(wave[0], f"the undrain's apply did not complete: {problem}")
        kept = [n for n in wave if n not in self.roll.ours]
        if kept:
            self.hooks.say(f"left drained (drained before the roll): {', '.join(kept)}")

    def _reason(self, name: str) -> str:
        return self.opts.reason or f"rolling reboot {self.roll.run_id}"


def _proof(compiled: Compiled, drained: list[Any]) -> Any:
    from fabricctl.model.maintenance import Maintenance
    from fabricctl.verify.api import verify_maintenance

    return verify_maintenance(compiled, Maintenance(drained=drained), compiled.fabric.root)


def unapplied(root: Path, lab: bool, names: list[str], timeout: float) -> list[str]:
    """The switches among `names` whose plan is not empty (read-only)."""
    from fabricctl.deploy.service import PlanOptions, plan_fabric

    def select(compiled: Compiled, limit: tuple[str, ...]) -> dict[str, Any]:
        return {n: i for n, i in compiled.intents.items() if n in limit}

    plan, _ = plan_fabric(root, lab, PlanOptions(limit=tuple(names), timeout=timeout), select)
    return [*plan.changed, *plan.unreachable]


def proves_together(compiled: Compiled, names: list[str]) -> bool:
    """The drains of `names` (with what maintenance.yaml drains) keep every tenant above its floor."""
    from fabricctl.model.maintenance import Drain

    drained = list(compiled.fabric.maintenance.drained)
    there = {d.target for d in drained}
    report = _proof(compiled, [*drained, *(Drain(switch=n) for n in names if n not in there)])
    return bool(report.ok)


def _role(compiled: Compiled, name: str) -> str:
    sw = compiled.fabric.switch(name)
    return sw.role if sw is not None else ""


def _fabric_ports(compiled: Compiled, name: str) -> list[str]:
    out = [ln.leaf_port for ln in compiled.topology.links if ln.leaf == name]
    return out + [ln.spine_port for ln in compiled.topology.links if ln.spine == name]


def _keeper(compiled: Compiled, wave: list[str]) -> str | None:
    """A switch outside the wave whose clock times the wait for it (a neighbor where there is one)."""
    for ln in compiled.topology.links:
        for a, b in ((ln.leaf, ln.spine), (ln.spine, ln.leaf)):
            if a in wave and b not in wave:
                return b
    return next((n for n in compiled.intents if n not in wave), None)


# --- waits ----------------------------------------------------------------------------------


def wait_quiet(
    nr: Nornir,
    wave: list[str],
    ports: dict[str, list[str]],
    opts: RollOptions,
    progress: Callable[[str], None],
) -> tuple[str, str] | None:
    """Until every fabric port of the wave's switches carries at most `opts.idle_pps` packets a
    second each way over a window of `opts.window` seconds by the switch's own clock; None then,
    else (switch, why) once `opts.traffic_timeout` has passed on that clock or a read fails."""
    from fabricctl.deploy.counters import read_counters
    from fabricctl.platforms.counters import SwitchCounters

    def read() -> dict[str, SwitchCounters] | tuple[str, str]:
        got = read_counters(nr, opts.timeout, traffic=True)
        for name in wave:
            if not isinstance(got.get(name), SwitchCounters) or got[name].clock is None:  # type: ignore[union-attr]
                return name, f"its traffic counters could not be read: {got.get(name) or 'no clock'}"
        return {n: r for n, r in got.items() if isinstance(r, SwitchCounters)}

    first = read()
    if isinstance(first, tuple):
        return first
    start, base = first, first
    busy: list[str] = []
    while True:
        time.sleep(opts.poll)
        now = read()
        if isinstance(now, tuple):
            return now
        clock = wave[0]
        over = _seconds(base[clock], now[clock])
        if over >= opts.window:
            busy = _busy(wave, ports, base, now, opts.idle_pps)
            if not busy:
                return None
            base = now
        passed = _seconds(start[clock], now[clock])
        if passed >= opts.traffic_timeout:
            shown = "; ".join(busy[:4]) or "no full window read"
            return wave[0], (
                f"traffic did not leave in {passed:.0f} s ({shown}): a switch whose tenants keep "
                "sending through it (a leaf's own GPUs, or no other path) is not rebooted"
            )
        progress(
            f"  waiting: traffic to leave {', '.join(wave)}: {'; '.join(busy[:2]) or 'first window'}"
            f" ({passed:.0f}s of {opts.traffic_timeout:.0f}s on {clock}'s clock)"
        )


def _seconds(before: Any, after: Any) -> float:
    return float(after.clock - before.clock)


def _busy(
    wave: list[str], ports: dict[str, list[str]], base: dict[str, Any], now: dict[str, Any], idle: float
) -> list[str]:
    """`switch port N packets/s` for each fabric port above the idle rate (or uncounted)."""
    from fabricctl.deploy.counters import grown

    out = []
    for name in wave:
        seconds = _seconds(base[name], now[name])
        for port in ports[name]:
            a, b = base[name].ports.get(port), now[name].ports.get(port)
            counts = [grown(getattr(a, k, None), getattr(b, k, None)) for k in ("rx_packets", "tx_packets")]
            if any(c is None for c in counts):
                out.append(f"{name} {port}: packets not counted")
                continue
            rate = max(c or 0 for c in counts) / seconds if seconds > 0 else 0.0
            if rate > idle:
                out.append(f"{name} {port} {rate:.0f} packets/s")
    return out


def wait_back(
    nr: Nornir,
    compiled: Compiled,
    wave: list[str],
    keeper: str | None,
    opts: RollOptions,
    progress: Callable[[str], None],
) -> tuple[str, str] | None:
    """Until every health check of the wave's switches passes and none waits for a boot; timed
    on `keeper`'s clock (the wave's switches have none while they boot). None then, else
    (switch, the checks still failing) once `opts.boot_timeout` has passed."""
    from fabricctl.deploy.counters import read_clock
    from fabricctl.deploy.health import check_health, read_health

    def clock() -> float:
        read = read_clock(nr, keeper, opts.timeout) if keeper else None
        return read if read is not None else time.monotonic()

    start = clock()
    while True:
        states = read_health(nr.filter(filter_func=lambda h: h.name in wave), opts.timeout)
        checks = check_health(compiled, states)
        missing = [c for c in checks if not c.ok or c.pending]
        if not missing:
            return None
        passed = clock() - start
        c = missing[0]
        shown = f"{c.switch} {c.name} {c.subject}: expected {c.expected}, seen {c.seen}" + (
            f" ({c.pending})" if c.pending else ""
        )
        if passed >= opts.boot_timeout:
            return c.switch, (
                f"not back {passed:.0f} s after the reboot: {len(missing)} health check(s) fail or wait, e.g. {shown}"
            )
        progress(
            f"  waiting: {', '.join(wave)} back: {len(missing)} check(s), e.g. {shown}"
            f" ({passed:.0f}s of {opts.boot_timeout:.0f}s on {keeper or 'this machine'}'s clock)"
        )
        time.sleep(opts.poll)


# --- the reboot itself ----------------------------------------------------------------------


def reboot_switch(nr: Nornir, name: str, timeout: float) -> str | None:
    """Tell `name` to reboot over its CLI, answering its vendor's dialog; None once the switch
    took it (the session drops), else why not. A switch that asks to save its running config is
    declined and left running: that change is not fabricctl's to save or lose."""
    from nornir.core.task import Result, Task

    from fabricctl.deploy.nornir_inv import fabric_platform
    from fabricctl.platforms import get_platform

    def task(t: Task) -> Result:
        import re

        dialog = get_platform(fabric_platform(t.host)).reboot
        if dialog is None:
            return Result(
                host=t.host, result=f"{fabric_platform(t.host)} has no documented reboot over its CLI"
            )
        conn = t.host.get_connection("netmiko", t.nornir.config)
        out = conn.send_command(dialog.command, expect_string=dialog.questions, read_timeout=timeout)
        if dialog.unsaved and re.search(dialog.unsaved, out):
            for answer in dialog.decline:
                conn.write_channel(answer + conn.RETURN)
                conn.read_until_prompt_or_pattern(pattern=dialog.questions, read_timeout=timeout)
            t.host.close_connections()
            return Result(
                host=t.host,
                result="it asks to save its running configuration, which differs from the saved one: "
                "a change not made by fabricctl (save or discard it, then resume); not rebooted",
            )
        if not re.search(dialog.confirm, out):
            t.host.close_connections()
            return Result(
                host=t.host, result=f"{dialog.command!r} asked no confirmation: {out.strip()[-120:]!r}"
            )
        conn.write_channel(dialog.answer + conn.RETURN)
        _until_closed(conn, timeout)
        try:
            t.host.close_connections()
        except Exception:  # the switch dropped the session: nothing left to close
            t.host.connections.pop("netmiko", None)
        return Result(host=t.host, result=None)

    result = nr.filter(name=name).run(task=task, on_failed=True)
    nr.data.reset_failed_hosts()
    multi = result[name]
    if multi.failed:
        exc = next((r.exception for r in multi if r.exception is not None), None)
        from fabricctl.secrets import describe_error

        return f"the reboot could not be sent: {describe_error(exc) if exc else 'failed'}"
    said = multi[0].result
    return str(said) if said else None


def _until_closed(conn: Any, timeout: float) -> None:
    """Read what the switch prints until it drops the session (its reboot), at most `timeout` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        remote = conn.remote_conn
        if remote is None or getattr(remote, "closed", False) or remote.exit_status_ready():
            return
        try:
            conn.read_channel()
        except Exception:
            return
        time.sleep(0.05)


# --- the record -----------------------------------------------------------------------------


class RollRecord:
    """This run's record under .fabricctl/runs/, written as it goes and chained when finished."""

    def __init__(self, root: Path, run_id: str, context: dict[str, Any], roll: Roll, reason: str) -> None:
        from fabricctl.deploy.apply import timestamp

        self.root = root
        self.data: dict[str, Any] = {
            "run_id": run_id,
            "kind": "rolling reboot",
            "roll": roll.run_id,
            "started": timestamp(),
            "state": "in progress",
            "reason": reason,
            "switches": {
                n: {"status": "done before" if n in roll.done else "not started"} for n in roll.switches
            },
            **context,
        }

    def switch(self, name: str, status: str, message: str) -> None:
        self.data["switches"][name] = {"status": status, **({"message": message} if message else {})}
        self._write()

    def _write(self) -> None:
        from fabricctl.deploy.record import record_path, write_record

        write_record(record_path(self.root, self.data["run_id"]), self.data, self.root)

    def finish(self, stopped: str = "") -> Path:
        from fabricctl.deploy.apply import timestamp
        from fabricctl.deploy.record import finish_record

        counts: dict[str, int] = {}
        for sw in self.data["switches"].values():
            counts[sw["status"]] = counts.get(sw["status"], 0) + 1
        self.data.update(
            state="stopped" if stopped else "finished",
            finished=timestamp(),
            stopped_reason=stopped,
            counts=dict(sorted(counts.items())),
        )

        def link(chain: dict[str, Any]) -> None:
            self.data["chain"] = chain

        return finish_record(self.root, lambda: self.data, self.data, link)


def busy_elsewhere(roll: Roll) -> str | None:
    """Why another process owns the roll (alive on this host), or None."""
    from fabricctl.procs import pid_alive

    if roll.host == socket.gethostname() and roll.pid and roll.pid != os.getpid() and pid_alive(roll.pid):
        return f"a rolling reboot runs already (pid {roll.pid}, started by run {roll.run_id})"
    return None
