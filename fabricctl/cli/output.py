"""What a person sees while a command runs: stage lines, the live apply display, colour rules.

* Stage lines go to stderr as each stage ends (`compile   0.31 s  48 switches, 11 tenants`);
  on a terminal a spinner names the stage while it runs.
* apply shows one live line per switch in flight and a counter of finished switches on a
  terminal (rich), and one plain line per finished switch in a pipe (CI logs).
* Colour only on a terminal, never with NO_COLOR (https://no-color.org) or TERM=dumb.

Imported only by commands that run stages (rich loads here, never for --help).
"""

from __future__ import annotations

import os
import queue
import sys
import threading
import time
from typing import IO, TYPE_CHECKING, Any

from fabricctl.secrets import redact

if TYPE_CHECKING:
    from rich.console import Console

    from fabricctl.deploy.apply import SwitchOutcome
    from fabricctl.deploy.plan import Plan
    from fabricctl.deploy.stages import Step


def color_enabled(stream: IO[str] | None = None) -> bool:
    """Colour for `stream` (stdout by default): a terminal, NO_COLOR unset or empty, TERM not dumb."""
    stream = stream if stream is not None else sys.stdout
    if os.environ.get("NO_COLOR", "") != "" or os.environ.get("TERM") == "dumb":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def err_console() -> Console:
    """A rich console on stderr: styled on a terminal, plain text (200 columns) in a pipe."""
    from rich.console import Console

    tty = color_enabled(sys.stderr)
    return Console(
        file=sys.stderr,
        highlight=False,
        soft_wrap=True,
        force_terminal=tty,
        no_color=not tty,
        width=None if tty else 200,
    )


class StageLines:
    """Listens to deploy.stages: one line per finished stage on stderr, a spinner meanwhile."""

    #: Stages with their own live display (apply's per-switch lines): no spinner over them.
    NO_SPINNER = frozenset({"push"})

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or err_console()
        self.live = self.console.is_terminal
        self._status: Any = None
        #: While a live display owns the terminal, lines go through it (`ApplyDisplay.line`).
        self.sink: Any = None

    def started(self, step: Step) -> None:
        if self.live and step.name not in self.NO_SPINNER:
            self._stop()
            self._status = self.console.status(f"{step.name}…", spinner="dots")
            self._status.start()

    def finished(self, step: Step) -> None:
        self._stop()
        if not step.ok:
            return  # the error that stopped it is printed by whoever caught it
        timing = f"{step.seconds:6.2f} s"
        detail = redact(step.detail)
        if self.sink is not None:
            self.sink(
                f"✓ {step.name:<8} {timing}  {detail}"
                if self.live
                else f"  {step.name:<8} {timing}  {detail}"
            )
        elif self.live:
            self.console.print(f"[green]✓[/green] {step.name:<8} [dim]{timing}[/dim]  {detail}", markup=True)
        else:
            self.console.print(f"  {step.name:<8} {timing}  {detail}", markup=False)

    def note(self, text: str) -> None:
        self._stop()
        if self.sink is not None:
            self.sink(redact(text.rstrip("\n")))
        else:
            self.console.print(redact(text.rstrip("\n")), markup=False)

    def _stop(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None


#: Outcome -> style of its line on a terminal.
STYLES = {"changed": "yellow", "failed": "bold red", "rolled back": "yellow", "skipped": "dim"}


class ApplyDisplay:
    """The push as it happens, with a counter that is never stuck and never passes its total.

    The total is every switch apply acts on (to change, to settle, unreachable at plan time);
    each is counted once when its first final outcome arrives (changed, unchanged, failed,
    skipped), so a later `rolled back` updates a line without counting twice.
    """

    def __init__(self, plan: Plan, console: Console | None = None) -> None:
        self.console = console or err_console()
        self.tty = self.console.is_terminal
        self.names = [n for n in plan.switches if n in set(plan.changed) | set(plan.unreachable)]
        self.total = len(self.names)
        self.tracked = set(self.names)
        self.done: set[str] = set()
        self.flight: dict[str, tuple[str, float]] = {}  # name -> (what, started)
        self.lock = threading.RLock()
        self.width = max((len(n) for n in self.names), default=6)
        self.started_at = time.monotonic()
        self.notice = ""
        self._live: Any = None
        self._lines: queue.SimpleQueue[tuple[str, str]] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._painter: threading.Thread | None = None

    # --- the hooks apply calls (any thread) ---------------------------------------------
    def started(self, name: str, what: str) -> None:
        with self.lock:
            self.flight[name] = (what, time.monotonic())

    def finished(self, outcome: SwitchOutcome) -> None:
        if outcome.name not in self.tracked:
            return  # unchanged at plan time: nothing to do, nothing to count
        from fabricctl.report.text import Paint, outcome_line

        lines = outcome_line(outcome, self.width, Paint(False))
        with self.lock:  # counted and printed together: two switches ending at once print in count order
            self.flight.pop(outcome.name, None)
            first = outcome.name not in self.done
            self.done.add(outcome.name)
            prefix = f"[{len(self.done)}/{self.total}]" if first else "[rollback]"
            text = "\n".join(
                [f"{prefix} {lines[0].strip()}", *(f"{' ' * len(prefix)} {ln.strip()}" for ln in lines[1:])]
            )
            self._print(redact(text), outcome.status)

    def interrupted(self, signum: int, count: int = 1) -> None:
        import signal

        with self.lock:
            flying = sorted(self.flight)
        try:
            name = signal.Signals(signum).name
        except ValueError:
            name = f"signal {signum}"
        names = f" ({', '.join(flying[:8])}{', ...' if len(flying) > 8 else ''})" if flying else ""
        if count == 1:
            self.notice = (
                f"{name} received: finishing the {len(flying)} switch(es) in flight{names}, starting "
                "no other; a second interrupt restores them instead"
            )
        else:
            self.notice = (
                f"second {name}: the {len(flying)} switch(es) in flight{names} stop before their "
                "commit and are restored (a committed one is finished and saved); a third interrupt "
                "stops at once, leaving their commit-confirm timers to roll them back"
            )
        self._print(self.notice, "skipped")

    # --- rendering ------------------------------------------------------------------------
    def __enter__(self) -> ApplyDisplay:
        if self.tty and self.total:
            from rich.live import Live

            # One thread draws: finished lines and the live area come from the same place, so a
            # line printed by a worker thread can never land inside a half-drawn live area.
            self._live = Live(
                console=self.console, auto_refresh=False, transient=True, get_renderable=self._render
            )
            self._live.start()
            self._painter = threading.Thread(target=self._paint, name="apply-display", daemon=True)
            self._painter.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._stop.set()
            if self._painter is not None:
                self._painter.join()
            self._drain()
            self._live.stop()
            self._live = None

    def _paint(self) -> None:
        while not self._stop.wait(0.125):
            self._drain()
            self._live.refresh()

    def _drain(self) -> None:
        while True:
            try:
                text, status = self._lines.get_nowait()
            except queue.Empty:
                return
            self.console.print(text, style=STYLES.get(status), markup=False, highlight=False)

    def line(self, text: str) -> None:
        """A line from elsewhere (a stage line) while this display owns the terminal."""
        self._print(text, "")

    def _print(self, text: str, status: str) -> None:
        if self._live is not None:  # the painter thread prints it, between two refreshes
            self._lines.put((text, status))
        elif self.tty:
            self.console.print(text, style=STYLES.get(status), markup=False, highlight=False)
        else:
            self.console.print(text, markup=False, highlight=False)

    def _render(self) -> Any:
        from rich.console import Group
        from rich.progress_bar import ProgressBar
        from rich.table import Table
        from rich.text import Text

        with self.lock:
            flight = sorted(self.flight.items())
            done = len(self.done)
        now = time.monotonic()
        rows = []
        for name, (what, since) in flight[:30]:
            rows.append(Text.assemble(("  ⠿ ", "cyan"), f"{name:<{self.width}}  ", (f"{what:<8}", "bold"),
                                      (f" {now - since:5.1f} s", "dim")))  # fmt: skip
        if len(flight) > 30:
            rows.append(Text(f"  ... and {len(flight) - 30} more in flight", style="dim"))
        bar = Table.grid(padding=(0, 1))
        bar.add_row(
            Text("apply", style="bold"),
            ProgressBar(total=max(1, self.total), completed=min(done, self.total), width=30),
            Text(f"{min(done, self.total)}/{self.total}"),
            Text(f"{len(flight)} in flight", style="dim"),
            Text(f"{now - self.started_at:5.1f} s", style="dim"),
        )
        parts: list[Any] = [*rows, bar]
        if self.notice:
            parts.append(Text(self.notice, style="yellow"))
        return Group(*parts)
