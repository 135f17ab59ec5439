"""Hierarchical config tree and its rendering in EOS / Comware running-config style.

Order rule (documented in docs/lab.md): children keep insertion order. Factory lines come
first in factory order; a new line is appended to the end of its parent; a line replacing a
last-value-wins setting (same key) takes the position of the line it replaces. EOS prints its
top-level sections in its own fixed order whatever order they were entered in (`EOS_SECTIONS`,
the order of Arista's renderer, pyavd eos_cli_config_gen, checked in tests/lab/test_ordering.py):
VLANs by number, VRFs by name, interfaces type by type and by number.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from functools import lru_cache

from fabricctl.lab.names import interface_order

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


#: EOS's top-level sections in the order `show running-config` prints them (a line belongs to
#: the first section whose words it starts with).
EOS_SECTIONS = (
    "username",
    "service routing protocols model",
    "logging",
    "hostname",
    "qos profile",
    "snmp-server",
    "vlan",
    "vrf instance",
    "management api http-commands",
    "interface",
    "ip virtual-router mac-address",
    "ip access-list",
    "ip routing",
    "ip route",
    "ntp",
    "qos map",
    "priority-flow-control",
    "router bgp",
)


def _natural(text: str) -> tuple[object, ...]:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text))


_SECTION_WORDS = tuple((i, head.split()) for i, head in enumerate(EOS_SECTIONS))


@lru_cache(maxsize=1 << 16)  # a config renders after every line it takes: its lines repeat
def eos_order(text: str) -> tuple[int, object]:
    """Where EOS prints a top-level line: its section, then its place inside the section."""
    words = text.split()
    if words[0] == "no":
        words = words[1:]
    rank = next((i for i, head in _SECTION_WORDS if words[: len(head)] == head), len(EOS_SECTIONS))
    head = EOS_SECTIONS[rank] if rank < len(EOS_SECTIONS) else ""
    if head == "interface" and len(words) > 1:
        return rank, interface_order("eos", words[1])
    if head in ("vlan", "vrf instance", "ip routing"):
        return rank, _natural(" ".join(words))
    return rank, ()  # the rest keep the order they were entered in (a stable sort)


def render_eos(root: Node, hostname: str, model: str) -> str:
    """`show running-config` text: sections in EOS's order, `!` between them, 3-space indent, `end`."""
    out = [
        "! Command: show running-config",
        f"! device: {hostname} (DCS-{model}, EOS-{EOS_VERSION})",
        "!",
        f"! boot system flash:/EOS-{EOS_VERSION}.swi",
        "!",
    ]
    prev: tuple[bool, int] | None = None  # (block, section) of the line before
    for order, child in sorted(((eos_order(c.text), c) for c in root.children.values()), key=lambda x: x[0]):
        section = order[0]
        if prev is not None and not prev[0] and (child.block or section != prev[1]):
            out.append("!")
        out.append(child.text)
        if child.children:
            _eos_lines(child, 1, out)
        if child.block:
            out.append("!")
        prev = (child.block, section)
    if prev is not None and not prev[0]:
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
