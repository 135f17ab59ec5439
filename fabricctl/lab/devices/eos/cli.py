"""Arista EOS CLI dialect: exec / config / config-session modes, as netmiko and napalm see it."""

from __future__ import annotations

import re
import time
from typing import cast

import fabricctl.lab.devices.eos.sessions as sessions
import fabricctl.lab.devices.eos.show as show_eos
import fabricctl.lab.devices.eos.show_bgp as show_eos_bgp
import fabricctl.lab.devices.eos.show_routing as show_eos_routing
import fabricctl.lab.devices.eos.show_switching as show_eos_switching
import fabricctl.lab.devices.eos.show_system as show_eos_system
from fabricctl.lab.config_tree import Node
from fabricctl.lab.device import LabDevice
from fabricctl.lab.devices.eos.names import INTERFACE_TYPES
from fabricctl.lab.devices.eos.spelling import session_diff
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
)
from fabricctl.lab.editor import Editor, InvalidInput
from fabricctl.lab.names import canonical, full_interface_line
from fabricctl.lab.sessions import CommitFailed

COPY_OK = "Copy completed successfully."


def _seconds(hms: str) -> int:
    h, m, s = (int(x) for x in hms.split(":"))
    return h * 3600 + m * 60 + s


#: `reload`'s questions (EOS User Manual, "Rebooting and Power Cycling").
RELOAD_SAVE = "System configuration has been modified. Save? [yes/no/cancel/diff]:"
RELOAD_CONFIRM = "Proceed with reload? [confirm]"


def _section(lines: list[str], pattern: re.Pattern[str]) -> list[str]:
    """`| section REGEX`: each top-level line that matches, with everything indented under it."""
    out, keep = [], False
    for ln in lines:
        if ln and not ln[0].isspace():  # a top-level line opens (or closes) a section
            keep = bool(pattern.search(ln))
        if keep:
            out.append(ln)
    return out


class EosCli(CliSession):
    """One EOS CLI session (SSH channel or eAPI request); starts privileged (`#`)."""

    #: The EOS User Manual's output modifiers after a `|`; `grep` pipes to its Linux shell's.
    OUTPUT_FILTERS = {
        "include": matching,
        "exclude": not_matching,
        "begin": from_first_match,
        "section": _section,
        "grep": matching,
    }
    SHOWS = (
        *show_eos.SHOWS,
        *show_eos_routing.SHOWS,
        *show_eos_bgp.SHOWS,
        *show_eos_switching.SHOWS,
        *show_eos_system.SHOWS,
    )
    SHOW_MODES = "exec config session"

    def __init__(self, dev: LabDevice) -> None:
        super().__init__(dev)
        self.session: str | None = None

    @property
    def mode(self) -> str:
        if self.editor is None:
            return "exec"
        return "session" if self.session is not None else "config"

    def hostname(self) -> str:
        for text in self.dev.running.children:
            if text.startswith("hostname "):
                return text.split()[1]
        return self.dev.name

    def prompt(self) -> str:
        if self.question is not None:
            return self.question.text
        host = self.hostname()
        if self.editor is None:
            return f"{host}#"
        suffixes = self.editor.prompt_suffixes()
        inner = suffixes[-1] if suffixes else "config"
        if self.session is not None:
            tail = inner.removeprefix("config")
            inner = f"config-s-{self.session[:15]}{tail}"
        return f"{host}({inner})#"

    def banner(self) -> str:
        return "Last login: lab\r\n"

    def invalid(
        self, line: str, words: list[str], index: int, prompt: str, out_of_range: bool = False
    ) -> CliError:
        word = words[index] if index < len(words) else ""
        msg = f"Invalid input (at token {index}: '{word}')"
        return CliError(f"% {msg}", eapi=msg)

    async def execute(self, line: str, as_json: bool = False) -> Output:
        stripped = line.strip()
        if stripped.endswith("| json"):
            stripped, as_json = stripped[: -len("| json")].strip(), True
        if stripped.startswith("!"):
            return ""
        words = stripped.split()
        if words and words[0] == "do" and len(words) > 1 and self.editor is not None:
            stripped = " ".join(words[1:])  # an exec command from a config mode
        out = await super().execute(stripped, as_json)
        if as_json and isinstance(out, str):
            if out:
                raise CliError("% This is an unconverted command", code=1003)
            return {}
        return out

    def bad_filter(self, line: str, regex: str, prompt: str) -> CliError:
        return CliError(f"% Invalid regular expression: {regex}")

    async def config_line(self, line: str) -> None:
        self.apply_config(full_interface_line(INTERFACE_TYPES, line, self.dev.grammar.negations))
        if self.session is None:
            self.dev.persist_running()

    # --- reload ---------------------------------------------------------------------------
    @command(r"reload(?: (now|force))?", "exec")
    async def _reload(self, m: re.Match[str], as_json: bool) -> Output:
        """`reload`: a modified running configuration is offered for saving first (yes / no /
        cancel), then the reload waits for its confirmation (Enter or y); `reload now` and
        `reload force` reload at once. The switch boots from its startup-config (EOS User
        Manual, "Rebooting and Power Cycling": reload [now|force], "Proceed with reload?
        [confirm]", "System configuration has been modified. Save? [yes/no/cancel/diff]")."""

        def down() -> Output:
            self.dev.reboot()
            raise Reboot("")

        async def proceed(answer: str) -> Output:
            return down() if answer in ("", "y", "yes") else ""

        async def save(answer: str) -> Output:
            if answer in ("yes", "y"):
                self.dev.save()
            elif answer == "cancel":
                return ""
            elif answer not in ("no", "n"):
                return self.ask(RELOAD_SAVE, save)
            return self.ask(RELOAD_CONFIRM, proceed)

        if m[1]:
            return down()
        if self.dev.running_text() != self.dev.startup:
            return self.ask(RELOAD_SAVE, save)
        return self.ask(RELOAD_CONFIRM, proceed)

    # --- terminal / mode changes -------------------------------------------------------
    @command(r"enable|disable", "exec config session")
    async def _enable(self, m: re.Match[str], as_json: bool) -> Output:
        return ""

    @command(r"terminal width (\d+)", "exec")
    async def _width(self, m: re.Match[str], as_json: bool) -> Output:
        return f"Width set to {m[1]} columns."

    @command(r"terminal length (\d+)", "exec")
    async def _length(self, m: re.Match[str], as_json: bool) -> Output:
        return "Pagination disabled." if m[1] == "0" else f"Pagination set to {m[1]} lines."

    @command(r"configure(?: terminal)?", "exec")
    async def _configure(self, m: re.Match[str], as_json: bool) -> Output:
        self.editor = Editor(self.dev.grammar, self.dev.running)
        return ""

    @command(r"configure session(?: (\S+))?", "exec config")
    async def _configure_session(self, m: re.Match[str], as_json: bool) -> Output:
        name = m[1] or f"session{len(sessions.sessions_of(self.dev)) + 1}"
        try:
            sess = sessions.open_session(self.dev, name)
        except CommitFailed as exc:
            raise CliError(f"% {exc}") from None
        self.session = name
        self.editor = Editor(self.dev.grammar, sess.tree)
        return ""

    @command(r"end", "config session")
    async def _end(self, m: re.Match[str], as_json: bool) -> Output:
        self.editor, self.session = None, None
        return ""

    @command(r"exit|quit|logout", "exec config session")
    async def _exit(self, m: re.Match[str], as_json: bool) -> Output:
        if self.editor is None:
            raise Logout()
        if not self.editor.exit():
            self.editor, self.session = None, None
        return ""

    # --- show ----------------------------------------------------------------------------
    @command(r"show running-config( all)?( sanitized)?", "exec config session")
    async def _show_run(self, m: re.Match[str], as_json: bool) -> Output:
        text = self.dev.render(_with_defaults(self.dev.running)) if m[1] else self.dev.running_text()
        return _sanitized(text) if m[2] else text

    @command(r"show running-config interfaces? (.+)", "exec config session")
    async def _show_run_interface(self, m: re.Match[str], as_json: bool) -> Output:
        """The blocks of the named interfaces (`Ethernet1`, `Et1-2` is not modelled)."""
        name = canonical(INTERFACE_TYPES, m[1])
        node = self.dev.running.children.get(f"interface {name}") if name else None
        if node is None:
            raise self.invalid(m[0], m[0].split(), 2, self.prompt())
        return _block_text(node)

    @command(r"show active", "config session")
    async def _show_active(self, m: re.Match[str], as_json: bool) -> Output:
        """The running config of the block the session stands in (EOS `show active`)."""
        assert self.editor is not None
        if self.editor.depth == 0:
            return self.dev.render(self.editor.root)
        return _block_text(self.editor.stack[1].node)

    @command(r"show startup-config", "exec config session")
    async def _show_start(self, m: re.Match[str], as_json: bool) -> Output:
        return self.dev.startup

    @command(r"show clock", "exec config session")
    async def _show_clock(self, m: re.Match[str], as_json: bool) -> Output:
        """The switch's calendar clock on lab time (UTC): the date line the EOS manual and real
        captures show (ntc-templates arista_eos show_clock), then the timezone and source."""
        now = self.dev.clock.calendar()
        utc = time.gmtime(now)
        if as_json:
            return {
                "utcTime": now,
                "timezone": "UTC",
                "clockSource": {"local": True},
                "localTime": {
                    "year": utc.tm_year,
                    "month": utc.tm_mon,
                    "dayOfMonth": utc.tm_mday,
                    "hour": utc.tm_hour,
                    "min": utc.tm_min,
                    "sec": utc.tm_sec,
                    "dayOfWeek": (utc.tm_wday + 1) % 7,
                    "dayOfYear": utc.tm_yday,
                },
            }
        day = time.strftime("%a %b", utc) + f" {utc.tm_mday:>2} " + time.strftime("%H:%M:%S %Y", utc)
        return f"{day}\nTimezone: UTC\nClock source: local"

    @command(r"show configuration sessions(?: detail)?", "exec config session")
    async def _show_sessions(self, m: re.Match[str], as_json: bool) -> Output:
        data = sessions.sessions_json(self.dev)
        if as_json:
            return data
        rows = ["  Name           State              User    Terminal", "  -------------  ------"]
        for name, entry in cast("dict[str, dict[str, str]]", data["sessions"]).items():
            rows.append(f"  {name:<14} {entry['state']}")
        return "\n".join(rows)

    def _session_text(self, name: str, diffs: bool) -> str:
        sess = sessions.sessions_of(self.dev).get(name)
        if sess is None:
            raise CliError(f"% Session {name} does not exist")
        text = self.dev.render(sess.tree)
        if not diffs:
            return text
        return session_diff(
            self.dev.running_text(), text, "system:/running-config", f"session:/{name}-session-config"
        ).rstrip("\n")

    @command(r"show session-config named (\S+)( diffs)?(?: sanitized)?", "exec config session")
    async def _show_named(self, m: re.Match[str], as_json: bool) -> Output:
        return self._session_text(m[1], bool(m[2]))

    @command(r"show session-config( diffs)?(?: sanitized)?", "session")
    async def _show_current(self, m: re.Match[str], as_json: bool) -> Output:
        assert self.session is not None
        return self._session_text(self.session, bool(m[1]))

    # --- save / files / replace ----------------------------------------------------------
    @command(r"write(?: memory)?|copy running-config startup-config", "exec config session")
    async def _write(self, m: re.Match[str], as_json: bool) -> Output:
        self.dev.save()
        return COPY_OK

    @command(r"copy (startup|running)-config flash:(\S+)", "exec config session")
    async def _copy_flash(self, m: re.Match[str], as_json: bool) -> Output:
        text = self.dev.startup if m[1] == "startup" else self.dev.running_text()
        try:
            self.dev.write_file(m[2].lstrip("/"), text)
        except ValueError:
            raise CliError(f"% Error copying {m[1]}-config to flash:{m[2]} (Invalid file name)") from None
        return COPY_OK

    def _url_text(self, url: str) -> str:
        if url in ("startup-config", "flash:startup-config"):
            return self.dev.startup
        if url == "clean-config":
            return ""
        if url.startswith("flash:"):
            text = self.dev.files.get(url[len("flash:") :].lstrip("/"))
            if text is not None:
                return text
        raise CliError(f"% Error copying {url} to running-config (No such file or directory)")

    @command(r"configure replace (\S+)(?: force)?", "exec config")
    async def _replace(self, m: re.Match[str], as_json: bool) -> Output:
        text = self._url_text(m[1])
        try:
            tree = self.dev.parse(text, base=self.dev.hardware())
        except InvalidInput as exc:
            raise self.invalid(" ".join(exc.words), exc.words, exc.index, "") from None
        self.dev.set_running(tree)
        if self.editor is not None and self.session is None:
            self.editor.reset()
        return ""

    # --- session transactions -----------------------------------------------------------
    async def _commit(self, name: str, timer: str | None) -> Output:
        try:
            await sessions.commit_session(self.dev, name, _seconds(timer) if timer else None)
        except CommitFailed as exc:
            raise CliError(f"% {exc}") from None
        return ""

    @command(r"configure session (\S+) commit(?: timer (\d{1,2}:\d\d:\d\d))?", "exec config")
    async def _session_commit(self, m: re.Match[str], as_json: bool) -> Output:
        return await self._commit(m[1], m[2])

    @command(r"configure session (\S+) abort", "exec config")
    async def _session_abort(self, m: re.Match[str], as_json: bool) -> Output:
        try:
            sessions.abort_session(self.dev, m[1])
        except CommitFailed as exc:
            raise CliError(f"% {exc}") from None
        return ""

    @command(r"commit(?: timer (\d{1,2}:\d\d:\d\d))?", "session")
    async def _commit_here(self, m: re.Match[str], as_json: bool) -> Output:
        assert self.session is not None
        out = await self._commit(self.session, m[1])
        self.editor, self.session = None, None
        return out

    @command(r"abort", "session")
    async def _abort_here(self, m: re.Match[str], as_json: bool) -> Output:
        assert self.session is not None
        sessions.abort_session(self.dev, self.session)
        self.editor, self.session = None, None
        return ""

    @command(r"rollback clean-config", "session")
    async def _clean(self, m: re.Match[str], as_json: bool) -> Output:
        assert self.editor is not None
        self.editor.root.replace_contents(self.dev.hardware())
        self.editor.reset()
        return ""


#: What `sanitized` hides, as EOS prints it: secrets and SNMP communities become `<removed>`.
_SECRETS = (
    (re.compile(r"^(\s*username \S+ .*\bsecret (?:sha512|5|0) )\S+", re.M), r"\1<removed>"),
    (re.compile(r"^(\s*snmp-server community )\S+", re.M), r"\1<removed>"),
)


#: What `show running-config all` prints for a setting at its default, where clients read it
#: (pyeapi's interface, switchport, spanning-tree, VLAN, VRF, BGP and MLAG APIs): per block kind,
#: (the words a configured line starts with, the default line).
_PORT_DEFAULTS = (("shutdown", "no shutdown"),)
_SWITCHPORT_DEFAULTS = (
    ("switchport access vlan", "switchport access vlan 1"),
    ("switchport trunk native vlan", "switchport trunk native vlan 1"),
    ("switchport trunk allowed vlan", "switchport trunk allowed vlan 1-4094"),
    ("switchport mode", "switchport mode access"),
)
_STP_DEFAULTS = (
    ("spanning-tree portfast", "no spanning-tree portfast"),
    ("spanning-tree portfast auto", "spanning-tree portfast auto"),
    ("spanning-tree bpduguard", "no spanning-tree bpduguard"),
)
_MLAG_DEFAULTS = ("no domain-id", "no local-interface", "no peer-address", "no peer-link", "no shutdown")


def _add(node: Node, defaults: tuple[tuple[str, str], ...]) -> None:
    for configured, line in defaults:
        if not any(t == configured or t.startswith(configured + " ") for t in node.children):
            node.children[line] = Node(line)


def _with_defaults(running: Node) -> Node:
    """`show running-config all`: the config and the settings at their defaults that clients read
    back, as EOS prints them (`no shutdown`, a bridged port's access mode and VLANs, spanning
    tree's edge detection, `state active`, a VRF without IPv6 routing, a BGP neighbor that sends
    no communities, the MLAG block of a switch without MLAG)."""
    tree = running.copy()
    for text, node in list(tree.children.items()):
        words = text.split()
        if words[0] == "interface":
            _add(node, _PORT_DEFAULTS)
            if words[1].startswith("Ethernet"):
                if "no switchport" not in node.children:
                    _add(node, _SWITCHPORT_DEFAULTS)
                _add(node, _STP_DEFAULTS)
        elif words[0] == "vlan":
            _add(node, (("state", "state active"),))
        elif words[:2] == ["vrf", "instance"] and len(words) == 3:
            line = f"no ipv6 unicast-routing vrf {words[2]}"
            tree.children.setdefault(line, Node(line))
        elif words[:2] == ["router", "bgp"]:
            _add(node, (("shutdown", "no shutdown"),))
            _bgp_neighbor_defaults(node)
    if "mlag configuration" not in tree.children:
        tree.children["mlag configuration"] = Node("mlag configuration", block=True)
        for line in _MLAG_DEFAULTS:
            tree.children["mlag configuration"].children[line] = Node(line)
    return tree


def _bgp_neighbor_defaults(bgp: Node) -> None:
    """`no neighbor N send-community` / `next-hop-self` for a neighbor (or peer group) whose own
    lines and group set neither."""
    lines = [t.split() for t in bgp.children if t.startswith("neighbor ")]
    group = {w[1]: w[4] for w in lines if w[2:4] == ["peer", "group"] and len(w) == 5}
    for setting in ("send-community", "next-hop-self"):
        has = {w[1] for w in lines if len(w) >= 3 and w[2] == setting}
        for name in dict.fromkeys(w[1] for w in lines):
            if name not in has and group.get(name) not in has:
                line = f"no neighbor {name} {setting}"
                bgp.children[line] = Node(line)


def _block_text(node: Node) -> str:
    """One top-level block as `show running-config` prints it."""
    out = [node.text]

    def walk(n: Node, depth: int) -> None:
        for child in n.children.values():
            out.append("   " * depth + child.text)
            walk(child, depth + 1)

    walk(node, 1)
    return "\n".join(out)


def _sanitized(text: str) -> str:
    for pattern, repl in _SECRETS:
        text = pattern.sub(repl, text)
    return text
