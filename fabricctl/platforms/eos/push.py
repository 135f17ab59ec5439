"""Push protocol for Arista EOS: a named configure session with a commit timer, over eAPI
(never over SSH, which hides errors), with Arista's own client (pyeapi).

1. read the switch's clock and running config; refuse if it is not what the plan was made from,
   or if a session holds a change (open, or committed on its timer) that is not this push's:
   someone else's change is never committed, aborted or carried along;
2. load the commands into a session named after the push's mark, which the run record holds
   before the session exists (eAPI reports a rejected line);
3. the session's own diff (`show session-config named S diffs`) adds only lines the plan sends;
4. `configure session S commit timer hh:mm:ss`: EOS reverts unless confirmed in time;
5. re-read the running config: the remediation must now be empty;
6. the session still pending on its timer (the run's mark), then `configure session S commit`
   and `write memory` (the confirm).

Before step 4 an error aborts the session (running untouched); after it, aborting the session
pending on its timer restores the config the switch had at commit time, and nothing is saved.
A hung or dropped request is cleaned up from a new connection; the commit timer is the last
line of defence.

Why not NAPALM's EOS driver (napalm 5.2), whose contract sends these same commands: it names
its session `napalm_<microseconds>` itself (eos.py `_load_config`) and acts only on the session
the same driver object loaded. Measured against the lab: a run killed while loading leaves
`napalm_71122` pending; the next run's `load_merge_candidate` is refused ("Session is already in
use") and its `discard_config` cannot abort it, and nothing says which run left it, so `recover`
could neither finish nor undo it. Its `rollback` and `confirm_commit` also send `write memory`
on their own, and a failed run must leave startup as it was. The session therefore carries the
push's mark (platforms/eos/terminal.py `session_name`), which only eAPI itself can give it.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pyeapi

from fabricctl.platforms.eos.terminal import SHOW_CLOCK, live, ours, read_clock, session_name, sessions
from fabricctl.platforms.push import (
    FunctionPusher,
    PushRequest,
    PushResult,
    Stage,
    StageError,
    Status,
    Target,
    TimerExpired,
    check_cancelled,
    failed_status,
    foreign,
    new_mark,
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
#: eAPI connection settings the inventory's `napalm` connection options may carry in
#: `optional_args` (the ones NAPALM's EOS driver hands pyeapi); `transport` defaults to https,
#: as NAPALM's does, so one inventory serves the push, NAPALM's getters and ANTA.
EAPI_OPTIONS = ("port", "path", "context", "key_file", "cert_file", "ca_file", "enforce_verification")


def connect(target: Target) -> Any:
    """A pyeapi node for the switch's eAPI, logged in (`show version` answered): a refused login
    or an unreachable switch becomes an auth/connect StageError."""
    optional = dict(target.napalm_extras.get("optional_args") or {})
    transport = str(optional.get("transport", optional.get("eos_transport", "https")))
    options = {k: optional[k] for k in EAPI_OPTIONS if k in optional}
    try:
        connection = pyeapi.client.make_connection(
            transport,
            host=target.hostname,
            username=target.username,
            password=target.password,
            timeout=int(max(1, target.timeout)),
            **options,
        )
        node = pyeapi.client.Node(connection, enablepwd=optional.get("enable_password") or None)
        node.run_commands(["show version"])
    except Exception as exc:
        text = str(exc)
        stage: Stage = (
            "auth" if ("401" in text or "Unauthorized" in text or "uthenticat" in text) else "connect"
        )
        raise StageError(stage, describe_error(exc)) from None
    return node


def _run(node: Any, commands: list[str]) -> list[str]:
    """Run commands (text output), in order; eAPI stops at the first that fails."""
    return [str(r.get("output", "")) for r in node.run_commands(commands, encoding="text")]


def _show(node: Any, command: str) -> str:
    return _run(node, [command])[0]


def _running(node: Any) -> str:
    return normalize_running(_show(node, "show running-config"))


def fetch(target: Target) -> str:
    return _running(connect(target))


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


def load(node: Any, session: str, commands: list[str]) -> None:
    """The commands into the named session, as NAPALM's `load_merge_candidate` sends them over
    eAPI: comment lines (`!`, but not `!!`) dropped, each line stripped, `end` to leave."""
    lines = [
        c.strip() for c in commands if not (c.strip().startswith("!") and not c.strip().startswith("!!"))
    ]
    node.run_commands([f"configure session {session}", *lines, "end"])


def session_diff(node: Any, session: str) -> str:
    """The switch's own diff of the session against running, without its two file-name lines
    (NAPALM's `compare_config`)."""
    text = _show(node, f"show session-config named {session} diffs")
    return "\n".join(text.splitlines()[2:]).strip()


def commit_on_timer(node: Any, session: str, seconds: int) -> None:
    """`configure session S commit timer hh:mm:ss` (NAPALM's `commit_config(revert_in=...)`,
    without its `copy startup-config flash:rollback-0`, which only its `rollback` reads)."""
    _run(
        node, [f"configure session {session} commit timer {time.strftime('%H:%M:%S', time.gmtime(seconds))}"]
    )


def _abort(node: Any, session: str) -> None:
    _run(node, [f"configure session {session} abort"])


def _abort_session(target: Target, session: str) -> str:
    """Abort a session left open by a dropped or hung request, from a new connection."""
    try:
        _abort(connect(target), session)
        return f"session {session} aborted"
    except Exception as exc:
        return f"could not abort session {session} ({describe_error(exc)}); its commit timer reverts it"


def open_sessions(node: Any) -> dict[str, str]:
    """The sessions that hold a change (terminal.py `live`), as the switch lists them."""
    return live(json.dumps(node.run_commands(["show configuration sessions"])[0]))


def refuse_foreign(states: dict[str, str], claimed: frozenset[str]) -> None:
    """Stop when a session holds a change fabricctl cannot prove it opened (platforms/push.py `foreign`)."""
    for name, state in sorted(states.items()):
        if ours(name, claimed):
            continue
        if state == "pendingCommitTimer":
            raise foreign(
                f"session {name} is committed on its timer",
                f"its owner confirms it (`configure session {name} commit`) or rolls it back "
                f"(`configure session {name} abort`)",
            )
        raise foreign(
            f"session {name} holds changes not committed",
            f"its owner commits it (`configure session {name} commit`) or drops it "
            f"(`configure session {name} abort`)",
        )


def refuse_waiting(node: Any, request: PushRequest) -> None:
    """Before anything is staged: no session may hold a change, fabricctl's own abandoned one
    included (the plan shows it pending and `recover` settles it)."""
    try:
        waiting = open_sessions(node)
    except Exception as exc:
        raise StageError(
            "load", f"the configuration sessions could not be read: {describe_error(exc)}"
        ) from None
    left = sorted(n for n in waiting if ours(n, request.claimed))
    if left:
        raise StageError(
            "load",
            f"session {', '.join(left)} left by an interrupted apply: "
            "run plan again (it shows the switch pending) and apply settles it",
        )
    refuse_foreign(waiting, request.claimed)


def switch_clock(node: Any) -> Callable[[], float]:
    """The switch's clock (`show clock`); this machine's when the switch prints none we read."""

    def show() -> str:
        return _show(node, SHOW_CLOCK)

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


# long: the push protocol's steps in their order on the wire, under one try that restores the switch on any failure
def push(target: Target, request: PushRequest) -> PushResult:
    started = time.monotonic()
    node: Any = None
    before: str | None = None
    timer: ConfirmTimer | None = None
    session: str | None = None
    try:
        node = connect(target)
        try:
            clock = switch_clock(node)
            probed = clock()
            read_from = clock()
            before = _running(node)
        except StageError:
            raise
        except Exception as exc:
            raise StageError("connect", describe_error(exc)) from None
        if nothing_to_send(before, request):
            return PushResult("unchanged", before=before, seconds=time.monotonic() - started)
        refuse_waiting(node, request)
        timer = ConfirmTimer(clock, max(1, int(request.confirm_timeout)))
        costs = timer.costs
        costs.command = max(timer.resolution, read_from - probed)  # one short command, until the commit shows
        try:
            read_done = clock()
            costs.read = read_done - read_from
            if request.gate is not None:
                request.gate.before()
                costs.gate = clock() - read_done
            mark = new_mark(request.run_id)
            request.claim(mark)  # recorded before the session exists: an abandoned one is provably ours
            session = session_name(mark)
            load(node, session, request.commands)
            device_diff = session_diff(node, session)
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
            commit_on_timer(node, session, int(timer.length))
            timer.arm(armed_from)
        except Exception as exc:
            raise StageError("commit", describe_error(exc)) from None
        costs.command = max(costs.command, clock() - armed_from)
        timer.require(readback + costs.gate + costs.command, "the read-back, the health gate and the confirm")
        try:
            now = _running(node)
        except Exception as exc:
            raise StageError("verify", describe_error(exc)) from None
        if now == before and timer.ran_out():
            raise timer.expired("before the read-back")
        require_converged(target.name, now, request, "after commit")
        timer.require(costs.gate + costs.command, "the health gate and the confirm")
        run_gate(request)
        timer.require(costs.command, "the confirm")
        check_cancelled(request, "before the confirm")
        _confirm(node, session, timer)
        session = None  # committed and saved: nothing left to undo
        try:
            after = _running(node)
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
        if isinstance(exc, TimerExpired):
            result.message += "; EOS reverted the session on its timer"
        elif session is not None:
            result.message += "; " + _undo(target, node, session, committed)
        result.seconds = time.monotonic() - started
        return result


def _confirm(node: Any, session: str, timer: ConfirmTimer) -> None:
    """The run's session still pending on its timer (read back, the run's mark), then
    `configure session S commit` and `write memory` in one request (NAPALM's `confirm_commit`):
    eAPI runs them in order and stops at the first that fails, so nothing is saved unless the
    commit went through. No pending session left means the timer fired first and EOS reverted
    the change: nothing was saved."""
    try:
        states = sessions(json.dumps(node.run_commands(["show configuration sessions"])[0]))
    except Exception as exc:
        raise StageError("commit", f"confirm failed: {describe_error(exc)}") from None
    if states.get(session) != "pendingCommitTimer":
        raise timer.expired("before the confirm reached the switch")
    try:
        _run(node, [f"configure session {session} commit", "write memory"])
    except Exception as exc:
        if timer.ran_out():
            raise timer.expired("while the confirm was on its way") from None
        raise StageError("commit", f"confirm failed: {describe_error(exc)}") from None


def recover(target: Target, request: PushRequest) -> PushResult:
    """Settle sessions an interrupted push left, once the run records prove them fabricctl's
    (`request.claimed`): one on its commit timer is confirmed when the switch runs the intended
    config, else aborted (EOS reverts it); one never committed is aborted (running is untouched)
    and the plan's change is then pushed as usual. Any other session stops the switch untouched."""
    started = time.monotonic()
    try:
        node = connect(target)
        states = open_sessions(node)
        refuse_foreign(states, request.claimed)
        timed = sorted(n for n, st in states.items() if st == "pendingCommitTimer")
        open_only = sorted(n for n in states if n not in timed)
        if open_only:
            _run(node, [f"configure session {n} abort" for n in open_only])
        if not timed:
            running = _running(node)
            if not open_only and not request.remaining(target.name, running).changed:
                _run(node, ["copy running-config startup-config"])
                return PushResult(
                    "changed", message="saved the intended config it ran unsaved", before=running
                )
            result = push(target, request)
            if open_only and result.status != "failed":
                result.message = f"aborted abandoned session {', '.join(open_only)}; " + result.message
            return result
        running = _running(node)
        if not request.remaining(target.name, running).changed:
            _run(
                node,
                [f"configure session {n} commit" for n in timed] + ["copy running-config startup-config"],
            )
            status: Status = "changed"
            what = f"confirmed session {', '.join(timed)} an interrupted apply left on its timer"
        else:
            _run(node, [f"configure session {n} abort" for n in timed])
            status, what = "rolled back", f"aborted session {', '.join(timed)}: its change was incomplete"
        return PushResult(status, message=what, before=running, seconds=time.monotonic() - started)
    except Exception as exc:
        return recover_failed(exc, started)


def _undo(target: Target, node: Any, session: str, committed: bool) -> str:
    """Leave the switch as before: abort the session (one pending on its timer is rolled back
    now), on this or a new connection. Nothing is saved: a failed push leaves startup as it was."""
    try:
        _abort(node, session)
    except Exception:
        return _abort_session(target, session)
    return (
        "session aborted, running as before" if committed else "session discarded, running config untouched"
    )


#: The EOS push protocol (a configure session with a commit timer, over eAPI with pyeapi).
PUSHER = FunctionPusher(push, fetch, recover)
