"""Hierarchical config tree; each NOS renders it in its own style (lab/devices/<nos>/render.py).

Order rule (documented in docs/lab.md): children keep insertion order. Factory lines come
first in factory order; a new line is appended to the end of its parent; a line replacing a
last-value-wins setting (same key) takes the position of the line it replaces. A NOS may print
its top-level sections in an order of its own (EOS does: lab/devices/eos/render.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field


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
