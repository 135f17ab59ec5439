"""Running vs intended -> remediation commands and a reviewable diff, within the owned scope.

Both configs are parsed into line trees (config/tree.py). Only top-level sections the platform's dialect
says fabricctl owns are compared; every other line of the running config is left alone. The
remediation removes what is no longer intended (negations inside a section first, whole
sections last and in dependency order), replaces single-valued settings without negating them,
re-sends addresses after a port changes VRF, and adds the rest in intended order.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass, field

from fabricctl.config.rules import TENANT_PREFIX, Dialect, Provenance, Reset
from fabricctl.config.tree import Node as TreeNode
from fabricctl.config.tree import parse_tree


@dataclass
class Node:
    """A config line with its children keyed by text (a repeated block merges, as on a switch)."""

    line: str
    children: dict[str, Node] = field(default_factory=dict)


def parse_config(text: str) -> Node:
    """The config's line tree (config/tree.py) with children keyed by text."""
    root = Node("")
    _merge(root, parse_tree(text))
    return root


def _merge(into: Node, nodes: list[TreeNode]) -> None:
    for node in nodes:
        child = into.children.setdefault(node.text, Node(node.text))
        _merge(child, node.children)


def owned_view(root: Node, dialect: Dialect) -> Node:
    """The part of a config fabricctl owns: fabric-wide sections by shape, tenant objects only
    when the switch shows fabricctl made them (their name, or what they are bound to, carries
    the tenant prefix). The operator's look-alikes (`vsi legacy-ops`, `vrf instance oob`, a VRF
    of theirs under `router bgp`) are left out of every diff, so nothing ever touches them."""
    vlans = _owned_vlans(root, dialect)
    out = Node("")
    for line, node in root.children.items():
        kind = dialect.tenant_object(line)
        if kind is not None:
            if _made_by_fabricctl(line, node, kind, vlans):
                out.children[line] = node
        elif dialect.owns(line):
            out.children[line] = _without_foreign(line, node, dialect, vlans)
    return out


def _owned_vlans(root: Node, dialect: Dialect) -> set[str]:
    """VLAN ids fabricctl made on this switch: their `name` carries the tenant prefix."""
    out = set()
    for line, node in root.children.items():
        m = re.match(dialect.vlan_names, line)
        if m and any(c.startswith(f"name {TENANT_PREFIX}") for c in node.children):
            out.add(m["id"])
    return out


def _made_by_fabricctl(line: str, node: Node, kind: Provenance, vlans: set[str]) -> bool:
    m = re.match(kind.pattern, line)
    if m is None:
        return False
    if kind.vlan:
        return m["id"] in vlans
    if kind.child is None:
        return m["name"].startswith(TENANT_PREFIX)
    for child in node.children:
        c = re.match(kind.child, child)
        if c and c["name"].startswith(TENANT_PREFIX):
            return True
    return False


def _without_foreign(line: str, node: Node, dialect: Dialect, vlans: set[str]) -> Node:
    """An owned section without the tenant objects inside it that are not fabricctl's."""
    kinds = [kind for parent, kind in dialect.nested if re.match(parent, line)]
    if not kinds:
        return node
    kept = Node(node.line)
    for child, sub in node.children.items():
        kind = next((k for k in kinds if re.match(k.pattern, child)), None)
        if kind is None or _made_by_fabricctl(child, sub, kind, vlans):
            kept.children[child] = sub
    return kept


def canonical_text(root: Node, dialect: Dialect) -> str:
    """Normalised text (indent per level, no separators): what hashes and diffs compare."""
    out: list[str] = []

    def walk(node: Node, depth: int) -> None:
        for child in node.children.values():
            out.append(" " * (dialect.indent * depth) + child.line)
            walk(child, depth + 1)

    walk(root, 0)
    return "\n".join(out) + ("\n" if out else "")


def config_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class Op:
    """One line of the remediation: '+' add, '-' remove, ' ' context (a section with changes)."""

    kind: str
    line: str
    command: str | None  # what to send; None when the line is only shown (replaced by a '+')
    children: list[Op] = field(default_factory=list)


def _all_added(node: Node) -> list[Op]:
    return [Op("+", c.line, c.line, _all_added(c)) for c in node.children.values()]


def _resets(run: Node, want: Node, dialect: Dialect) -> list[Reset]:
    """The reset rules a level's change triggers: a trigger line sent anew, or one negated (a
    line that cannot be negated, like a port's link mode, is never sent and resets nothing)."""
    sent = [line for line in want.children if line not in run.children]
    sent += [line for line in run.children if line not in want.children and dialect.negate(line)]
    return [r for r in dialect.resets if any(re.match(r.trigger, line) for line in sent)]


def _cleared(line: str, resets: list[Reset]) -> bool:
    """Does a triggered reset make the switch drop `line`?"""
    return any(
        not re.match(r.trigger, line)
        and any(re.match(c, line) for c in r.clears)
        and not any(re.match(k, line) for k in r.keeps)
        for r in resets
    )


def _remediate(run: Node, want: Node, dialect: Dialect, top: bool) -> tuple[list[Op], list[Op]]:
    """(changes in the order they must be sent, removals of whole top-level objects) for one level."""
    changes: list[Op] = []
    removals: list[Op] = []
    wanted_keys = {k for k in (dialect.value_key(line) for line in want.children) if k}
    resets = _resets(run, want, dialect)
    for line in run.children:
        if line in want.children:
            continue
        key = dialect.value_key(line)
        # A section (`vrf X` under `router bgp`) is an object of its own, never a value.
        if key and key in wanted_keys and not run.children[line].children:
            changes.append(Op("-", line, None))
            continue
        if _cleared(line, resets):
            changes.append(Op("-", line, None))  # the switch dropped it with the reset
            continue
        negation = dialect.negate(line)
        if negation is None:
            continue
        op = Op("-", line, negation)
        (removals if top else changes).append(op)
    for line, node in want.children.items():
        # New, or still wanted but dropped by a reset: sent (again) in intended order.
        if line not in run.children or _cleared(line, resets):
            changes.append(Op("+", line, line, _all_added(node)))
            continue
        sub, _ = _remediate(run.children[line], node, dialect, top=False)
        if sub:
            changes.append(Op(" ", line, line, sub))
    removals.sort(key=lambda op: dialect.removal_rank(op.line))
    return _in_sending_order(changes, resets, dialect), removals


def _in_sending_order(ops: list[Op], resets: list[Reset], dialect: Dialect) -> list[Op]:
    """A port going down goes down first; a whole-section reset comes before everything it would
    undo; a port coming up comes up last (stable otherwise: removals, then intended order)."""

    def rank(op: Op) -> int:
        if re.match(dialect.admin_down, op.line):
            return 0 if op.kind == "+" else 3
        if any(re.match(r.trigger, op.line) and "" in r.clears for r in resets):
            return 1  # a whole-section reset: everything else is sent after it
        return 2

    return sorted(ops, key=rank)


@dataclass
class DeviceDiff:
    """The plan for one switch: commands to send, a diff to read, and the intended hash."""

    commands: list[str]
    diff: str
    added: int
    removed: int
    intended_text: str = field(repr=False)
    dialect: Dialect = field(repr=False)
    intended: Node | None = field(default=None, repr=False)  # parsed already, when it was

    @property
    def changed(self) -> bool:
        return bool(self.commands)

    @functools.cached_property
    def intended_hash(self) -> str:
        """Made when asked for: a check that only wants `changed` never parses or canonicalizes."""
        tree = self.intended if self.intended is not None else parse_config(self.intended_text)
        return config_hash(canonical_text(owned_view(tree, self.dialect), self.dialect))


def remediation(running: Node, intended: Node, dialect: Dialect) -> list[Op]:
    changes, removals = _remediate(owned_view(running, dialect), owned_view(intended, dialect), dialect, True)
    return changes + removals


def commands_of(ops: list[Op], dialect: Dialect, depth: int = 0) -> list[str]:
    """Flatten ops into config-mode commands, leaving each section explicitly."""
    out: list[str] = []
    pad = " " * (dialect.indent * depth)
    for op in ops:
        if op.command is None:
            continue
        out.append(pad + op.command)
        if op.kind != "-" and op.children:
            out += commands_of(op.children, dialect, depth + 1)
            out.append(pad + " " * dialect.indent + dialect.exit_command)
    return out


def diff_text(ops: list[Op], dialect: Dialect, depth: int = 0) -> tuple[list[str], int, int]:
    """A unified-style view: '-' removed, '+' added, ' ' section context."""
    lines: list[str] = []
    added = removed = 0
    pad = " " * (dialect.indent * depth)
    for op in ops:
        lines.append(f"{op.kind}{pad}{op.line}")
        if op.kind == "+":
            added += 1
        elif op.kind == "-":
            removed += 1
        if op.kind != "-":
            sub, a, r = diff_text(op.children, dialect, depth + 1)
            if op.kind == "+":
                sub = ["+" + s[1:] for s in sub]
            lines += sub
            added += a
            removed += r
    return lines, added, removed


def diff_device(name: str, running_text: str, intended_text: str, dialect: Dialect) -> DeviceDiff:
    """Everything `plan` needs for one switch."""
    # The same text is the same config: nothing to parse or compare (a re-plan's saved-against-
    # running check of every switch that runs its intent).
    intended = None if running_text == intended_text else parse_config(intended_text)
    ops = [] if intended is None else remediation(parse_config(running_text), intended, dialect)
    body, added, removed = diff_text(ops, dialect)
    header = [f"--- {name} running (owned scope)", f"+++ {name} intended"] if body else []
    return DeviceDiff(
        commands=commands_of(ops, dialect),
        diff="\n".join(header + body) + ("\n" if body else ""),
        added=added,
        removed=removed,
        intended_text=intended_text,
        dialect=dialect,
        intended=intended,
    )
