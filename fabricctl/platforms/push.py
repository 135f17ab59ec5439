"""The push protocol contract: what deploy hands a platform and what the platform gives back.

deploy builds a `Target` (where and how to log in) and a `PushRequest` (what to change and
what the switch must look like afterwards); the platform's push module (`Platform.pusher()`,
e.g. fabricctl/platforms/comware/push.py) does the protocol and returns a `PushResult`.
Failures are data (stage + message), never exceptions.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from fabricctl.config.diff import DeviceDiff, Differ, diff_device
from fabricctl.config.rules import Dialect
from fabricctl.secrets import describe_error, redact

Stage = Literal["connect", "auth", "load", "commit", "verify", "health", "timer"]
Status = Literal["unchanged", "changed", "failed", "skipped", "rolled back"]


def normalize_running(text: str) -> str:
    """Running config as compared and hashed: LF only, no trailing spaces or blank lines."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return "\n".join(line for line in lines if line) + "\n"


def running_hash(text: str) -> str:
    return hashlib.sha256(normalize_running(text).encode()).hexdigest()


@dataclass
class Target:
    """One switch as the push modules see it (the password never leaves this object)."""

    name: str
    platform: str
    hostname: str
    port: int
    username: str
    password: str = field(repr=False)
    netmiko_extras: dict[str, Any] = field(default_factory=dict)
    napalm_extras: dict[str, Any] = field(default_factory=dict)
    timeout: float = 30.0  # per command; a hung commit fails after this long


@dataclass
class PushRequest:
    """Change one switch: send `commands`, then its owned scope must equal `intended`."""

    commands: list[str]
    intended: str
    dialect: Dialect
    expected_running_hash: str | None  # refuse if the switch changed since the plan
    confirm_timeout: int = 120  # seconds the device waits for the confirm before reverting
    run_id: str = ""  # names the run in what a push leaves on the switch while it is in flight
    #: Called with the mark (`new_mark`) of what the push is about to leave on the switch (an EOS
    #: session's name, an NVUE apply's message, Comware's commit-delay mark) before it sends it;
    #: the caller records it durably (the run record), so a later `recover` can prove it is ours.
    claim: Callable[[str], None] = field(default=lambda mark: None, repr=False, compare=False)
    #: The marks fabricctl's run records hold for this switch: `recover` settles only a change
    #: that carries one of them, and never touches any other (someone else's).
    claimed: frozenset[str] = frozenset()
    #: Read before the change and again after it, before the confirm (see `HealthGate`).
    gate: HealthGate | None = field(default=None, repr=False, compare=False)
    #: True once the run is interrupted twice: the push stops at its next step and restores the
    #: switch (a committed change is finished, never undone half-saved).
    cancelled: Callable[[], bool] = field(default=lambda: False, repr=False, compare=False)
    #: The switch's platform's config diff (`Platform.differ`; deploy passes it): whether the
    #: switch converged after a push, and what restores it, are judged as its plan was.
    differ: Differ = field(default=diff_device, repr=False, compare=False)

    def remaining(self, name: str, running: str, intended: str | None = None) -> DeviceDiff:
        """What still differs between switch `name`'s `running` config and `intended` (by
        default this request's intent), as its platform compares them (`differ`)."""
        return self.differ(
            name, running, self.intended if intended is None else intended, self.dialect, False
        )


class HealthGate(Protocol):
    """The health gate a push runs: `before()` reads the switch's checks before anything is
    armed (the push times it on the switch's clock: the read after the change costs as much and
    must fit under the timer); `after()`, once the change is in running and before the confirm,
    says why the switch must go back (a check that passed before fails now), or None."""

    def before(self) -> None: ...

    def after(self) -> str | None: ...


@dataclass
class PushResult:
    status: Status
    stage: Stage | None = None
    message: str = ""
    device_diff: str = ""
    before: str | None = None  # running config before the change (for --rollback-on-failure)
    seconds: float = 0.0
    #: The client's exception behind a failure (None: fabricctl's own finding, e.g. a refused
    #: line), for deploy's classifier (deploy/failures.py); never serialised.
    error: BaseException | None = field(default=None, repr=False, compare=False)


class StageError(Exception):
    """Raised inside a push protocol; turned into a failed PushResult at its boundary."""

    def __init__(self, stage: Stage, message: str) -> None:
        super().__init__(message)
        self.stage: Stage = stage
        self.message = message


def underlying(exc: BaseException) -> BaseException | None:
    """The client exception a StageError was raised while handling (`raise ... from None` hides
    it from tracebacks, not from `__context__`); None when fabricctl found the failure itself."""
    seen: set[int] = set()
    current = exc.__cause__ or exc.__context__
    while isinstance(current, StageError) and id(current) not in seen:
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return current


@runtime_checkable
class Pusher(Protocol):
    """What a platform's push module provides as its `PUSHER`: a `FunctionPusher` of its
    functions, or a class of its own subclassing this one (mypy refuses one missing a method)."""

    def push(self, target: Target, request: PushRequest) -> PushResult:
        """Change the switch under its commit-confirm timer, verify, gate, confirm and save."""
        ...

    def fetch(self, target: Target) -> str:
        """The switch's running config (read-only)."""
        ...

    def recover(self, target: Target, request: PushRequest) -> PushResult:
        """Settle what an interrupted push left armed: confirm it when the switch already runs
        `request.intended`, else restore what the switch ran before it (status `rolled back`)."""
        ...


@dataclass(frozen=True)
class FunctionPusher:
    """A `Pusher` made of a push module's three functions: what each built-in NOS's `PUSHER` is
    (`PUSHER = FunctionPusher(push, fetch, recover)`), so no NOS writes a class to forward them."""

    push: Callable[[Target, PushRequest], PushResult]
    fetch: Callable[[Target], str]
    recover: Callable[[Target, PushRequest], PushResult]


def new_mark(run_id: str) -> str:
    """<run>-<random>: one push's mark (a run's second push to a switch, a rollback, gets its own),
    made of letters, digits, `-` and `_` so every NOS takes it in a name or a description."""
    run = "".join(c if c.isalnum() or c in "-_" else "-" for c in run_id or "unknown")
    return f"{run}-{os.urandom(3).hex()}"


def foreign(what: str, clear: str) -> StageError:
    """A change on the switch that fabricctl did not start (or cannot prove it did): the push
    stops before it touches anything, and says what waits there and how its owner clears it."""
    return StageError("load", f"{what}: it is not fabricctl's, so fabricctl left it untouched; {clear}")


def recover_failed(exc: Exception, started: float) -> PushResult:
    """How a `recover` that could not settle the switch ends: its stage, or `connect` for a
    client error, with the client's exception kept for the failure's cause."""
    if isinstance(exc, StageError):
        return PushResult(
            "failed",
            exc.stage,
            redact(exc.message),
            seconds=time.monotonic() - started,
            error=underlying(exc),
        )
    return PushResult("failed", "connect", describe_error(exc), seconds=time.monotonic() - started, error=exc)


def require_converged(name: str, running: str, request: PushRequest, when: str) -> None:
    """After a push the owned scope must equal the intent; anything left over fails `verify`."""
    left = request.remaining(name, running)
    if left.changed:
        raise StageError("verify", f"{len(left.commands)} line(s) still differ {when}:\n{left.diff}")


class TimerShort(StageError):
    """Too little is left on the armed confirm timer for the steps still to come: the push stops
    (platforms/timer.py)."""

    def __init__(self, message: str, fits: int) -> None:
        super().__init__("timer", message)
        self.fits = fits  # a --confirm-timeout, in seconds, that would have left room


class TimerExpired(StageError):
    """The switch's timer ran out before the confirm reached it: the switch rolled itself back."""

    def __init__(self, message: str) -> None:
        super().__init__("timer", message)


class Interrupted(StageError):
    """The run was interrupted a second time: this push stops and the switch is restored."""

    def __init__(self, step: str) -> None:
        super().__init__("load", f"interrupted {step} (a second interrupt): not committed")


def check_cancelled(request: PushRequest, step: str) -> None:
    if request.cancelled():
        raise Interrupted(step)


def failed_status(exc: StageError, changed_meanwhile: bool) -> Status:
    """How a push that stopped on `exc` ends: `rolled back` when the switch took the change and
    gave it back (its timer fired, or a second interrupt had it restored), `skipped` when a
    second interrupt came before anything changed, else `failed`."""
    if isinstance(exc, Interrupted):
        return "rolled back" if changed_meanwhile else "skipped"
    return "rolled back" if isinstance(exc, TimerExpired) else "failed"


def run_gate(request: PushRequest) -> None:
    """The health gate between commit and confirm: a failure undoes the change like any other."""
    reason = request.gate.after() if request.gate is not None else None
    if reason:
        raise StageError("health", reason)


def nothing_to_send(before: str, request: PushRequest) -> bool:
    """Refuse a switch whose running config moved since the plan; True when the plan is empty."""
    if request.expected_running_hash and running_hash(before) != request.expected_running_hash:
        raise StageError("load", "running config changed since the plan; run plan again")
    return not request.commands
