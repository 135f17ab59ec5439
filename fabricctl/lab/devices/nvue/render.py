"""The applied configuration as `nv config show` prints it (YAML), and back."""

from __future__ import annotations

from fabricctl.lab.config_tree import Node
from fabricctl.lab.devices.nvue.tree import dump_yaml, from_node, header, load_yaml, to_node


def render(tree: Node, hostname: str, model: str) -> str:
    return dump_yaml([{"header": header(model)}, {"set": from_node(tree)}])


def parse(text: str) -> Node:
    return to_node(load_yaml(text))
