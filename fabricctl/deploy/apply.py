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

from fabricctl.deploy.failures import classify
from fabricctl.deploy.nornir_inv import target_of
from fabricctl.deploy.plan import Plan, Prepared
from fabricctl.logs import get_logger
from fabricctl.platforms import get_platform
from fabricctl.platforms.push import PushRequest, PushResult, Target
from fabricctl.secrets import describe_error, redact

log = get_logger(__name__)


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
    #: Push a plan that affects running tenants' service (deploy/disruption.py) without a canary.
    allow_disruptive: bool = False
    #: The drained switches and links a plan may put back into service (changes["undrain"], as
    #: it names them; "all": any).
    allow_undrain: tuple[str, ...] = ()


@dataclass
class SwitchOutcome:
    name: str
    status: str  # unchanged / changed / failed / skipped / rolled back
    stage: str | None = None
    message: str = ""
    seconds: float = 0.0
    added: int = 0
    removed: int = 0
    cause: str | None = (
        None  # failed: dns / refused / timeout / auth / host-key / rejected / commit / verify ...
    )
    hint: str | None = None  # failed: what to check, one line
    timings: dict[str, float] = field(default_factory=dict)  # stage -> seconds (read, push, rollback)
    output: str = ""  # failed: the push protocol's full text when `message` is its first line


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
    #: Who ran it where: user, host, pid, fabricctl version, command line, git (commit, dirty, branch).
    context: dict[str, Any] = field(default_factory=dict)
    stages: dict[str, float] = field(default_factory=dict)  # compile, render, verify, fetch, diff, push ...
    verify: str = ""  # the proofs that held before anything was pushed
    #: Tenants whose running service the plan affects -> their classes (deploy/disruption.py).
    disruptive: dict[str, list[str]] = field(default_factory=dict)
    #: Switch -> the lines of its change it applies only at its next boot (`pending reboot`).
    reboot: dict[str, list[str]] = field(default_factory=dict)
    #: "in progress" while the run works (the record is written as it goes, so a killed run
    #: leaves one), then "finished"; a later run that finds its process gone says "ended".
    state: str = "in progress"
    settled_runs: list[str] = field(default_factory=list)  # killed runs whose switches this one read again
    #: switch -> the marks of what this run's pushes left on it while in flight (a configure
    #: session's name, an apply's message, a commit-delay mark: platforms/push.py `new_mark`),
    #: written before each is sent: a later apply settles only what a record proves fabricctl's.
    marks: dict[str, list[str]] = field(default_factory=dict)
    #: A finished record's link to the one before it in its store (record.py, chain.py).
    chain: dict[str, Any] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for sw in self.switches.values():
            out[sw.status] = out.get(sw.status, 0) + 1
        return dict(sorted(out.items()))

    @property
    def failed(self) -> list[str]:
        return [n for n, s in self.switches.items() if s.status == "failed"]

    @property
    def not_applied(self) -> list[str]:
        """Switches that do not run the plan's change: failed, or rolled back (by fabricctl or by
        their own confirm timer)."""
        return [n for n, s in self.switches.items() if s.status in ("failed", "rolled back")]

    @property
    def needs_reboot(self) -> dict[str, list[str]]:
        """The switches this run changed whose change waits for their next boot."""
        return {
            n: lines
            for n, lines in self.reboot.items()
            if self.switches.get(n) and self.switches[n].status == "changed"
        }

    @property
    def interrupted(self) -> bool:
        return self.stopped_reason.startswith("interrupted")

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "fabric": self.fabric,
            "plan_hash": self.plan_hash,
            "started": self.started,
            "finished": self.finished,
            "state": self.state,
            **({"settled_runs": self.settled_runs} if self.settled_runs else {}),
            **self.context,
            "options": self.options,
            "counts": self.counts(),
            "stopped_reason": self.stopped_reason,
            "verify": self.verify,
            "disruptive": self.disruptive,
            "reboot": self.reboot,
            "stages": self.stages,
            "switches": {n: asdict(s) for n, s in self.switches.items()},
            **({"marks": self.marks} if self.marks else {}),
            **({"chain": self.chain} if self.chain else {}),
        }


def timestamp() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")


def new_run_id() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S.%fZ") + f"-{os.getpid()}"


#: Statuses a record shows while its run works (and keeps if the run is killed meanwhile).
NOT_STARTED, IN_FLIGHT = "not started", "in flight"
Progress = Callable[[SwitchOutcome], None]
#: (switch, what) when a switch's turn starts: "push", "settle" (an interrupted push), "rollback".
Started = Callable[[str, str], None]


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
        started: Started | None = None,
        lab: bool = False,
        abort: threading.Event | None = None,
        on_change: Callable[[RunReport], None] | None = None,
        on_claim: Callable[[RunReport], None] | None = None,
        claimed: dict[str, frozenset[str]] | None = None,
    ) -> None:
        self.abort = abort if abort is not None else threading.Event()
        self.on_change = on_change
        self.on_claim = on_claim or on_change
        self.claimed = claimed or {}
        self.started = started
        self.lab = lab
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
            self.changed()
        if self.progress is not None:
            self.progress(outcome)

    def changed(self) -> None:
        """The record on disk follows the run (callers hold the lock)."""
        if self.on_change is not None:
            self.on_change(self.report)

    def claim(self, name: str, mark: str) -> None:
        """A push is about to leave `mark` on switch `name`: the record holds it before it is sent."""
        with self.lock:
            self.report.marks.setdefault(name, []).append(mark)
            if self.on_claim is not None:
                self.on_claim(self.report)

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
        what = "settle" if sp.status == "pending" else "push"
        self.announce(name, what)
        platform = get_platform(sp.platform)
        gate = None
        if self.opts.health_gate and sp.status != "pending":
            from fabricctl.deploy.health import HealthGate

            gate = HealthGate(task, self.prepared.compiled, self.opts.timeout)
        request = PushRequest(
            commands=sp.commands,
            intended=self.prepared.configs[name],
            dialect=self.prepared.dialect(name),
            expected_running_hash=sp.running_hash,
            confirm_timeout=self.opts.confirm_timeout,
            run_id=self.report.run_id,
            gate=gate,
            cancelled=self.abort.is_set,
            claim=lambda mark: self.claim(name, mark),
            claimed=self.claimed.get(name, frozenset()),
            differ=platform.differ,
        )
        pusher = platform.pusher()
        try:
            res = pusher.recover(target, request) if sp.status == "pending" else pusher.push(target, request)
        except Exception as exc:  # a bug in a protocol must not take the run down
            res = PushResult("failed", "load", describe_error(exc))
        finally:
            task.host.close_connections()  # the health gate's read connection, if the push never used it
        if res.before is not None and res.status == "changed":
            with self.lock:
                self.before[name] = res.before
        outcome = SwitchOutcome(
            name,
            res.status,
            res.stage,
            redact(res.message),
            round(res.seconds, 3),
            sp.added if res.status == "changed" else 0,
            sp.removed if res.status == "changed" else 0,
        )
        read = self.prepared.fetch_seconds.get(name)
        outcome.timings = ({"read": read} if read is not None else {}) | {what: round(res.seconds, 3)}
        if res.status == "failed" or (res.status == "rolled back" and res.stage is not None):
            self.explain(outcome, res, target)
        log.info("%s: %s %s in %.2f s%s", name, what, res.status, res.seconds,
                 f" at {res.stage}: {outcome.message}" if res.status == "failed" else "")  # fmt: skip
        self.record(outcome)
        return Result(host=task.host)

    def announce(self, name: str, what: str) -> None:
        log.info("%s: %s started", name, what)
        with self.lock:
            self.report.switches[name] = SwitchOutcome(name, IN_FLIGHT, message=f"{what} started")
            self.changed()
        if self.started is not None:
            self.started(name, what)

    def explain(self, outcome: SwitchOutcome, res: PushResult, target: Target) -> None:
        """A failed push's cause, precise detail and hint (deploy/failures.py)."""
        failure = classify(
            res.stage,
            res.message,
            res.error,
            endpoint=target.hostname,
            user=target.username,
            timeout=self.opts.timeout,
            lab=self.lab,
            platform=get_platform(self.plan.switches[outcome.name].platform),
        )
        full = redact(res.message.strip())
        outcome.cause, outcome.hint, outcome.message = failure.cause, failure.hint, failure.detail
        outcome.output = full if full != failure.detail else ""
        if res.error is not None:
            log.debug("%s: %s", outcome.name, failure.line(), exc_info=res.error)

    def revert_task(self, task: Task) -> Result:
        name = task.host.name
        sp = self.plan.switches[name]
        target = target_of(task.host, self.opts.timeout)
        platform = get_platform(sp.platform)
        pusher, dialect = platform.pusher(), self.prepared.dialect(name)
        before = self.before[name]
        self.announce(name, "rollback")
        try:
            current = pusher.fetch(target)
            back = self.prepared.diff(name, current, before)
            res = pusher.push(
                target,
                PushRequest(
                    back.commands,
                    before,
                    dialect,
                    None,
                    self.opts.confirm_timeout,
                    self.report.run_id,
                    claim=lambda mark: self.claim(name, mark),
                    differ=platform.differ,
                ),
            )
        except Exception as exc:
            res = PushResult("failed", "connect", describe_error(exc))
        old = self.report.switches[name]
        timings = {**old.timings, "rollback": round(res.seconds, 3)}
        if res.status in ("changed", "unchanged"):
            self.record(
                SwitchOutcome(
                    name,
                    "rolled back",
                    None,
                    "reverted to the config before this run",
                    round(old.seconds + res.seconds, 3),
                    timings=timings,
                )
            )
        else:
            failure = classify(res.stage, res.message, res.error, endpoint=target.hostname,
                               user=target.username, timeout=self.opts.timeout, lab=self.lab,
                               platform=platform)  # fmt: skip
            old.message = redact(f"rollback failed: {failure.line()}")
            old.cause, old.hint, old.timings = failure.cause, failure.hint, timings
            if self.progress is not None:
                self.progress(old)
        return Result(host=task.host)


def waves(
    names: list[str], opts: ApplyOptions, pod_of: dict[str, int | None] | None = None
) -> list[list[str]]:
    """The canary wave, then batches of at most batch size; in a multi-pod fabric a batch never
    mixes pods (pod 1's switches, then pod 2's, ...; super-spines, which belong to no pod, last),
    so a bad change stops in the pod it started in."""
    canary = names[: max(0, opts.canary)]
    rest = names[len(canary) :]
    size = max(1, opts.batch_size or opts.parallelism)
    groups: dict[int | None, list[str]] = {}
    for name in rest:
        groups.setdefault((pod_of or {}).get(name), []).append(name)
    ordered = [groups[k] for k in sorted(groups, key=lambda k: (k is None, k or 0))]
    out = [canary] if canary else []
    for group in ordered:
        out += [group[i : i + size] for i in range(0, len(group), size)]
    return out


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
    started: Started | None = None,
    lab: bool = False,
    abort: threading.Event | None = None,
    on_change: Callable[[RunReport], None] | None = None,
    on_claim: Callable[[RunReport], None] | None = None,
) -> RunReport:
    """Push every changed switch of `plan` under the failure policy; the report says what happened.

    Once `stop` is set (SIGINT / SIGTERM) no switch starts; the ones in flight finish their push,
    each ending changed or exactly as before. Once `abort` is set too, each switch in flight stops
    at its next step and is restored (`rolled back`), unless it was committed already.
    `report` is filled in place as switches finish. `on_claim` writes the record at once when a
    push is about to leave its mark on a switch (`on_change` may write it a moment later). A
    switch the plan shows pending is settled only as far as the run records prove what it holds
    fabricctl's (record.py `claimed_marks`).
    """
    from fabricctl.deploy.record import claimed_marks

    report = report if report is not None else new_report(plan, opts)
    stop = stop if stop is not None else threading.Event()
    claimed = claimed_marks(prepared.root, lab) if plan.pending else {}
    run = _Runner(
        plan, prepared, opts, report, progress, stop, started, lab, abort, on_change, on_claim, claimed
    )
    for name in plan.changed:
        report.switches.setdefault(name, SwitchOutcome(name, NOT_STARTED))
    _record_unpushed(run, plan)
    runner = ThreadedRunner(num_workers=max(1, opts.parallelism))
    batches = waves(plan.changed, opts, prepared.compiled.fabric.pod_of(plan.changed))
    for i, wave in enumerate(batches):
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
    _record_stop(run, plan, stop, progress)
    if opts.rollback_on_failure and report.failed and run.before:
        done = set(run.before)
        nr.data.reset_failed_hosts()
        nr.filter(filter_func=lambda h: h.name in done).with_runner(runner).run(
            task=run.revert_task, on_failed=True
        )
    report.switches = {n: report.switches[n] for n in plan.switches if n in report.switches}
    report.finished = timestamp()
    report.state = "finished"
    return report


def _record_unpushed(run: _Runner, plan: Plan) -> None:
    """The switches the plan leaves alone: unchanged, or failed as unreachable at plan time."""
    for name, sp in plan.switches.items():
        if sp.status == "unchanged":
            run.record(SwitchOutcome(name, "unchanged"))
        elif sp.status == "unreachable":
            run.record(
                SwitchOutcome(
                    name,
                    "failed",
                    "auth" if sp.cause == "auth" else "connect",
                    f"unreachable at plan time: {sp.error}",
                    cause=sp.cause or "error",
                    hint=sp.hint,
                )
            )


def _record_stop(run: _Runner, plan: Plan, stop: threading.Event, progress: Progress | None) -> None:
    """The switches never started, skipped; and why the run stopped, if it did."""
    report, opts = run.report, run.opts
    for name in plan.changed:
        if report.switches[name].status == NOT_STARTED:
            report.switches[name] = SwitchOutcome(name, "skipped", message="not started: run stopped")
            if progress is not None:
                progress(report.switches[name])
    if run.abort.is_set():
        report.stopped_reason = (
            "interrupted twice: switches in flight were stopped before their commit and restored, "
            "no new one was started"
        )
    elif stop.is_set():
        report.stopped_reason = "interrupted: switches in flight finished, no new one was started"
    elif not report.stopped_reason and run.too_many_failures():
        report.stopped_reason = f"{run.failures} failure(s), more than --max-failures {opts.max_failures}"


def write_report(root: Path, report: RunReport, copy: Path | None = None) -> Path:
    """The finished record, chained to the one before it in its store (the remote's runs ref
    where records are shared, else `<root>/.fabricctl/runs/`), redacted; the same record at
    `copy` if given. A record the remote refused (it says why) is chained locally."""
    from fabricctl.deploy.record import finish_record, write_record
    from fabricctl.outputs import named_output

    def link(chain: dict[str, Any]) -> None:
        report.chain = chain

    path = finish_record(root, report.to_dict, report.context, link)
    if copy is not None:
        write_record(copy, report.to_dict(), named_output(copy, root))
    return path
