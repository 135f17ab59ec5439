"""Push protocol for NVIDIA Cumulus Linux with NVUE, over SSH (netmiko `cumulus_linux`).

NVUE stages `nv set` / `nv unset` in a pending revision and activates it with `nv config apply`;
`nv config apply --confirm <time>` rolls back by itself unless `nv config apply --confirm-yes`
comes in time, and `--confirm-status` tells the time left (NVUE CLI, "Configuration Management
Commands"). The push:

1. connect; read the switch's clock (`nv show system -o json`: its uptime) and the applied config
   (`nv config show -o yaml`); refuse if it moved since the plan, if another apply is waiting for
   its confirm, or if the pending revision already holds changes (someone else's, which an apply
   would carry along): the refusal names the revision (`nv config revision`: who, when, its
   message) and touches nothing of it;
2. send the plan's `nv set` / `nv unset` lines, in chunks, each reply checked as it arrives (NVUE
   refuses a bad path or value on the line itself; platforms/paste.py); a refused line: `nv config
   detach`, nothing was applied;
3. `nv config apply --confirm <N>s -y -m 'fabricctl <mark>'`, the mark recorded in the run
   record first (platforms/push.py `new_mark`); the time left is then followed on the switch
   (platforms/timer.py, with `--confirm-status` as the switch's own word);
4. read back: the owned scope must equal the intent; run the health gate;
5. `nv config apply --confirm-yes` (auto-save makes the applied config the startup one), then read
   back again: a timer that fired first rolled the change away and the push says so.

On any failure after step 3 the switch is rolled back at once on a fresh session (`nv config
apply --confirm-no`, only while the apply waiting is this push's: its revision and mark) and must
then run exactly what it ran before; when that session cannot be had, the confirm timer rolls it
back by itself. A switch is never reported changed unless the confirmed configuration was read
back. An interrupted run leaves an apply waiting for its confirm: `recover` confirms it when the
switch runs the intent, else rolls it back, and only when its message carries a mark the run
records hold; staged lines nobody applied are never dropped (they cannot be proven fabricctl's).

Why `nv set` over SSH and not the REST API: the API listens only on the switch itself until an
operator opens it (NVUE API, "Secure the API": listening address), while SSH is how fabricctl
already reads every switch (fetch, Nornir, the same credentials and host keys); the plan's
remediation is these very lines, so what a reviewer approved is what is sent and a refused line
is named by the switch; and the confirm and its status are documented as CLI flags, with no REST
form in NVIDIA's guide.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable
from typing import Any, NoReturn

from netmiko.base_connection import BaseConnection

from fabricctl.platforms.nvue.terminal import (
    FETCH,
    MESSAGE_PREFIX,
    REVISIONS,
    WAITING,
    describe,
    mark_of,
    revision_rows,
)
from fabricctl.platforms.paste import paste
from fabricctl.platforms.push import (
    FunctionPusher,
    PushRequest,
    PushResult,
    StageError,
    Status,
    Target,
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
from fabricctl.platforms.ssh import open_session
from fabricctl.platforms.timer import ConfirmTimer, read_estimate
from fabricctl.secrets import describe_error, redact

SHOW_CLOCK = "nv show system -o json"
CONFIRM_STATUS = "nv config apply --confirm-status"
PENDING_DIFF = "nv config diff"
#: The Linux prompt (`cumulus@leaf01:mgmt:~$`), at the very end of a reply.
PROMPT = r"[\w.\-]+@[\w.\-]+:[^\s]*[$#]\s*$"
ERROR = re.compile(r"^\s*(?:Error|-bash):", re.M)
#: The prompt that closes each reply of a pasted chunk (one per line sent).
_PROMPT_IN_REPLY = re.compile(r"[\w.\-]+@[\w.\-]+:\S+[$#] ")
_APPLIED = re.compile(r"applied \[rev_id: (\w+)\]")
_LEFT = re.compile(r"(\d+)\s*s\b")


def connect(target: Target) -> BaseConnection:
    """Open an SSH session; errors become connect/auth StageErrors."""
    return open_session(target, FETCH.netmiko_device_type)


def _send(conn: BaseConnection, line: str, target: Target) -> str:
    return str(conn.send_command(line, expect_string=PROMPT, read_timeout=target.timeout))


def _command(conn: BaseConnection, line: str, target: Target, stage: Any = "load") -> str:
    """One `nv` command; an `Error:` reply fails `stage` with the switch's own words."""
    out = _send(conn, line, target)
    if ERROR.search(out):
        first = next(ln.strip() for ln in out.splitlines() if ERROR.search(ln))
        raise StageError(stage, redact(f"{line!r} rejected: {first}"))
    return out


def _first_error(replies: str) -> str:
    """The switch's own error, after the command it refused (the echo before it)."""
    command = None
    for line in replies.splitlines():
        echo = _PROMPT_IN_REPLY.search(line)
        if echo:
            command = line[echo.end() :].strip() or command
        elif ERROR.search(line):
            return redact(f"{command!r}: {line.strip()}" if command else line.strip())
    return "error"


def _show(conn: BaseConnection, target: Target) -> str:
    out = _command(conn, FETCH.show_running, target, "verify")
    if "- set:" not in out and "- header:" not in out:
        raise StageError("verify", f"{FETCH.show_running!r} printed no configuration")
    return normalize_running(out)


def fetch(target: Target) -> str:
    """The applied configuration (read-only, own connection)."""
    conn = connect(target)
    try:
        return _show(conn, target)
    finally:
        _close(conn)


def _close(conn: BaseConnection | None) -> None:
    if conn is not None:
        with contextlib.suppress(Exception):  # a dead channel has nothing left to close
            conn.disconnect()


def switch_clock(conn: BaseConnection, target: Target) -> Callable[[], float]:
    """The switch's own clock: its uptime in seconds (NVUE API: GET /nvue_v1/system `uptime`)."""

    def read() -> float:
        out = _command(conn, SHOW_CLOCK, target)
        try:
            return float(json.loads(out)["uptime"])
        except (ValueError, KeyError, TypeError):
            raise StageError(
                "load", f"{SHOW_CLOCK!r} printed no uptime: {redact(out.strip()[:80])!r}"
            ) from None

    return read


def confirm_left(conn: BaseConnection, target: Target) -> int | None:
    """Seconds the switch gives the apply waiting for its confirm; None when none waits."""
    out = _command(conn, CONFIRM_STATUS, target)
    m = _LEFT.search(out)
    return int(m[1]) if m else None


def revisions(conn: BaseConnection, target: Target) -> list[dict[str, str]]:
    return revision_rows(_command(conn, REVISIONS, target))


def waiting_revision(rows: list[dict[str, str]]) -> dict[str, str] | None:
    """The revision applied and waiting for its confirm (NVUE lets one wait at a time)."""
    return next((r for r in reversed(rows) if r.get("State") == WAITING), None)


def refuse_pending(conn: BaseConnection, target: Target, request: PushRequest) -> None:
    """Before anything is staged: no apply may wait for its confirm and no change may be staged.
    Either is someone else's unless the run records hold its mark (then the plan shows the switch
    pending and `recover` settles it); nothing of it is touched."""
    if confirm_left(conn, target) is not None:
        row = waiting_revision(revisions(conn, target))
        if row is not None and mark_of(row) in request.claimed:
            raise StageError(
                "load",
                f"{describe(row)} left by an interrupted apply waits for its confirm: run plan "
                "again (it shows the switch pending) and apply settles it",
            )
        refuse_waiting(row)
    if _send(conn, PENDING_DIFF, target).strip():
        rows = [r for r in revisions(conn, target) if r.get("State") == "pending"]
        row = rows[-1] if rows else {}
        by = f" staged by {row['User']}" if row.get("User") else ""
        raise foreign(
            f"pending revision {row.get('Rev ID', '?')} holds changes{by} and not applied (`nv config diff`)",
            "their owner applies them (`nv config apply`) or drops them (`nv config detach`)",
        )


def refuse_waiting(row: dict[str, str] | None) -> NoReturn:
    raise foreign(
        f"{describe(row) if row is not None else 'an apply'} waits for its confirm",
        "its owner keeps it (`nv config apply --confirm-yes`) or rolls it back (`nv config apply --confirm-no`)",
    )


# long: the push protocol's steps in their order on the wire, under one try that restores the switch on any failure
def push(target: Target, request: PushRequest) -> PushResult:
    """Apply one remediation under NVUE's confirm timer (see the module docstring)."""
    started = time.monotonic()
    conn: BaseConnection | None = None
    before: str | None = None
    timer: ConfirmTimer | None = None
    staged = False
    mark = rev = ""  # what this push's apply is known by on the switch
    try:
        conn = connect(target)
        try:
            clock = switch_clock(conn, target)
            read_from = clock()
            before = _show(conn, target)
        except StageError:
            raise
        except Exception as exc:
            raise StageError("connect", describe_error(exc)) from None
        if nothing_to_send(before, request):
            return PushResult("unchanged", before=before, seconds=time.monotonic() - started)
        timer = ConfirmTimer(clock, float(request.confirm_timeout))
        costs = timer.costs
        try:
            read_done = clock()
            costs.read = read_done - read_from
            refuse_pending(conn, target, request)
            if request.gate is not None:
                request.gate.before()
                costs.gate = clock() - read_done
            check_cancelled(request, "before the change")
            staged = True
            paste(
                conn,
                request.commands,
                target.timeout,
                _PROMPT_IN_REPLY,
                ERROR,
                _first_error,
                lambda sent: check_cancelled(request, "while staging"),
            )
            after_apply = read_estimate(costs, before, request.intended) + costs.gate
            timer.require(after_apply, "the read-back and the health gate")  # the whole timer, before arming
            mark = new_mark(request.run_id)
            request.claim(mark)  # recorded before the apply: a waiting apply is provably ours
            armed_at = clock()
            timer.arm(armed_at)
            out = _command(
                conn,
                f"nv config apply --confirm {request.confirm_timeout}s -y -m '{MESSAGE_PREFIX}{mark}'",
                target,
                "commit",
            )
            staged = False
            applied = _APPLIED.search(out)
            if applied is None:
                raise StageError("commit", f"nv config apply did not apply: {redact(out.strip()[:120])!r}")
            rev = applied[1]
            costs.command = max(timer.resolution, clock() - armed_at)
            after_apply += costs.command
            timer.require(after_apply, "the read-back, the health gate and the confirm")
            now = _show(conn, target)
        except StageError:
            raise
        except Exception as exc:
            raise StageError("load", describe_error(exc)) from None
        if confirm_left(conn, target) is None:  # the switch no longer waits: its timer fired
            raise timer.expired("before the read-back")
        require_converged(target.name, now, request, "after the apply")
        timer.require(costs.gate + costs.command, "the health gate and the confirm")
        run_gate(request)
        timer.require(costs.command, "the confirm")
        check_cancelled(request, "before the confirm")
        _confirm(conn, target, timer)
        after = _show(conn, target)
        require_converged(target.name, after, request, "after the confirm")
        return PushResult("changed", before=before, seconds=time.monotonic() - started)
    except StageError as exc:
        armed = timer is not None and timer.armed_at is not None and not staged
        result = PushResult(
            failed_status(exc, armed), exc.stage, redact(exc.message), before=before, error=underlying(exc)
        )
        if staged and conn is not None:
            result.message += "; " + _detach(conn, target)
            conn = None
        elif armed and before is not None:
            result.message += "; " + restore(target, conn, before, mark, rev)
            conn = None
        result.seconds = time.monotonic() - started
        return result
    finally:
        _close(conn)


def _confirm(conn: BaseConnection, target: Target, timer: ConfirmTimer) -> None:
    """`nv config apply --confirm-yes`: the switch keeps the change (and saves it)."""
    try:
        _command(conn, "nv config apply --confirm-yes", target, "commit")
    except StageError:
        if timer.ran_out():
            raise timer.expired("before the confirm reached the switch") from None
        raise
    except Exception as exc:
        raise StageError("commit", describe_error(exc)) from None


def _drop(conn: BaseConnection | None) -> None:
    """Close a failed session's transport without the polite `exit`: after a refused line the
    switch may still be working through the lines pasted after it."""
    if conn is None:
        return
    with contextlib.suppress(Exception):
        conn.paramiko_cleanup()
    _close(conn)


def _detach(conn: BaseConnection | None, target: Target) -> str:
    """Drop what this push staged before anything was applied, on a fresh session (NVUE keeps a
    user's pending revision across sessions), until `nv config diff` shows nothing staged: lines
    the old session had queued may still land after the first detach."""
    _drop(conn)
    fresh: BaseConnection | None = None
    try:
        fresh = connect(target)
        for _ in range(3):
            _command(fresh, "nv config detach", target)
            if not _send(fresh, PENDING_DIFF, target).strip():
                return "nothing was applied; the staged lines were detached"
            time.sleep(0.2)
        return "nothing was applied; staged lines are still pending (nv config detach them)"
    except Exception as exc:
        why = exc.message if isinstance(exc, StageError) else describe_error(exc)
        return f"detaching the staged lines failed ({why}); nothing was applied"
    finally:
        _close(fresh)


def restore(target: Target, conn: BaseConnection | None, before: str, mark: str, rev: str) -> str:
    """Roll this push's apply back now, on a fresh session, and check the switch runs `before`.
    An apply waiting that is not this push's (its revision and mark differ) is left alone."""
    _close(conn)
    conn = None
    try:
        conn = connect(target)
        if confirm_left(conn, target) is not None:
            row = waiting_revision(revisions(conn, target))
            if row is None or (mark_of(row) != mark and row.get("Rev ID") != rev):
                what = describe(row) if row is not None else "an apply"
                return f"{what} waits for its confirm and is not this push's: left it; the confirm timer rolls this push back"
            _command(conn, "nv config apply --confirm-no", target)
        current = _show(conn, target)
        if current != before:
            return "rolled back, but the switch does not run its config from before this push; check it"
        return "rolled back (nv config apply --confirm-no): the switch runs its config from before this push"
    except StageError as exc:
        return f"rollback failed ({exc.message}); the confirm timer will roll the switch back"
    except Exception as exc:
        return f"rollback failed ({describe_error(exc)}); the confirm timer will roll the switch back"
    finally:
        _close(conn)


def recover(target: Target, request: PushRequest) -> PushResult:
    """Settle what an interrupted push left: the apply waiting for its confirm, once its message
    carries a mark the run records hold (`request.claimed`), is confirmed when the switch runs the
    intent, else rolled back. Any other waiting apply, or staged changes, stop the switch untouched."""
    started = time.monotonic()
    conn: BaseConnection | None = None
    try:
        conn = connect(target)
        running = _show(conn, target)
        converged = not request.remaining(target.name, running).changed
        if confirm_left(conn, target) is None:
            refuse_pending(conn, target, request)  # staged changes are someone's: never dropped
            status: Status = "changed" if converged else "unchanged"
            why = (
                "the switch runs the intended config"
                if converged
                else "nothing to settle any more; plan again"
            )
            return PushResult(status, message=why, before=running, seconds=time.monotonic() - started)
        row = waiting_revision(revisions(conn, target))
        if row is None or mark_of(row) not in request.claimed:
            refuse_waiting(row)
        if converged:
            _command(conn, "nv config apply --confirm-yes", target, "commit")
            require_converged(target.name, _show(conn, target), request, "after the confirm")
            return PushResult(
                "changed",
                message=f"confirmed {describe(row)}, which an interrupted run had left waiting",
                before=running,
                seconds=time.monotonic() - started,
            )
        _command(conn, "nv config apply --confirm-no", target)
        return PushResult(
            "rolled back",
            message=f"rolled back {describe(row)}, which an interrupted run had left waiting (its change was incomplete)",
            before=running,
            seconds=time.monotonic() - started,
        )
    except Exception as exc:
        return recover_failed(exc, started)
    finally:
        _close(conn)


#: The NVUE push protocol (netmiko over SSH; `nv config apply --confirm` is the confirm timer).
PUSHER = FunctionPusher(push, fetch, recover)
