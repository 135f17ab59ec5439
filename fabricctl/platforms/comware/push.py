"""Push protocol for H3C Comware V7 over SSH (netmiko `hp_comware`).

Comware has no candidate config: lines take effect as they are entered. Safety comes from a
checkpoint file, `configuration replace file` and `configuration commit delay N` (the switch
rolls back to the config it had when the command was given unless `configuration commit`
arrives within N minutes):

1. connect; `display current-configuration`; refuse if it is not what the plan was made from,
   or if someone else's `configuration commit delay` is armed: H3C documents no display of an
   armed delay, so the push reads the switch's log of the commands users ran (`display
   logbuffer`, SHELL_CMD: terminal.py `armed_delay`); arming over it would move its deadline and
   `configuration commit` would confirm it, so the push stops and touches nothing;
2. `system-view`; `save flash:/fabricctl-rollback.cfg` (checkpoint of running; `save <file>`
   does not change the next-startup file); `configuration commit delay <ceil(confirm_timeout/60)>`;
3. paste the mark (an empty VPN instance `fabricctl-pending-<random>` naming the push's mark,
   which the run record holds before the delay is armed, its first line in the same write as the
   arming: Comware shows no armed delay, so the push shows its own) and the remediation, in
   chunks, checking every reply against the error pattern as it arrives (netmiko's per-line
   `cmd_verify` costs ~10 ms a line; a 1,300-line first push would take 14 s);
4. re-read the running config: the remediation must now be empty (the device's own verdict);
5. `configuration commit` (confirm), `save force`, the mark removed, `save force`.

A run killed anywhere in 3-5 leaves the mark: the next plan reports the switch `pending`, and
apply settles it (`recover`): once a run record proves the mark fabricctl's, it confirms when the
switch runs the intended config, else it restores the checkpoint. If the delay runs out first,
its rollback removes the mark too.

On any error after step 2 the switch is restored at once, on a new connection (the old one
may be dead or hung): `configuration replace file flash:/fabricctl-rollback.cfg` (the device
undoes what the push added and re-adds what it removed), then the running config must be
byte-identical to the one read in step 1; only then `configuration commit` cancels the
pending timer, so it cannot fire later and roll back a change made after this run. When the
replace cannot be done, the inverse remediation is pushed instead and the timer is left armed:
it returns the switch to the step-2 snapshot even if nothing else could be sent.
"""

from __future__ import annotations

import contextlib
import math
import re
import time
from collections.abc import Callable

from netmiko.base_connection import BaseConnection

from fabricctl.platforms.comware.terminal import (
    ERROR_PATTERN,
    FETCH,
    LOGBUFFER,
    MARK,
    PROMPT_LINE,
    SHOW_CLOCK,
    armed_delay,
    mark_lines,
    marked_run,
    proven,
    read_clock,
    unmark_lines,
    unmarked,
)
from fabricctl.platforms.paste import CHUNK
from fabricctl.platforms.paste import paste as paste_lines
from fabricctl.platforms.push import (
    FunctionPusher,
    PushRequest,
    PushResult,
    Stage,
    StageError,
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

CHECKPOINT = "flash:/fabricctl-rollback.cfg"
_QUESTION = re.compile(r"\[Y/N\]:\s*$")
_PROMPT_OR_QUESTION = r"\[Y/N\]:\s*$|[\]>]\s*$"
#: How fabricctl answers the confirmation questions of `save <file>` / `configuration replace`.
ANSWERS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"save current configuration\?", re.I), "N"),  # replace: no extra save first
    (re.compile(r"overwrite\?", re.I), "Y"),  # save <file>: the checkpoint is ours to replace
    (re.compile(r"Continue\?", re.I), "Y"),  # save <file>
)
_PROMPT = re.compile(PROMPT_LINE)
_ERROR = re.compile(ERROR_PATTERN)


def connect(target: Target) -> BaseConnection:
    """Open an SSH session; errors become connect/auth StageErrors."""
    return open_session(target, FETCH.netmiko_device_type, global_cmd_verify=True)


def _show(conn: BaseConnection, target: Target) -> str:
    """The full running config: a listing always ends with `return`; a cut one is read again."""
    text = ""
    for _ in range(3):
        text = str(
            conn.send_command(FETCH.show_running, expect_string=FETCH.prompt, read_timeout=target.timeout)
        )
        if normalize_running(text).endswith("return\n"):
            return text
        conn.clear_buffer()
    raise StageError("verify", "the running config listing was cut short three times")


def fetch(target: Target) -> str:
    """Running config (read-only, own connection)."""
    conn = connect(target)
    try:
        return normalize_running(_show(conn, target))
    finally:
        _close(conn)


def _close(conn: BaseConnection | None) -> None:
    if conn is None:
        return
    with contextlib.suppress(Exception):  # a dead channel has nothing left to close
        conn.disconnect()


def _drop(conn: BaseConnection | None) -> None:
    """Close a failed session's transport without the polite `quit`: after a refused line the
    switch may still be busy with (or stuck on) the lines pasted after it, and netmiko's
    cleanup would wait a whole --timeout for a prompt that never comes."""
    if conn is None:
        return
    with contextlib.suppress(Exception):
        conn.paramiko_cleanup()
    with contextlib.suppress(Exception):
        conn.disconnect()  # nothing left to wait for: only the bookkeeping (session log, filters)


def _command(conn: BaseConnection, line: str, target: Target) -> str:
    out = str(conn.send_command(line, expect_string=r"[\]>]\s*$", read_timeout=target.timeout))
    if _ERROR.search(out):
        raise StageError("load", f"{line!r} rejected: {_first_error(out)}")
    return out


def _interactive(conn: BaseConnection, line: str, target: Target, stage: Stage) -> str:
    """Send a command that may ask `[Y/N]:` questions; answer the known ones, refuse others."""
    output = ""
    for _ in range(4):
        out = str(
            conn.send_command(
                line, expect_string=_PROMPT_OR_QUESTION, strip_prompt=False, read_timeout=target.timeout
            )
        )
        output += out
        if _ERROR.search(out):
            raise StageError(stage, f"{line!r} rejected: {_first_error(out)}")
        if not _QUESTION.search(out):
            return output
        question = out.strip().splitlines()[-1]
        answer = next((a for pattern, a in ANSWERS if pattern.search(question)), None)
        if answer is None:
            conn.send_command("N", expect_string=_PROMPT_OR_QUESTION, read_timeout=target.timeout)
            raise StageError(stage, f"unexpected question from the switch: {redact(question)!r}")
        line = answer
    raise StageError(stage, f"too many questions from the switch after {line!r}")


def _first_error(output: str) -> str:
    """The switch's own error text, after the command it refused when the output shows it."""
    command = None
    for line in output.splitlines():
        echo = _PROMPT.match(line)
        if echo:
            command = line[echo.end() :].strip() or command
        elif _ERROR.search(line):
            text = line.strip()
            return redact(f"{command!r}: {text}" if command else text)
    return "error"


def paste(
    conn: BaseConnection, lines: list[str], timeout: float, before_chunk: Callable[[int], None] | None = None
) -> None:
    """Send lines in chunks, waiting for one prompt per line; raise on the first error reply
    (platforms/paste.py). `before_chunk(sent)` runs before every chunk but the first."""
    paste_lines(conn, lines, timeout, _PROMPT, _ERROR, _first_error, before_chunk)


def switch_clock(conn: BaseConnection, target: Target) -> Callable[[], float]:
    """The switch's clock (`display clock`); this machine's when the switch prints none we read."""
    text = str(conn.send_command(SHOW_CLOCK, expect_string=r"[\]>]\s*$", read_timeout=target.timeout))
    if read_clock(text) is None:
        start = time.monotonic()
        return lambda: time.monotonic() - start

    def read() -> float:
        out = str(conn.send_command(SHOW_CLOCK, expect_string=r"[\]>]\s*$", read_timeout=target.timeout))
        now = read_clock(out)
        if now is None:
            raise StageError("load", f"{SHOW_CLOCK!r} printed no clock: {redact(out.strip()[:80])!r}")
        return now

    return read


def refuse_armed(conn: BaseConnection, target: Target, running: str, claimed: frozenset[str]) -> None:
    """Stop when a commit delay is armed: one whose mark in running a run record proves
    fabricctl's is `recover`'s to settle; any other is someone else's, never re-armed, committed
    or replaced."""
    run = marked_run(running)
    if run is not None:
        if proven(run, claimed):
            raise StageError(
                "load",
                f"interrupted push {run} left its change under an armed commit delay: run plan again "
                "(it shows the switch pending) and apply settles it",
            )
        raise foreign(
            f"running holds a commit-delay mark ({MARK}..., {run}) that no fabricctl run record holds",
            "whoever armed the delay keeps the change (`configuration commit`) or lets it roll back",
        )
    prompt = rf"[<\[]{re.escape(conn.base_prompt)}[^\]>\r\n]*[\]>]\s*$"  # a log line may end in `]`
    try:
        log = str(conn.send_command(LOGBUFFER, expect_string=prompt, read_timeout=target.timeout))
        now = read_clock(
            str(conn.send_command(SHOW_CLOCK, expect_string=prompt, read_timeout=target.timeout))
        )
    except Exception as exc:
        raise StageError("load", f"the log buffer could not be read: {describe_error(exc)}") from None
    armed = armed_delay(log, now)
    if armed is not None:
        by = (
            f"; it rolls back by {time.strftime('%H:%M:%S', time.gmtime(armed.deadline))} on the switch's clock"
            if armed.deadline is not None
            else ""
        )
        raise foreign(
            f"{armed.describe()} is still armed",
            f"its owner keeps the change (`configuration commit`) or lets it roll back{by}",
        )


# long: the push protocol's steps in their order on the wire, under one try that restores the switch on any failure
def push(target: Target, request: PushRequest) -> PushResult:
    """Apply one remediation with commit-delay protection (see the module docstring)."""
    started = time.monotonic()
    conn: BaseConnection | None = None
    before: str | None = None
    timer: ConfirmTimer | None = None
    try:
        conn = connect(target)
        try:
            clock = switch_clock(conn, target)
            read_from = clock()
            before = normalize_running(_show(conn, target))
        except StageError:
            raise
        except Exception as exc:
            raise StageError("connect", describe_error(exc)) from None
        if nothing_to_send(before, request):
            return PushResult("unchanged", before=before, seconds=time.monotonic() - started)
        refuse_armed(conn, target, before, request.claimed)
        minutes = max(1, math.ceil(request.confirm_timeout / 60))
        timer = ConfirmTimer(clock, minutes * 60, granularity=60)
        costs = timer.costs
        try:
            read_done = clock()
            costs.read = read_done - read_from
            if request.gate is not None:
                request.gate.before()
                costs.gate = clock() - read_done
            check_cancelled(request, "before the change")
            conn.config_mode()
            _interactive(conn, f"save {CHECKPOINT}", target, "load")
            readback = read_estimate(costs, before, request.intended)
            after_paste = readback + costs.gate  # + the commit, measured once armed
            timer.require(after_paste, "the read-back and the health gate")  # the whole timer, before arming
            mark = new_mark(request.run_id)
            request.claim(mark)  # recorded before the delay is armed: its mark is provably ours
            armed_at = clock()
            timer.arm(armed_at)
            marked = mark_lines(mark)
            # One write: the switch never holds this push's delay without the mark's first line,
            # whose name alone proves it (a run killed between two writes would leave a delay
            # no record could be matched to, and the next run would have to leave it alone).
            paste(conn, [f"configuration commit delay {minutes}", marked[0]], target.timeout)
            costs.command = max(timer.resolution, clock() - armed_at)
            after_paste += costs.command
            lines = [*marked[1:], *request.commands]
            paste_from = timer.require(after_paste, "the read-back, the health gate and the commit")

            def keep_time(sent: int) -> None:
                check_cancelled(request, "while loading")
                # The next chunk and everything after the paste must fit; the paste may go on
                # as long as they do (a projection from the first chunks would stop pushes
                # that fit), and the commit is checked again before it is sent.
                per_line = (clock() - paste_from) / sent
                left = len(lines) - sent
                timer.require(
                    per_line * min(CHUNK, left) + after_paste,
                    "the next lines, the read-back, the health gate and the commit",
                    rest=per_line * left + after_paste,
                )

            paste(conn, lines, target.timeout, keep_time)
            timer.require(after_paste, "the read-back, the health gate and the commit")
            now = normalize_running(_show(conn, target))
        except StageError:
            raise
        except Exception as exc:
            raise StageError("load", describe_error(exc)) from None
        if marked_run(now) is None and timer.ran_out():
            raise timer.expired("before the read-back")
        require_converged(target.name, unmarked(now), request, "after loading")
        timer.require(costs.gate + costs.command, "the health gate and the commit")
        run_gate(request)
        timer.require(costs.command, "the commit")
        check_cancelled(request, "before the commit")
        try:
            _commit(conn, target)
        except StageError:
            if timer.ran_out():  # the switch was rolling back when the commit arrived
                raise timer.expired("before the commit reached the switch") from None
            raise
        after = _confirmed(conn, target, request, timer)
        _save_and_unmark(conn, target, unmark_lines(after))
        return PushResult("changed", before=before, seconds=time.monotonic() - started)
    except StageError as exc:
        armed = timer is not None and timer.armed_at is not None
        result = PushResult(
            failed_status(exc, armed), exc.stage, redact(exc.message), before=before, error=underlying(exc)
        )
        if armed and before is not None:
            result.message += "; " + restore(target, conn, before, request)
            conn = None
        result.seconds = time.monotonic() - started
        return result
    finally:
        _close(conn)


def _commit(conn: BaseConnection, target: Target) -> None:
    """`configuration commit`: the switch keeps the change and drops its rollback timer."""
    try:
        _command(conn, "configuration commit", target)
    except StageError as exc:
        raise StageError("commit", exc.message) from None
    except Exception as exc:
        raise StageError("commit", describe_error(exc)) from None


def _confirmed(conn: BaseConnection, target: Target, request: PushRequest, timer: ConfirmTimer) -> str:
    """Read back after the commit: the switch must still run the change and its mark (returned).
    A timer that fired first rolled both away (the commit then found nothing to confirm): nothing
    is saved."""
    try:
        after = normalize_running(_show(conn, target))
    except Exception as exc:
        why = exc.message if isinstance(exc, StageError) else describe_error(exc)
        raise StageError("commit", f"the config could not be read back after the commit: {why}") from None
    if marked_run(after) is None:
        raise timer.expired("before the commit reached the switch")
    require_converged(target.name, unmarked(after), request, "after the commit")
    return after


def _save_and_unmark(conn: BaseConnection, target: Target, unmark: list[str]) -> None:
    """`save force`, the mark removed, `save force`."""
    try:
        # Saved before the mark goes, then again: a run killed in between leaves the mark in running
        # and startup alike, so the next run still finds it (a committed change is never unsaved).
        conn.send_command("save force", expect_string=r"[\]>]\s*$", read_timeout=target.timeout)
        paste(conn, unmark, target.timeout)
        conn.send_command("save force", expect_string=r"[\]>]\s*$", read_timeout=target.timeout)
        conn.exit_config_mode()
    except Exception as exc:
        why = exc.message if isinstance(exc, StageError) else describe_error(exc)
        raise StageError("commit", f"committed but not saved: {why}") from None


def recover(target: Target, request: PushRequest) -> PushResult:
    """Settle an interrupted push (the mark is in running, and a run record holds it): confirm
    it, or restore the checkpoint. A mark no record holds, or a delay armed without a mark, is
    someone else's: the switch is left untouched."""
    started = time.monotonic()
    conn: BaseConnection | None = None
    try:
        conn = connect(target)
        running = normalize_running(_show(conn, target))
        run = marked_run(running)
        converged = not request.remaining(target.name, unmarked(running)).changed
        if run is None or not proven(run, request.claimed):
            refuse_armed(conn, target, running, request.claimed)  # raises for a mark not ours
        conn.config_mode()
        if run is None:  # nothing armed (the delay ran out, or the change was committed)
            if not converged:
                return PushResult(
                    "unchanged", message="nothing to settle any more; plan again", before=running
                )
            conn.send_command("save force", expect_string=r"[\]>]\s*$", read_timeout=target.timeout)
            conn.exit_config_mode()
            return PushResult("changed", message="saved the intended config it ran unsaved", before=running)
        if converged:
            _commit(conn, target)
            _save_and_unmark(conn, target, unmark_lines(running))
            return PushResult(
                "changed",
                message=f"confirmed the change interrupted push {run} had left under its commit delay",
                before=running,
                seconds=time.monotonic() - started,
            )
        _interactive(conn, f"configuration replace file {CHECKPOINT}", target, "load")
        restored = normalize_running(_show(conn, target))
        if marked_run(restored) is not None:
            raise StageError("load", f"{CHECKPOINT} still holds a push mark; restore by hand")
        _command(conn, "configuration commit", target)  # the restored config stays; the timer is off
        conn.exit_config_mode()
        return PushResult(
            "rolled back",
            message=f"restored the checkpoint interrupted push {run} had left (its change was incomplete)",
            before=running,
            seconds=time.monotonic() - started,
        )
    except Exception as exc:
        return recover_failed(exc, started)
    finally:
        _close(conn)


def restore(target: Target, conn: BaseConnection | None, before: str, request: PushRequest) -> str:
    """Put the switch back to `before` now, on a fresh session (the old one may be dead or hung).

    First choice: `configuration replace file <checkpoint>`, verified byte-identical, then
    `configuration commit` to cancel the timer. Fallback: the inverse remediation, timer armed.
    """
    _drop(conn)
    conn = None
    try:
        conn = connect(target)
        conn.config_mode()
        if normalize_running(_show(conn, target)) == before:  # nothing landed, or the timer fired
            # A timer still armed must not fire later; one that fired left nothing to cancel.
            with contextlib.suppress(StageError):
                _command(conn, "configuration commit", target)
            conn.exit_config_mode()
            return "the switch runs its config from before this push; no commit-delay timer left armed"
        try:
            _interactive(conn, f"configuration replace file {CHECKPOINT}", target, "load")
            current = normalize_running(_show(conn, target))
        except StageError as exc:
            return _restore_inverse(conn, target, before, request, f"replace failed ({exc.message}); ")
        if current != before:
            return _restore_inverse(conn, target, before, request, "replace left differences; ")
        try:
            _command(conn, "configuration commit", target)
        except Exception as exc:
            why = exc.message if isinstance(exc, StageError) else describe_error(exc)
            return (
                f"restored exactly from {CHECKPOINT}; cancelling the commit-delay timer failed ({why}), "
                "it will roll back to the same config"
            )
        conn.exit_config_mode()
        return f"restored exactly from {CHECKPOINT} (configuration replace); commit-delay timer cancelled"
    except StageError as exc:
        return f"restore failed ({exc.message}); the commit-delay timer will roll the switch back"
    except Exception as exc:
        return f"restore failed ({describe_error(exc)}); the commit-delay timer will roll the switch back"
    finally:
        _close(conn)


def _restore_inverse(
    conn: BaseConnection, target: Target, before: str, request: PushRequest, why: str
) -> str:
    """Fallback restore: push running-now -> before; the commit-delay timer stays armed."""
    current = normalize_running(_show(conn, target))
    back = request.remaining(target.name, current, before)
    if back.commands:
        paste(conn, back.commands, target.timeout)
        current = normalize_running(_show(conn, target))
    if request.remaining(target.name, current, before).changed:
        return why + "restore incomplete; the commit-delay timer will roll the switch back"
    return why + "restored by the inverse change (the commit-delay timer is also armed)"


#: The Comware push protocol (netmiko over SSH; `configuration commit delay` is the confirm timer).
PUSHER = FunctionPusher(push, fetch, recover)
