"""The lab's command reference: per platform, what the vendor documents say the switch accepts.

One YAML file per platform (fabricctl/lab/devices/<platform>/commands.yaml), written from vendor
documents and never from fabricctl's templates: each command names its view, syntax, default,
the display/show command that reveals it and its source (URL + section; the device the source
is for). The lab's CLI grammar is built from it, so the lab accepts a line only when the
reference does, in the view the reference names; docs/emitted-syntax.md is generated from it.

A platform's file may be generated from the vendor's own command reference (a `generated:`
header names the generator, the repository and the commit it read, and `release:` the NOS
release the reference documents; NVUE's is, by tools/nvue_reference.py). Its commands then also
say from which release each form holds (`since`) and the form it replaced (`before`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import yaml
from netutils.constants import MAC_CREATE

from fabricctl.lab.grammar import Grammar, Mode, Rule
from fabricctl.lab.nos import lab_nos

CONFIDENCE = {
    "V": "read in a vendor document (the source names the vendor and the device)",
    "P": "a vendor document names it, but its syntax or view for this device was not read: check with `?` on the device",
}
_RULE_FIELDS = {
    "key",
    "neg",
    "enters",
    "keep",
    "hidden",
    "resets",
    "reset_keeps",
    "default",
    "shows",
    "src",
    "conf",
    "note",
    "since",
    "before",
}


class ReferenceError(ValueError):
    """The command reference file itself is malformed (a bug in the data, not in user input)."""


@dataclass(frozen=True)
class Source:
    id: str
    url: str
    section: str
    device: str
    #: A generated reference's page: its path in the vendor's repository and git blob id.
    path: str = ""
    blob: str = ""
    publisher: str = ""  # who wrote the document (the vendor, for a vendor document)


@dataclass(frozen=True)
class Reference:
    """A platform's command reference: the grammar the lab runs and the sources behind it."""

    platform: str
    title: str
    intro: str
    grammar: Grammar
    sources: dict[str, Source]
    #: The NOS release the reference documents ("" for hand-written references).
    release: str = ""
    #: How a generated reference was made: the generator, repository and commit it read.
    generated: dict[str, Any] | None = None
    #: Per rule: (the release its form holds from, the form it replaced), where the reference says.
    history: dict[Rule, tuple[str, str]] = field(default_factory=dict)

    def rules(self) -> list[tuple[str, Rule]]:
        """(view, rule) for every command, in file order."""
        return [(view, rule) for view, mode in self.grammar.modes.items() for rule in mode.rules]

    def default(self, view: str, words: list[str]) -> str | None:
        """The documented default of the setting `words` names in `view` (e.g. ['mtu'])."""
        for rule in self.grammar.modes[view].rules:
            if rule.default is not None and rule.negatable_by(words):
                return rule.default
        return None


def _prompt(fmt: str, abbreviations: dict[str, str]) -> Callable[[list[str]], str]:
    """`config-if-{1}` -> a function of the opener's words (interface types abbreviated)."""

    def prompt(words: list[str]) -> str:
        short = list(words)
        for i, word in enumerate(short):
            for full, abbr in abbreviations.items():
                if word.startswith(full):
                    short[i] = abbr + word[len(full) :]
        return fmt.format(*short)

    return prompt


def _rule(view: str, raw: dict[str, Any], sources: dict[str, Source]) -> Rule:
    where = f"view {view!r}, command {raw.get('cmd')!r}"
    unknown = set(raw) - _RULE_FIELDS - {"cmd"}
    if unknown:
        raise ReferenceError(f"{where}: unknown fields {sorted(unknown)}")
    src = tuple(raw.get("src") or ())
    if not src:
        raise ReferenceError(f"{where}: no source (every command needs a vendor document or public config)")
    missing = [s for s in src if s not in sources]
    if missing:
        raise ReferenceError(f"{where}: unknown source ids {missing}")
    conf = raw.get("conf", "")
    if conf not in CONFIDENCE:
        raise ReferenceError(f"{where}: confidence must be one of {sorted(CONFIDENCE)}, not {conf!r}")
    return Rule(
        raw["cmd"],
        key=raw.get("key"),
        neg=raw.get("neg"),
        child=raw.get("enters"),
        keep=bool(raw.get("keep", False)),
        hidden=bool(raw.get("hidden", False)),
        resets=tuple(raw.get("resets") or ()),
        reset_keeps=tuple(raw.get("reset_keeps") or ()),
        default=None if raw.get("default") is None else str(raw["default"]),
        shows=raw.get("shows"),
        sources=src,
        confidence=conf,
        note=raw.get("note", ""),
    )


def parse_reference(platform: str, data: dict[str, Any]) -> Reference:
    """Build a Reference from the YAML document (checked: sources, views, confidence)."""
    sources = {}
    for sid, raw in (data.get("sources") or {}).items():
        for name in ("url", "section", "device"):
            if not raw.get(name):
                raise ReferenceError(f"source {sid!r}: missing {name}")
        sources[sid] = Source(
            sid,
            raw["url"],
            raw["section"],
            raw["device"],
            str(raw.get("path", "")),
            str(raw.get("blob", "")),
            str(raw.get("publisher", "")),
        )
    abbreviations = data.get("abbreviations") or {}
    modes = {}
    history: dict[Rule, tuple[str, str]] = {}
    for view, raw in data["views"].items():
        rules = tuple(_rule(view, c, sources) for c in raw["commands"])
        for rule, c in zip(rules, raw["commands"], strict=True):
            if c.get("since") or c.get("before"):
                history[rule] = (str(c.get("since") or ""), str(c.get("before") or ""))
        modes[view] = Mode(
            rules=rules, prompt=_prompt(raw.get("prompt", ""), abbreviations), title=raw.get("title", view)
        )
    for view, mode in modes.items():
        for rule in mode.rules:
            if rule.child is not None and rule.child not in modes:
                raise ReferenceError(
                    f"view {view!r}, command {rule.pattern!r}: enters unknown view {rule.child!r}"
                )
    mac_format = data.get("mac_format")
    if mac_format is not None and mac_format not in MAC_CREATE:
        raise ReferenceError(f"mac_format {mac_format!r} is none of netutils' ({', '.join(MAC_CREATE)})")
    grammar = Grammar(
        modes=modes,
        negations=tuple(data["negations"]),
        root=data.get("root", "global"),
        mac_format=mac_format,
    )
    return Reference(
        platform,
        data["title"],
        data.get("intro", ""),
        grammar,
        sources,
        release=str(data.get("release") or ""),
        generated=data.get("generated"),
        history=history,
    )


@cache
def reference(platform: str) -> Reference:
    """The platform's command reference (read once per process)."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # a generated reference runs to thousands of lines
    return parse_reference(platform, yaml.load(lab_nos(platform).reference_text(), Loader=loader))
