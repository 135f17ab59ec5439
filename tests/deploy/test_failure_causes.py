"""Failures named precisely: the classifier on the exception chains the real clients raise.

Each chain is built the way netmiko, paramiko, pyeapi and NAPALM build theirs (the outer
exception raised while handling the inner one), so `__context__` is what it is in production.
The lab tests (test_failures_lab.py) show the same causes end to end.
"""

from __future__ import annotations

import socket

import paramiko
import pytest
from netmiko.exceptions import NetmikoAuthenticationException, NetmikoTimeoutException, ReadTimeout
from paramiko.ssh_exception import BadHostKeyException, NoValidConnectionsError, SSHException
from pyeapi.eapilib import CommandError
from pyeapi.eapilib import ConnectionError as EapiConnectionError

from fabricctl.deploy.failures import HINTS, LAB_AUTH_HINT, classify
from fabricctl.platforms import get_platform
from fabricctl.secrets import describe_error, register_secret


def raised(*layers: BaseException) -> BaseException:
    """The outermost of `layers`, each raised while handling the next (innermost last)."""

    def throw(i: int) -> None:
        if i == len(layers) - 1:
            raise layers[i]
        try:
            throw(i + 1)
        except BaseException:
            raise layers[i] from None  # like the clients and fabricctl's push modules: context kept

    try:
        throw(0)
    except BaseException as exc:
        return exc
    raise AssertionError("unreachable")


def key() -> paramiko.PKey:
    return paramiko.RSAKey.generate(1024)


CASES = {
    "dns": (
        raised(
            NetmikoTimeoutException("DNS failure--the hostname you provided was not resolvable"),
            socket.gaierror(-2, "Name or service not known"),
        ),
        "connect",
        "cannot resolve",
    ),
    "refused": (
        raised(
            NetmikoTimeoutException("TCP connection to device failed."),
            NoValidConnectionsError({("127.0.0.1", 2222): ConnectionRefusedError(111, "Connection refused")}),
        ),
        "connect",
        "connection refused by",
    ),
    "no-route": (
        raised(
            NetmikoTimeoutException("TCP connection to device failed."),
            NoValidConnectionsError({("192.0.2.9", 22): OSError(113, "No route to host")}),
        ),
        "connect",
        "no route to",
    ),
    "timeout": (raised(ReadTimeout("\n\nPattern not detected: '>' in output.")), "connect", "no reply from"),
    "auth": (
        raised(
            NetmikoAuthenticationException("Authentication to device failed."),
            paramiko.AuthenticationException("Authentication failed."),
        ),
        "auth",
        "login refused for user 'ops'",
    ),
    "host-key": (
        raised(
            NetmikoTimeoutException("A paramiko SSHException occurred during connection creation"),
            BadHostKeyException("leaf2", key(), key()),
        ),
        "connect",
        "does not match known_hosts",
    ),
    "disconnected": (raised(EOFError()), "load", "closed the session"),
}


@pytest.mark.parametrize("cause", list(CASES))
def test_connection_causes_from_the_real_chains(cause: str) -> None:
    exc, stage, words = CASES[cause]
    got = classify(stage, describe_error(exc), exc, endpoint="127.0.0.1:2222", user="ops", timeout=3)
    assert got.cause == cause, got
    assert words in got.detail, got
    assert got.hint == HINTS[cause] and "\n" not in got.detail


def test_a_missing_known_hosts_entry_is_a_host_key_failure() -> None:
    exc = raised(
        NetmikoTimeoutException("A paramiko SSHException occurred"),
        SSHException("Server '[127.0.0.1]:2222' not found in known_hosts"),
    )
    assert classify("connect", describe_error(exc), exc).cause == "host-key"


def test_eapi_causes() -> None:
    """EOS pushes go over eAPI: pyeapi's errors, as NAPALM passes them on."""
    unauthorized = raised(EapiConnectionError("leaf2", "Unauthorized. Unable to authenticate user"))
    timed_out = raised(
        EapiConnectionError("leaf2", "Socket error during eAPI connection: The read operation timed out"),
        TimeoutError("The read operation timed out"),
    )
    refused = raised(
        EapiConnectionError("leaf2", "Socket error during eAPI connection: [Errno 111] Connection refused"),
        ConnectionRefusedError(111, "Connection refused"),
    )
    for exc, cause in ((unauthorized, "auth"), (timed_out, "timeout"), (refused, "refused")):
        assert classify("connect", describe_error(exc), exc).cause == cause


def test_a_rejected_eos_line_names_the_line_and_the_switchs_error() -> None:
    from napalm.base.exceptions import MergeConfigException

    inner = CommandError(
        1002,
        "CLI command 30 of 524 'ip access-list tnt-team-llm-in' failed: invalid command",
        command_error="Invalid input (at token 0: 'ip')",
    )
    exc = raised(MergeConfigException(str(inner)), inner)
    got = classify("load", describe_error(exc), exc)
    assert got.cause == "rejected"
    assert (
        "'ip access-list tnt-team-llm-in'" in got.detail and "Invalid input (at token 0: 'ip')" in got.detail
    )
    commit = raised(
        CommandError(
            1002,
            "CLI command 3 of 3 'configure session s commit' failed: invalid command",
            command_error="Failed to commit: configuration agent error",
        )
    )
    got = classify("commit", describe_error(commit) + "; session discarded, running untouched", commit)
    assert got.cause == "commit" and "Failed to commit" in got.detail
    assert got.detail.endswith("; session discarded, running untouched"), "how the switch was left is kept"


def test_failures_fabricctl_found_itself() -> None:
    """No client exception: the push protocol's own finding, stage and text."""
    comware = (
        "line rejected: 'acl advanced name tnt-x-in': % Unrecognized command found at '^' position.; restored"
    )
    assert classify("load", comware).cause == "rejected"
    assert classify("commit", "'configuration commit' rejected: % Failed to commit: x").cause == "commit"
    verify = classify("verify", "2 line(s) still differ after loading:\n--- a\n+++ b\n+x\n-y")
    assert verify.cause == "verify" and "\n" not in verify.detail and "2 diff line(s)" in verify.detail
    assert classify("load", "running config changed since the plan; run plan again").cause == "stale"
    assert classify("load", "no reply from the switch within 3 s while loading").cause == "timeout"
    closed = classify("load", "the switch closed the session while loading; restored")
    assert closed.cause == "disconnected" and closed.hint == HINTS["disconnected"]
    assert classify("load", "something nobody foresaw").cause == "error"


def test_a_switchs_failure_is_read_with_its_own_platforms_words() -> None:
    """The NOS's words for a refused line are its platform's: Comware's `% Unrecognized command`
    is a refusal on a Comware switch, not on a switch whose NOS does not say so; an eAPI error is
    EOS's client's, not a Comware switch's."""
    comware, eos = get_platform("comware"), get_platform("eos")
    said = "% Unrecognized command found at '^' position."
    assert classify("load", said, platform=comware).cause == "rejected"
    assert classify("load", said, platform=eos).cause == "error"
    assert classify("load", said).cause == "rejected", "a switch of no known platform: every platform's words"
    exc = raised(EapiConnectionError("leaf2", "Unauthorized. Unable to authenticate user"))
    assert classify("connect", "", exc, platform=eos).cause == "auth"
    assert classify("connect", "", exc, platform=comware).cause == "error"


def test_lab_logins_get_the_lab_hint_and_secrets_never_show() -> None:
    register_secret("hunter2-secret")
    exc = raised(paramiko.AuthenticationException("Authentication failed for hunter2-secret"))
    got = classify("auth", describe_error(exc), exc, user="admin", lab=True)
    assert got.hint == LAB_AUTH_HINT
    assert "hunter2-secret" not in got.detail + got.hint


def test_a_health_gate_broken_by_cabling_says_to_re_cable_not_to_skip_the_gate() -> None:
    from fabricctl.deploy.failures import HEALTH_CABLING_HINT, classify

    cabling = classify(
        "health",
        "2 health check(s) passed before the change and fail after it: link to spine1: expected 4 up, "
        "seen 2 up; lldp Ethernet1: expected spine1 Ethernet1, seen no neighbor",
    )
    assert cabling.cause == "health" and cabling.hint == HEALTH_CABLING_HINT
    assert "re-cable" in cabling.hint and "--no-health-gate" not in cabling.hint
    intent = classify(
        "health",
        "1 health check(s) passed before the change and fail after it: vrf tnt-a: expected present, seen absent",
    )
    assert "fix the intent" in intent.hint and "re-cable" not in intent.hint
