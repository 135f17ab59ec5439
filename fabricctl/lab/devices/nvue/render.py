"""The applied configuration as `nv config show` prints it (YAML), and back.

Read back, every path of the document must be one the object reference accepts (as a modal
NOS's config is loaded through its grammar): the lab never holds a line the reference refuses.
"""

from __future__ import annotations

import shlex

from fabricctl.lab.config_tree import Node
from fabricctl.lab.devices.nvue.cli import NvueError, commands, validate
from fabricctl.lab.devices.nvue.tree import dump_yaml, from_node, header, load_yaml, to_node
from fabricctl.lab.editor import InvalidInput
from fabricctl.lab.reference import reference


def render(tree: Node, hostname: str, model: str) -> str:
    return dump_yaml([{"header": header(model)}, {"set": from_node(tree)}])


def parse(text: str) -> Node:
    """YAML -> the device model; InvalidInput for a document or path NVUE would refuse."""
    try:
        tree = load_yaml(text)
    except ValueError:
        raise InvalidInput(["<yaml>"], 0) from None
    grammar = reference("nvue").grammar
    for line in commands(tree, {}):
        words = shlex.split(line)[2:]
        try:
            validate(grammar, words, negated=False)
        except NvueError:
            raise InvalidInput(words, grammar.error_at(grammar.root, words)) from None
    return to_node(tree)
