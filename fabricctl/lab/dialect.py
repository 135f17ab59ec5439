"""Shared base of the CLI dialects: command dispatch tables, config-line faults, errors."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from fabricctl.lab.device import LabDevice
from fabricctl.lab.editor import Editor, InvalidInput

Output = str | dict[str, Any]
Handler = Callable[[Any, re.Match[str], bool], Awaitable[Output]]


class CliError(Exception):
    """A command error; `text` is what the CLI prints, `eapi` the eAPI error string."""

    def __init__(self, text: str, eapi: str | None = None, code: int = 1002) -> None:
        super().__init__(text)
        self.text = text
        self.eapi = eapi if eapi is not None else text.lstrip("% ").strip()
        self.code = code


class Disconnect(Exception):
    """Fault injection: drop the connection now, without a reply."""


class Logout(Exception):
    """The user logged out (`exit` / `quit` at the top)."""


@dataclass(frozen=True)
class Command:
    """One non-config command: regex over the whole line, handler, modes it is valid in."""

    pattern: re.Pattern[str]
    handler: Handler
    modes: frozenset[str]


def command(regex: str, modes: str) -> Callable[[Handler], Handler]:
    """Decorator registering a dialect method in its class's `COMMANDS` table."""

    def wrap(fn: Handler) -> Handler:
        fn.__lab_command__ = (re.compile(regex), frozenset(modes.split()))  # type: ignore[attr-defined]
        return fn

    return wrap


class CliSession:
    """One interactive CLI (an SSH channel or one eAPI request)."""

    COMMANDS: tuple[Command, ...] = ()

    def __init_subclass__(cls) -> None:
        table: list[Command] = []
        for value in cls.__dict__.values():
            spec = getattr(value, "__lab_command__", None)
            if spec is not None:
                table.append(Command(spec[0], value, spec[1]))
        cls.COMMANDS = tuple(table)

    def __init__(self, dev: LabDevice) -> None:
        self.dev = dev
        self.config_lines = 0
        self.editor: Editor | None = None
        #: True once the client's session is gone: a line still waiting then is dropped, as a
        #: switch drops the queued input of a VTY that closed.
        self.gone: Callable[[], bool] = lambda: False

    @property
    def mode(self) -> str:
        """Dispatch mode name used by the command tables."""
        raise NotImplementedError

    def prompt(self) -> str:
        raise NotImplementedError

    def banner(self) -> str:
        return ""

    def invalid(self, line: str, words: list[str], index: int, prompt: str) -> CliError:
        raise NotImplementedError

    async def config_line(self, line: str) -> None:
        """A line for the grammar (in config mode)."""
        raise NotImplementedError

    async def execute(self, line: str, as_json: bool = False) -> Output:
        """Run one line; raise CliError on failure."""
        prompt = self.prompt()
        stripped = line.strip()
        if not stripped:
            return ""
        hold = self.dev.faults.hold
        if hold and re.search(hold, stripped):
            await self.dev.held(stripped)
        for cmd in self.COMMANDS:
            if self.mode in cmd.modes:
                m = cmd.pattern.fullmatch(stripped)
                if m is not None:
                    return await cmd.handler(self, m, as_json)
        if self.editor is None:
            words = stripped.split()
            index = 0
            raise self.invalid(line, words, index, prompt)
        if self.dev.faults.config_latency:
            await self.dev.clock.sleep(self.dev.faults.config_latency)
            if self.gone():
                raise Disconnect()
        try:
            await self.config_line(stripped)
        except InvalidInput as exc:
            raise self.invalid(line, exc.words, exc.index, prompt) from None
        return ""

    def apply_config(self, line: str) -> None:
        """Apply a grammar line with the per-device config faults (disconnect, reject)."""
        assert self.editor is not None
        faults = self.dev.faults
        if faults.disconnect_after is not None and self.config_lines >= faults.disconnect_after:
            raise Disconnect()
        self.config_lines += 1
        if faults.reject and re.search(faults.reject, line):
            raise InvalidInput(line.split(), 0)
        self.editor.apply(line)


def word_column(line: str, index: int) -> int:
    """Column of word `index` in `line` (for the `^` marker)."""
    spans = [m.start() for m in re.finditer(r"\S+", line)]
    if not spans:
        return 0
    return spans[min(index, len(spans) - 1)]
