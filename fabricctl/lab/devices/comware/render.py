"""Comware's `display current-configuration`: `#` separators, 1-space indent, `return`."""

from __future__ import annotations

from fabricctl.lab.config_tree import Node

COMWARE_VERSION = "7.1.070, Release 6710"


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
