"""A SONiC switch's plan: the JSON Patch of CONFIG_DB's owned rows and fields (patch.py) and the
frr.conf lines to add or remove with vtysh, as the commands the push sends (`Platform.differ`'s
shape: config/diff.py `Differ`).

The commands are the shell's: the patch written to a file (`echo '<patch>' > PATCH_FILE`), the
Generic Config Updater applying it (`sudo config apply-patch PATCH_FILE`), then one `vtysh -c
'configure terminal' -c ...` with FRR's lines, each under the lines of the blocks it sits in
(FRR user guide, vtysh.html: a command per `-c`, run in order). What fabricctl owns of frr.conf: the
default instance (`router bgp <asn>`), its tenant VRFs' instances (`router bgp <asn> vrf Vrf-...`)
and their `vrf Vrf-...` blocks; a line of its own in such a block that the intent lacks is removed
(`no <line>`); a block of another shape is never touched. Other top-level lines the intent holds
(`hostname`) are set, never removed.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field

from fabricctl.config.diff import DeviceDiff
from fabricctl.config.rules import Dialect
from fabricctl.platforms.sonic.document import split
from fabricctl.platforms.sonic.patch import Op, json_patch
from fabricctl.platforms.sonic.rules import OWNED
from fabricctl.platforms.sonic.switch import VRF_PREFIX

#: Where the push writes the patch before applying it.
PATCH_FILE = "/tmp/fabricctl-patch.json"
_CLOSERS = frozenset({"exit", "exit-address-family", "exit-vni", "exit-vrf", "!", "end"})
_OWNED = re.compile(
    "|".join(
        [*OWNED, rf"router bgp \d+ vrf {re.escape(VRF_PREFIX)}\S+$", rf"vrf {re.escape(VRF_PREFIX)}\S+$"]
    )
)


@dataclass
class Block:
    """One frr.conf line and the lines nested under it (by indentation)."""

    text: str
    children: dict[str, Block] = field(default_factory=dict)


def frr_tree(text: str) -> Block:
    """frr.conf text -> its lines nested by indentation, the closing lines dropped."""
    top = Block("")
    stack: list[tuple[int, Block]] = [(-1, top)]
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped or stripped in _CLOSERS:
            continue
        depth = len(raw) - len(raw.lstrip(" "))
        while stack[-1][0] >= depth:
            stack.pop()
        here = stack[-1][1].children.setdefault(stripped, Block(stripped))
        stack.append((depth, here))
    return top


def _walk(have: Block, want: Block, path: list[str], out: list[tuple[str, list[str], str]]) -> None:
    """(+/-, the blocks' lines, the line) for every line under `want`/`have` that differs."""
    for text in have.children:
        if text not in want.children:
            out.append(("-", path, text))
    for text, block in want.children.items():
        mine = have.children.get(text)
        if mine is None:
            out.append(("+", path, text))
            mine = Block(text)
        _walk(mine, block, [*path, text], out)


def frr_changes(running: str, intended: str) -> list[tuple[str, list[str], str]]:
    """The FRR lines to remove ('-') and add ('+'), each with the lines of its blocks."""
    have, want = frr_tree(running), frr_tree(intended)
    out: list[tuple[str, list[str], str]] = []
    for text in have.children:
        if _OWNED.match(text) and text not in want.children:
            out.append(("-", [], text))
    for text, block in want.children.items():
        mine = have.children.get(text)
        if mine is None:
            out.append(("+", [], text))
            mine = Block(text)
        if _OWNED.match(text) or not block.children:
            _walk(mine, block, [text], out)
    return out


def _vtysh(changes: list[tuple[str, list[str], str]]) -> str:
    lines = ["configure terminal"]
    for sign, path, text in changes:
        lines += ["end", "configure terminal", *path] if path else ["end", "configure terminal"]
        lines.append(text if sign == "+" else f"no {text}")
    return "vtysh " + " ".join(f"-c {shlex.quote(line)}" for line in lines)


def _patch_line(op: Op) -> str:
    value = f" {json.dumps(op['value'], sort_keys=True)}" if "value" in op else ""
    return f"{'-' if op['op'] == 'remove' else '+'} {op['op']} {op['path']}{value}"


def sonic_diff(
    name: str, running_text: str, intended_text: str, dialect: Dialect, prune: bool = False
) -> DeviceDiff:
    """Everything `plan` needs for one SONiC switch (`prune` changes nothing: a row is owned by
    the intent or the fabric's mark, patch.py)."""
    db, frr, _ = split(name, running_text)
    want_db, want_frr, _ = split(name, intended_text)
    ops = json_patch(db, want_db, dialect.mark or "")
    changes = frr_changes(frr, want_frr)
    commands: list[str] = []
    if ops:
        text = json.dumps(ops, sort_keys=True).replace("'", "'\\''")
        commands += [f"echo '{text}' > {PATCH_FILE}", f"sudo config apply-patch {PATCH_FILE}"]
    if changes:
        commands.append(_vtysh(changes))
    body = [_patch_line(op) for op in ops]
    body += [f"{sign} {' > '.join([*path, text])}" for sign, path, text in changes]
    header = [f"--- {name} running (owned scope)", f"+++ {name} intended"] if body else []
    removed = sum(1 for op in ops if op["op"] == "remove") + sum(1 for c in changes if c[0] == "-")
    return DeviceDiff(
        commands,
        "\n".join(header + body),
        len(body) - removed,
        removed,
        intended_text=intended_text,
        dialect=dialect,
    )
