"""How a NOS writes its configuration: config text -> the diff's keyed tree, and a remediation
-> the commands that carry it out. The diff engine (config/diff.py) only compares trees.

Two kinds of NOS:
- a modal CLI: indented blocks, entered by their first line and left by an exit command; a line
  is removed by its negation (`no `, `undo `);
- a declarative object tree (a YAML or JSON document of nested objects whose leaves are values),
  changed by `set <path> <value>` and `unset <path>`; there are no modes to enter.

A platform's `Dialect.syntax` says which, with its own spelling.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

import yaml

from fabricctl.config.tree import Node as TreeNode
from fabricctl.config.tree import parse_tree
from fabricctl.errors import StageError


@dataclass
class Node:
    """A config line with its children keyed by text (a repeated block merges, as on a switch)."""

    line: str
    children: dict[str, Node] = field(default_factory=dict)


@dataclass
class Op:
    """One line of the remediation: '+' add, '-' remove, ' ' context (a section with changes)."""

    kind: str
    line: str
    command: str | None  # what to send; None when the line is only shown (replaced by a '+')
    children: list[Op] = field(default_factory=list)


class ConfigTextError(StageError):
    """Config text the platform's syntax cannot read (a switch's answer, or a rendered file)."""


class Syntax(Protocol):
    """What the diff engine needs from a NOS's way of writing config."""

    @property
    def indent(self) -> int:
        """Spaces per level in the diff a plan shows and in the text that is hashed."""
        ...

    def tree(self, text: str) -> Node:
        """The config as a keyed tree; raises ConfigTextError for text it cannot read."""
        ...

    def negate(self, line: str) -> str:
        """The removal of `line` when no special negation (Dialect.negations) applies."""
        ...

    def commands(self, ops: list[Op]) -> list[str]:
        """The remediation as the commands that are sent, in order."""
        ...


@dataclass(frozen=True)
class ModalCli:
    """An indented, modal CLI: `negate_prefix` removes a line, `exit_command` leaves a level."""

    indent: int
    negate_prefix: str  # 'no ' / 'undo '
    exit_command: str  # 'exit' / 'quit'

    def tree(self, text: str) -> Node:
        root = Node("")
        _merge(root, parse_tree(text))
        return root

    def negate(self, line: str) -> str:
        if line.startswith(self.negate_prefix):
            return line[len(self.negate_prefix) :]
        return self.negate_prefix + line

    def commands(self, ops: list[Op], depth: int = 0) -> list[str]:
        """Config-mode commands, leaving each section it entered explicitly."""
        out: list[str] = []
        pad = " " * (self.indent * depth)
        for op in ops:
            if op.command is None:
                continue
            out.append(pad + op.command)
            if op.kind != "-" and op.children:
                out += self.commands(op.children, depth + 1)
                out.append(pad + " " * self.indent + self.exit_command)
        return out


def _merge(into: Node, nodes: list[TreeNode]) -> None:
    for node in nodes:
        child = into.children.setdefault(node.text, Node(node.text))
        _merge(child, node.children)


#: Between a leaf's key and its value in a tree line ("mtu: 9216"); object keys never contain it.
VALUE_SEPARATOR = ": "


@dataclass(frozen=True)
class ObjectTree:
    """A declarative NOS whose config is one YAML (or JSON) object tree: a bare mapping, or a list
    of `- header:` and `- set:` parts as some NOSes print their applied config.

    Tree lines: each member of a top-level `collections` mapping is a top-level line of its own
    ("interface swp1", "vrf tnt-a"), so ownership rules judge one object per line as on a modal
    CLI; other keys are lines ("qos", "link", "10.0.0.1/31"); a scalar leaf is "key: value".
    A key in `choices` whose value is an object of one empty member is a choice among named
    members (NVUE writes a link's state `state: {up: {}}`): it is the leaf "state: up", so a new
    member replaces the old one by `set`, as setting a choice does, instead of adding a second.
    Keys are sorted (an object's members have no order). Scalars are read as text (YAML's `on` stays "on"). A list is a set of members (each a key
    without value).
    """

    collections: tuple[str, ...]
    set_command: str  # e.g. `nv set`
    unset_command: str  # e.g. `nv unset`
    choices: tuple[str, ...] = ()
    indent: int = 2

    def tree(self, text: str) -> Node:
        try:
            data = yaml.load(text, Loader=yaml.BaseLoader)  # BaseLoader builds only str, list and dict
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}" if mark is not None else ""
            raise ConfigTextError(f"config is not YAML{where}: {getattr(exc, 'problem', exc)}") from None
        root = Node("")
        for part in _documents(data):
            for key, value in sorted(part.items()):
                if key in self.collections and isinstance(value, Mapping):
                    for name, body in sorted(value.items()):
                        _add(root, f"{key} {name}", body, self.choices)
                else:
                    _add(root, key, value, self.choices)
        return root

    def negate(self, line: str) -> str:
        return self.unset_command  # commands() spells the path; any text means "removable"

    def commands(self, ops: list[Op]) -> list[str]:
        out: list[str] = []
        self._walk(ops, (), out)
        return out

    def _walk(self, ops: list[Op], path: tuple[str, ...], out: list[str]) -> None:
        for op in ops:
            if op.kind == "-":
                if op.command is not None:  # None: a value replaced by the '+' next to it
                    key = op.line.partition(VALUE_SEPARATOR)[0]
                    out.append(_spell(self.unset_command, (*path, *_words(key, path))))
            elif op.kind == "+":
                self._sets(op, path, out)
            else:
                self._walk(op.children, (*path, *_words(op.line, path)), out)

    def _sets(self, op: Op, path: tuple[str, ...], out: list[str]) -> None:
        key, sep, value = op.line.partition(VALUE_SEPARATOR)
        if sep:
            out.append(_spell(self.set_command, (*path, *_words(key, path), value)))
        elif op.children:
            for child in op.children:
                self._sets(child, (*path, *_words(op.line, path)), out)
        else:
            out.append(_spell(self.set_command, (*path, *_words(op.line, path))))


def _documents(data: object) -> list[Mapping[str, object]]:
    """The mappings that hold config: a bare mapping, or the `set` parts of a `header`/`set` list."""
    if data is None or data == "":
        return []
    if isinstance(data, Mapping):
        return [data]
    if isinstance(data, list):
        parts = []
        for item in data:
            if isinstance(item, Mapping) and isinstance(item.get("set"), Mapping):
                parts.append(item["set"])
            elif not (isinstance(item, Mapping) and "header" in item):
                raise ConfigTextError("config list holds something other than `header` and `set` parts")
        return parts
    raise ConfigTextError("config is neither a mapping nor a list of `header`/`set` parts")


def _add(into: Node, key: str, value: object, choices: tuple[str, ...]) -> None:
    if isinstance(value, Mapping) and key in choices and len(value) == 1:
        ((member, body),) = value.items()
        if body in ({}, ""):  # `state: {up: {}}` (or `up:` with nothing under it)
            value = member
    if isinstance(value, Mapping):
        child = into.children.setdefault(key, Node(key))
        for name, body in sorted(value.items()):
            _add(child, str(name), body, choices)
    elif isinstance(value, list):
        child = into.children.setdefault(key, Node(key))
        for member in sorted(map(str, value)):
            _add(child, member, {}, ())
    else:
        line = f"{key}{VALUE_SEPARATOR}{value}"
        into.children.setdefault(line, Node(line))


def _words(line: str, path: tuple[str, ...]) -> tuple[str, ...]:
    """A tree line as path words: a flattened top-level line is two words (collection, name)."""
    return tuple(line.split(" ", 1)) if not path else (line,)


def _spell(command: str, words: tuple[str, ...]) -> str:
    return " ".join((command, *(shlex.quote(w) for w in words)))
