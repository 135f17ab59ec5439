"""Running vs intended -> remediation commands and a reviewable diff, within the owned scope.

Both configs are read into keyed trees by the platform's syntax (config/syntax.py: an indented
modal CLI or a declarative object tree), which also spells the commands. Only top-level sections the platform's dialect
says fabricctl owns are compared; every other line of the running config is left alone. The
remediation removes what is no longer intended (negations inside a section first, whole
sections last and in dependency order), replaces single-valued settings without negating them,
re-sends addresses after a port changes VRF, and adds the rest in intended order.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from fabricctl.config.rules import TENANT_PREFIX, Dialect, Provenance, Reset, carries_mark
from fabricctl.config.syntax import Node, Op

__all__ = [
    "DeviceDiff",
    "Differ",
    "Node",
    "Op",
    "diff_device",
    "owned_hash",
    "owned_view",
    "ownership",
    "parse_config",
]


def parse_config(text: str, dialect: Dialect) -> Node:
    """The config as the platform's syntax reads it: a tree with children keyed by text."""
    return dialect.syntax.tree(text)


@dataclass
class Ownership:
    """What fabricctl can prove it made on one switch, by kind of tenant object (Provenance.kind):
    `owned` keys carry the fabric's mark, follow an object that does, or are declared by the
    intent; `alike` keys are the rest that look like fabricctl's (the tenant prefix)."""

    owned: dict[str, set[str]] = field(default_factory=dict)
    alike: dict[str, set[str]] = field(default_factory=dict)
    declared: frozenset[str] = frozenset()  # top-level lines of the intent
    intended: Node | None = None

    def judge(self, kind: Provenance, key: str, node: Node, declared: bool) -> str:
        """'owned', 'alike' or 'foreign' for one object, remembering its key."""
        if (
            declared
            or key in self.owned.get(kind.kind, ())
            or (kind.follows is not None and key in self.owned.get(kind.follows, ()))
        ):
            self.owned.setdefault(kind.kind, set()).add(key)
            return "owned"
        if _looks_like(kind, key, node) or (
            kind.follows is not None and key in self.alike.get(kind.follows, ())
        ):
            self.alike.setdefault(kind.kind, set()).add(key)
            return "alike"
        return "foreign"


def ownership(root: Node, dialect: Dialect, intended: Node | None = None) -> Ownership:
    """Judge every tenant object of `root` (a running config) against `intended`: marked ones
    first, then those that follow them (see Provenance)."""
    declared = frozenset(intended.children) if intended is not None else frozenset()
    proof = Ownership(declared=declared, intended=intended)
    for line in declared:  # what the intent declares is fabricctl's, on the switch or not yet
        found = dialect.tenant_object(line)
        if found is not None:
            proof.owned.setdefault(found[0].kind, set()).add(found[1])
    mark = dialect.mark
    objects = [
        (line, node, *found) for line, node in root.children.items() if (found := dialect.tenant_object(line))
    ]
    for line, node, kind, key in sorted(objects, key=lambda item: item[2].follows is not None):
        carries = kind.mark is not None and mark is not None and _carries(node, kind, mark)
        proof.judge(kind, key, node, carries or line in declared)
    return proof


def _carries(node: Node, kind: Provenance, mark: str) -> bool:
    assert kind.mark is not None
    holders = [node]
    for step in kind.mark_under:  # down to the lines that hold the mark line
        holders = [sub for n in holders for line, sub in n.children.items() if re.match(step, line)]
    for holder in holders:
        for line in holder.children:
            m = re.match(kind.mark, line)
            if m and carries_mark(m["text"], mark):
                return True
    return False


def _looks_like(kind: Provenance, key: str, node: Node) -> bool:
    if kind.looks is None:
        return key.startswith(TENANT_PREFIX)
    for line in node.children:
        m = re.match(kind.looks, line)
        if m and m["name"].startswith(TENANT_PREFIX):
            return True
    return False


def owned_view(root: Node, dialect: Dialect, proof: Ownership | None = None, prune: bool = False) -> Node:
    """The part of a config fabricctl owns: fabric-wide sections by shape, the ports the intent
    (the cabling plan) names, and tenant objects it can prove it made (`proof`; by default the
    config is its own intent). Look-alikes are left out of every diff (so nothing ever touches
    them) unless `prune` is set; the operator's own objects always are."""
    if proof is None:
        proof = ownership(root, dialect, root)
    out = Node("")
    for line, node in root.children.items():
        found = dialect.tenant_object(line)
        if found is not None:
            status = _status(proof, found[0], found[1])
            if status == "owned" or (prune and status == "alike"):
                out.children[line] = node
        elif dialect.is_port(line):
            if line in proof.declared:
                out.children[line] = node
        elif dialect.owns(line):
            out.children[line] = _without_foreign(line, node, dialect, proof, prune)
    return out


def _status(proof: Ownership, kind: Provenance, key: str) -> str:
    if key in proof.owned.get(kind.kind, ()):
        return "owned"
    return "alike" if key in proof.alike.get(kind.kind, ()) else "foreign"


def lookalikes(root: Node, dialect: Dialect, proof: Ownership) -> list[str]:
    """Top-level objects of `root` that look like fabricctl's but that it cannot prove it made."""
    out = []
    for line in root.children:
        found = dialect.tenant_object(line)
        if found is not None and _status(proof, *found) == "alike":
            out.append(line)
    return out


def _without_foreign(line: str, node: Node, dialect: Dialect, proof: Ownership, prune: bool) -> Node:
    """An owned section without the tenant objects inside it that are not fabricctl's."""
    kinds = [kind for parent, kind in dialect.nested if re.match(parent, line)]
    if not kinds:
        return node
    wanted = proof.intended.children.get(line) if proof.intended is not None else None
    kept = Node(node.line)
    for child, sub in node.children.items():
        found = None
        for kind in kinds:
            m = re.match(kind.pattern, child)
            if m:
                found = (kind, m["key"])
                break
        if found is None:
            kept.children[child] = sub
            continue
        declared = wanted is not None and child in wanted.children
        status = proof.judge(found[0], found[1], sub, declared)
        if status == "owned" or (prune and status == "alike"):
            kept.children[child] = sub
    return kept


def canonical_text(root: Node, dialect: Dialect) -> str:
    """Normalised text (indent per level, no separators): what hashes and diffs compare."""
    out: list[str] = []

    def walk(node: Node, depth: int) -> None:
        for child in node.children.values():
            out.append(" " * (dialect.syntax.indent * depth) + child.line)
            walk(child, depth + 1)

    walk(root, 0)
    return "\n".join(out) + ("\n" if out else "")


def config_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


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
    #: Objects of the running config that look like fabricctl's but carry no proof that it made
    #: them: kept (reported by the plan), or removed when the diff was made with `prune`.
    lookalikes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.commands)

    @functools.cached_property
    def intended_hash(self) -> str:
        """Made when asked for: a check that only wants `changed` never parses or canonicalizes."""
        tree = self.intended if self.intended is not None else parse_config(self.intended_text, self.dialect)
        return config_hash(canonical_text(owned_view(tree, self.dialect), self.dialect))


def owned_hash(text: str, intended: Node, dialect: Dialect) -> str:
    """The hash of what fabricctl owns of `text` next to `intended` (its tenant objects, the
    ports of the cabling plan, fabric-wide sections): equal for two configs that differ only in
    what is the operator's."""
    tree = parse_config(text, dialect)
    view = owned_view(tree, dialect, ownership(tree, dialect, intended))
    return config_hash(canonical_text(view, dialect))


def remediation(
    running: Node, intended: Node, dialect: Dialect, prune: bool = False
) -> tuple[list[Op], list[str]]:
    """The ops that make `running` what `intended` says, and the look-alikes of `running` (kept,
    or removed with `prune`)."""
    proof = ownership(running, dialect, intended)
    changes, removals = _remediate(
        owned_view(running, dialect, proof, prune), owned_view(intended, dialect), dialect, True
    )
    return changes + removals, lookalikes(running, dialect, proof)


def diff_text(ops: list[Op], dialect: Dialect, depth: int = 0) -> tuple[list[str], int, int]:
    """A unified-style view: '-' removed, '+' added, ' ' section context."""
    lines: list[str] = []
    added = removed = 0
    pad = " " * (dialect.syntax.indent * depth)
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


#: How a NOS compares a switch's configs: (switch, running text, intended text, its dialect,
#: prune) -> the remediation and its reviewable diff. `diff_device` is the shared one; a platform
#: may give its own (`Platform.differ`), which the plan and every push's convergence check use.
Differ = Callable[[str, str, str, Dialect, bool], DeviceDiff]


def diff_device(
    name: str, running_text: str, intended_text: str, dialect: Dialect, prune: bool = False
) -> DeviceDiff:
    """Everything `plan` needs for one switch (with `prune`, look-alikes are removed too)."""
    # The same text is the same config: nothing to parse or compare (a re-plan's saved-against-
    # running check of every switch that runs its intent).
    intended = None if running_text == intended_text else parse_config(intended_text, dialect)
    ops: list[Op] = []
    alike: list[str] = []
    if intended is not None:
        ops, alike = remediation(parse_config(running_text, dialect), intended, dialect, prune)
    body, added, removed = diff_text(ops, dialect)
    header = [f"--- {name} running (owned scope)", f"+++ {name} intended"] if body else []
    return DeviceDiff(
        commands=dialect.syntax.commands(ops),
        diff="\n".join(header + body) + ("\n" if body else ""),
        added=added,
        removed=removed,
        intended_text=intended_text,
        dialect=dialect,
        intended=intended,
        lookalikes=alike,
    )
