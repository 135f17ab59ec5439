"""TinyOS's push over SSH: `configure`, the plan's `set`/`delete` lines, `commit confirmed
<seconds>`, read back, the health gate, `confirm`; any failure after the commit is `rollback`."""

from __future__ import annotations

import time

from netmiko import ConnectHandler
from netmiko.base_connection import BaseConnection

from fabricctl.platforms.push import (
    Pusher,
    PushRequest,
    PushResult,
    StageError,
    Target,
    normalize_running,
    nothing_to_send,
    require_converged,
    run_gate,
)

from .terminal import FETCH


def _connect(target: Target) -> BaseConnection:
    try:
        return ConnectHandler(
            device_type=FETCH.netmiko_device_type,
            host=target.hostname,
            port=target.port,
            username=target.username,
            password=target.password,
            **target.netmiko_extras,
        )
    except Exception as exc:
        raise StageError("connect", str(exc)) from None


def _send(conn: BaseConnection, line: str) -> str:
    out = str(conn.send_command(line, expect_string=FETCH.prompt))
    if out.strip().startswith("error:"):
        raise StageError("load", f"{line}: {out.strip()}")
    return out


class TinyPusher(Pusher):
    def fetch(self, target: Target) -> str:
        with _connect(target) as conn:
            return _send(conn, FETCH.show_running)

    def push(self, target: Target, request: PushRequest) -> PushResult:
        started, before, armed = time.monotonic(), None, False
        try:
            with _connect(target) as conn:
                before = normalize_running(_send(conn, FETCH.show_running))
                if nothing_to_send(before, request):
                    return PushResult("unchanged", before=before, seconds=time.monotonic() - started)
                _send(conn, "configure")
                for line in request.commands:
                    _send(conn, line)
                _send(conn, f"commit confirmed {request.confirm_timeout}")
                armed = True
                running = normalize_running(_send(conn, FETCH.show_running))
                require_converged(target.name, running, request, "after the commit")
                run_gate(request)
                _send(conn, "confirm")
            diff = "\n".join(request.commands)
            return PushResult("changed", device_diff=diff, before=before, seconds=time.monotonic() - started)
        except StageError as exc:
            if armed:
                with _connect(target) as conn:
                    _send(conn, "rollback")
            return PushResult(
                "rolled back" if armed else "failed",
                exc.stage,
                exc.message,
                before=before,
                seconds=time.monotonic() - started,
            )

    def recover(self, target: Target, request: PushRequest) -> PushResult:
        with _connect(target) as conn:
            running = normalize_running(_send(conn, FETCH.show_running))
            try:
                require_converged(target.name, running, request, "")
            except StageError:
                _send(conn, "rollback")
                return PushResult("rolled back", before=running)
            _send(conn, "confirm")
            return PushResult("changed", before=running)


PUSHER = TinyPusher()
