"""The lab's own clock: commit timers, uptime and latency faults run on it, never on the wall.

A served lab (`fabricctl lab up`, `--lab`) runs on the wall clock, optionally sped up with
FABRICCTL_LAB_TIME_SCALE (0.05: one lab second passes in 50 ms). A test lab runs on a manual
clock that moves only when the test calls `advance`: however slow or busy the machine, a commit
timer can never fire in the middle of a push, and a test that wants it to fire says so.

Everything here runs on the lab's event-loop thread (LabFabric.advance hops there).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(order=True)
class Timer:
    """A callback due at `deadline` (lab seconds); `cancel()` makes it a no-op."""

    deadline: float
    seq: int
    callback: Callable[..., Any] = field(compare=False)
    args: tuple[Any, ...] = field(compare=False, default=())
    cancelled: bool = field(compare=False, default=False)

    def cancel(self) -> None:
        self.cancelled = True


class LabClock:
    """Lab time in seconds since the lab started; `manual` clocks move only on `advance`."""

    def __init__(self, scale: float = 1.0, manual: bool = False, origin: float | None = None) -> None:
        if not scale > 0:
            raise ValueError(f"lab time scale must be above 0, not {scale}")
        self.scale = scale
        self.manual = manual
        wall = time.time()
        #: The calendar time at lab second 0: a switch's `show clock` / `display clock` reads
        #: origin + now(), so a commit timer and the clock a client reads run on the same time.
        #: The shards of one lab share theirs (`origin`), so their lab times agree.
        self.origin = wall if origin is None else origin
        self._start = time.monotonic() - (wall - self.origin)
        self._now = 0.0  # manual clocks only
        self._timers: list[Timer] = []
        self._seq = itertools.count()

    @classmethod
    def frozen(cls) -> LabClock:
        """A manual clock (tests): time stands still until `advance`."""
        return cls(manual=True)

    def now(self) -> float:
        if self.manual:
            return self._now
        return (time.monotonic() - self._start) / self.scale

    def calendar(self) -> float:
        """Seconds since the epoch by the lab's clock (what the switches' clock commands print)."""
        return self.origin + self.now()

    def call_later(self, delay: float, callback: Callable[..., Any], *args: Any) -> Timer:
        """Run `callback(*args)` once `delay` lab seconds have passed."""
        timer = Timer(self.now() + max(0.0, delay), next(self._seq), callback, args)
        heapq.heappush(self._timers, timer)
        if not self.manual:
            self._wake_at(timer.deadline)
        return timer

    def _wake_at(self, deadline: float) -> None:
        wall = max(0.0, (deadline - self.now()) * self.scale)
        asyncio.get_running_loop().call_later(wall, self._fire_due)

    def _fire_due(self) -> None:
        now = self.now()
        while self._timers and self._timers[0].deadline <= now:
            timer = heapq.heappop(self._timers)
            if not timer.cancelled:
                timer.callback(*timer.args)
        if self._timers and not self.manual:
            self._wake_at(self._timers[0].deadline)  # in case the loop woke a hair early

    def advance(self, seconds: float) -> None:
        """Manual clocks: move time forward, firing every timer that falls due, in order."""
        if not self.manual:
            raise RuntimeError("only a manual lab clock can be advanced")
        target = self._now + max(0.0, seconds)
        while self._timers and self._timers[0].deadline <= target:
            timer = heapq.heappop(self._timers)
            self._now = max(self._now, timer.deadline)
            if not timer.cancelled:
                timer.callback(*timer.args)
        self._now = target

    def pending(self) -> int:
        """Timers not yet fired or cancelled (tests poll this instead of sleeping)."""
        return sum(1 for t in self._timers if not t.cancelled)

    async def sleep(self, seconds: float) -> None:
        """Wait `seconds` of lab time (a manual clock waits for `advance`)."""
        if seconds <= 0:
            return
        done = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not done.done():
                done.set_result(None)

        timer = self.call_later(seconds, wake)
        try:
            await done
        finally:
            timer.cancel()
