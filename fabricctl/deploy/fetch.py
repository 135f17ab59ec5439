"""Read-only fetch of running configs, concurrently with Nornir + nornir_netmiko.

Only the platform's read-only commands are sent: the running and the saved config (and, where
the platform needs one, the command that shows an armed commit timer): no config mode, no
session, no lock. A switch that
cannot be read is data (its error), not an exception.
"""

from __future__ import annotations

from dataclasses import dataclass

from netmiko.exceptions import NetmikoAuthenticationException
from nornir.core import Nornir
from nornir.core.task import Result, Task
from nornir_netmiko.tasks import netmiko_send_command

from fabricctl.deploy.nornir_inv import fabric_platform
from fabricctl.platforms import get_platform
from fabricctl.secrets import describe_error


@dataclass
class Fetched:
    name: str
    text: str | None
    error: str | None = None
    stage: str | None = None  # connect / auth when the switch could not be read
    pending: str | None = None  # what an interrupted push left armed on the switch (Platform.pending)
    saved: str | None = None  # the next-startup config


def _fetch_task(task: Task, read_timeout: float) -> Result:
    platform = get_platform(fabric_platform(task.host))
    fetch = platform.fetch

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
    return Result(host=task.host, result=(running, saved, platform.pending(running, saved, extra)))


def fetch_running(nr: Nornir, read_timeout: float = 30.0) -> dict[str, Fetched]:
    """name -> Fetched for every host of `nr` (in inventory order)."""
    if not nr.inventory.hosts:
        return {}
    nr.data.reset_failed_hosts()
    results = nr.run(task=_fetch_task, read_timeout=read_timeout, on_failed=True)
    out: dict[str, Fetched] = {}
    for name in nr.inventory.hosts:
        multi = results[name]
        if not multi.failed:
            running, saved, pending = multi[0].result
            out[name] = Fetched(name, running, pending=pending, saved=saved)
            continue
        exc = next((r.exception for r in multi if r.exception is not None), None)
        if exc is None:
            out[name] = Fetched(name, None, "fetch failed", "connect")
            continue
        stage = "auth" if isinstance(exc, NetmikoAuthenticationException) else "connect"
        out[name] = Fetched(name, None, describe_error(exc), stage)
    nr.data.reset_failed_hosts()
    return out
