"""Read-only fetch of running configs, concurrently with Nornir + nornir_netmiko.

Only `show running-config` / `display current-configuration` is sent: no config mode, no
session, no lock. A switch that cannot be read is data (its error), not an exception.
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


def _fetch_task(task: Task, read_timeout: float) -> Result:
    fetch = get_platform(fabric_platform(task.host)).fetch
    try:
        res = task.run(
            task=netmiko_send_command,
            command_string=fetch.show_running,
            expect_string=fetch.prompt,
            read_timeout=read_timeout,
        )
    finally:
        task.host.close_connections()
    return Result(host=task.host, result=res.result)


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
            out[name] = Fetched(name, str(multi[0].result))
            continue
        exc = next((r.exception for r in multi if r.exception is not None), None)
        if exc is None:
            out[name] = Fetched(name, None, "fetch failed", "connect")
            continue
        stage = "auth" if isinstance(exc, NetmikoAuthenticationException) else "connect"
        out[name] = Fetched(name, None, describe_error(exc), stage)
    nr.data.reset_failed_hosts()
    return out
