"""How TinyOS prints and stores its config: the lab holds one `set <path> <value>` line per leaf;
the switch prints them as one YAML object tree (and reads a stored tree back into lines)."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from typing import Any

import yaml

from fabricctl.lab.config_tree import Node


def tree_of(running: Node) -> dict[str, Any]:
    """The running lines as the nested object tree they set."""
    root: dict[str, Any] = {}
    for line in running.children:
        *path, value = shlex.split(line)[1:]
        here = root
        for word in path[:-1]:
            here = here.setdefault(word, {})
        here[path[-1]] = value
    return root


def render(running: Node, hostname: str, model: str) -> str:
    """The running config as `show configuration` prints it."""
    return yaml.safe_dump(tree_of(running), sort_keys=True)


def parse(text: str) -> Node:
    """A printed tree as the `set` lines that make it."""

    def walk(path: list[str], node: object) -> Iterator[str]:
        if isinstance(node, dict):
            for key, value in node.items():
                yield from walk([*path, str(key)], value)
        else:
            yield " ".join(["set", *path[:-1], shlex.quote(path[-1]), shlex.quote(str(node))])

    root = Node("", block=True)
    for line in walk([], yaml.load(text, Loader=yaml.BaseLoader) or {}):
        root.children[line] = Node(line)
    return root
