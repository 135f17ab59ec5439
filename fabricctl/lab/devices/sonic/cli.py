"""A login to SONiC: the admin's shell with sonic-utilities' `show` and `config` commands and
FRR's `vtysh` (sonic-utilities doc/Command-Reference.md: "Show Commands", "Config Commands",
"Generic Config Update and Rollback"; FRRouting vtysh.html). A file is written as the shell does
(`echo '<text>' > <path>`); `config apply-patch <path>` applies a JSON Patch through the Generic
Config Updater's checks (commit.py), `config checkpoint <name>` / `config rollback <name>` keep
and restore CONFIG_DB whole, `config save -y` makes it the startup config."""

from __future__ import annotations

import json
import re
import shlex

from fabricctl.lab.config_tree import Node
from fabricctl.lab.dialect import CliError, CliSession, Output, command
from fabricctl.lab.grammar import Rule
from fabricctl.lab.view import View

from .commit import PatchError, simulate, validate
from .render import FRR, db_of, frr_lines, parse, set_db
from .show import (
    bgp_summary,
    frr_running,
    interfaces_counters,
    interfaces_status,
    lldp_table,
    pfc_counters,
    queue_counters,
    version,
)

#: Where `config checkpoint` keeps a checkpoint (GCU: /etc/sonic/checkpoints/<name>.cp.json).
CHECKPOINT = "{}.cp.json"
#: The startup CONFIG_DB `config save -y` writes (sonic-utilities Command-Reference "config save").
STARTUP = "/etc/sonic/config_db.json"
FRR_STARTUP = "/etc/sonic/frr/frr.conf"
_USAGE = 'Usage: config {0} [OPTIONS] {1}\nTry "config {0} -h" for help.\n\nError: {2}'


def _file(path: str) -> str:
    """A shell path as the flash file the lab keeps it in."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", path).lstrip("_.-")
    if not name:
        raise CliError(f"bash: {path}: No such file or directory")
    return name[:64]


class SonicCli(CliSession):
    @property
    def mode(self) -> str:
        return "exec"

    def prompt(self) -> str:
        return f"admin@{self.dev.name}:~$ "

    def invalid(
        self, line: str, words: list[str], index: int, prompt: str, out_of_range: bool = False
    ) -> CliError:
        return CliError(f"-bash: {words[0] if words else line}: command not found")

    async def config_line(self, line: str) -> None:
        raise CliError(f"-bash: {line.split()[0]}: command not found")

    @command(r"echo (?P<text>'.*') > (?P<path>\S+)", "exec")
    async def _write(self, m: re.Match[str], as_json: bool) -> Output:
        self.dev.write_file(_file(m["path"]), shlex.split(m["text"])[0] + "\n")
        return ""

    @command(r"cat (?P<paths>\S+(?: \S+)*)", "exec")
    async def _cat(self, m: re.Match[str], as_json: bool) -> Output:
        """Each file in turn: the startup CONFIG_DB, the frr.conf `vtysh -c "write memory"` saved
        (split-unified: the host's /etc/sonic/frr is the FRR container's /etc/frr), a file."""
        return "\n".join(self._file_text(path) for path in m["paths"].split())

    def _file_text(self, path: str) -> str:
        if path == STARTUP:
            return json.dumps(db_of(parse(self.dev.startup)), indent=4, sort_keys=True)
        if path == FRR_STARTUP:
            return "\n".join(frr_lines(parse(self.dev.startup)))
        text = self.dev.files.get(_file(path))
        if text is None:
            raise CliError(f"cat: {path}: No such file or directory")
        return text

    @command(r"sudo sonic-cfggen -d --print-data|sonic-cfggen -d --print-data", "exec")
    async def _cfggen(self, m: re.Match[str], as_json: bool) -> Output:
        """sonic-cfggen's dump of CONFIG_DB (`-d`: from the database), what `show
        runningconfiguration all` runs (sonic-utilities show/main.py)."""
        return json.dumps(db_of(self.dev.running), indent=4, sort_keys=True)

    @command(r"show runningconfiguration all", "exec")
    async def _running(self, m: re.Match[str], as_json: bool) -> Output:
        """sonic-cfggen's CONFIG_DB with FRR's running config under `bgpraw` (sonic-utilities
        show/main.py `all`: `output['bgpraw']` is `vtysh -c 'show running-config'` on a single-ASIC
        switch), indented by four, in the order it was read."""
        out = json.loads(json.dumps(db_of(self.dev.running), sort_keys=True))
        out["bgpraw"] = frr_running(self.dev.running)
        return json.dumps(out, indent=4)

    @command(r"sudo config apply-patch (?P<path>\S+)|config apply-patch (?P<path2>\S+)", "exec")
    async def _apply_patch(self, m: re.Match[str], as_json: bool) -> Output:
        path = m["path"] or m["path2"]
        text = self.dev.files.get(_file(path))
        if text is None:
            raise CliError(_USAGE.format("apply-patch", "PATCH_FILE_PATH", f"Path '{path}' does not exist."))
        log = [
            "Patch Applier: localhost: Patch application starting.",
            f"Patch Applier: localhost: Patch: {text.strip()}",
        ]
        try:
            patch = json.loads(text)
            if not isinstance(patch, list):
                raise PatchError("a JSON Patch is a list of operations")
            target = simulate(db_of(self.dev.running), patch)
            validate(self.dev.grammar, patch, target)
        except (PatchError, json.JSONDecodeError) as exc:
            raise CliError(
                "\n".join(
                    [*log, "Failed to apply patch", _USAGE.format("apply-patch", "PATCH_FILE_PATH", exc)]
                )
            ) from None
        tree = self.dev.running.copy()
        set_db(tree, target)
        self.dev.set_running(tree)
        return "\n".join(
            [*log, "Patch Applier: localhost: Patch application completed.", "Patch applied successfully."]
        )

    @command(
        r"sudo config checkpoint (?P<name>[A-Za-z0-9._-]+)|config checkpoint (?P<name2>[A-Za-z0-9._-]+)",
        "exec",
    )
    async def _checkpoint(self, m: re.Match[str], as_json: bool) -> Output:
        name = m["name"] or m["name2"]
        self.dev.write_file(CHECKPOINT.format(name), json.dumps(db_of(self.dev.running), sort_keys=True))
        return "\n".join(
            [
                "Config Checkpoint: Config checkpoint starting.",
                f"Config Checkpoint: Checkpoint name: {name}.",
                "Checkpoint created successfully.",
            ]
        )

    @command(
        r"sudo config rollback (?P<name>[A-Za-z0-9._-]+)|config rollback (?P<name2>[A-Za-z0-9._-]+)", "exec"
    )
    async def _rollback(self, m: re.Match[str], as_json: bool) -> Output:
        name = m["name"] or m["name2"]
        text = self.dev.files.get(CHECKPOINT.format(name))
        if text is None:
            raise CliError(
                _USAGE.format("rollback", "CHECKPOINT_NAME", f"Checkpoint '{name}' does not exist.")
            )
        tree = self.dev.running.copy()
        set_db(tree, json.loads(text))
        self.dev.set_running(tree)
        return "Config Rollbacker: Config rollback starting.\nRollback completed successfully."

    @command(r"sudo config save -y|config save -y", "exec")
    async def _save(self, m: re.Match[str], as_json: bool) -> Output:
        self.dev.save()
        return "Running command: /usr/local/bin/sonic-cfggen -d --print-data > /etc/sonic/config_db.json"

    @command(r"show version", "exec")
    async def _version(self, m: re.Match[str], as_json: bool) -> Output:
        return version(View(self.dev))

    @command(r"show interfaces status", "exec")
    async def _status(self, m: re.Match[str], as_json: bool) -> Output:
        return interfaces_status(View(self.dev))

    @command(r"show interfaces counters", "exec")
    async def _counters(self, m: re.Match[str], as_json: bool) -> Output:
        return interfaces_counters(View(self.dev))

    @command(r"show pfc counters", "exec")
    async def _pfc(self, m: re.Match[str], as_json: bool) -> Output:
        return pfc_counters(View(self.dev))

    @command(r"show queue counters --json", "exec")
    async def _queues(self, m: re.Match[str], as_json: bool) -> Output:
        return json.dumps(queue_counters(View(self.dev)), indent=4, sort_keys=True)

    @command(r"date -u \+%s", "exec")
    async def _date(self, m: re.Match[str], as_json: bool) -> Output:
        return str(int(self.dev.clock.now()))

    @command(r"show lldp table", "exec")
    async def _lldp(self, m: re.Match[str], as_json: bool) -> Output:
        return lldp_table(View(self.dev))

    @command(r"vtysh (?P<args>-c .+)", "exec")
    async def _vtysh(self, m: re.Match[str], as_json: bool) -> Output:
        words = shlex.split(m["args"])
        if len(words) % 2 or any(w != "-c" for w in words[::2]):
            raise CliError("vtysh: each command follows -c")
        lines = words[1::2]
        if lines[0] in ("configure terminal", "conf t"):
            self._frr_config(lines[1:])
            return ""
        if len(lines) != 1:
            raise CliError("% Unknown command")
        if lines[0] == "show running-config":
            return frr_running(self.dev.running)
        if lines[0] in ("show bgp summary json", "show ip bgp summary json"):
            return json.dumps(bgp_summary(View(self.dev)), indent=2)
        if lines[0] == "write memory":
            self.dev.save()
            return "Building Configuration...\nIntegrated configuration saved to /etc/frr/frr.conf\n[OK]"
        raise CliError("% Unknown command: " + lines[0])

    def _frr_config(self, lines: list[str]) -> None:
        """vtysh's config node stack: each line checked against its node's commands; `no <line>`
        removes it (with its block); `exit`/`end` leave nodes. vtysh stops at a line it refuses:
        the lines before it stay applied."""
        tree = self.dev.running.copy()
        frr = tree.children[FRR]
        stack: list[tuple[str, Node]] = [("frr", frr)]
        for line in lines:
            words = line.split()
            if words in (["exit"], ["exit-address-family"], ["exit-vni"], ["exit-vrf"]):
                if len(stack) > 1:
                    stack.pop()
                continue
            if words in (["end"], ["configure", "terminal"]):
                stack = stack[:1]
                continue
            negate = words[:1] == ["no"] and _rule(self, stack[-1][0], words) is None
            body = words[1:] if negate else words
            rule = _rule(self, stack[-1][0], body)
            while rule is None and len(stack) > 1:
                stack.pop()
                rule = _rule(self, stack[-1][0], body)
            if rule is None:
                self.dev.set_running(tree)
                raise CliError(f"% Unknown command: {line}")
            node = stack[-1][1]
            text = " ".join(body)
            if negate:
                node.children.pop(text, None)
                continue
            child = node.children.setdefault(text, Node(text, block=rule.child is not None))
            if rule.child is not None:
                stack.append((rule.child, child))
        self.dev.set_running(tree)


def _rule(cli: SonicCli, view: str, words: list[str]) -> Rule | None:
    grammar = cli.dev.grammar
    found = grammar.find(view, words)
    for cut in range(len(words) - 1, 0, -1):
        if found is not None:
            break
        found = grammar.find(view, [*words[:cut], " ".join(words[cut:])])
    return found
