"""An SSH CLI session for a push (netmiko), shared by the platforms that push over SSH: a refused
login fails the `auth` stage, anything else that stops the session opening fails `connect`."""

from __future__ import annotations

from typing import Any

from netmiko import ConnectHandler
from netmiko.base_connection import BaseConnection
from netmiko.exceptions import NetmikoAuthenticationException

from fabricctl.platforms.push import StageError, Target
from fabricctl.secrets import describe_error


def open_session(target: Target, device_type: str, **defaults: Any) -> BaseConnection:
    """Log in to `target` as netmiko `device_type`; `defaults` are options the inventory's
    netmiko extras may override."""
    try:
        return ConnectHandler(
            device_type=device_type,
            host=target.hostname,
            port=target.port,
            username=target.username,
            password=target.password,
            read_timeout_override=target.timeout,
            **{**defaults, **target.netmiko_extras},
        )
    except NetmikoAuthenticationException as exc:
        raise StageError("auth", describe_error(exc)) from None
    except Exception as exc:  # refused, timeout, banner: the switch is not reachable
        raise StageError("connect", describe_error(exc)) from None
