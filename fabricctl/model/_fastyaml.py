"""Fast path for plain input YAML, and the structure check every input file passes first.

libyaml (C) streams parse events; one loop walks them, with an explicit stack (no recursion, so
no nesting depth can crash it), into the same (data, lines) as the ruamel round-trip path. The
same loop refuses, on either path, what no input file may use: anchors and aliases (a
"billion laughs" document expands exponentially), merge keys (`<<`, which hide where a key came
from) and nesting deeper than MAX_DEPTH. Anything else outside a plain subset (tags, YAML 1.1
words, duplicate keys, several documents) returns None and the caller takes the ruamel path,
which then produces every error.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)

from fabricctl.model.bounds import MAX_DEPTH

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
#: The message of the nesting cap, on both reading paths.
TOO_DEEP = f"lists and mappings nested more than {MAX_DEPTH} levels deep are not allowed"
TOO_DEEP_ALLOWED = f"at most {MAX_DEPTH} levels"
ALIAS = "YAML aliases (*name) are not allowed: write the value out"
ANCHOR = "YAML anchors (&name) are not allowed: write the value out"
MERGE = "YAML merge keys (<<) are not allowed: write the keys out"
_KEY_TYPES = (str, int, bool)
_NO_KEY = object()  # a mapping frame waiting for its next key
_KEY_BUILDING = object()  # a mapping frame whose key is a list or mapping still being read


class _Fallback(Exception):
    pass


class Refused(Exception):
    """A construct no input file may use, at a line and field path."""

    def __init__(self, line: int, path: tuple[str | int, ...], message: str, allowed: str = "") -> None:
        super().__init__(message)
        self.line = line
        self.path = path
        self.message = message
        self.allowed = allowed


def _scalar(event: ScalarEvent) -> Any:
    value = event.value
    if event.style:  # quoted or block scalar: a string
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


class _Frame:
    __slots__ = ("container", "key", "path")

    def __init__(self, container: dict[Any, Any] | list[Any], path: tuple[str | int, ...]) -> None:
        self.container = container
        self.path = path
        self.key: Any = _NO_KEY


def fast_load(text: str, build: bool = True) -> tuple[Any, dict] | None:
    """(data, lines) for plain YAML, or None: use the ruamel path (tags, errors, edge scalars).

    Raises Refused for an anchor, an alias, a merge key or too deep a nesting, whether or not the
    document is plain; `build=False` only checks. A syntax error returns None (ruamel reports it).
    """
    exact = build and "!" not in text and "\t" not in text  # tags and the tab hint: ruamel's
    lines: dict[tuple[str | int, ...], int] = {(): 1}
    stack: list[_Frame] = []
    root: Any = _NO_KEY
    documents = 0
    loader = _Loader(text)
    try:
        while True:
            event = loader.get_event()
            kind = event.__class__
            if kind is MappingEndEvent or kind is SequenceEndEvent:
                done = stack.pop()
                if stack:
                    exact = _place(stack[-1], done.container, exact)
                else:
                    root = done.container
                continue
            if kind is not ScalarEvent and kind is not MappingStartEvent and kind is not SequenceStartEvent:
                if kind is AliasEvent:
                    top = stack[-1] if stack else None
                    raise Refused(event.start_mark.line + 1, _path_of(top, event, lines), ALIAS)
                if kind is DocumentStartEvent:
                    documents += 1
                    exact = exact and documents == 1
                elif kind is StreamEndEvent:
                    break
                continue  # stream start, document end
            line = event.start_mark.line + 1
            top = stack[-1] if stack else None
            is_key = top is not None and top.key is _NO_KEY and top.container.__class__ is dict
            if event.anchor is not None:
                raise Refused(line, _path_of(top, event, lines), ANCHOR)
            if event.tag is not None:
                exact = False
            if kind is ScalarEvent:
                if top is None:
                    value = _value(event)
                    exact = exact and value is not _Fallback
                    root = value
                elif is_key:
                    if not event.style and event.value == "<<":
                        raise Refused(line, (*top.path, "<<"), MERGE)
                    value = _value(event)
                    if value is _Fallback or value.__class__ not in _KEY_TYPES or value in top.container:
                        exact, value = False, object()  # duplicate / odd key: ruamel reports or resolves it
                    top.key = value
                    lines[(*top.path, str(value))] = line
                else:
                    if top.container.__class__ is list:
                        lines[(*top.path, len(top.container))] = line
                    value = _value(event)
                    if value is _Fallback:
                        exact = False
                    exact = _place(top, value, exact)
                continue
            path = _path_of(top, event, lines)
            if len(stack) >= MAX_DEPTH:
                raise Refused(line, path, TOO_DEEP, TOO_DEEP_ALLOWED)
            if is_key:
                assert top is not None
                exact, top.key = False, _KEY_BUILDING  # a list or mapping as a key: ruamel's to judge
            stack.append(_Frame({} if kind is MappingStartEvent else [], path))
    except yaml.YAMLError as exc:
        if "nesting depth" in str(getattr(exc, "problem", "")):  # libyaml's own cap (1000) came first
            mark = getattr(exc, "problem_mark", None)
            line = mark.line + 1 if mark is not None else 1
            raise Refused(line, stack[-1].path if stack else (), TOO_DEEP, TOO_DEEP_ALLOWED) from None
        return None
    finally:
        loader.dispose()
    if not exact or root is _NO_KEY or root is None:
        return None
    return root, lines


def _value(event: ScalarEvent) -> Any:
    """The scalar's value, or _Fallback when ruamel must read it."""
    try:
        return _scalar(event)
    except _Fallback:
        return _Fallback


def _path_of(
    top: _Frame | None, event: Any, lines: dict[tuple[str | int, ...], int]
) -> tuple[str | int, ...]:
    """The field path of the node `event` starts, inside frame `top` (a list item's line noted)."""
    if top is None:
        return ()
    if top.container.__class__ is list:
        path = (*top.path, len(top.container))
        lines[path] = event.start_mark.line + 1
        return path
    if top.key is _NO_KEY:  # the node is a key
        return (*top.path, event.value if isinstance(event, ScalarEvent) else "?")
    return (*top.path, str(top.key))


def _place(frame: _Frame, value: Any, exact: bool) -> bool:
    """Put a finished value into its parent frame; a key's value ends that key's turn."""
    if isinstance(frame.container, list):
        frame.container.append(value)
    elif frame.key is _KEY_BUILDING:  # a collection used as a key has just ended
        frame.key = object()
        return False
    else:
        frame.container[frame.key] = value
        frame.key = _NO_KEY
    return exact
