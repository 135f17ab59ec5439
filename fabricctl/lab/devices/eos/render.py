"""EOS's `show running-config`: top-level sections in EOS's own fixed order whatever order they
were entered in (`EOS_SECTIONS`, the order of Arista's renderer, pyavd eos_cli_config_gen, checked
in tests/lab/test_ordering.py): VLANs by number, VRFs by name, interfaces type by type and by
number; `!` between sections, 3-space indent, `end`."""

from __future__ import annotations

import re
from functools import lru_cache

from fabricctl.lab.config_tree import Node
from fabricctl.lab.devices.eos.names import INTERFACE_TYPES
from fabricctl.lab.names import interface_order

EOS_VERSION = "4.31.2F"


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
    "group bgp",
    "management api http-commands",
    "interface",
    "ip virtual-router mac-address",
    "ip access-list",
    "ip routing",
    "maintenance",
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
        return rank, interface_order(INTERFACE_TYPES, words[1])
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
