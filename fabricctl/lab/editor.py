"""Applies CLI config lines to a config tree through a platform grammar.

Like a real switch, a line not valid in the current mode is tried in the enclosing modes
(and the CLI moves up to that mode); this is how unindented input (napalm strips
indentation) still lands in the right block. A line valid nowhere raises `InvalidInput`.
"""

from __future__ import annotations

from dataclasses import dataclass

from fabricctl.lab.config_tree import Node
from fabricctl.lab.grammar import Grammar, Rule


class InvalidInput(Exception):
    """A line the grammar rejects; `index` is the first offending word; `out_of_range` when that
    word has the right shape but a value the device refuses (a VLAN 5000, an RD number past 16 bits)."""

    def __init__(self, words: list[str], index: int, out_of_range: bool = False) -> None:
        super().__init__(" ".join(words))
        self.words = words
        self.index = index
        self.out_of_range = out_of_range


@dataclass
class Frame:
    """One level of the mode stack: the block node, its mode and the opener words."""

    node: Node
    mode: str
    words: list[str]


class Editor:
    """A cursor in a config tree: the mode stack of one CLI session."""

    def __init__(self, grammar: Grammar, root: Node) -> None:
        self.grammar = grammar
        self.root = root
        self.stack: list[Frame] = [Frame(root, grammar.root, [])]

    @property
    def depth(self) -> int:
        """0 at global config level."""
        return len(self.stack) - 1

    def prompt_suffixes(self) -> list[str]:
        """Prompt fragments of the open blocks, outermost first."""
        return [self.grammar.modes[f.mode].prompt(f.words) for f in self.stack[1:]]

    def reset(self) -> None:
        """Back to global config level."""
        del self.stack[1:]

    def exit(self) -> bool:
        """Leave one level; False when already at global level."""
        if len(self.stack) == 1:
            return False
        self.stack.pop()
        return True

    def apply(self, line: str) -> None:
        """Apply one config line or raise InvalidInput; keywords may be abbreviated."""
        words = line.split()
        if not words:
            return
        if self._apply(words):
            return
        for frame in reversed(self.stack):  # abbreviated keywords, innermost view first
            negated = words[0] in self.grammar.negations and len(words) > 1
            rest = self.grammar.expand(frame.mode, words[1:] if negated else words)
            full = [words[0], *rest] if negated and rest else rest
            if full is not None and full != words and self._apply(full):
                return
        index = max(self.grammar.error_at(f.mode, words) for f in self.stack)
        raise InvalidInput(
            words, index, any(self.grammar.out_of_range(f.mode, words, index) for f in self.stack)
        )

    def _apply(self, words: list[str]) -> bool:
        negs = self.grammar.negations
        for level in range(len(self.stack) - 1, -1, -1):
            frame = self.stack[level]
            rule = self.grammar.find(frame.mode, words)
            if rule is not None:
                del self.stack[level + 1 :]
                self._set(frame.node, rule, self.grammar.spelled(rule, words))
                return True
            if words[0] in negs and len(words) > 1:
                rule = self.grammar.find_negation(frame.mode, words[1:])
                if rule is not None:
                    del self.stack[level + 1 :]
                    self._unset(frame.node, rule, self.grammar.spelled(rule, words[1:]))
                    return True
        return False

    def load(self, text: str) -> None:
        """Apply a whole config file (running-config format); column-0 `!`/`#` reset."""
        for raw in text.splitlines():
            stripped = raw.strip()
            if not stripped:
                continue
            if raw[0] in "!#":
                self.reset()
                continue
            if stripped[0] in "!#" or stripped.startswith("version "):
                continue
            if stripped in ("end", "return"):
                break
            self.apply(stripped)
        self.reset()

    def _set(self, node: Node, rule: Rule, words: list[str]) -> None:
        text = " ".join(words)
        kids = node.children
        if rule.child is not None:
            block = kids.get(text)
            if block is None:
                block = kids[text] = Node(text, block=True)
            self.stack.append(Frame(block, rule.child, words))
            return
        negs = self.grammar.negations
        if rule.resets and _changes(node, rule, words):
            _clear(node, rule.resets, rule.reset_keeps, words[: rule.key or len(words)])
        if words[0] in negs:
            _remove_prefix(node, words[1:], keep=False)
        else:
            lead = " ".join(words[: rule.key or len(words)])
            for neg in negs:
                kids.pop(f"{neg} {lead}", None)
        if rule.hidden or text in kids:
            return
        if rule.key is None:
            kids[text] = Node(text)
            return
        same = [t for t in kids if t.split()[: rule.key] == words[: rule.key]]
        if not same:
            kids[text] = Node(text)
            return
        node.children = {
            (text if k == same[0] else k): (Node(text) if k == same[0] else v)
            for k, v in kids.items()
            if k == same[0] or k not in same
        }

    @staticmethod
    def _unset(node: Node, rule: Rule, words: list[str]) -> None:
        n = len(words)
        if rule.resets and any(t.split()[:n] == words for t in node.children):
            _clear(node, rule.resets, rule.reset_keeps, words)
        _remove_prefix(node, words, keep=rule.keep)


def _remove_prefix(node: Node, words: list[str], keep: bool) -> None:
    """Remove children whose words start with `words` (keep=True: only clear them)."""
    n = len(words)
    for text in [t for t in node.children if t.split()[:n] == words]:
        if keep:
            node.children[text].children.clear()
        else:
            del node.children[text]


def _changes(node: Node, rule: Rule, words: list[str]) -> bool:
    """Does setting `words` change the value in force (the line shown, or the default)?"""
    text = " ".join(words)
    if rule.key is None:
        return text not in node.children
    current = next((t for t in node.children if t.split()[: rule.key] == words[: rule.key]), None)
    if current is not None:
        return current != text
    return rule.default is None or " ".join(words[rule.key - 1 :]) != rule.default


def _clear(node: Node, prefixes: tuple[str, ...], keeps: tuple[str, ...], own: list[str]) -> None:
    """Drop the children a changed setting resets (a VRF rebind drops the addresses; `*`: every
    other setting but `keeps`); the setting's own line is replaced in place by the caller."""
    n = len(own)
    for text in list(node.children):
        if text.split()[:n] == own or (keeps and text.startswith(keeps)):
            continue
        if "*" in prefixes or text.startswith(prefixes):
            del node.children[text]
