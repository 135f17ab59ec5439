"""Apply a plan: canary switches first, then batches; stop after too many failures; roll back.

Each switch is pushed by its platform's protocol (`Platform.pusher()`), which leaves a
failed switch exactly as it was. This module decides the order and the policy: which switches
start, when to stop starting new ones, and (with rollback_on_failure) reverting the switches
this run already changed. Outcomes are plain data (`RunReport`), written as JSON per run.
"""

from __future__ import annotations

import datetime as dt
import os
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from nornir.core import Nornir
from nornir.core.task import Result, Task
from nornir.plugins.runners import ThreadedRunner

from fabricctl.config.diff import diff_device
from fabricctl.deploy.nornir_inv import target_of
from fabricctl.deploy.plan import Plan, Prepared
from fabricctl.platforms import get_platform
from fabricctl.platforms.push import PushRequest, PushResult
from fabricctl.secrets import describe_error, redact


@dataclass
class ApplyOptions:
    parallelism: int = 20
    canary: int = 0
    batch_size: int | None = None  # default: parallelism
    max_failures: int = 0
    confirm_timeout: int = 120
    rollback_on_failure: bool = False
    timeout: float = 30.0
    health_gate: bool = True  # checks read before the push must still pass after commit, or it is undone


@dataclass
class SwitchOutcome:
    name: str
    status: str  # unchanged / changed / failed / skipped / rolled back
    stage: str | None = None
    message: str = ""
    seconds: float = 0.0
    added: int = 0
    removed: int = 0


@dataclass
class RunReport:
    run_id: str
    fabric: str
    plan_hash: str
    started: str
    switches: dict[str, SwitchOutcome] = field(default_factory=dict)
    finished: str = ""
    stopped_reason: str = ""
    options: dict[str, Any] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for sw in self.switches.values():
            out[sw.status] = out.get(sw.status, 0) + 1
        return dict(sorted(out.items()))

    @property
    def failed(self) -> list[str]:
        return [n for n, s in self.switches.items() if s.status == "failed"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "fabric": self.fabric,
            "plan_hash": self.plan_hash,
            "started": self.started,
            "finished": self.finished,
            "options": self.options,
            "counts": self.counts(),
            "stopped_reason": self.stopped_reason,
            "switches": {n: asdict(s) for n, s in self.switches.items()},
        }


def timestamp() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")


def new_run_id() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S.%fZ") + f"-{os.getpid()}"


Progress = Callable[[SwitchOutcome], None]


class _Runner:
    """State shared by the push tasks of one run (threads: guarded by a lock)."""

    def __init__(
        self,
        plan: Plan,
        prepared: Prepared,
        opts: ApplyOptions,
        report: RunReport,
        progress: Progress | None,
        stop: threading.Event,
    ) -> None:
        self.plan = plan
        self.prepared = prepared
        self.opts = opts
        self.report = report
        self.progress = progress
        self.stop = stop
        self.lock = threading.Lock()
        self.failures = 0
        self.before: dict[str, str] = {}

    def record(self, outcome: SwitchOutcome) -> None:
        with self.lock:
            self.report.switches[outcome.name] = outcome
            if outcome.status == "failed":
                self.failures += 1
        if self.progress is not None:
            self.progress(outcome)

    def too_many_failures(self) -> bool:
        with self.lock:
            return self.failures > self.opts.max_failures

    def push_task(self, task: Task) -> Result:
        name = task.host.name
        sp = self.plan.switches[name]
        if self.too_many_failures():
            self.record(SwitchOutcome(name, "skipped", message="not started: failure limit reached"))
            return Result(host=task.host)
        if self.stop.is_set():
            self.record(SwitchOutcome(name, "skipped", message="not started: the run was interrupted"))
            return Result(host=task.host)
        target = target_of(task.host, self.opts.timeout)
        gate = None
        if self.opts.health_gate and sp.status != "pending":
            from fabricctl.deploy.health import health_gate

            gate = health_gate(task, self.prepared.compiled, self.opts.timeout)
        request = PushRequest(
            commands=sp.commands,
            intended=self.prepared.configs[name],
            dialect=get_platform(sp.platform).dialect,
            expected_running_hash=sp.running_hash,
            confirm_timeout=self.opts.confirm_timeout,
            run_id=self.report.run_id,
            gate=gate,
        )
        pusher = get_platform(sp.platform).pusher()
        try:
            res = pusher.recover(target, request) if sp.status == "pending" else pusher.push(target, request)
        except Exception as exc:  # a bug in a protocol must not take the run down
            res = PushResult("failed", "load", describe_error(exc))
        finally:
            task.host.close_connections()  # the health gate's read connection, if the push never used it
        if res.before is not None and res.status == "changed":
            with self.lock:
                self.before[name] = res.before
        self.record(
            SwitchOutcome(
                name,
                res.status,
                res.stage,
                redact(res.message),
                round(res.seconds, 3),
                sp.added if res.status == "changed" else 0,
                sp.removed if res.status == "changed" else 0,
            )
        )
        return Result(host=task.host)

    def revert_task(self, task: Task) -> Result:
        name = task.host.name
        sp = self.plan.switches[name]
        target = target_of(task.host, self.opts.timeout)
        platform = get_platform(sp.platform)
        pusher, dialect = platform.pusher(), platform.dialect
        before = self.before[name]
        try:
            current = pusher.fetch(target)
            back = diff_device(name, current, before, dialect)
            res = pusher.push(
                target,
                PushRequest(
                    back.commands, before, dialect, None, self.opts.confirm_timeout, self.report.run_id
                ),
            )
        except Exception as exc:
            res = PushResult("failed", "connect", describe_error(exc))
        old = self.report.switches[name]
        if res.status in ("changed", "unchanged"):
            self.record(
                SwitchOutcome(
                    name,
                    "rolled back",
                    None,
                    "reverted to the config before this run",
                    round(old.seconds + res.seconds, 3),
                )
            )
        else:
            old.message = redact(f"rollback failed at {res.stage}: {res.message}")
            if self.progress is not None:
                self.progress(old)
        return Result(host=task.host)


def _waves(names: list[str], opts: ApplyOptions) -> list[list[str]]:
    canary = names[: max(0, opts.canary)]
    rest = names[len(canary) :]
    size = max(1, opts.batch_size or opts.parallelism)
    waves = [canary] if canary else []
    waves += [rest[i : i + size] for i in range(0, len(rest), size)]
    return waves


def new_report(plan: Plan, opts: ApplyOptions) -> RunReport:
    return RunReport(new_run_id(), plan.fabric, plan.digest(), timestamp(), options=asdict(opts))


def apply_plan(
    plan: Plan,
    prepared: Prepared,
    nr: Nornir,
    opts: ApplyOptions,
    progress: Progress | None = None,
    stop: threading.Event | None = None,
    report: RunReport | None = None,
) -> RunReport:
    """Push every changed switch of `plan` under the failure policy; the report says what happened.

    Once `stop` is set (SIGINT / SIGTERM) no switch starts; the ones in flight finish their push,
    each ending changed or exactly as before. `report` is filled in place as switches finish.
    """
    report = report if report is not None else new_report(plan, opts)
    stop = stop if stop is not None else threading.Event()
    run = _Runner(plan, prepared, opts, report, progress, stop)
    for name, sp in plan.switches.items():
        if sp.status == "unchanged":
            run.record(SwitchOutcome(name, "unchanged"))
        elif sp.status == "unreachable":
            run.record(SwitchOutcome(name, "failed", "connect", f"unreachable at plan time: {sp.error}"))
    runner = ThreadedRunner(num_workers=max(1, opts.parallelism))
    waves = _waves(plan.changed, opts)
    for i, wave in enumerate(waves):
        if run.too_many_failures():
            report.stopped_reason = f"{run.failures} failure(s), more than --max-failures {opts.max_failures}"
            break
        if stop.is_set():
            break
        members = set(wave)
        nr.data.reset_failed_hosts()
        nr.filter(filter_func=lambda h, m=members: h.name in m).with_runner(runner).run(
            task=run.push_task, on_failed=True
        )
        is_canary = i == 0 and opts.canary > 0
        failed_here = [n for n in wave if report.switches.get(n, SwitchOutcome(n, "")).status == "failed"]
        if is_canary and failed_here:
            report.stopped_reason = f"canary failed: {', '.join(failed_here)}"
            break
    for name in plan.changed:
        if name not in report.switches:
            report.switches[name] = SwitchOutcome(name, "skipped", message="not started: run stopped")
            if progress is not None:
                progress(report.switches[name])
    if stop.is_set():
        report.stopped_reason = "interrupted: switches in flight finished, no new one was started"
    elif not report.stopped_reason and run.too_many_failures():
        report.stopped_reason = f"{run.failures} failure(s), more than --max-failures {opts.max_failures}"
    if opts.rollback_on_failure and report.failed and run.before:
        done = set(run.before)
        nr.data.reset_failed_hosts()
        nr.filter(filter_func=lambda h: h.name in done).with_runner(runner).run(
            task=run.revert_task, on_failed=True
        )
    report.switches = {n: report.switches[n] for n in plan.switches if n in report.switches}
    report.finished = timestamp()
    return report


def write_report(root: Path, report: RunReport) -> Path:
    """`<root>/.fabricctl/runs/<run id>.json` (redacted)."""
    from fabricctl.secrets import redacted_json

    path = Path(root) / ".fabricctl" / "runs" / f"{report.run_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(redacted_json(report.to_dict()), encoding="utf-8")
    tmp.replace(path)
    return path
