"""Stages of one command (compile, render, verify, lab up, fetch, diff, push), timed as they run.

The orchestration (deploy/service.py) opens a stage around each step; whoever listens (the
CLI's stage lines on stderr, the run record's timings, a test) hears when it starts and when it
ends, with one line of detail the step fills in. Nothing here prints.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from fabricctl.logs import get_logger

log = get_logger(__name__)


@dataclass
class Step:
    name: str
    detail: str = ""
    seconds: float = 0.0
    ok: bool = True  # False: the step raised (its error is reported by whoever catches it)


class StageListener(Protocol):
    def started(self, step: Step) -> None: ...

    def finished(self, step: Step) -> None: ...


class Stages:
    """Times each stage and tells `listener` (optional) as each one starts and finishes."""

    def __init__(self, listener: StageListener | None = None) -> None:
        self.listener = listener
        self.steps: list[Step] = []

    @contextlib.contextmanager
    def stage(self, name: str, detail: str = "") -> Iterator[Step]:
        step = Step(name, detail)
        if self.listener is not None:
            self.listener.started(step)
        log.info("stage %s: started", name)
        started = time.monotonic()
        try:
            yield step
        except BaseException:
            step.ok = False
            raise
        finally:
            step.seconds = time.monotonic() - started
            self.steps.append(step)
            log.info("stage %s: %s in %.2f s%s", name, "done" if step.ok else "stopped", step.seconds,
                     f": {step.detail}" if step.detail else "")  # fmt: skip
            if self.listener is not None:
                self.listener.finished(step)

    def timings(self) -> dict[str, float]:
        """stage -> seconds (a stage run twice counts both times)."""
        out: dict[str, float] = {}
        for step in self.steps:
            out[step.name] = round(out.get(step.name, 0.0) + step.seconds, 3)
        return out


#: For callers that do not listen: stages still run, nothing is told.
def quiet() -> Stages:
    return Stages(None)
