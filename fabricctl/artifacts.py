"""Write the reviewable artifacts of a compile: <switch>.intent.yaml and <switch>.cfg.

A switch whose intent is byte-identical to what is already on disk is not rendered again, so a
one-tenant change re-renders only the switches that tenant lands on.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from fabricctl.compile.intent import DeviceIntent
from fabricctl.render import Renderer

try:
    _Dumper: type = yaml.CSafeDumper
except AttributeError:  # pragma: no cover - pure-Python PyYAML
    _Dumper = yaml.SafeDumper


def intent_yaml(intent: DeviceIntent) -> str:
    """Stable YAML of one switch's intent (field order of the model, no sorting surprises)."""
    data = intent.model_dump(mode="json")
    try:
        return _fast_yaml(data)
    except _Unsupported:
        return _slow_yaml(data)


def _slow_yaml(data: object) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, width=200)


# PyYAML's representer and resolver run in Python even with the C dumper, and cost more than
# rendering the config itself. Intent data is JSON-shaped (dicts, lists, scalars), so the block
# layout is laid out here and every scalar is spelled by PyYAML itself (once per distinct value,
# cached), which keeps the output byte-identical to `_slow_yaml`. Anything outside that shape
# (other types, shared containers, multi-line scalars, lines long enough to fold) falls back.
_MAX_LINE = 160  # well below width=200: no line this short can be folded by the emitter
_SCALARS: dict[tuple[type, object], str] = {}
_KEYS: dict[tuple[type, object], str] = {}
_SCALAR_TYPES = (str, int, float, bool, type(None))


class _Unsupported(Exception):
    """The fast emitter cannot vouch for identical output; use PyYAML."""


# Strings PyYAML always writes plain (fuzzed against it: 600k strings): names and words that no
# YAML 1.1 resolver claims, dotted quads with a /prefix or :number, and ASN:number pairs whose
# second part is too long to be read as a sexagesimal number.
_PLAIN = re.compile(
    r"[A-Za-z][A-Za-z0-9._/-]*(?: [A-Za-z0-9._/-]+)*"
    r"|\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2}|:\d{1,10})?"
    r"|[1-9]\d{0,9}:\d{3,10}"
)
_RESOLVED_WORDS = frozenset(("yes", "no", "on", "off", "true", "false", "null", "y", "n"))


def _scalar(value: object) -> str:
    key = (type(value), value)
    text = _SCALARS.get(key)
    if text is None:
        kind = type(value)
        if kind is str and _PLAIN.fullmatch(value) and value.lower() not in _RESOLVED_WORDS:  # type: ignore[arg-type]
            text = value  # type: ignore[assignment]
        elif kind is int:
            text = str(value)
        else:
            if kind not in _SCALAR_TYPES:
                raise _Unsupported
            dumped = _slow_yaml({"k": value})
            if not dumped.startswith("k: ") or dumped.count("\n") != 1:
                raise _Unsupported
            text = dumped[3:-1]
        if len(_SCALARS) > 500_000:
            _SCALARS.clear()
        _SCALARS[key] = text  # type: ignore[assignment]
    return text  # type: ignore[return-value]


def _key(value: object) -> str:
    key = (type(value), value)
    text = _KEYS.get(key)
    if text is None:
        if type(value) not in _SCALAR_TYPES:
            raise _Unsupported
        dumped = _slow_yaml({value: 0})
        if not dumped.endswith(": 0\n") or dumped.count("\n") != 1 or dumped.startswith("?"):
            raise _Unsupported
        text = _KEYS[key] = dumped[:-4]
    return text


def _fast_yaml(data: object) -> str:
    if type(data) is not dict or not data:
        raise _Unsupported
    out: list[str] = []
    _map(data, "", "", out, set())
    text = "".join(out)
    if any(len(line) > _MAX_LINE for line in text.split("\n")):
        raise _Unsupported
    return text


def _seen(node: object, seen: set[int]) -> None:
    """A container emitted twice would get an anchor and an alias from PyYAML."""
    if id(node) in seen:
        raise _Unsupported
    seen.add(id(node))


def _map(node: dict, indent: str, first: str, out: list[str], seen: set[int]) -> None:
    """Block mapping; its first line starts with `first` (a '- ' prefix inside a sequence)."""
    _seen(node, seen)
    prefix = first
    inner = indent + "  "
    for k, v in node.items():
        head = prefix + _key(k) + ":"
        prefix = indent
        kind = type(v)
        if kind is dict:
            if v:
                out.append(head + "\n")
                _map(v, inner, inner, out, seen)
            else:
                out.append(head + " {}\n")
        elif kind is list:
            if v:
                out.append(head + "\n")
                _seq(v, indent, indent, out, seen)  # indentless, as PyYAML writes it in a mapping
            else:
                out.append(head + " []\n")
        else:
            out.append(head + " " + _scalar(v) + "\n")


def _seq(node: list, indent: str, first: str, out: list[str], seen: set[int]) -> None:
    _seen(node, seen)
    prefix = first
    inner = indent + "  "
    for item in node:
        dash = prefix + "- "
        prefix = indent
        kind = type(item)
        if kind is dict:
            if item:
                _map(item, inner, dash, out, seen)
            else:
                out.append(dash + "{}\n")
        elif kind is list:
            if item:
                _seq(item, inner, dash, out, seen)
            else:
                out.append(dash + "[]\n")
        else:
            out.append(dash + _scalar(item) + "\n")


def _write_if_changed(path: Path, text: str) -> bool:
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return True


@dataclass
class RenderStats:
    rendered: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    lines: int = 0


def write_artifacts(
    intents: dict[str, DeviceIntent], renderer: Renderer, out: Path, force: bool = False
) -> RenderStats:
    """Render changed switches into `out`; skip those whose intent file already matches."""
    out.mkdir(parents=True, exist_ok=True)
    stats = RenderStats()
    for name, intent in intents.items():
        intent_text = intent_yaml(intent)
        cfg, intent_file = out / f"{name}.cfg", out / f"{name}.intent.yaml"
        if (
            not force
            and cfg.is_file()
            and intent_file.is_file()
            and intent_file.read_text(encoding="utf-8") == intent_text
        ):
            stats.unchanged.append(name)
            continue
        text = renderer.render(intent)
        _write_if_changed(cfg, text)
        _write_if_changed(intent_file, intent_text)  # last: a failed render is retried next time
        stats.rendered.append(name)
        stats.lines += text.count("\n")
    return stats
