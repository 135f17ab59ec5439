"""SONiC's push over SSH, as its operators change a switch (SONiC doc/config-generic-update-rollback/
Json_Change_Application_Design.md; sonic-utilities doc/Command-Reference.md "Generic Config
Update and Rollback"): read CONFIG_DB and frr.conf, take a checkpoint (`config checkpoint
<name>`), write and apply the plan's JSON Patch (`config apply-patch <file>`, which the Generic
Config Updater validates against the YANG models before it changes anything), send the FRR lines
through vtysh, read both back (the owned scope must equal the intent), run the health gate, then
save (`config save -y`, vtysh `write memory`). A failure after the checkpoint restores it: `config
rollback <name>` gives CONFIG_DB back exactly, and the vtysh lines that make frr.conf what it
was are sent (the plan's own diff, from what runs now to what ran before)."""

from __future__ import annotations

import re
import time

from netmiko.base_connection import BaseConnection

from fabricctl.platforms.push import (
    FunctionPusher,
    PushRequest,
    PushResult,
    Stage,
    StageError,
    Target,
    check_cancelled,
    new_mark,
    normalize_running,
    nothing_to_send,
    require_converged,
    run_gate,
)
from fabricctl.platforms.sonic.terminal import FETCH, REFUSAL
from fabricctl.platforms.ssh import open_session

_REFUSED = re.compile(REFUSAL, re.M)


def _connect(target: Target) -> BaseConnection:
    return open_session(target, FETCH.netmiko_device_type)


def _send(conn: BaseConnection, line: str, target: Target, stage: Stage = "load") -> str:
    out = str(conn.send_command(line, expect_string=FETCH.prompt, read_timeout=target.timeout))
    refused = _REFUSED.search(out)
    if refused is not None:
        raise StageError(stage, f"{line.split(' ', 3)[:3]}: {out[refused.start() :].strip()[:400]}")
    return out


def _read(conn: BaseConnection, target: Target) -> str:
    """`show runningconfiguration all`: CONFIG_DB with frr.conf under `bgpraw`, the text the plan
    read (deploy's fetch runs the same command) and compares (document.split)."""
    return normalize_running(_send(conn, FETCH.show_running, target, "connect"))


def fetch(target: Target) -> str:
    conn = _connect(target)
    try:
        return _read(conn, target)
    finally:
        conn.disconnect()


def _restore(conn: BaseConnection, target: Target, request: PushRequest, checkpoint: str, before: str) -> str:
    """CONFIG_DB back to the checkpoint, frr.conf back to `before`."""
    _send(conn, f"sudo config rollback {checkpoint}", target, "load")
    back = request.remaining(target.name, _read(conn, target), before)
    for line in back.commands:
        _send(conn, line, target, "load")
    return f"rolled back to checkpoint {checkpoint}"


def push(target: Target, request: PushRequest) -> PushResult:
    """Apply one plan (see the module docstring)."""
    started = time.monotonic()
    before: str | None = None
    checkpoint = ""
    conn: BaseConnection | None = None
    try:
        conn = _connect(target)
        before = _read(conn, target)
        if nothing_to_send(before, request):
            return PushResult("unchanged", before=before, seconds=time.monotonic() - started)
        if request.gate is not None:
            request.gate.before()
        check_cancelled(request, "before the change")
        mark = new_mark(request.run_id)
        request.claim(mark)
        checkpoint = f"fabricctl-{mark}"
        _send(conn, f"sudo config checkpoint {checkpoint}", target)
        for line in request.commands:
            _send(conn, line, target)
        require_converged(target.name, _read(conn, target), request, "after the apply")
        run_gate(request)
        _send(conn, "sudo config save -y", target, "commit")
        _send(conn, 'vtysh -c "write memory"', target, "commit")
        return PushResult(
            "changed",
            device_diff="\n".join(request.commands),
            before=before,
            seconds=time.monotonic() - started,
        )
    except StageError as exc:
        result = PushResult("failed", exc.stage, exc.message, before=before)
        if checkpoint and conn is not None and before is not None:
            try:
                result.message += "; " + _restore(conn, target, request, checkpoint, before)
                result.status = "rolled back"
            except StageError as undo:
                result.message += f"; the rollback failed too: {undo.message}"
        result.seconds = time.monotonic() - started
        return result
    finally:
        if conn is not None:
            conn.disconnect()


def recover(target: Target, request: PushRequest) -> PushResult:
    """A push that stopped midway: nothing waits on a SONiC switch (apply-patch is done or not),
    so the running config is judged as it stands: converged, or failed with what still differs."""
    running = fetch(target)
    try:
        require_converged(target.name, running, request, "")
    except StageError as exc:
        return PushResult("failed", exc.stage, exc.message, before=running)
    return PushResult("changed", before=running)


PUSHER = FunctionPusher(push, fetch, recover)
