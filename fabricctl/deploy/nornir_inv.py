"""The Nornir object for a fabric root: its SimpleInventory (model/inventory.py), then per-host
logins and lab endpoints in code.

Per host we set the login, the lab endpoint (when --lab) and fresh connection options whose
`extras` are deep copies: nornir-napalm 0.6 mutates the shared group-level extras when it
opens a connection, which silently sent every host to the first host's port.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from nornir import InitNornir
from nornir.core import Nornir
from nornir.core.inventory import ConnectionOptions, Host

from fabricctl.deploy.credentials import Credentials
from fabricctl.deploy.hostkeys import per_switch, ssh_options
from fabricctl.endpoints import Endpoint
from fabricctl.logs import LIBRARIES
from fabricctl.model.inventory import inventory_options
from fabricctl.platforms import get_platform
from fabricctl.platforms.push import Target
from fabricctl.procs import paused_gc

#: SSH client timeouts (netmiko's names): a dead switch should fail in seconds, not minutes.
SSH_TIMEOUTS = {"conn_timeout": 5, "auth_timeout": 10, "banner_timeout": 10, "fast_cli": True}


def _quiet_loggers() -> None:
    """Task tracebacks would reach stderr through Python's last-resort handler otherwise."""
    for name in ("nornir.core", *LIBRARIES):
        log = logging.getLogger(name)
        log.addHandler(logging.NullHandler())
        log.propagate = False


def build_nornir(
    root: Path,
    creds: Credentials,
    endpoints: Mapping[str, Endpoint] | None = None,
    workers: int = 20,
    names: set[str] | None = None,
    known_hosts: Path | None = None,
) -> Nornir:
    """InitNornir on `<root>/inventory`, every host made ready to connect; SSH host keys are
    checked against `known_hosts` (None: not checked), each switch against its own entries."""
    _quiet_loggers()
    with paused_gc():  # the inventory's YAML, read after compile and verify filled the heap
        nr = InitNornir(
            runner={"plugin": "threaded", "options": {"num_workers": max(1, workers)}},
            inventory={"plugin": "SimpleInventory", "options": inventory_options(Path(root))},
            logging={"enabled": False},
        )
    if names is not None:
        nr = nr.filter(filter_func=lambda h: h.name in names)
    hosts = nr.inventory.hosts
    eps = {name: endpoints[name] if endpoints is not None else None for name in hosts}
    own: dict[str, Path] = {}
    if known_hosts is not None:
        where = {
            name: (ep.host, ep.ssh_port) if (ep := eps[name]) else (host.hostname or name, host.port)
            for name, host in hosts.items()
        }
        own = per_switch(known_hosts, where)
    for name, host in hosts.items():
        _prepare_host(host, creds, eps[name], own.get(name))
    return nr


def _prepare_host(host: Host, creds: Credentials, ep: Endpoint | None, known_hosts: Path | None) -> None:
    if ep is not None:
        host.hostname = ep.host
        host.port = ep.ssh_port
    host.username = creds.username
    host.password = creds.password
    fetch = get_platform(fabric_platform(host)).fetch
    fresh: dict[str, ConnectionOptions] = {}
    for plugin in (fetch.ssh_plugin, fetch.api_plugin):
        if plugin is None:
            continue
        params = host.get_connection_parameters(plugin)
        extras: dict[str, Any] = copy.deepcopy(params.extras or {})
        port = host.port
        if plugin == fetch.ssh_plugin:  # host key options over the inventory's: it cannot turn them off
            extras = {**SSH_TIMEOUTS, **extras, **ssh_options(known_hosts)}
        else:
            if fetch.napalm_over_ssh:
                optional = {**extras.get("optional_args", {}), **ssh_options(known_hosts)}
                extras = {**extras, "optional_args": optional}
            # its own port (eAPI's 443, not the host's SSH port), the lab's API port with --lab
            port = ep.eapi_port if ep is not None else params.port
        fresh[plugin] = ConnectionOptions(
            hostname=host.hostname,
            port=port,
            username=creds.username,
            password=creds.password,
            platform=params.platform,
            extras=extras,
        )
    host.connection_options = fresh


def fabric_platform(host: Host) -> str:
    """fabricctl's platform name (the inventory's `platform`, a package under fabricctl/platforms/)."""
    return str(host.platform)


def target_of(host: Host, timeout: float = 30.0) -> Target:
    """A push `Target` for one prepared host (fresh copies of its connection extras)."""
    fetch = get_platform(fabric_platform(host)).fetch
    nm = host.connection_options[fetch.ssh_plugin]
    na = host.connection_options.get(fetch.api_plugin or "")
    napalm_extras = copy.deepcopy(na.extras or {}) if na is not None else {}
    optional = napalm_extras.setdefault("optional_args", {})
    if na is not None and na.port and "port" not in optional:
        optional["port"] = na.port
    return Target(
        name=host.name,
        platform=fabric_platform(host),
        hostname=str(host.hostname),
        port=int(host.port or 22),
        username=str(host.username),
        password=str(host.password),
        netmiko_extras={k: v for k, v in copy.deepcopy(nm.extras or {}).items()},
        napalm_extras=napalm_extras,
        timeout=timeout,
    )
