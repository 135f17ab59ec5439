"""NVUE's object tree as the twin keeps it: nested mappings whose leaves are strings.

NVUE is declarative: `nv set <path> <value>` writes one leaf (or creates one collection member)
and `nv unset <path>` removes a subtree. The applied configuration is printed by `nv config show`
as YAML (a `- header:` / `- set:` list). A mapping with no members (`{}`) is an object that
exists with nothing set (`br_default: {}`, an address `10.0.0.1/31: {}`); a string is a scalar
leaf (`mtu: 9216`). The lab's device model holds it as a Node tree (config_tree.Node): a mapping
is a block node, a scalar a plain node whose one child is its value.
"""

from __future__ import annotations

import copy
from typing import Any

import yaml

from fabricctl.lab.config_tree import Node

Tree = dict[str, Any]  # str -> Tree | str

#: What `nv config show` prints above the configuration (NVUE CLI: "Show Switch Configuration").
#: The twin runs the release its grammar is generated for (commands.yaml `release:`).
NVUE_API_VERSION = "nvue_v1"
NVUE_RELEASE = "5.17.0"
NVUE_VERSION = f"Cumulus Linux {NVUE_RELEASE}"


def set_path(tree: Tree, words: list[str], key: int | None) -> None:
    """`nv set <words>`: with `key`, words[:key] name a scalar and the rest is its value;
    without, every word is a mapping key (a collection member such as an address)."""
    path, value = (words[:key], " ".join(words[key:])) if key is not None else (words, None)
    node = tree
    for i, word in enumerate(path):
        last = i == len(path) - 1
        if last and value is not None:
            node[word] = value
            return
        child = node.get(word)
        if not isinstance(child, dict):
            child = node[word] = {}
        node = child


def unset_path(tree: Tree, words: list[str]) -> bool:
    """`nv unset <words>`: drop the subtree (or scalar) the path names; a scalar may be named
    with its value. Empty parents stay (NVUE keeps the object: `swp1: {}`). False: nothing there."""
    node: Any = tree
    for i, word in enumerate(words):
        if not isinstance(node, dict) or word not in node:
            return False
        if i == len(words) - 1 or (isinstance(node[word], str) and words[i + 1 :] == [node[word]]):
            del node[word]
            return True
        node = node[word]
    return False


def get_path(tree: Tree, words: list[str]) -> Any:
    """The subtree (or scalar) at `words`; None when absent."""
    node: Any = tree
    for word in words:
        if not isinstance(node, dict) or word not in node:
            return None
        node = node[word]
    return node


def merge(into: Tree, changes: Tree) -> None:
    """Apply a `set` tree (a PATCH body, a diff's set part) onto `into`; None removes a key."""
    for key, value in changes.items():
        if value is None:
            into.pop(key, None)
        elif isinstance(value, dict):
            child = into.get(key)
            if not isinstance(child, dict):
                child = into[key] = {}
            merge(child, value)
        else:
            into[key] = str(value)


def diff(old: Tree, new: Tree) -> tuple[Tree, Tree]:
    """(what `new` sets that `old` lacks or holds otherwise, what `old` has that `new` drops):
    the `- set:` / `- unset:` halves `nv config diff` prints. An unset leaf maps to None."""
    sets: Tree = {}
    unsets: Tree = {}
    for key, value in new.items():
        was = old.get(key)
        if isinstance(value, dict) and isinstance(was, dict):
            s, u = diff(was, value)
            if s or (not value and key not in old):
                sets[key] = s
            if u:
                unsets[key] = u
        elif was != value:
            sets[key] = copy.deepcopy(value)
    for key in old:
        if key not in new:
            unsets[key] = None
    return sets, unsets


def apply_diff(tree: Tree, sets: Tree, unsets: Tree) -> None:
    """Replay a diff onto `tree` (a revision made against an older applied config)."""
    _unset_tree(tree, unsets)
    merge(tree, sets)


def _unset_tree(tree: Tree, unsets: Tree) -> None:
    for key, value in unsets.items():
        if value is None:
            tree.pop(key, None)
        elif isinstance(tree.get(key), dict):
            _unset_tree(tree[key], value)


def to_node(tree: Tree) -> Node:
    """The tree as the lab's device model holds it (a mapping: a block; a scalar: its value below)."""
    root = Node("", block=True)
    _fill(root, tree)
    return root


def _fill(node: Node, tree: Tree) -> None:
    for key, value in tree.items():
        if isinstance(value, dict):
            child = node.children[key] = Node(key, block=True)
            _fill(child, value)
        else:
            node.children[key] = Node(key, children={value: Node(value)})


def from_node(node: Node) -> Tree:
    out: Tree = {}
    for key, child in node.children.items():
        out[key] = from_node(child) if child.block else next(iter(child.children), "")
    return out


class _Dumper(yaml.SafeDumper):
    """YAML as NVUE prints it: `on`/`off`/`yes` plain, numbers as numbers, keys that look like
    numbers quoted (`'10': {}`), two-space indentation."""


_Dumper.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeDumper.yaml_implicit_resolvers.items()
}


_Dumper.add_representer(type(None), lambda dumper, _: dumper.represent_scalar("tag:yaml.org,2002:null", ""))


def _printable(tree: Any) -> Any:
    if isinstance(tree, dict):
        return {k: _printable(v) for k, v in tree.items()}
    if isinstance(tree, str) and tree.isdigit() and not (len(tree) > 1 and tree.startswith("0")):
        return int(tree)
    return tree


def header(model: str, rev: str = "1.0") -> Tree:
    return {
        "model": model,
        "nvue-api-version": NVUE_API_VERSION,
        "rev-id": float(rev),
        "version": NVUE_VERSION,
    }


def dump_yaml(sections: list[Tree]) -> str:
    """A `- header:` / `- set:` / `- unset:` list as `nv config show` / `nv config diff` print it."""
    if not sections:
        return ""
    data = [{name: _printable(body) for name, body in section.items()} for section in sections]
    return str(
        yaml.dump(data, Dumper=_Dumper, default_flow_style=False, sort_keys=True, indent=2, width=1000)
    )


def load_yaml(text: str) -> Tree:
    """A configuration as `nv config show` prints it (the `- set:` parts of the list, in order)
    or a bare mapping, every scalar a string. ValueError: not such a document."""
    try:
        data = yaml.load(text, Loader=yaml.BaseLoader)
    except yaml.YAMLError as exc:
        raise ValueError(f"not a YAML document: {exc}") from None
    if data is None or data == "":
        return {}
    if isinstance(data, dict):
        return _strings(data)
    if not isinstance(data, list):
        raise ValueError("expected a list of `- header:` / `- set:` items or a mapping")
    out: Tree = {}
    for item in data:
        if not isinstance(item, dict):
            raise ValueError("each list item must be a mapping (`- set: ...`)")
        for name, body in item.items():
            if name == "set" and isinstance(body, dict):
                merge(out, _strings(body))
            elif name == "unset" and isinstance(body, dict):
                _unset_tree(out, _nulls(body))
            elif name != "header":
                raise ValueError(f"unknown item {name!r} (expected header, set or unset)")
    return out


def _strings(data: dict[str, Any]) -> Tree:
    return {
        str(k): _strings(v) if isinstance(v, dict) else ("" if v is None else str(v)) for k, v in data.items()
    }


def _nulls(data: dict[str, Any]) -> Tree:
    """An `- unset:` body: a key with nothing below (BaseLoader: '') removes it."""
    return {str(k): _nulls(v) if isinstance(v, dict) and v else None for k, v in data.items()}
