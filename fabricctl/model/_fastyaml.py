"""Fast path for plain tenant YAML: libyaml (C) composes the node tree, this
walks it into the same (data, lines) as the ruamel round-trip path; anything outside a plain
subset returns None and the caller falls back to ruamel (which then produces every error)."""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)\Z")
# plain scalars a YAML 1.2 (ruamel) and a 1.1 reader might read differently, or as non-strings
_NUMERIC_LIKE = re.compile(r"[-+]?[0-9._:eExXoObB+-]+\Z|[-+]?\.\w+\Z")
_NULL = frozenset(("", "~", "null", "Null", "NULL"))
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_WORDS_11 = frozenset(
    [
        "yes",
        "Yes",
        "YES",
        "no",
        "No",
        "NO",
        "on",
        "On",
        "ON",
        "off",
        "Off",
        "OFF",
        "y",
        "Y",
        "n",
        "N",
        "<<",
        "=",
    ]
)


class _Fallback(Exception):
    pass


def _scalar(node: ScalarNode) -> Any:
    value = node.value
    if node.style:  # quoted or block scalar: a string
        return value
    if value in _NULL:
        return None
    if value in _BOOL:
        return _BOOL[value]
    if _INT.match(value):
        return int(value)
    if value in _WORDS_11 or _NUMERIC_LIKE.match(value):
        raise _Fallback
    return value


def _walk(node: Any, path: tuple, lines: dict, seen: set) -> Any:
    if id(node) in seen:  # an alias
        raise _Fallback
    seen.add(id(node))
    if isinstance(node, ScalarNode):
        return _scalar(node)
    if isinstance(node, MappingNode):
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode):
                raise _Fallback
            key = _scalar(key_node)
            if not isinstance(key, (str, int, bool)) or key in out or key == "<<":
                raise _Fallback  # duplicate / merge key: ruamel reports or resolves it
            lines[(*path, str(key))] = key_node.start_mark.line + 1
            out[key] = _walk(value_node, (*path, str(key)), lines, seen)
        return out
    if isinstance(node, SequenceNode):
        items = []
        for i, item in enumerate(node.value):
            lines[(*path, i)] = item.start_mark.line + 1
            items.append(_walk(item, (*path, i), lines, seen))
        return items
    raise _Fallback


def fast_load(text: str) -> tuple[Any, dict] | None:
    """(data, lines) for plain YAML, or None: use the ruamel path (tags, errors, edge scalars)."""
    if "!" in text or "\t" in text:  # tags (and the ruamel tab hint) stay on the careful path
        return None
    try:
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
        finally:
            loader.dispose()
    except yaml.YAMLError:
        return None
    lines: dict = {(): 1}
    if node is None:
        return None
    try:
        return _walk(node, (), lines, set()), lines
    except _Fallback:
        return None
