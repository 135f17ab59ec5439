"""H3C Comware V7 CLI dialect: user view `<host>`, system view `[host]`, sub-views."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from fabricctl.lab import sessions, show_comware
from fabricctl.lab.config_tree import COMWARE_VERSION
from fabricctl.lab.device import FLASH_NAME, LabDevice
from fabricctl.lab.dialect import CliError, CliSession, Logout, Output, command, word_column
from fabricctl.lab.editor import Editor, InvalidInput
from fabricctl.lab.ports import port_state

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
REPLACED = (
    "Now replacing the current configuration. Please wait...\n"
    "Succeeded in replacing current configuration with the file {name}."
)


@dataclass
class Question:
    """A pending `[Y/N]:` question: shown instead of the prompt; the next line answers it."""

    text: str
    on_answer: Callable[[bool], Awaitable[Output]]


def flash_name(url: str) -> str | None:
    """`flash:/x.cfg`, `flash:x.cfg` or `x.cfg` -> `x.cfg`; None for other media, folders or odd names."""
    name = url[len("flash:") :].lstrip("/") if url.startswith("flash:") else url
    return name if FLASH_NAME.fullmatch(name) else None


class ComwareCli(CliSession):
    """One Comware CLI session over SSH."""

    def __init__(self, dev: LabDevice) -> None:
        super().__init__(dev)
        self.question: Question | None = None

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
        if self.question is not None:
            return await self._answer(line.strip().lower())
        if line.strip().startswith("#"):
            return ""
        return await super().execute(line, as_json)

    def ask(self, text: str, on_answer: Callable[[bool], Awaitable[Output]]) -> Output:
        """Show `text` (ending in `[Y/N]:`) as the prompt; the next line is the answer."""
        self.question = Question(text, on_answer)
        return ""

    async def _answer(self, answer: str) -> Output:
        assert self.question is not None
        if answer not in ("y", "yes", "n", "no"):
            return ""  # asked again (the question stays the prompt)
        pending, self.question = self.question, None
        return await pending.on_answer(answer.startswith("y"))

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

    @command(r"display interface(?! brief)(?: (\S+))?", "user system")
    async def _display_interface(self, m: re.Match[str], as_json: bool) -> Output:
        fabric = self.dev.state()
        if m[1] is None:
            return show_comware.interfaces(self.dev.running, fabric, self.dev.name)
        state = port_state("comware", self.dev.running, m[1], fabric, self.dev.name)
        if state is None:
            raise CliError(WRONG_PARAMETER)
        port = fabric.facts[self.dev.name].ports.get(state.name)
        return show_comware.interface_detail(
            state, str(port.addresses[0]) if port and port.addresses else None
        )

    @command(r"display interface brief", "user system")
    async def _display_brief(self, m: re.Match[str], as_json: bool) -> Output:
        return show_comware.interface_brief(self.dev.running, self.dev.state(), self.dev.name)

    @command(r"display lldp neighbor-information (list|verbose)", "user system")
    async def _display_lldp(self, m: re.Match[str], as_json: bool) -> Output:
        fabric = self.dev.state()
        if m[1] == "list":
            return show_comware.lldp_list(fabric, self.dev.name)
        return show_comware.lldp_verbose(fabric, self.dev.name)

    @command(r"display bgp peer (ipv4|l2vpn evpn)", "user system")
    async def _display_bgp_peer(self, m: re.Match[str], as_json: bool) -> Output:
        return show_comware.bgp_peers(self.dev.state(), self.dev.name, "ipv4" if m[1] == "ipv4" else "evpn")

    @command(r"display priority-flow-control interface(?: (\S+)(?: (\S+))?)?", "user system")
    async def _display_pfc(self, m: re.Match[str], as_json: bool) -> Output:
        """All Ethernet ports, or one (`FourHundredGigE1/0/1` or `FourHundredGigE 1/0/1`)."""
        fabric = self.dev.state()
        port = "".join(w for w in (m[1], m[2]) if w) or None
        if port is not None and port not in fabric.facts[self.dev.name].ports:
            raise CliError(WRONG_PARAMETER)
        return show_comware.pfc_interface(fabric, self.dev.name, self.dev.clock.now(), port)

    @command(r"display ip vpn-instance", "user system")
    async def _display_vpn_instances(self, m: re.Match[str], as_json: bool) -> Output:
        return show_comware.vpn_instances(self.dev.running)

    @command(r"display vlan all", "user system")
    async def _display_vlans(self, m: re.Match[str], as_json: bool) -> Output:
        return show_comware.vlans(self.dev.running, self.dev.state(), self.dev.name)

    @command(r"display device manuinfo", "user system")
    async def _display_manuinfo(self, m: re.Match[str], as_json: bool) -> Output:
        return show_comware.device_manuinfo(self.dev.spec.model, self.dev.serial())

    @command(r"display saved-configuration", "user system")
    async def _display_saved(self, m: re.Match[str], as_json: bool) -> Output:
        return self.dev.startup.rstrip("\n")

    @command(r"display version", "user system")
    async def _display_version(self, m: re.Match[str], as_json: bool) -> Output:
        return (
            "H3C Comware Software, Version " + COMWARE_VERSION + "\n"
            f"H3C {self.dev.spec.model} uptime is {_uptime(self.dev.uptime())}"
        )

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
                return self.ask(f"{url} exists, overwrite? [Y/N]:", write)
            return await write(True)

        return self.ask(f"The current configuration will be saved to {url}. Continue? [Y/N]:", confirm)

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

        return self.ask("Current configuration will be lost, save current configuration? [Y/N]:", replace)

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


def _uptime(seconds: float) -> str:
    """Comware's wording: `0 weeks, 0 days, 1 hour, 5 minutes`."""
    minutes = int(seconds) // 60
    weeks, rest = divmod(minutes, 7 * 24 * 60)
    days, rest = divmod(rest, 24 * 60)
    hours, mins = divmod(rest, 60)
    return (
        f"{weeks} weeks, {days} days, {hours} hour{'s' if hours != 1 else ''}, "
        f"{mins} minute{'s' if mins != 1 else ''}"
    )
