"""The lab clock: manual time fires timers in order on `advance`; served time follows the wall."""

from __future__ import annotations

import asyncio

import pytest

from fabricctl.lab.clock import LabClock
from tests.conftest import EOS_SMALL, run_cli


def test_manual_clock_fires_due_timers_in_deadline_order() -> None:
    clock = LabClock.frozen()
    fired: list[tuple[str, float]] = []
    clock.call_later(30, lambda: fired.append(("b", clock.now())))
    clock.call_later(10, lambda: fired.append(("a", clock.now())))
    cancelled = clock.call_later(20, lambda: fired.append(("x", clock.now())))
    cancelled.cancel()
    clock.advance(29.5)
    assert fired == [("a", 10)] and clock.now() == 29.5
    assert clock.pending() == 1
    clock.advance(0.5)
    assert fired == [("a", 10), ("b", 30)] and clock.pending() == 0


def test_a_timer_set_by_a_timer_fires_in_the_same_advance() -> None:
    clock = LabClock.frozen()
    fired: list[float] = []
    clock.call_later(5, lambda: clock.call_later(5, lambda: fired.append(clock.now())))
    clock.advance(60)
    assert fired == [10]


def test_manual_sleep_waits_for_advance() -> None:
    async def run() -> None:
        clock = LabClock.frozen()
        task = asyncio.ensure_future(clock.sleep(3))
        await asyncio.sleep(0)
        assert not task.done() and clock.pending() == 1
        clock.advance(3)
        await asyncio.wait_for(task, 60)

    asyncio.run(run())


def test_served_clock_runs_on_the_wall_scaled() -> None:
    async def run() -> None:
        clock = LabClock(scale=0.001)  # a lab minute passes in 60 ms of wall time
        done = asyncio.Event()
        clock.call_later(60, done.set)
        await asyncio.wait_for(done.wait(), 60)
        assert clock.now() >= 60

    asyncio.run(run())


def test_only_manual_clocks_advance_and_scales_are_positive() -> None:
    with pytest.raises(RuntimeError):
        LabClock().advance(1)
    with pytest.raises(ValueError):
        LabClock(scale=0)


def test_bad_time_scale_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:

    monkeypatch.setenv("FABRICCTL_LAB_TIME_SCALE", "fast")
    code, out, err = run_cli(["plan", "--lab", "--root", str(EOS_SMALL)], capsys)
    assert (code, out) == (1, "")
    # the stage lines of what ran before the lab (compile, verify), then the one error line
    assert err.endswith(
        "\nerror: FABRICCTL_LAB_TIME_SCALE='fast': allowed a number above 0 (0.05 = 20x faster)\n"
    )
    assert "Traceback" not in err and err.count("error:") == 1
