"""A login to TinyOS: `configure`, `set <path> <value>` / `delete <path>`, `commit [confirmed
<seconds>]`, `confirm`, `rollback`, `show configuration [saved]`, `show commit pending` and its
JSON shows (show.py)."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass

from fabricctl.lab.clock import Timer
from fabricctl.lab.config_tree import Node
from fabricctl.lab.device import LabDevice
from fabricctl.lab.dialect import CliError, CliSession, Output, command
from fabricctl.lab.editor import Editor
from fabricctl.lab.view import View

from . import show


@dataclass
class Armed:
    """A commit waiting for its confirm: its timer and the config a rollback restores (kept as
    the device's `nos_state`)."""

    timer: Timer
    snapshot: Node

    def cancel(self) -> None:
        self.timer.cancel()

    def transactions(self) -> list[tuple[str, str]]:
        return [("commit", "pending confirm")]


def _path(line: str) -> list[str]:
    """A stored `set <path> <value>` line's path words."""
    return shlex.split(line)[1:-1]


class TinyCli(CliSession):
    @property
    def mode(self) -> str:
        return "exec" if self.editor is None else "config"

    def prompt(self) -> str:
        return f"{self.dev.name}{'#' if self.editor is not None else '>'} "

    def invalid(
        self, line: str, words: list[str], index: int, prompt: str, out_of_range: bool = False
    ) -> CliError:
        return CliError(f"error: {line!r} is not a TinyOS line")

    async def config_line(self, line: str) -> None:
        self.apply_config(line)

    @command(r"configure", "exec")
    async def _configure(self, m: re.Match[str], as_json: bool) -> Output:
        if isinstance(self.dev.nos_state, Armed):
            raise CliError("error: a commit is waiting for its confirm")
        self.snapshot = self.dev.running.copy()
        self.editor = Editor(self.dev.grammar, self.dev.running)
        return ""

    @command(r"delete (?P<path>.+)", "config")
    async def _delete(self, m: re.Match[str], as_json: bool) -> Output:
        path = shlex.split(m["path"])
        gone = [line for line in self.dev.running.children if _path(line)[: len(path)] == path]
        if not gone:
            raise CliError(f"error: nothing at {m['path']}")
        for line in gone:
            del self.dev.running.children[line]
        return ""

    @command(r"commit(?: confirmed (?P<seconds>\d+))?", "config")
    async def _commit(self, m: re.Match[str], as_json: bool) -> Output:
        self.editor = None
        self.dev.persist_running()
        if m["seconds"] is None:
            self.dev.save()
        else:
            timer = self.dev.clock.call_later(int(m["seconds"]), _expire, self.dev, self.snapshot)
            self.dev.nos_state = Armed(timer, self.snapshot)
        return ""

    @command(r"confirm", "exec")
    async def _confirm(self, m: re.Match[str], as_json: bool) -> Output:
        armed = self.dev.nos_state
        if not isinstance(armed, Armed):
            raise CliError("error: no commit waits for its confirm")
        armed.cancel()
        self.dev.nos_state = None
        self.dev.save()
        return ""

    @command(r"rollback", "exec")
    async def _rollback(self, m: re.Match[str], as_json: bool) -> Output:
        armed = self.dev.nos_state
        if not isinstance(armed, Armed):
            return "nothing to roll back"
        armed.cancel()
        _expire(self.dev, armed.snapshot)
        return "rolled back"

    @command(r"show configuration", "exec config")
    async def _show(self, m: re.Match[str], as_json: bool) -> Output:
        return self.dev.running_text()

    @command(r"show configuration saved", "exec config")
    async def _show_saved(self, m: re.Match[str], as_json: bool) -> Output:
        return self.dev.startup

    @command(r"show commit pending", "exec")
    async def _pending(self, m: re.Match[str], as_json: bool) -> Output:
        armed = self.dev.nos_state
        if not isinstance(armed, Armed):
            return "no commit pending"
        return f"pending confirm, {max(0.0, armed.timer.deadline - self.dev.clock.now()):.0f} seconds left"

    @command(r"show (?P<what>health|counters|version) \| json", "exec")
    async def _json(self, m: re.Match[str], as_json: bool) -> Output:
        shown = {"health": show.health, "counters": show.counters, "version": show.version}[m["what"]]
        return json.dumps(shown(View(self.dev)), indent=1, sort_keys=True)


def _expire(dev: LabDevice, snapshot: Node) -> None:
    """The confirm timer ran out (or a rollback): the config before the commit is back."""
    dev.nos_state = None
    dev.set_running(snapshot)
    dev.persist_running()
