"""H3C Comware V7 CLI dialect: user view `<host>`, system view `[host]`, sub-views."""

from __future__ import annotations

import asyncio
import re
import time

import fabricctl.lab.devices.comware.commit as commit
import fabricctl.lab.devices.comware.show as show_comware
import fabricctl.lab.devices.comware.show_boot as show_boot
from fabricctl.lab.config_tree import Node
from fabricctl.lab.device import FLASH_NAME
from fabricctl.lab.devices.comware.names import INTERFACE_TYPES
from fabricctl.lab.devices.comware.render import render_comware
from fabricctl.lab.dialect import (
    CliError,
    CliSession,
    Logout,
    Output,
    Reboot,
    command,
    from_first_match,
    matching,
    not_matching,
    word_column,
)
from fabricctl.lab.editor import Editor, InvalidInput
from fabricctl.lab.names import canonical, full_interface_line
from fabricctl.lab.sessions import CommitFailed

SAVED = "Validating file. Please wait...\nSaved the current configuration to mainboard device successfully."
UNRECOGNIZED = " % Unrecognized command found at '^' position."
#: A value of the right kind outside its range (`vlan 5000`, an RD number past 16 bits): Comware
#: marks the value and answers this instead of UNRECOGNIZED.
WRONG_PARAMETER = " % Wrong parameter found at '^' position."
#: `save <file>` and `configuration replace file <file>` wording follows the Comware V7 command
#: reference examples as far as known; the overwrite question is an assumption ([U]).
SAVED_FILE = (
    "Now saving current configuration to the device.\n"
    "Saving configuration {url}. Please wait...\n"
    "Configuration is saved to device successfully."
)
#: `reboot`'s questions (HPE Comware 7 fundamentals command reference, `reboot`).
REBOOT_SAVE = "Current configuration may be lost after the reboot, save current configuration? [Y/N]:"
REBOOT_CONFIRM = "This command will reboot the device. Continue? [Y/N]:"
REPLACED = (
    "Now replacing the current configuration. Please wait...\n"
    "Succeeded in replacing current configuration with the file {name}."
)


def flash_name(url: str) -> str | None:
    """`flash:/x.cfg`, `flash:x.cfg` or `x.cfg` -> `x.cfg`; None for other media, folders or odd names."""
    name = url[len("flash:") :].lstrip("/") if url.startswith("flash:") else url
    return name if FLASH_NAME.fullmatch(name) else None


class ComwareCli(CliSession):
    """One Comware CLI session over SSH."""

    SHOWS = (*show_comware.SHOWS, *show_boot.SHOWS)
    #: `display ... | { begin | exclude | include } regular-expression` (Comware V7 Fundamentals
    #: Configuration Guide, "Filtering the output from a display command").
    OUTPUT_FILTERS = {"begin": from_first_match, "exclude": not_matching, "include": matching}
    SHOW_MODES = "user system"

    @property
    def mode(self) -> str:
        return "user" if self.editor is None else "system"

    def sysname(self) -> str:
        for text in self.dev.running.children:
            if text.startswith("sysname "):
                return text.split()[1]
        return self.dev.name

    def prompt(self) -> str:
        if self.question is not None:
            return self.question.text
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

    def invalid(
        self, line: str, words: list[str], index: int, prompt: str, out_of_range: bool = False
    ) -> CliError:
        caret = " " * (len(prompt) + word_column(line, index)) + "^"
        message = WRONG_PARAMETER if out_of_range else UNRECOGNIZED
        return CliError(f"{caret}\n{message}", eapi=message.strip())

    async def execute(self, line: str, as_json: bool = False) -> Output:
        if self.question is None and line.strip().startswith("#"):
            return ""
        out = await super().execute(line, as_json)
        if line.strip():  # a command that ran (a refused one raised): SHELL_CMD logs it as typed
            commit.log_command(
                self.dev, line.strip(), self.login_user, self.login_address, "vty0", self.sysname()
            )
        return out

    async def config_line(self, line: str) -> None:
        self.apply_config(full_interface_line(INTERFACE_TYPES, line, self.dev.grammar.negations))
        self._persist_soon()

    def _persist_soon(self) -> None:
        """Persist once per burst of pasted lines (not per line: that is quadratic in size).

        The write runs when the loop next gets control, i.e. after the lines already received.
        """
        dev = self.dev
        if getattr(dev, "_persist_pending", False):
            return
        dev._persist_pending = True  # type: ignore[attr-defined]  # a flag the coalesced write sets on the device it batches for

        def flush() -> None:
            dev._persist_pending = False  # type: ignore[attr-defined]  # the same flag, cleared when the write runs
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

    @command(r"display current-configuration interface (.+)", "user system")
    async def _display_running_interface(self, m: re.Match[str], as_json: bool) -> Output:
        """One interface's block, as `display current-configuration` lists it."""
        name = canonical(INTERFACE_TYPES, m[1])
        node = self.dev.running.children.get(f"interface {name}") if name else None
        if node is None:
            raise self.invalid(m[0], m[0].split(), 3, self.prompt())
        return _listing([node])

    @command(r"display current-configuration configuration (\S+)", "user system")
    async def _display_running_view(self, m: re.Match[str], as_json: bool) -> Output:
        """The blocks of one view (`configuration irf-port`, `configuration bgp`): none when the
        switch holds no such block (a standalone box has no IRF ports)."""
        nodes = [n for t, n in self.dev.running.children.items() if t.split()[0] == m[1] and n.block]
        return _listing(nodes) if nodes else "#\nreturn"

    @command(r"display saved-configuration", "user system")
    async def _display_saved(self, m: re.Match[str], as_json: bool) -> Output:
        return self.dev.startup.rstrip("\n")

    @command(r"display clock", "user system")
    async def _display_clock(self, m: re.Match[str], as_json: bool) -> Output:
        """`HH:MM:SS UTC Day MM/DD/YYYY` on lab time, the layout of real Comware captures
        (ntc-templates hp_comware display_clock)."""
        return time.strftime("%H:%M:%S UTC %a %m/%d/%Y", time.gmtime(self.dev.clock.calendar()))

    @command(r"save force", "user system")
    async def _save(self, m: re.Match[str], as_json: bool) -> Output:
        self.dev.save()
        return SAVED

    @command(r"save (?!force$)(\S+)", "user system")
    async def _save_file(self, m: re.Match[str], as_json: bool) -> Output:
        """`save <file>`: running -> a flash file; the next-startup file is not changed."""
        name = flash_name(m[1])
        if name is None or not name.endswith(".cfg"):
            raise CliError(" % The file name must end with .cfg and be on flash: (lab).")
        url = f"flash:/{name}"

        async def write(yes: bool) -> Output:
            if not yes:
                return ""
            self.dev.write_file(name, self.dev.running_text())
            return SAVED_FILE.format(url=url)

        async def confirm(yes: bool) -> Output:
            if not yes:
                return ""
            if name in self.dev.files:
                return self.ask_yes_no(f"{url} exists, overwrite? [Y/N]:", write)
            return await write(True)

        return self.ask_yes_no(f"The current configuration will be saved to {url}. Continue? [Y/N]:", confirm)

    @command(r"configuration replace file (\S+)", "system")
    async def _replace_file(self, m: re.Match[str], as_json: bool) -> Output:
        """Running := the file's config (undo for lines it lacks, add its new ones)."""
        name = flash_name(m[1])
        text = self.dev.files.get(name) if name is not None else None
        if name is None or text is None:
            raise CliError(f" % The file {m[1]} does not exist.")

        async def replace(yes: bool) -> Output:
            if yes:
                raise CliError(" % Saving before the replace is not modelled in the lab; answer N.")
            try:
                self.dev.replace_config(text)
            except InvalidInput as exc:
                raise CliError(f" % Failed to replace the configuration: {' '.join(exc.words)}") from None
            if self.editor is not None:
                self.editor.reset()
            return REPLACED.format(name=name)

        return self.ask_yes_no(
            "Current configuration will be lost, save current configuration? [Y/N]:", replace
        )

    @command(r"reboot( force)?", "user")
    async def _reboot(self, m: re.Match[str], as_json: bool) -> Output:
        """`reboot` in user view: a configuration changed since the last save is offered for
        saving first, then the reboot waits for its confirmation; `reboot force` reboots at once
        (H3C's Comware collection sends `reboot force`; HPE Comware 7 fundamentals command
        reference, `reboot`: "Current configuration may be lost after the reboot, save current
        configuration? [Y/N]:", "This command will reboot the device. Continue? [Y/N]:"). The
        switch boots from its next-startup configuration."""

        def down() -> Output:
            self.dev.reboot()
            raise Reboot("Now rebooting, please wait...")

        async def proceed(yes: bool) -> Output:
            return down() if yes else ""

        async def save(yes: bool) -> Output:
            if yes:
                self.dev.save()
            return self.ask_yes_no(REBOOT_CONFIRM, proceed)

        if m[1]:
            return down()
        if self.dev.running_text() != self.dev.startup:
            return self.ask_yes_no(REBOOT_SAVE, save)
        return self.ask_yes_no(REBOOT_CONFIRM, proceed)

    @command(r"display logbuffer", "user system")
    async def _display_logbuffer(self, m: re.Match[str], as_json: bool) -> Output:
        return commit.logbuffer(self.dev)

    @command(r"configuration commit delay (\d+)", "system")
    async def _commit_delay(self, m: re.Match[str], as_json: bool) -> Output:
        minutes = int(m[1])
        if not 1 <= minutes <= 65535:
            raise self.invalid(m[0], m[0].split(), 3, self.prompt())
        commit.arm(self.dev, minutes)
        return ""

    @command(r"configuration commit", "system")
    async def _commit(self, m: re.Match[str], as_json: bool) -> Output:
        try:
            await commit.commit(self.dev)
        except CommitFailed as exc:
            raise CliError(f" % {exc}") from None
        return ""


def _listing(nodes: list[Node]) -> str:
    """Top-level blocks as `display current-configuration` lists them (without the version line)."""
    root = Node("", block=True, children={n.text: n for n in nodes})
    return render_comware(root).split("\n", 2)[2].rstrip("\n")
