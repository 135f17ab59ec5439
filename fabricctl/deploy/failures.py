"""Why a switch could not be read or changed, in one place: cause, stage, what happened, a hint.

Clients wrap the real error several times over (Nornir's NornirSubTaskError around netmiko's
NetmikoTimeoutException around paramiko's NoValidConnectionsError around ConnectionRefusedError),
and their outermost text is the
same for a closed port, a bad DNS name and a dead route. `classify` walks the whole chain
(`__cause__`, `__context__`, paramiko's per-address `errors`) and names the innermost cause it
recognises. Failures found by fabricctl itself (a line the switch refused, a refused commit, a
switch that does not run the intent after the push) arrive as a push stage plus its message.

Classes are matched by name (module.Class over the MRO), so nothing here imports a client; what a
platform's own clients raise, and its NOS's words for a refused line, are the platform's data
(`Fetch.ssh_auth_errors` / `ssh_timeout_errors`, `Platform.client_failure`, `Platform.refusal`):
a switch's failure is read with its own platform's, one of no known platform with every one's.
"""

from __future__ import annotations

import errno
import re
from collections.abc import Iterator
from dataclasses import dataclass

from fabricctl.platforms import PLATFORMS
from fabricctl.platforms.base import Platform
from fabricctl.secrets import describe_error, redact

#: cause -> the one-line hint printed under the failure.
HINTS: dict[str, str] = {
    "dns": "the hostname does not resolve: check `hostname` in inventory/hosts.yaml and this machine's DNS",
    "refused": "nothing listens there: check the port in the inventory and that the switch's management service (SSH, or its API for pushes) is enabled",
    "no-route": "no route to the switch: check the management network (address, VRF, routing) from this machine",
    "timeout": "no answer in time: check reachability (routing, ACLs, firewalls) and the switch's load, or raise --timeout",
    "auth": "check FABRICCTL_USERNAME / FABRICCTL_PASSWORD (or FABRICCTL_SECRETS_FILE) and the switch's local user or AAA",
    "host-key": "the switch's SSH host key is not the one known_hosts expects: verify the switch, then update known_hosts",
    "disconnected": "the switch closed the session mid-command: check its session limits and CPU, then run apply again",
    "rejected": "the switch refused a line of the change (its own error above): check the syntax on this switch's software version",
    "commit": "the switch refused the commit (its own error above): check the switch's log for why",
    "verify": "the switch does not run the intended config after the push: someone changed it meanwhile, or it reads lines back differently; run plan again",
    "stale": "the switch changed since the plan: run fabricctl plan again and review the new diff",
    "interrupted": "the run was interrupted twice: this switch was stopped before its commit and restored; apply again to push it",
    "foreign": "a change fabricctl did not start waits on the switch (named above); fabricctl never confirms, rolls back or discards it: its owner settles it as shown, then run plan and apply again",
    "confirm-timer": "the push outlasts --confirm-timeout on this switch: raise it (the value above would have fit), or lower --parallelism so the switch answers faster",
    "health": "the change broke what worked and was undone: see the failed checks above (`fabricctl check` shows them all) and fix the intent; --no-health-gate keeps a change only when you expect what it breaks",
    "error": "unexpected: run again with -v (or --log-file FILE) for the full stage log",
}
#: A health gate that failed on cabling (a fabric link down, an LLDP neighbor not the planned one):
#: the fix is at the cables, and keeping the change without the gate would keep it broken.
HEALTH_CABLING_HINT = (
    "a fabric link is down or cabled elsewhere after the change: re-cable as the failed checks say "
    "(each names the port, and a swapped cable where the plan puts it; a breakout needs its "
    "breakout cables), check `fabricctl check --limit` shows the links up, then apply again"
)
LAB_AUTH_HINT = (
    "check FABRICCTL_LAB_USERNAME / FABRICCTL_LAB_PASSWORD: they must match the running lab's login"
)
#: Short words for the text report (`leaf2: failed at load: rejected: ...`).
CAUSE_WORDS: dict[str, str] = {
    "dns": "DNS",
    "refused": "connection refused",
    "no-route": "no route",
    "timeout": "timeout",
    "auth": "authentication failed",
    "host-key": "host key",
    "disconnected": "disconnected",
    "rejected": "line rejected",
    "commit": "commit failed",
    "verify": "verify mismatch",
    "stale": "stale",
    "health": "health check failed",
    "confirm-timer": "confirm timer",
    "interrupted": "interrupted",
    "foreign": "someone else's change",
    "error": "error",
}


@dataclass(frozen=True)
class Failure:
    """One switch's failure: `cause` (a key of HINTS), the `stage` it reached, one line of detail."""

    cause: str
    stage: str
    detail: str
    hint: str

    def line(self) -> str:
        return f"{self.stage}: {CAUSE_WORDS.get(self.cause, self.cause)}: {self.detail}"


def names_of(exc: BaseException) -> set[str]:
    """module.Class for the exception's class and its bases."""
    return {f"{c.__module__}.{c.__qualname__}" for c in type(exc).__mro__}


def chain(exc: BaseException | None) -> Iterator[BaseException]:
    """The exception, then what it was raised from or while handling, outermost first; the
    per-address errors of paramiko's NoValidConnectionsError come after it."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc] if exc is not None else []
    while todo:
        current = todo.pop(0)
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        nested = getattr(current, "errors", None)
        if isinstance(nested, dict):
            todo[:0] = [e for e in nested.values() if isinstance(e, BaseException)]
        todo.append(current.__cause__ or current.__context__)


def _first_line(exc: BaseException) -> str:
    lines = [ln.strip() for ln in str(exc).strip().splitlines() if ln.strip()]
    return lines[0] if lines else type(exc).__name__


def _is(exc: BaseException, *names: str) -> bool:
    return bool(names_of(exc) & set(names))


def _from_exception(
    exc: BaseException, endpoint: str, user: str, timeout: float | None, platforms: tuple[Platform, ...]
) -> tuple[str, str] | None:
    """(cause, detail) from the innermost recognised exception of the chain, or None."""
    found: tuple[str, str] | None = None
    for e in chain(exc):
        hit = _one(e, endpoint, user, timeout, platforms)
        if hit is not None:
            found = hit  # inner causes are more precise than outer wrappers: keep looking
    return found


def _one(
    e: BaseException, endpoint: str, user: str, timeout: float | None, platforms: tuple[Platform, ...]
) -> tuple[str, str] | None:
    at = f" {endpoint}" if endpoint else ""
    within = f" within {timeout:g} s" if timeout else ""
    if _is(e, "socket.gaierror"):
        host = endpoint.rsplit(":", 1)[0] if endpoint else "the hostname"
        return "dns", f"cannot resolve {host} ({_first_line(e)})"
    if isinstance(e, ConnectionRefusedError):
        return "refused", f"connection refused by{at}"
    if isinstance(e, OSError) and e.errno in (errno.EHOSTUNREACH, errno.ENETUNREACH):
        return "no-route", f"no route to{at} ({_first_line(e)})"
    if _is(e, "paramiko.ssh_exception.BadHostKeyException"):
        return "host-key", f"the SSH host key of{at} does not match known_hosts"
    if _is(e, "paramiko.ssh_exception.SSHException") and re.search(
        r"not found in known_hosts|host key", str(e), re.I
    ):
        return "host-key", f"the SSH host key of{at} is not in known_hosts ({_first_line(e)})"
    ssh = [p.fetch for p in platforms]
    if _is(e, "paramiko.ssh_exception.AuthenticationException", *(n for f in ssh for n in f.ssh_auth_errors)):
        return "auth", f"login refused for user {user!r} at{at or ' the switch'} ({_first_line(e)})"
    for platform in platforms:  # a platform's own client (eAPI) and its error forms
        if platform.client_failure is not None:
            found = platform.client_failure(e, names_of(e), at or " the switch", user)
            if found is not None:
                return found
    if isinstance(e, TimeoutError) or _is(
        e, "socket.timeout", *(n for f in ssh for n in f.ssh_timeout_errors)
    ):
        return "timeout", f"no reply from{at or ' the switch'}{within} ({_first_line(e)})"
    if _is(e, "paramiko.ssh_exception.SSHException") and re.search(r"banner|timed? ?out", str(e), re.I):
        return "timeout", f"no SSH banner from{at or ' the switch'}{within} ({_first_line(e)})"
    if isinstance(e, (ConnectionResetError, ConnectionAbortedError, BrokenPipeError, EOFError)) or (
        isinstance(e, OSError)
        and re.search(r"socket is closed|closed connection|connection closed", str(e), re.I)
    ):
        return "disconnected", f"{at.strip() or 'the switch'} closed the session ({_first_line(e)})"
    return None


def _own_forms(platforms: tuple[Platform, ...]) -> tuple[tuple[re.Pattern[str], str], ...]:
    """fabricctl's own failure texts (the push protocols' messages) -> cause; a refused line is
    said in fabricctl's words or in the NOS's own (the platform's `refusal`)."""
    refusals = [p.refusal for p in platforms if p.refusal]
    return (
        (re.compile(r"^interrupted .*\(a second interrupt\)"), "interrupted"),
        (re.compile(r"it is not fabricctl's, so fabricctl left it untouched"), "foreign"),
        (re.compile(r"running config changed since the plan"), "stale"),
        (re.compile("|".join([r"\brejected\b", *refusals]), re.I), "rejected"),
        (re.compile(r"closed the session"), "disconnected"),
        (re.compile(r"no reply from the switch within|timed out", re.I), "timeout"),
        (re.compile(r"still differ|reports no difference|device diff adds lines"), "verify"),
    )


def classify(
    stage: str | None,
    message: str = "",
    exc: BaseException | None = None,
    *,
    endpoint: str = "",
    user: str = "",
    timeout: float | None = None,
    lab: bool = False,
    platform: Platform | None = None,
) -> Failure:
    """The failure of one switch at `stage` (connect / auth / load / commit / verify / fetch).

    `message` is what the stage said (a push protocol's text, already redacted); `exc` the
    real exception when there was one; `platform` the switch's (None: not known, every
    platform's client errors and refusals are tried). The detail keeps the protocol's own text (it names the
    line and how the switch was restored) unless that text is only the client's generic wrapper.
    """
    stage = stage or "connect"
    message = redact(message.strip())
    first, _, rest = message.partition("\n")
    cause, detail = "error", first or "failed"
    platforms = (platform,) if platform is not None else tuple(PLATFORMS.values())
    hit = _from_exception(exc, endpoint, user, timeout, platforms) if exc is not None else None
    if stage == "timer":  # fabricctl's own finding on the switch's clock, whatever was raised before
        cause = "confirm-timer"
    elif exc is not None and hit is not None:
        cause, precise = hit
        base = describe_error(exc)
        if not first or first.startswith(base) or cause in ("dns", "refused", "no-route", "auth", "host-key"):
            # The client's wrapper text says less than the cause; keep what the protocol added
            # after it (how the switch was restored).
            tail = first[len(base) :].lstrip("; ").strip() if first.startswith(base) else ""
            detail = precise + (f"; {tail}" if tail else "")
        if cause == "rejected" and stage == "commit":
            cause = "commit"
    else:
        for pattern, own in _own_forms(platforms):
            if pattern.search(first):
                cause = own
                break
        if stage == "commit" and cause in ("error", "rejected"):
            cause = "commit"
        elif stage == "verify" and cause == "error":
            cause = "verify"
        elif stage == "auth":
            cause = "auth"
        elif stage == "health":
            cause = "health"

    if cause == "timeout" and stage == "commit":
        detail = f"the commit got no reply: {detail}"
    if rest and cause == "verify":
        n = sum(1 for ln in rest.splitlines() if ln[:1] in "+-" and not ln.startswith(("+++", "---")))
        detail = f"{first} ({n} diff line(s); the run record has them)" if n else first
    hint = LAB_AUTH_HINT if cause == "auth" and lab else HINTS[cause]
    if cause == "health" and re.search(r"(?:: |; )(?:link|lldp) ", first):
        hint = HEALTH_CABLING_HINT
    return Failure(cause, stage, redact(detail), hint)
