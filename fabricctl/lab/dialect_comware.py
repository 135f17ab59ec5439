"""H3C Comware V7 CLI dialect: user view `<host>`, system view `[host]`, sub-views."""

from __future__ import annotations

import asyncio
import re

from fabricctl.lab import sessions
from fabricctl.lab.config_tree import COMWARE_VERSION
from fabricctl.lab.device import LabDevice
from fabricctl.lab.dialect import CliError, CliSession, Logout, Output, command, word_column
from fabricctl.lab.editor import Editor

SAVED = "Validating file. Please wait...\nSaved the current configuration to mainboard device successfully."
UNRECOGNIZED = " % Unrecognized command found at '^' position."


class ComwareCli(CliSession):
    """One Comware CLI session over SSH."""

    def __init__(self, dev: LabDevice) -> None:
        super().__init__(dev)

    @property
    def mode(self) -> str:
        return "user" if self.editor is None else "system"

    def sysname(self) -> str:
        for text in self.dev.running.children:
            if text.startswith("sysname "):
                return text.split()[1]
        return self.dev.name

    def prompt(self) -> str:
        host = self.sysname()
        if self.editor is None:
            return f"<{host}>"
        suffixes = self.editor.prompt_suffixes()
        return f"[{host}-{suffixes[-1]}]" if suffixes else f"[{host}]"

    def banner(self) -> str:
        return (
            "\n******************************************************************************\n"
            "* Copyright (c) 2004-2024 New H3C Technologies Co., Ltd. All rights reserved.*\n"
            "* Without the owner's prior written consent,                                 *\n"
            "* no decompiling or reverse-engineering shall be allowed.                    *\n"
            "******************************************************************************\n\n"
        )

    def invalid(self, line: str, words: list[str], index: int, prompt: str) -> CliError:
        caret = " " * (len(prompt) + word_column(line, index)) + "^"
        return CliError(f"{caret}\n{UNRECOGNIZED}", eapi=UNRECOGNIZED.strip())

    async def execute(self, line: str, as_json: bool = False) -> Output:
        if line.strip().startswith("#"):
            return ""
        return await super().execute(line, as_json)

    async def config_line(self, line: str) -> None:
        self.apply_config(line)
        self._persist_soon()

    def _persist_soon(self) -> None:
        """Persist once per burst of pasted lines (not per line: that is quadratic in size).

        The write runs when the loop next gets control, i.e. after the lines already received.
        """
        dev = self.dev
        if getattr(dev, "_persist_pending", False):
            return
        dev._persist_pending = True  # type: ignore[attr-defined]

        def flush() -> None:
            dev._persist_pending = False  # type: ignore[attr-defined]
            dev.persist_running()

        asyncio.get_running_loop().call_soon(flush)

    @command(r"screen-length disable", "user system")
    async def _paging(self, m: re.Match[str], as_json: bool) -> Output:
        return ""

    @command(r"system-view", "user")
    async def _system_view(self, m: re.Match[str], as_json: bool) -> Output:
        self.editor = Editor(self.dev.grammar, self.dev.running)
        return "System View: return to User View with Ctrl+Z."

    @command(r"quit", "user system")
    async def _quit(self, m: re.Match[str], as_json: bool) -> Output:
        if self.editor is None:
            raise Logout()
        if not self.editor.exit():
            self.editor = None
        return ""

    @command(r"return", "user system")
    async def _return(self, m: re.Match[str], as_json: bool) -> Output:
        self.editor = None
        return ""

    @command(r"display current-configuration", "user system")
    async def _display_running(self, m: re.Match[str], as_json: bool) -> Output:
        return self.dev.running_text().rstrip("\n")

    @command(r"display saved-configuration", "user system")
    async def _display_saved(self, m: re.Match[str], as_json: bool) -> Output:
        return self.dev.startup.rstrip("\n")

    @command(r"display version", "user system")
    async def _display_version(self, m: re.Match[str], as_json: bool) -> Output:
        return (
            "H3C Comware Software, Version " + COMWARE_VERSION + "\n"
            f"H3C {self.dev.spec.model} uptime is {int(self.dev.uptime())} seconds"
        )

    @command(r"save force", "user system")
    async def _save(self, m: re.Match[str], as_json: bool) -> Output:
        self.dev.save()
        return SAVED

    @command(r"configuration commit delay (\d+)", "system")
    async def _commit_delay(self, m: re.Match[str], as_json: bool) -> Output:
        minutes = int(m[1])
        if not 1 <= minutes <= 65535:
            raise self.invalid(m[0], m[0].split(), 3, self.prompt())
        sessions.comware_commit_delay(self.dev, minutes)
        return ""

    @command(r"configuration commit", "system")
    async def _commit(self, m: re.Match[str], as_json: bool) -> Output:
        try:
            await sessions.comware_commit(self.dev)
        except sessions.CommitFailed as exc:
            raise CliError(f" % {exc}") from None
        return ""
