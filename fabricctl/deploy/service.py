"""Plan and apply orchestration shared by the CLI, the GitOps commands and tests: compile, verify,
select, fetch, diff, annotate; lock, re-check, push, record. It prints nothing and asks nothing:
what a person should hear goes through `notify` / `progress`, and approval is the caller's.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from fabricctl.deploy.plan import Plan, PlanError, Prepared, load_plan, make_plan, prepare, stale_reasons

if TYPE_CHECKING:
    from fabricctl.compile.build import Compiled
    from fabricctl.deploy.apply import ApplyOptions, Progress, RunReport
    from fabricctl.deploy.changed import RefFabric
    from fabricctl.deploy.fetch import Fetched
    from fabricctl.deploy.lock import LockInfo

#: Reads running configs of the named switches: name -> Fetched (a switch that cannot be read is data).
Fetcher = Callable[[list[str]], "dict[str, Fetched]"]
Notify = Callable[[str], None]


def _quiet(message: str) -> None:
    """The default `notify`: nobody is listening."""


def build_plan(
    compiled: Compiled,
    root: Path,
    names: list[str],
    limit: list[str],
    fetch: Fetcher,
    changed_since: str | None = None,
    notify: Notify = _quiet,
) -> tuple[Plan, Prepared]:
    """Verify the whole fabric, pick the switches, read them with `fetch`, diff and annotate.

    With `changed_since`, only switches whose intent differs from the fabric at that git REF
    are read and diffed. Tests pass a fetcher of saved configs; the CLI passes Nornir's.
    """
    from fabricctl.deploy.impact import annotate

    prepared = prepare(root, compiled, names)
    ref = select_since(root, prepared, changed_since, notify) if changed_since else None
    # Nothing selected: no login, no lab, no connection at all.
    fetched = fetch(list(prepared.names)) if prepared.names else {}
    plan = make_plan(prepared, fetched, limit)
    annotate(plan, prepared.compiled, ref)
    return plan, prepared


def nornir_fetcher(root: Path, lab: bool, timeout: float) -> Fetcher:
    """Read running configs over Nornir, from the lab or from real switches."""

    def fetch(names: list[str]) -> dict[str, Fetched]:
        from fabricctl.deploy.context import open_fabric
        from fabricctl.deploy.fetch import fetch_running

        with open_fabric(root, lab, set(names)) as nr:
            return fetch_running(nr, timeout)

    return fetch


def select_since(root: Path, prepared: Prepared, ref: str, notify: Notify = _quiet) -> RefFabric:
    """Narrow `prepared.names` to the switches whose intent or config differs from REF."""
    from fabricctl.deploy.changed import fingerprints, load_ref, select_changed

    before = load_ref(root, ref)
    if before.problem:
        notify(f"warning: {before.problem}\nwarning: planning every selected switch\n")
    now = fingerprints(prepared.compiled, prepared.configs)
    total = len(prepared.names)
    prepared.names = select_changed(before, now, prepared.names)
    notify(
        f"changed since {ref} ({before.commit[:12]}): {len(prepared.names)} of {total} switches selected"
        + (f": {', '.join(prepared.names)}" if 0 < len(prepared.names) <= 16 else "")
        + "\n"
    )
    return before


def load_reviewed(compiled: Compiled, root: Path, plan_file: Path) -> tuple[Plan, Prepared]:
    """A saved plan and the inputs as they are now (rendered and verified again)."""
    plan = load_plan(plan_file)
    return plan, prepare(root, compiled, list(plan.switches))


@contextlib.contextmanager
def locked(root: Path, notify: Notify = _quiet) -> Iterator[None]:
    """The fabric lock around a whole apply (planning included); a dead holder's lock is taken over, aloud."""
    from fabricctl.deploy.lock import fabric_lock

    def took_over(held: LockInfo) -> None:
        notify(f"warning: took over a stale lock ({held.describe()}): its process is gone or it is too old\n")

    with fabric_lock(root, "apply", on_takeover=took_over):
        yield


@contextlib.contextmanager
def interruptible() -> Iterator[threading.Event]:
    """SIGINT / SIGTERM set the event: no new switch starts, the ones in flight finish their push.

    A second signal stops at once: the commit-confirm timers armed on the switches in flight,
    and the mark each push leaves, let the next plan and apply find and settle them.
    """
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def first(signum: int, frame: object) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()

    previous = {sig: signal.signal(sig, first) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def apply_safely(
    root: Path,
    plan: Plan,
    prepared: Prepared,
    lab: bool,
    opts: ApplyOptions,
    reviewed: bool,
    progress: Progress | None = None,
) -> tuple[RunReport, Path]:
    """Refuse a stale reviewed plan, push, and write the run record, whatever happens.

    The caller holds the fabric lock (`locked`). The record is written even when the run is
    interrupted or fails outright, with what each switch reached.
    """
    from fabricctl.deploy.apply import apply_plan, new_report, timestamp, write_report
    from fabricctl.deploy.context import open_fabric
    from fabricctl.deploy.fetch import fetch_running

    report = new_report(plan, opts)
    try:
        with interruptible() as stop, open_fabric(root, lab, set(plan.switches), opts.parallelism) as nr:
            if reviewed:
                reasons = stale_reasons(plan, prepared, fetch_running(nr, opts.timeout))
                if reasons:
                    raise PlanError(
                        "stale plan, not applied: " + "; ".join(reasons) + "; run 'fabricctl plan' again"
                    )
            apply_plan(plan, prepared, nr, opts, progress, stop, report)
    except BaseException as exc:  # interrupted twice, a stale plan, a lost lab: still a record
        report.stopped_reason = report.stopped_reason or f"stopped: {type(exc).__name__}: {exc}".rstrip(": ")
        report.finished = report.finished or timestamp()
        write_report(root, report)
        raise
    return report, write_report(root, report)
