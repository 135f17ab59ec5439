"""Config text -> a tree of lines by indentation, the one parser every reader of config text uses.

The supported NOSes print their configuration as indented blocks separated by `#` / `!` lines.
Rules, in order:
1. blank lines, separators (`#`, `!`, `end`, `return`, `quit`, `exit`) and comments (`! ...`) carry
   no configuration and are skipped;
2. a separator in column 0 closes every open block: some NOSes print their one-line global
   commands indented by one space after one (` sysname spine01`), and they are top level, not
   children of the block before;
3. otherwise a line nests under the nearest earlier line that is indented less.
Every node keeps its 1-based line number, so readers can point at the line that says a thing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

#: Lines that only separate or leave blocks.
SEPARATORS = frozenset(("#", "!", "end", "return", "quit", "exit"))


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
    """Top-level nodes of a config (see the module docstring for the rules)."""
    roots: list[Node] = []
    stack: list[Node] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped in SEPARATORS or stripped[:2] in ("! ", "!!", "# "):
            if stripped and raw[0] in "#!":
                stack.clear()
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        node = Node(stripped, number, indent)
        while stack and stack[-1].indent >= indent:
            stack.pop()
        (stack[-1].children if stack else roots).append(node)
        stack.append(node)
    return roots
