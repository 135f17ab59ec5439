"""The NVUE CLI as a login to a Cumulus Linux switch sees it: a bash prompt and `nv` commands.

NVUE's CLI is flat (NVUE CLI, "Command Syntax"): `nv set` / `nv unset` stage changes in the
pending revision, `nv config ...` manages revisions, `nv show ...` reads state, all from the
Linux prompt `cumulus@leaf01:mgmt:~$` (the management VRF, the home directory). Words are read
as the shell reads them (quotes group a description's words). The paths and values taken are the
NVUE command reference's (commands.yaml, generated from it): a path it does not list, a form an
older release used (`ip address`, `enable on`), or a value outside the documented range or
choices is refused with an `Error:` line. No NVIDIA document quotes NVUE's refusal text; the lab
names what the value must be the way NVUE's `?` describes a value (NVUE CLI, "Command Question
Mark": `<arg> (integer:552 - 9216)`).
"""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import time
from typing import Any

import yaml

import fabricctl.lab.devices.nvue.linux as linux
import fabricctl.lab.devices.nvue.revisions as revisions
import fabricctl.lab.devices.nvue.show as show
from fabricctl.lab.device import LabDevice
from fabricctl.lab.devices.nvue.revisions import RevisionError
from fabricctl.lab.devices.nvue.tree import Tree, diff, dump_yaml, header, set_path, unset_path
from fabricctl.lab.dialect import CliError, CliSession, Disconnect, Logout, Output, Reboot, command, matching
from fabricctl.lab.grammar import Grammar, Rule
from fabricctl.lab.runtime import lab_credentials
from fabricctl.lab.view import View

#: NVUE fills in an interface's `type` from a well-known name (NVUE API: a PATCH of
#: `{'interface': {'swp1': {}}}` answers `{'interface': {'swp1': {'type': 'swp'}}}`).
AUTO_TYPE = (("swp", "swp"), ("lo", "loopback"), ("vlan", "svi"), ("eth", "eth"), ("bond", "bond"))
_OUTPUT = re.compile(r"^(?:-o|--output)(?:=|$)")


class NvueError(Exception):
    """An `nv` command NVUE refuses; the text is what it prints."""


def validate(grammar: Grammar, words: list[str], negated: bool) -> Rule | None:
    """The reference entry a `nv set` path fills (None for an `nv unset` of a leading part);
    NvueError when no entry takes the path."""
    mode = grammar.root
    if not words:
        raise NvueError("Error: Incomplete Command: a path is required")
    rule = grammar.find(mode, words)
    if rule is not None:
        return rule
    if negated and any(r.depth(words)[1] == len(words) for r in grammar.modes[mode].rules):
        return None
    at = grammar.error_at(mode, words)
    expected = _expected(grammar, words, at)
    if expected and (grammar.out_of_range(mode, words, at) or at == len(words) - 1):
        raise NvueError(f"Error: Invalid value {words[at]!r} for {' '.join(words[:at])}: expected {expected}")
    raise NvueError(f"Error: Invalid Command: {'unset' if negated else 'set'} {' '.join(words)}")


def _expected(grammar: Grammar, words: list[str], at: int) -> str:
    """What the value at `at` must be, as NVUE's `?` describes it (`<arg> (integer:552 - 9216)`,
    an enum's members); "" when no path takes a value there (the path itself is unknown)."""
    kinds: dict[str, None] = {}
    for rule in grammar.modes[grammar.root].rules:
        specs = rule.pattern.split()
        if rule.key is None or at != rule.key or len(specs) <= at or rule.depth(words)[1] != at:
            continue
        for alt in specs[at].strip("{}").split("|"):
            m = re.fullmatch(r"<int:(\d+)-(\d+)>", alt)
            kinds[f"integer:{m[1]} - {m[2]}" if m else ("string" if alt.startswith("<") else alt)] = None
    words_only = [k for k in kinds if not k.startswith(("integer", "string"))]
    typed = [k for k in kinds if k.startswith(("integer", "string"))]
    parts = typed + ([f"enum:{', '.join(words_only)}"] if words_only else [])
    return f"<arg> ({' | '.join(parts)})" if parts else ""


def stage(grammar: Grammar, tree: Tree, words: list[str], negated: bool) -> None:
    """One `nv set` / `nv unset` (or a line of a patch) applied to a revision's tree."""
    rule = validate(grammar, words, negated)
    if negated:
        unset_path(tree, words)
        return
    assert rule is not None
    if rule.resets == ("*",) and rule.key is not None:  # an object with one member: `state: up: {}`
        set_path(tree, words[: rule.key], None)
        parent = tree
        for word in words[: rule.key - 1]:
            parent = parent[word]
        parent[words[rule.key - 1]] = {" ".join(words[rule.key :]): {}}
    else:
        set_path(tree, words, rule.key)
    if words[0] == "interface" and len(words) >= 2:
        body = tree["interface"][words[1]]
        kind = next((k for prefix, k in AUTO_TYPE if words[1].startswith(prefix)), None)
        if isinstance(body, dict) and kind is not None:
            body.setdefault("type", kind)


def commands(sets: Tree, unsets: Tree) -> list[str]:
    """`nv config diff -o commands`: the set / unset lines a diff stands for."""
    out: list[str] = []

    def walk(node: Tree, path: list[str], negate: bool) -> None:
        for key, value in node.items():
            here = [*path, key]
            if negate and value is None:
                out.append("nv unset " + " ".join(shlex.quote(w) for w in here))
            elif isinstance(value, dict) and value:
                walk(value, here, negate)
            elif isinstance(value, dict):
                out.append("nv set " + " ".join(shlex.quote(w) for w in here))
            elif not negate:
                out.append("nv set " + " ".join(shlex.quote(w) for w in [*here, value]))

    walk(unsets, [], True)
    walk(sets, [], False)
    return out


#: `nv action reboot system mode <mode>` (Cumulus Linux 5.17, System Power and Switch Reboot).
REBOOT_MODES = ("cold", "fast", "warm", "immediate", "power-cycle")


class NvueCli(CliSession):
    """One login shell on the switch."""

    SHOWS = tuple(linux.SHOWS)  # the Linux shell's own commands: iproute2, arp, vtysh
    SHOW_MODES = "bash"
    OUTPUT_FILTERS = {"grep": matching}  # its shell's `command | grep REGEX`

    def __init__(self, dev: LabDevice) -> None:
        super().__init__(dev)
        self.user = lab_credentials()[0]
        self.root = False  # after `sudo su`: a root shell (scrapli's configuration privilege)

    @property
    def mode(self) -> str:
        return "password" if self.hide_input else "bash"

    def prompt(self) -> str:
        if self.question is not None:
            return self.question.text
        if self.hide_input:
            return f"[sudo] password for {self.user}: "
        host = self.dev.facts().hostname
        return f"root@{host}:mgmt:/home/{self.user}# " if self.root else f"{self.user}@{host}:mgmt:~$ "

    async def execute(self, line: str, as_json: bool = False) -> Output:
        if self.hide_input:  # the password `sudo` asked for: the lab login's
            self.hide_input = False
            if line.strip() != lab_credentials()[1]:
                raise CliError("sudo: 1 incorrect password attempt")
            self.root = True
            return ""
        return await super().execute(line, as_json)

    @command(r"sudo (?:su|-s|-i)", "bash")
    async def _sudo(self, m: re.Match[str], as_json: bool) -> Output:
        """A root shell, as scrapli's cumulus_linux driver asks for one to configure (`nv`
        commands need no root; the shell only changes its prompt)."""
        if not self.root:
            self.hide_input = True
        return ""

    def banner(self) -> str:
        return "Linux cumulus 6.1.0-cl-1-amd64 x86_64\r\nLast login: lab\r\n"

    def invalid(
        self, line: str, words: list[str], index: int, prompt: str, out_of_range: bool = False
    ) -> CliError:
        return CliError(f"-bash: {words[0] if words else ''}: command not found")

    async def config_line(self, line: str) -> None:  # no config mode: `nv set` is a command
        raise CliError(f"-bash: {line.split()[0]}: command not found")

    @command(r"date(?: -u)?(?: \+%s)?", "bash")
    async def _date(self, m: re.Match[str], as_json: bool) -> Output:
        """coreutils `date` of the Debian system under NVUE, on the lab's clock."""
        now = self.dev.clock.calendar()
        if m[0].endswith("+%s"):
            return str(int(now))
        return time.strftime("%a %b %d %H:%M:%S UTC %Y", time.gmtime(now))

    @command(r"exit|logout", "bash")
    async def _exit(self, m: re.Match[str], as_json: bool) -> Output:
        if self.root:  # leaves the root shell, back to the login's
            self.root = False
            return ""
        raise Logout()

    @command(r"nv(?: (.*))?", "bash")
    async def _nv(self, m: re.Match[str], as_json: bool) -> Output:
        try:
            words = shlex.split(m[1] or "")
        except ValueError as exc:
            raise CliError(f"Error: {exc}") from None
        if words[:3] == ["action", "reboot", "system"]:
            return self._reboot(words[3:])
        try:
            await self._faults(words)
            return run_nv(self.dev, words, self.user, "CLI")
        except (NvueError, RevisionError) as exc:
            raise CliError(str(exc) if str(exc).startswith("Error") else f"Error: {exc}") from None

    def _reboot(self, args: list[str]) -> Output:
        """`nv action reboot system [mode cold|fast|warm|immediate|power-cycle] [force]`: asks to continue
        unless `force`, then the switch restarts from its startup configuration (Cumulus Linux
        5.17 user guide, System Power and Switch Reboot; the lab restarts every mode alike)."""
        force = args[-1:] == ["force"]
        rest = args[:-1] if force else args
        if rest and (len(rest) != 2 or rest[0] != "mode" or rest[1] not in REBOOT_MODES):
            raise CliError(f"Error: Invalid Command: action reboot system {' '.join(args)}")

        def down() -> Output:
            self.dev.reboot()
            raise Reboot("Action executing ...\nAction succeeded")

        async def answered(answer: str) -> Output:
            if answer in ("y", "yes"):
                return down()
            return "Action canceled"

        return down() if force else self.ask("\nDo you want to continue? [y/N] ", answered)

    async def _faults(self, words: list[str]) -> None:
        """The lab's device faults, as on the other twins: on each staged line (latency, a
        dropped session, a refused line) and on an apply (it fails, or never answers)."""
        faults = self.dev.faults
        if words[:1] in (["set"], ["unset"]):
            if faults.config_latency:
                await self.dev.clock.sleep(faults.config_latency)
                if self.gone():
                    raise Disconnect()
            if faults.disconnect_after is not None and self.config_lines >= faults.disconnect_after:
                raise Disconnect()
            self.config_lines += 1
            if faults.reject and re.search(faults.reject, " ".join(words[1:])):
                raise NvueError(f"Error: Invalid Command: {' '.join(words)}")
        elif words[:2] == ["config", "apply"] and not any(w.startswith("--confirm-") for w in words):
            if faults.hang_on_commit:
                await asyncio.Event().wait()  # never answers, like a wedged nvued
            if faults.commit_failure:
                raise NvueError(
                    "Error: Config apply failed: the configuration could not be applied (lab fault)"
                )


def _options(words: list[str]) -> tuple[list[str], dict[str, str | bool]]:
    """Split `nv` words into positional words and options (`-o json`, `--confirm 60s`, `-y`)."""
    takes_value = {"-o", "--output", "-r", "--rev", "-m", "--message"}
    optional_value = {"--confirm"}
    pos: list[str] = []
    opts: dict[str, str | bool] = {}
    i = 0
    while i < len(words):
        w = words[i]
        if w.startswith("-") and w != "-":
            name, _, value = w.partition("=")
            if value:
                opts[name] = value
            elif (name in takes_value and i + 1 < len(words)) or (
                name in optional_value and i + 1 < len(words) and not words[i + 1].startswith("-")
            ):
                opts[name] = words[i + 1]
                i += 1
            else:
                opts[name] = True
        else:
            pos.append(w)
        i += 1
    return pos, opts


def _format(data: Any, opts: dict[str, str | bool]) -> str:
    fmt = opts.get("-o", opts.get("--output", "auto"))
    if fmt == "json":
        return json.dumps(data, indent=2, sort_keys=True)
    return str(yaml.safe_dump(data, default_flow_style=False, sort_keys=True)).rstrip("\n")


def run_nv(dev: LabDevice, words: list[str], user: str, how: str) -> Output:
    """One `nv ...` command line (without `nv`), as the CLI runs it."""
    grammar = dev.grammar
    pos, opts = _options(words)
    if not pos:
        raise NvueError("Error: Incomplete Command: nv <set|unset|show|config|action>")
    verb, rest = pos[0], pos[1:]
    if verb in ("set", "unset"):
        rev = revisions.cli_pending(dev, user=user)
        assert rev is not None
        stage(grammar, rev.config, words[1:], verb == "unset")
        return ""
    if verb == "show":
        source: Tree | None = None
        if opts.get("--pending"):
            source = revisions.named(dev, "pending")
        elif isinstance(opts.get("--rev"), str):
            source = revisions.named(dev, str(opts["--rev"]))
        elif opts.get("--applied"):
            source = revisions.applied(dev)
        data = show.answer(View(dev), rest, source)
        if data is None:
            raise NvueError(f"Error: The requested item does not exist: {' '.join(rest)}")
        if rest == ["platform"] and opts.get("-o", opts.get("--output", "auto")) == "auto":
            return show.operational_table(data)  # NVIDIA's example layout
        return _format(data, opts)
    if verb == "config" and rest:
        return _config(dev, rest[0], rest[1:], opts, user, how)
    raise NvueError(f"Error: Invalid Command: {' '.join(pos)}")


def _config(
    dev: LabDevice, sub: str, args: list[str], opts: dict[str, str | bool], user: str, how: str
) -> Output:
    if sub == "apply":
        if opts.get("--confirm-status"):
            left = revisions.seconds_left(dev)
            return "No confirm pending" if left is None else f"Confirm timeout remaining: {int(left)}s"
        if opts.get("--confirm-yes"):
            return f"applied [rev_id: {revisions.confirm_apply(dev)}]"
        if opts.get("--confirm-no"):
            return f"rolled back [rev_id: {revisions.roll_back(dev)}]"
        if opts.get("--assume-no"):
            return "Aborted apply"
        confirm = opts.get("--confirm")
        seconds = None
        if confirm is True:
            seconds = revisions.DEFAULT_CONFIRM
        elif isinstance(confirm, str):
            seconds = revisions.confirm_seconds(confirm)
        if args:
            rev = _apply_target(dev, args[0])
        else:
            pending = revisions.cli_pending(dev, create=False)
            if pending is None or pending.config == revisions.applied(dev):
                if pending is not None:
                    revisions.detach(dev)
                return "Warning: Nothing to apply."
            rev = pending
        message = opts.get("-m", opts.get("--message", ""))
        revisions.apply(dev, rev, seconds, user, how, message if isinstance(message, str) else "")
        return f"applied [rev_id: {rev.id}]"
    if sub == "diff":
        old, new = (
            ("applied", args[0]) if len(args) == 1 else (args[0], args[1]) if args else ("applied", "pending")
        )
        sets, unsets = diff(revisions.named(dev, old), revisions.named(dev, new))
        if opts.get("-o") == "commands" or opts.get("--output") == "commands":
            return "\n".join(commands(sets, unsets))
        sections = ([{"unset": unsets}] if unsets else []) + ([{"set": sets}] if sets else [])
        return dump_yaml(sections).rstrip("\n")
    if sub == "show":
        name = opts.get("-r", opts.get("--rev", "applied"))
        tree = revisions.named(dev, str(name))
        fmt = opts.get("-o", opts.get("--output", "yaml"))
        if fmt == "json":
            return json.dumps([{"header": header(dev.spec.model)}, {"set": tree}], indent=2)
        if fmt == "commands":
            return "\n".join(commands(tree, {}))
        return dump_yaml([{"header": header(dev.spec.model)}, {"set": tree}]).rstrip("\n")
    if sub == "detach":
        revisions.detach(dev)
        return ""
    if sub == "save":
        dev.save()
        return "saved [rev_id: applied]"
    if sub in ("history", "revision"):
        st = revisions.state_of(dev)
        if sub == "history":
            rows = [
                f"{h['rev']:<6}  {h['date']}  {h['user']:<10}  {h['type']:<8}  {h['message']}"
                for h in st.history
            ]
            return "\n".join(["Rev ID  Apply Date           User        Type      Message", *rows])
        return revisions.revision_table(dev)
    raise NvueError(f"Error: Invalid Command: config {sub}")


def _apply_target(dev: LabDevice, name: str) -> revisions.Revision:
    """`nv config apply <revision>`: a numbered revision, or startup / empty as a new one."""
    if name.isdigit():
        return revisions.revision(dev, name)
    rev = revisions.new_revision(dev)
    rev.config = revisions.named(dev, name)
    return rev
