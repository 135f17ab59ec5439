"""Push protocol for Arista EOS: NAPALM `eos` over eAPI (never over SSH, which hides errors).

1. open; read the running config; refuse if it is not what the plan was made from;
2. `load_merge_candidate` into a config session (eAPI reports a rejected line);
3. `compare_config`: the device's own diff must add only lines the plan sends;
4. `commit_config(revert_in=confirm_timeout)`: a commit timer, EOS reverts unless confirmed;
5. re-read the running config: the remediation must now be empty;
6. `confirm_commit` (commit + write memory).

Before step 4 an error aborts the session (running untouched); after it, `rollback` aborts the
pending session, which restores the config the switch had at commit time. A hung or dropped
request is cleaned up from a new connection; the commit timer is the last line of defence.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from napalm import get_network_driver

from fabricctl.config.diff import diff_device
from fabricctl.platforms.eos.terminal import SHOW_CLOCK, read_clock, session_name, sessions, unsettled
from fabricctl.platforms.push import (
    Pusher,
    PushRequest,
    PushResult,
    Stage,
    StageError,
    Status,
    Target,
    TimerExpired,
    check_cancelled,
    failed_status,
    normalize_running,
    nothing_to_send,
    recover_failed,
    require_converged,
    run_gate,
    underlying,
)
from fabricctl.platforms.timer import ConfirmTimer, read_estimate
from fabricctl.secrets import describe_error, redact

SEPARATORS = {"", "!", "end"}


def connect(target: Target) -> Any:
    """An open napalm eos driver (eAPI); errors become connect/auth StageErrors."""
    extras = dict(target.napalm_extras)
    optional = dict(extras.pop("optional_args", None) or {})
    driver = get_network_driver("eos")(
        target.hostname,
        target.username,
        target.password,
        timeout=int(max(1, target.timeout)),
        optional_args=optional,
    )
    try:
        driver.open()
    except Exception as exc:
        text = str(exc)
        stage: Stage = (
            "auth" if ("401" in text or "Unauthorized" in text or "uthenticat" in text) else "connect"
        )
        raise StageError(stage, describe_error(exc)) from None
    return driver


def _running(driver: Any) -> str:
    return normalize_running(str(driver.get_config(retrieve="running")["running"]))


def fetch(target: Target) -> str:
    driver = connect(target)
    try:
        return _running(driver)
    finally:
        _close(driver)


def _close(driver: Any) -> None:
    if driver is None:
        return
    with contextlib.suppress(Exception):  # nothing left to close on a dead transport
        driver.close()


def _plan_lines(commands: list[str]) -> set[str]:
    return {c.strip() for c in commands}


def check_device_diff(device_diff: str, commands: list[str]) -> None:
    """The switch must add nothing the plan does not send (guards against a misread remediation).

    A line the device diff both removes and adds only moved (difflib alignment); it is ignored.
    """
    if commands and not device_diff.strip():
        raise StageError("load", "the switch reports no difference although the plan has changes")
    sent = _plan_lines(commands)
    net: Counter[str] = Counter()
    for line in device_diff.splitlines():
        if line.startswith(("+++", "---")):
            continue
        if line[:1] in "+-" and line[1:].strip() not in SEPARATORS:
            net[line[1:].strip()] += 1 if line[0] == "+" else -1
    extra = [text for text, n in net.items() if n > 0 and text not in sent]
    if extra:
        raise StageError("load", f"device diff adds lines the plan does not: {', '.join(extra[:5])}")


def _abort_session(target: Target, session: str | None) -> str:
    """Abort a session left open by a dropped or hung request, from a new connection."""
    if not session:
        return "no session to clean up"
    driver = None
    try:
        driver = connect(target)
        driver.device.run_commands([f"configure session {session} abort"], encoding="text")
        return f"session {session} aborted"
    except Exception as exc:
        return f"could not abort session {session} ({describe_error(exc)}); its commit timer reverts it"
    finally:
        _close(driver)


def switch_clock(driver: Any) -> Callable[[], float]:
    """The switch's clock (`show clock`); this machine's when the switch prints none we read."""

    def show() -> str:
        return str(driver.cli([SHOW_CLOCK]).get(SHOW_CLOCK, ""))

    if read_clock(show()) is None:
        start = time.monotonic()
        return lambda: time.monotonic() - start

    def read() -> float:
        out = show()
        now = read_clock(out)
        if now is None:
            raise StageError("load", f"{SHOW_CLOCK!r} printed no clock: {redact(out.strip()[:80])!r}")
        return now

    return read


def push(target: Target, request: PushRequest) -> PushResult:
    started = time.monotonic()
    driver: Any = None
    before: str | None = None
    timer: ConfirmTimer | None = None
    try:
        driver = connect(target)
        try:
            clock = switch_clock(driver)
            probed = clock()
            read_from = clock()
            before = _running(driver)
        except StageError:
            raise
        except Exception as exc:
            raise StageError("connect", describe_error(exc)) from None
        if nothing_to_send(before, request):
            return PushResult("unchanged", before=before, seconds=time.monotonic() - started)
        timer = ConfirmTimer(clock, max(1, int(request.confirm_timeout)))
        costs = timer.costs
        costs.command = max(timer.resolution, read_from - probed)  # one short command, until the commit shows
        try:
            read_done = clock()
            costs.read = read_done - read_from
            if request.gate is not None:
                request.gate.before()
                costs.gate = clock() - read_done
            driver.config_session = session_name(request.run_id)  # an abandoned one is known as ours
            driver.load_merge_candidate(config="\n".join(request.commands) + "\n")
            device_diff = str(driver.compare_config())
        except StageError:
            raise
        except Exception as exc:
            raise StageError("load", describe_error(exc)) from None
        check_device_diff(device_diff, request.commands)
        readback = read_estimate(costs, before, request.intended)
        check_cancelled(request, "before the commit")
        # The whole timer, before anything runs: the session is only staged, running is untouched.
        armed_from = timer.require(
            readback + costs.gate + costs.command, "the read-back, the health gate and the confirm"
        )
        try:
            driver.commit_config(revert_in=int(timer.length))
            timer.arm(armed_from)
        except Exception as exc:
            raise StageError("commit", describe_error(exc)) from None
        costs.command = max(costs.command, clock() - armed_from)
        timer.require(readback + costs.gate + costs.command, "the read-back, the health gate and the confirm")
        try:
            now = _running(driver)
        except Exception as exc:
            raise StageError("verify", describe_error(exc)) from None
        if now == before and timer.ran_out():
            raise timer.expired("before the read-back")
        require_converged(target.name, now, request, "after commit")
        timer.require(costs.gate + costs.command, "the health gate and the confirm")
        run_gate(request)
        timer.require(costs.command, "the confirm")
        check_cancelled(request, "before the confirm")
        _confirm(driver, timer)
        try:
            after = _running(driver)
        except Exception as exc:
            raise StageError(
                "verify", f"confirmed and saved, but not read back: {describe_error(exc)}"
            ) from None
        require_converged(target.name, after, request, "after the confirm")
        return PushResult(
            "changed", device_diff=redact(device_diff), before=before, seconds=time.monotonic() - started
        )
    except StageError as exc:
        committed = timer is not None and timer.armed_at is not None
        status = failed_status(exc, committed)
        result = PushResult(status, exc.stage, redact(exc.message), before=before, error=underlying(exc))
        session = getattr(driver, "config_session", None) if driver is not None else None
        if isinstance(exc, TimerExpired):
            result.message += "; EOS reverted the session on its timer"
        elif session:
            result.message += "; " + _undo(target, driver, session)
        elif exc.stage == "load" and before is not None:
            # NAPALM discards its session when the switch refuses a line: nothing was committed
            result.message += "; session discarded, running config untouched"
        result.seconds = time.monotonic() - started
        return result
    finally:
        _close(driver)


def _confirm(driver: Any, timer: ConfirmTimer) -> None:
    """`confirm_commit`: commit the session pending on its timer, then `write memory` (NAPALM
    saves only when the commit went through). No pending session left means the timer fired
    first and EOS reverted the change: nothing was saved."""
    try:
        pending = driver.has_pending_commit()
    except Exception as exc:
        raise StageError("commit", f"confirm failed: {describe_error(exc)}") from None
    if not pending:
        raise timer.expired("before the confirm reached the switch")
    try:
        driver.confirm_commit()
    except Exception as exc:
        if timer.ran_out():
            raise timer.expired("while the confirm was on its way") from None
        raise StageError("commit", f"confirm failed: {describe_error(exc)}") from None


def recover(target: Target, request: PushRequest) -> PushResult:
    """Settle sessions an interrupted push left: one on its commit timer is confirmed when the
    switch runs the intended config, else aborted (EOS reverts it); one never committed is
    aborted (running is untouched) and the plan's change is then pushed as usual."""
    started = time.monotonic()
    driver: Any = None
    try:
        driver = connect(target)
        output = driver.device.run_commands(["show configuration sessions"], encoding="json")[0]
        ours, theirs = unsettled(json.dumps(output))
        if theirs:
            raise StageError("load", f"session {', '.join(theirs)} is not fabricctl's and waits on its timer")
        states = sessions(json.dumps(output))
        timed = [n for n in ours if states[n] == "pendingCommitTimer"]
        open_only = [n for n in ours if n not in timed]
        if open_only:
            driver.device.run_commands([f"configure session {n} abort" for n in open_only], encoding="text")
        if not timed:
            running = _running(driver)
            if (
                not open_only
                and not diff_device(target.name, running, request.intended, request.dialect).changed
            ):
                driver.device.run_commands(["copy running-config startup-config"], encoding="text")
                return PushResult(
                    "changed", message="saved the intended config it ran unsaved", before=running
                )
            _close(driver)
            driver = None
            result = push(target, request)
            if open_only and result.status != "failed":
                result.message = f"aborted abandoned session {', '.join(open_only)}; " + result.message
            return result
        running = _running(driver)
        if not diff_device(target.name, running, request.intended, request.dialect).changed:
            commands = [f"configure session {n} commit" for n in timed] + [
                "copy running-config startup-config"
            ]
            driver.device.run_commands(commands, encoding="text")
            status: Status = "changed"
            what = f"confirmed session {', '.join(timed)} an interrupted apply left on its timer"
        else:
            driver.device.run_commands([f"configure session {n} abort" for n in timed], encoding="text")
            status, what = "rolled back", f"aborted session {', '.join(timed)}: its change was incomplete"
        return PushResult(status, message=what, before=running, seconds=time.monotonic() - started)
    except Exception as exc:
        return recover_failed(exc, started)
    finally:
        _close(driver)


def _undo(target: Target, driver: Any, session: str) -> str:
    """Leave the switch as before: abort the session (one pending on its timer is rolled back now),
    on this or a new connection. Never NAPALM's `rollback`, which saves: a failed push must leave
    startup as it was."""
    try:
        driver.discard_config()
        return "session aborted, running as before"
    except Exception:
        return _abort_session(target, session)


class EosPusher(Pusher):
    """The EOS push protocol (NAPALM's EOS driver over eAPI; a configure session with a commit timer)."""

    def push(self, target: Target, request: PushRequest) -> PushResult:
        return push(target, request)

    def fetch(self, target: Target) -> str:
        return fetch(target)

    def recover(self, target: Target, request: PushRequest) -> PushResult:
        return recover(target, request)


PUSHER = EosPusher()
