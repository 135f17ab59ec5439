"""Hierarchical config tree and its rendering in EOS / Comware running-config style.

Order rule (documented in docs/lab.md): children keep insertion order. Factory lines come
first in factory order; a new line is appended to the end of its parent; a line replacing a
last-value-wins setting (same key) takes the position of the line it replaces. This is
roughly what real devices do for blocks, and it is deterministic.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

EOS_VERSION = "4.31.2F"
COMWARE_VERSION = "7.1.070, Release 6710"


@dataclass
class Node:
    """One config line; `block` marks lines that open a mode (even with no children)."""

    text: str
    block: bool = False
    children: dict[str, Node] = field(default_factory=dict)

    def copy(self) -> Node:
        """Deep copy (sessions and commit-confirm snapshots must not share nodes)."""
        return Node(self.text, self.block, {k: v.copy() for k, v in self.children.items()})

    def replace_contents(self, other: Node) -> None:
        """Swap in another tree's children, keeping this root object (editors hold it)."""
        self.children = other.copy().children


def _eos_lines(node: Node, depth: int, out: list[str]) -> None:
    pad = "   " * depth
    for child in node.children.values():
        out.append(pad + child.text)
        if child.children:
            _eos_lines(child, depth + 1, out)
            if depth >= 1:
                out.append(pad + "!")


def render_eos(root: Node, hostname: str, model: str) -> str:
    """`show running-config` text: `!` separators, 3-space indent, `end`."""
    out = [
        "! Command: show running-config",
        f"! device: {hostname} (DCS-{model}, EOS-{EOS_VERSION})",
        "!",
        f"! boot system flash:/EOS-{EOS_VERSION}.swi",
        "!",
    ]
    prev_block = True
    for child in root.children.values():
        if child.block and not prev_block:
            out.append("!")
        out.append(child.text)
        if child.children:
            _eos_lines(child, 1, out)
        if child.block:
            out.append("!")
        prev_block = child.block
    if not prev_block:
        out.append("!")
    out.append("end")
    return "\n".join(out) + "\n"


def _cw_lines(node: Node, depth: int, out: list[str]) -> None:
    pad = " " * depth
    for child in node.children.values():
        if child.block:
            out.append(pad + "#")
        out.append(pad + child.text)
        if child.children:
            _cw_lines(child, depth + 1, out)


def render_comware(root: Node) -> str:
    """`display current-configuration` text: `#` separators, 1-space indent, `return`.

    Global one-line commands are shown indented by one space, blocks at column 0.
    """
    out = ["#", f" version {COMWARE_VERSION}"]
    prev_block = True
    for child in root.children.values():
        if child.block or prev_block:
            out.append("#")
        if child.block:
            out.append(child.text)
            _cw_lines(child, 1, out)
        else:
            out.append(" " + child.text)
        prev_block = child.block
    out.extend(["#", "return"])
    return "\n".join(out) + "\n"


def unified_diff(old: str, new: str, old_name: str, new_name: str) -> str:
    """EOS-style session diff (`--- system:/running-config` / `+++ session:/...`)."""
    lines = difflib.unified_diff(
        old.splitlines(), new.splitlines(), fromfile=old_name, tofile=new_name, lineterm=""
    )
    return "\n".join(lines) + "\n" if old != new else ""
