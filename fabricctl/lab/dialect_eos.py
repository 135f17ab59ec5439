"""Arista EOS CLI dialect: exec / config / config-session modes, as netmiko and napalm see it."""

from __future__ import annotations

import json
import re
import time
from typing import Any

from fabricctl.lab import sessions, show_eos
from fabricctl.lab.config_tree import EOS_VERSION, Node, unified_diff
from fabricctl.lab.device import LabDevice
from fabricctl.lab.dialect import CliError, CliSession, Logout, Output, command
from fabricctl.lab.editor import Editor, InvalidInput
from fabricctl.lab.ports import port_state, show_interfaces_eos

COPY_OK = "Copy completed successfully."


def _seconds(hms: str) -> int:
    h, m, s = (int(x) for x in hms.split(":"))
    return h * 3600 + m * 60 + s


class EosCli(CliSession):
    """One EOS CLI session (SSH channel or eAPI request); starts privileged (`#`)."""

    FILTERS = ("include", "exclude", "begin", "section")

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
        out = await super().execute(stripped, as_json)
        if as_json and isinstance(out, str):
            if out:
                raise CliError("% This is an unconverted command", code=1003)
            return {}
        return out

    async def config_line(self, line: str) -> None:
        self.apply_config(line)
        if self.session is None:
            self.dev.persist_running()

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
        name = m[1] or f"session{len(self.dev.sessions) + 1}"
        try:
            sess = sessions.open_session(self.dev, name)
        except sessions.CommitFailed as exc:
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

    @command(r"show interfaces(?! status)(?: (\S+))?", "exec config session")
    async def _show_interfaces(self, m: re.Match[str], as_json: bool) -> Output:
        fabric = self.dev.state()
        if m[1] is None:
            text, data = show_eos.interfaces(self.dev.running, fabric, self.dev.name)
            return data if as_json else text
        state = port_state("eos", self.dev.running, m[1], fabric, self.dev.name)
        if state is None:
            raise CliError("% Invalid input")
        text, entry = show_interfaces_eos(state)
        return {"interfaces": {state.name: entry}} if as_json else text

    @command(r"show interfaces status", "exec config session")
    async def _show_status(self, m: re.Match[str], as_json: bool) -> Output:
        text, data = show_eos.interfaces_status(self.dev.running, self.dev.state(), self.dev.name)
        return data if as_json else text

    @command(r"show hostname", "exec config session")
    async def _show_hostname(self, m: re.Match[str], as_json: bool) -> Output:
        text, data = show_eos.hostname(self.dev.running, self.dev.name)
        return data if as_json else text

    @command(r"show lldp neighbors", "exec config session")
    async def _show_lldp(self, m: re.Match[str], as_json: bool) -> Output:
        text, data = show_eos.lldp_neighbors(self.dev.state(), self.dev.name)
        return data if as_json else text

    @command(r"show lldp neighbors(?: (\S+))? detail", "exec config session")
    async def _show_lldp_detail(self, m: re.Match[str], as_json: bool) -> Output:
        text, data = show_eos.lldp_neighbors_detail(self.dev.state(), self.dev.name, m[1])
        return data if as_json else text

    @command(r"show (ip bgp|bgp evpn) summary(?: vrf (?:all|default))?", "exec config session")
    async def _show_bgp_summary(self, m: re.Match[str], as_json: bool) -> Output:
        family = "ipv4" if m[1] == "ip bgp" else "evpn"
        text, data = show_eos.bgp_summary(self.dev.state(), self.dev.name, family)
        return data if as_json else text

    @command(r"show ip bgp neighbors(?: vrf (?:all|default))?", "exec config session")
    async def _show_bgp_neighbors(self, m: re.Match[str], as_json: bool) -> Output:
        return show_eos.bgp_neighbors_detail(self.dev.state(), self.dev.name)

    @command(r"show ipv6 bgp (summary|peers)(?: vrf (?:all|default))?", "exec config session")
    async def _show_bgp6(self, m: re.Match[str], as_json: bool) -> Output:
        facts = self.dev.state().facts[self.dev.name]
        rid = str(facts.router_id or "0.0.0.0")
        if m[1] == "summary":
            return {"vrfs": {"default": {"routerId": rid, "asn": str(facts.asn or 0), "peers": {}}}}
        return {"vrfs": {"default": {"peerList": []}}}

    @command(r"show vxlan (vtep|vni)", "exec config session")
    async def _show_vxlan(self, m: re.Match[str], as_json: bool) -> Output:
        show = show_eos.vxlan_vtep if m[1] == "vtep" else show_eos.vxlan_vni
        text, data = show(self.dev.state(), self.dev.name)
        return data if as_json else text

    @command(r"show priority-flow-control counters", "exec config session")
    async def _show_pfc(self, m: re.Match[str], as_json: bool) -> Output:
        return show_eos.pfc_counters(self.dev.state(), self.dev.name, self.dev.clock.now())

    @command(r"show ip interface", "exec config session")
    async def _show_ip_interface(self, m: re.Match[str], as_json: bool) -> Output:
        return show_eos.ip_interfaces(self.dev.running, self.dev.state(), self.dev.name)

    @command(r"show ipv6 interface", "exec config session")
    async def _show_ipv6_interface(self, m: re.Match[str], as_json: bool) -> Output:
        raise CliError("% No IPv6 configured interfaces", eapi="No IPv6 configured interfaces")

    @command(r"show startup-config", "exec config session")
    async def _show_start(self, m: re.Match[str], as_json: bool) -> Output:
        return self.dev.startup

    @command(r"show version", "exec config session")
    async def _show_version(self, m: re.Match[str], as_json: bool) -> Output:
        data: dict[str, Any] = {
            "modelName": f"DCS-{self.dev.spec.model}",
            "internalVersion": f"{EOS_VERSION}-lab",
            "version": EOS_VERSION,
            "serialNumber": self.dev.serial(),
            "systemMacAddress": "00:1c:73:00:00:01",
            "hardwareRevision": "11.00",
            "architecture": "x86_64",
            "isIntlVersion": False,
            "memTotal": 32000000,
            "memFree": 16000000,
            "uptime": self.dev.uptime(),
            "bootupTimestamp": time.time() - self.dev.uptime(),
            "hostname": self.hostname(),
        }
        if as_json:
            return data
        return (
            f"Arista {data['modelName']}\nHardware version: 11.00\n"
            f"Serial number: {data['serialNumber']}\nSoftware image version: {EOS_VERSION}\n"
            f"Architecture: x86_64\nUptime: {int(data['uptime'])} seconds"
        )

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
        for name, entry in data["sessions"].items():  # type: ignore[union-attr]
            rows.append(f"  {name:<14} {entry['state']}")
        return "\n".join(rows)

    def _session_text(self, name: str, diffs: bool) -> str:
        sess = self.dev.sessions.get(name)
        if sess is None:
            raise CliError(f"% Session {name} does not exist")
        text = self.dev.render(sess.tree)
        if not diffs:
            return text
        return unified_diff(
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
        except sessions.CommitFailed as exc:
            raise CliError(f"% {exc}") from None
        return ""

    @command(r"configure session (\S+) commit(?: timer (\d{1,2}:\d\d:\d\d))?", "exec config")
    async def _session_commit(self, m: re.Match[str], as_json: bool) -> Output:
        return await self._commit(m[1], m[2])

    @command(r"configure session (\S+) abort", "exec config")
    async def _session_abort(self, m: re.Match[str], as_json: bool) -> Output:
        try:
            sessions.abort_session(self.dev, m[1])
        except sessions.CommitFailed as exc:
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


def _with_defaults(running: Node) -> Node:
    """`show running-config all` prints settings at their defaults too; the lab prints the ones
    clients read back (pyeapi's interface and VLAN APIs): `no shutdown` and `state active`."""
    tree = running.copy()
    for text, node in tree.children.items():
        if text.startswith("interface ") and "shutdown" not in node.children:
            node.children["no shutdown"] = Node("no shutdown")
        elif text.startswith("vlan ") and not any(k.startswith("state ") for k in node.children):
            node.children["state active"] = Node("state active")
    return tree


def _sanitized(text: str) -> str:
    for pattern, repl in _SECRETS:
        text = pattern.sub(repl, text)
    return text


def to_text(out: Output) -> str:
    """CLI rendering of a handler result."""
    return json.dumps(out, indent=2) if isinstance(out, dict) else out
