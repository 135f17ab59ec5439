"""The armed commit-confirm timer, followed on the switch's own clock.

A switch rolls a push back by itself unless it is confirmed before its timer runs out (Comware's
`configuration commit delay`, EOS's session `commit timer`). The timer runs on the switch, so the
push reads the switch's clock (`display clock`, `show clock`) to know how much of it is left,
never its own: a busy management network, a slow agent or a lab whose time runs faster all stretch
the push on the switch's clock, not on fabricctl's.

Before each step that must finish under the timer (the rest of the paste, the read-back, the
health gate, the commit) the push asks `require(...)` whether what is left covers what those steps
cost when the same switch did them earlier in this push, plus a margin. When it does not, the push
stops and restores the switch itself, before the timer can fire: a commit that races the timer
could land on either side of it, and the switch would be changed or not by luck.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from fabricctl.platforms.push import TimerExpired, TimerShort

#: Seconds always kept in hand besides the measured costs, and the share of the timer kept too:
#: a reply slower than any seen so far must not be the one that decides the race.
MARGIN_SECONDS = 5.0
MARGIN_SHARE = 0.05
#: The --confirm-timeout suggested after a stop is what the push would have needed times this.
HEADROOM = 1.5


@dataclass
class Costs:
    """What steps of this push cost on the switch's clock (seconds), measured as they ran."""

    read: float = 0.0  # one read of the whole running config, before the change
    gate: float = 0.0  # one health read
    command: float = 0.0  # one short configuration command (the commit)


@dataclass
class ConfirmTimer:
    """A timer of `length` seconds, armed at `armed_at` on the switch clock `clock`.

    `granularity`: what the platform rounds a timer to (Comware arms whole minutes); the
    suggested --confirm-timeout is a multiple of it. `resolution`: the clock's (1 s when it prints
    whole seconds): every reading may be that much early.
    """

    clock: Callable[[], float]
    length: float
    granularity: int = 1
    resolution: float = 1.0
    armed_at: float | None = None
    costs: Costs = field(default_factory=Costs)

    @property
    def margin(self) -> float:
        return MARGIN_SECONDS + MARGIN_SHARE * self.length + 2 * self.resolution

    def now(self) -> float:
        return self.clock()

    def arm(self, at: float) -> None:
        """The timer started no earlier than `at` (read just before the arming command)."""
        self.armed_at = at

    def elapsed(self, now: float) -> float:
        assert self.armed_at is not None
        return now - self.armed_at + self.resolution

    def left(self, now: float) -> float:
        return self.length - self.elapsed(now)

    def fits(self, needed_total: float) -> int:
        """A --confirm-timeout that leaves room for `needed_total` seconds under the timer."""
        seconds = (needed_total + self.margin) * HEADROOM
        step = max(1, self.granularity)
        return int(math.ceil(seconds / step) * step)

    def require(self, needed: float, steps: str, rest: float | None = None) -> float:
        """Stop (TimerShort) unless what is left covers `needed` seconds of `steps` plus the
        margin; returns the switch clock's reading. Before arming it checks the whole timer.
        `rest`: what the whole rest of the push would take at the pace so far (for the hint)."""
        now = self.now()
        done = self.elapsed(now) if self.armed_at is not None else 0.0
        left = self.length - done
        if left <= 0 and self.armed_at is not None:
            raise self.expired(f"before {steps}")
        if left < needed + self.margin:
            fits = self.fits(done + max(needed, rest or 0.0))
            raise TimerShort(
                f"stopped before the confirm timer could fire: {max(0.0, left):.0f} s of its "
                f"{self.length:.0f} s left, and {steps} need about {needed:.0f} s more on this "
                f"switch (+{self.margin:.0f} s margin); --confirm-timeout {fits} would have fit",
                fits,
            )
        return now

    def expired(self, when: str) -> TimerExpired:
        """The error for a switch found rolled back by its own timer."""
        return TimerExpired(
            f"rolled back (confirm timer expired after {self.length:.0f} s, {when}): the switch "
            "restored its config from before this push by itself; nothing was saved"
        )

    def ran_out(self) -> bool:
        """Has the timer run out by the switch's clock? (An unreadable clock says no.)"""
        if self.armed_at is None:
            return False
        try:
            return self.left(self.now()) <= 0
        except Exception:
            return False


def read_estimate(costs: Costs, before: str, intended: str) -> float:
    """A read-back costs what the first read did, scaled by how much longer the config gets."""
    grow = max(1.0, len(intended) / max(1, len(before)))
    return costs.read * grow
