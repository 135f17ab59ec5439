"""Fast path for plain input YAML, and the structure check every input file passes first.

libyaml (C) streams parse events; one loop walks them, with an explicit stack (no recursion, so
no nesting depth can crash it), into the same (data, lines) as the ruamel round-trip path. The
same loop refuses, on either path, what no input file may use: anchors and aliases (a
"billion laughs" document expands exponentially), merge keys (`<<`, which hide where a key came
from) and nesting deeper than MAX_DEPTH. Anything else outside a plain subset (tags, YAML 1.1
words, number-like text, duplicate keys, several documents, syntax errors) returns None with the
first reason, and the caller takes the ruamel path, which then produces every error (for files
small enough for it: see yamlsource.MAX_CAREFUL_CHARS).
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
_DOTTED = re.compile(r"[0-9]{1,3}(?:\.[0-9]{1,3}){3}(?:/[0-9]{1,2})?\Z")
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
    if _DOTTED.match(value):  # an address or network: text in YAML 1.1 and 1.2 alike
        return value
    if value in _WORDS_11 or _NUMERIC_LIKE.match(value):
        raise _Fallback
    return value


class _Frame:
    __slots__ = ("container", "key", "path")

    def __init__(self, container: dict[Any, Any] | list[Any], path: tuple[str | int, ...]) -> None:
        self.container = container
        self.path = path
        self.key: Any = _NO_KEY


# long: a parser state machine: one loop over the lines with the indentation stack as its state
def fast_load(
    text: str, reasons: list[tuple[int, str]] | None = None
) -> tuple[Any, dict[tuple[str | int, ...], int]] | None:
    """(data, lines) for plain YAML, or None: use the ruamel path (tags, errors, edge scalars).

    Raises Refused for an anchor, an alias, a merge key or too deep a nesting, whether or not the
    document is plain. On None, `reasons` (when given) receives the first (line, why) the
    document is not plain, a syntax error included: what to say when ruamel may not read it.
    """
    why: tuple[int, str] | None = None
    if "\t" in text:  # ruamel names a tab in indentation itself
        why = (text.count("\n", 0, text.index("\t")) + 1, "a tab (indent with spaces)")
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
                    if not _place(stack[-1], done.container) and why is None:
                        why = (event.start_mark.line + 1, "a list or mapping as a key")
                else:
                    root = done.container
                continue
            if kind is not ScalarEvent and kind is not MappingStartEvent and kind is not SequenceStartEvent:
                if kind is AliasEvent:
                    top = stack[-1] if stack else None
                    raise Refused(event.start_mark.line + 1, _path_of(top, event, lines), ALIAS)
                if kind is DocumentStartEvent:
                    documents += 1
                    if documents > 1 and why is None:
                        why = (event.start_mark.line + 1, "more than one YAML document in the file")
                elif kind is StreamEndEvent:
                    break
                continue  # stream start, document end
            line = event.start_mark.line + 1
            top = stack[-1] if stack else None
            is_key = top is not None and top.key is _NO_KEY and top.container.__class__ is dict
            if event.anchor is not None:
                raise Refused(line, _path_of(top, event, lines), ANCHOR)
            if event.tag is not None and why is None:
                why = (line, f"YAML tag {event.tag} is not allowed: write plain values")
            if kind is ScalarEvent:
                if is_key:
                    assert top is not None
                    if not event.style and event.value == "<<":
                        raise Refused(line, (*top.path, "<<"), MERGE)
                    value = _value(event)
                    odd = value is _Fallback or value.__class__ not in _KEY_TYPES
                    if (odd or value in top.container) and why is None:
                        why = (
                            line,
                            f"duplicate key {value!r}" if not odd else "a key that is not plain text",
                        )
                    if odd or value in top.container:
                        value = object()  # ruamel reports the duplicate, or reads the odd key
                    top.key = value
                    lines[(*top.path, str(value))] = line
                    continue
                value = _value(event)
                if value is _Fallback and why is None:
                    why = (line, f"{event.value[:30]!r} may read as a number, a date or true/false: quote it")
                if top is None:
                    root = value
                else:
                    if top.container.__class__ is list:
                        lines[(*top.path, len(top.container))] = line
                    _place(top, value)
                continue
            path = _path_of(top, event, lines)
            if len(stack) >= MAX_DEPTH:
                raise Refused(line, path, TOO_DEEP, TOO_DEEP_ALLOWED)
            if is_key:
                assert top is not None
                top.key = _KEY_BUILDING  # a list or mapping as a key: ruamel's to judge
            stack.append(_Frame({} if kind is MappingStartEvent else [], path))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        if "nesting depth" in str(getattr(exc, "problem", "")):  # libyaml's own cap (1000) came first
            raise Refused(line, stack[-1].path if stack else (), TOO_DEEP, TOO_DEEP_ALLOWED) from None
        why = why or (line, f"invalid YAML: {getattr(exc, 'problem', None) or type(exc).__name__}")
    finally:
        loader.dispose()
    if why is not None:
        if reasons is not None:
            reasons.append(why)
        return None
    return (None if root is _NO_KEY else root), lines


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


def _place(frame: _Frame, value: Any) -> bool:
    """Put a finished value into its parent frame; a key's value ends that key's turn. False when
    the value was a list or mapping used as a key (not plain)."""
    if frame.container.__class__ is list:
        frame.container.append(value)
    elif frame.key is _KEY_BUILDING:  # a collection used as a key has just ended
        frame.key = object()
        return False
    else:
        frame.container[frame.key] = value
        frame.key = _NO_KEY
    return True
