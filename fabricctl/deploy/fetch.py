"""Read-only fetch of running configs, concurrently with Nornir + nornir_netmiko.

Only the platform's read-only commands are sent: the running and the saved config (and, where
the platform needs one, the command that shows an armed commit timer): no config mode, no
session, no lock. A switch that
cannot be read is data (its error), not an exception.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from nornir.core import Nornir
from nornir.core.task import Result, Task
from nornir_netmiko.tasks import netmiko_send_command

from fabricctl.deploy.failures import classify, names_of
from fabricctl.deploy.nornir_inv import fabric_platform
from fabricctl.logs import get_logger
from fabricctl.platforms import get_platform

log = get_logger(__name__)


@dataclass
class Fetched:
    name: str
    text: str | None
    error: str | None = None
    stage: str | None = None  # connect / auth when the switch could not be read
    pending: str | None = None  # what an interrupted push left armed on the switch (Platform.pending)
    saved: str | None = None  # the next-startup config
    cause: str | None = None  # deploy/failures.py: dns, refused, timeout, auth, host-key, ...
    hint: str | None = None
    seconds: float = 0.0  # connect + read, this switch alone


def _fetch_task(task: Task, read_timeout: float, seconds: dict[str, float]) -> Result:
    platform = get_platform(fabric_platform(task.host))
    fetch = platform.fetch
    started = time.monotonic()
    # The read timeout bounds the login's waits too: netmiko waits a fixed 20 s for the first
    # prompt otherwise, so a switch that accepts SSH and never answers cost 20 s at any --timeout.
    options = task.host.connection_options.get(fetch.ssh_plugin)
    extras = options.extras if options is not None else None
    if options is not None:
        options.extras = {"read_timeout_override": read_timeout, **(extras or {})}
    log.info("%s: connecting to %s:%s (read-only)", task.host.name, task.host.hostname, task.host.port)

    def show(command: str) -> str:
        return str(
            task.run(
                task=netmiko_send_command,
                command_string=command,
                expect_string=fetch.prompt,
                read_timeout=read_timeout,
            ).result
        )

    try:
        running, saved = show(fetch.show_running), show(fetch.show_saved)
        extra = show(fetch.pending_command) if fetch.pending_command else None
    finally:
        task.host.close_connections()
        if options is not None:
            options.extras = extras  # for this read only: later tasks keep their own timeouts
        seconds[task.host.name] = time.monotonic() - started
    log.info(
        "%s: read running + saved config (%d + %d lines) in %.2f s",
        task.host.name,
        running.count("\n"),
        saved.count("\n"),
        seconds[task.host.name],
    )
    return Result(host=task.host, result=(running, saved, platform.pending(running, saved, extra)))


def fetch_running(nr: Nornir, read_timeout: float = 30.0, lab: bool = False) -> dict[str, Fetched]:
    """name -> Fetched for every host of `nr` (in inventory order)."""
    if not nr.inventory.hosts:
        return {}
    nr.data.reset_failed_hosts()
    seconds: dict[str, float] = {}
    results = nr.run(task=_fetch_task, read_timeout=read_timeout, seconds=seconds, on_failed=True)
    out: dict[str, Fetched] = {}
    for name, host in nr.inventory.hosts.items():
        multi = results[name]
        took = round(seconds.get(name, 0.0), 3)
        if not multi.failed:
            running, saved, pending = multi[0].result
            out[name] = Fetched(name, running, pending=pending, saved=saved, seconds=took)
            continue
        exc = client_error([r.exception for r in multi if r.exception is not None])
        failure = classify(
            "connect",
            "fetch failed" if exc is None else "",
            exc,
            endpoint=f"{host.hostname}:{host.port or 22}",
            user=str(host.username or ""),
            timeout=read_timeout,
            lab=lab,
            platform=get_platform(fabric_platform(host)),
        )
        stage = "auth" if failure.cause == "auth" else "connect"
        log.warning("%s: cannot read: %s", name, failure.line(), exc_info=exc)
        out[name] = Fetched(
            name, None, failure.detail, stage, cause=failure.cause, hint=failure.hint, seconds=took
        )
    nr.data.reset_failed_hosts()
    return out


def client_error(errors: list[BaseException]) -> BaseException | None:
    """The client's own exception among a host's results: Nornir wraps it as NornirSubTaskError
    in the parent task, which says only which subtask failed."""
    for exc in errors:
        if "nornir.core.exceptions.NornirSubTaskError" not in names_of(exc):
            return exc
    return errors[0] if errors else None
