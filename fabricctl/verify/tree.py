"""Config text -> a tree of lines by indentation, the shape both Comware and EOS print.

Platform parsers walk this tree instead of the raw text, so a line they do not understand (hostname,
users, management) is simply never looked at, and every line keeps its number for reporting.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

#: Separator and exit lines that carry no configuration.
_SKIP = {"#", "!", "end", "return", "quit", "exit"}


@dataclass(slots=True)
class Node:
    """One configuration line and the lines indented under it."""

    text: str  # stripped
    line: int  # 1-based line number in the config text
    indent: int
    children: list[Node] = field(default_factory=list)

    def walk(self) -> Iterator[Node]:
        """This node's descendants, depth first, in text order."""
        for child in self.children:
            yield child
            yield from child.walk()


def parse_tree(text: str) -> list[Node]:
    """Top-level nodes of a config; deeper indentation nests under the last shallower line."""
    roots: list[Node] = []
    stack: list[Node] = []
    skip = _SKIP
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped in skip or (stripped[0] in "!#" and stripped[:2] in ("! ", "!!", "# ")):
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        node = Node(stripped, number, indent)
        if indent == 0:
            stack.clear()
            roots.append(node)
        else:
            while stack and stack[-1].indent >= indent:
                stack.pop()
            if stack:
                stack[-1].children.append(node)
            else:
                roots.append(node)
        stack.append(node)
    return roots
