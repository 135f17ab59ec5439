"""Write the reviewable artifacts of a compile: <switch>.intent.yaml and <switch>.cfg.

A switch is rendered again only when something that shapes its config changed: its intent, a
template its platform uses (built-in or the fabric's own) or the fabricctl version. What each
file was made from is kept in `.fabricctl-render.json` beside them, with the hash of each file as
written, so a hand-edited or deleted file is rewritten too. A one-tenant change re-renders only
the switches that tenant lands on; a template edit re-renders every switch of that platform.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from fabricctl.compile.intent import DeviceIntent, intent_digest
from fabricctl.outputs import make_folder, write_file
from fabricctl.render import Renderer
from fabricctl.stamps import now_ns, stamp, trusted

if TYPE_CHECKING:
    from fabricctl.compile.build import Compiled

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
        if (
            kind is str
            and isinstance(value, str)
            and _PLAIN.fullmatch(value)
            and value.lower() not in _RESOLVED_WORDS
        ):
            text = value
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
        _SCALARS[key] = text
    return text


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


def _map(node: dict[Any, Any], indent: str, first: str, out: list[str], seen: set[int]) -> None:
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


def _seq(node: list[Any], indent: str, first: str, out: list[str], seen: set[int]) -> None:
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


MANIFEST = ".fabricctl-render.json"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _write_if_changed(path: Path, text: str, within: Path) -> bool:
    """Write `text` at `path` unless it holds it already (never through a symlink below
    `within`, never over a device, FIFO or folder: outputs.py)."""
    if not path.is_symlink() and path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    write_file(path, text, within=within)
    return True


def _read_manifest(out: Path) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # none yet, or unreadable: every switch is rendered
    return data if isinstance(data, dict) else {}


def _files_intact(out: Path, name: str, entry: dict[str, Any], taken: int) -> bool:
    """Both files of a switch are as written: by their stamps when those settle it (8,320 files of
    a 100k fabric are not read again), else by their content, and then the stamps are renewed."""
    paths = (f"{out}/{name}.cfg", f"{out}/{name}.intent.yaml")  # str, not Path: 8,320 of them
    current = [stamp(p) for p in paths]
    recorded = entry.get("stamps")
    seen = entry.get("seen")
    if (
        isinstance(recorded, list)
        and len(recorded) == 2
        and isinstance(seen, int)
        and all(
            trusted(c, tuple(r) if isinstance(r, list) else None, seen)
            for c, r in zip(current, recorded, strict=True)
        )
    ):
        return True
    for path, kind in zip(paths, ("cfg", "intent"), strict=True):
        try:
            if _sha(Path(path).read_text(encoding="utf-8")) != entry.get(kind):
                return False
        except (OSError, UnicodeDecodeError):
            return False
    entry["stamps"], entry["seen"] = current, taken
    return True


@dataclass
class RenderStats:
    rendered: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    lines: int = 0
    #: Switch -> the digest of the intent its files now hold (every switch given or known).
    digests: dict[str, str] = field(default_factory=dict)
    #: Known switches whose files are not those of their digest: nothing was rendered or written.
    stale: list[str] = field(default_factory=list)


def write_fabric(
    root: Path,
    out: Path,
    within: Path,
    select: Callable[[Compiled], dict[str, DeviceIntent]] | None = None,
    force: bool = False,
) -> RenderStats:
    """`fabricctl render`: the fabric at `root` compiled and its switches' files written into
    `out` (those `select` picks, `--limit`). A whole-fabric render keeps the compile cache's
    snapshot; unforced, the cache may answer for every switch a change does not touch."""
    from fabricctl.compile import cache
    from fabricctl.compile.build import compile_fabric

    renderer = Renderer(root)
    found = cache.scan(root) if select is None else None
    known = cache.changes(found) if found is not None and not force else None
    if known:
        stats = write_artifacts(known.intents, renderer, out, known=known.unchanged, within=within)
        if found is not None and not stats.stale:
            cache.save(found, known, stats.digests)  # the switches no change touched were up to date
            return stats
    compiled = compile_fabric(root)
    intents = select(compiled) if select is not None else compiled.intents
    stats = write_artifacts(intents, renderer, out, force=force, within=within)
    if found is not None:
        cache.remember(found, compiled, stats.digests)
    return stats


def write_artifacts(
    intents: dict[str, DeviceIntent],
    renderer: Renderer,
    out: Path,
    force: bool = False,
    known: Mapping[str, tuple[str, str]] | None = None,
    within: Path | None = None,
) -> RenderStats:
    """Render into `out` the switches whose inputs or files changed; skip the rest.

    `known` names switches not compiled this run, each with its platform and the digest of the
    intent it had when last compiled (the compile cache's word). Each must already be in `out`,
    made from that digest; if any is not, the run stops before rendering and lists them in
    `stale`, so the caller compiles them.

    Every switch is rendered before anything is written, so a template error leaves `out` as
    it was (a half-written folder would mix configs of two template versions).
    """
    taken = now_ns()
    manifest = _read_manifest(out)
    stats = RenderStats()
    for name, (platform, digest) in (known or {}).items():
        seen = manifest.get(name, {})
        if seen.get("inputs") == renderer.made_from(platform, digest) and _files_intact(
            out, name, seen, taken
        ):
            stats.unchanged.append(name)
            stats.digests[name] = digest
        else:
            stats.stale.append(name)
    if stats.stale:
        return stats
    todo: dict[str, DeviceIntent] = {}
    made_from: dict[str, str] = {}
    for name, intent in intents.items():
        stats.digests[name] = intent_digest(intent)
        made_from[name] = renderer.made_from(intent.platform, stats.digests[name])
        seen = manifest.get(name, {})
        if not force and seen.get("inputs") == made_from[name] and _files_intact(out, name, seen, taken):
            stats.unchanged.append(name)
        else:
            todo[name] = intent
    texts = renderer.render_all(todo, stats.digests)  # before anything is written (above)
    within = within if within is not None else out
    make_folder(out, within=within)
    for name, intent in todo.items():
        text, intent_text = texts[name], intent_yaml(intent)
        paths = (out / f"{name}.cfg", out / f"{name}.intent.yaml")
        _write_if_changed(paths[0], text, within)
        _write_if_changed(paths[1], intent_text, within)
        manifest[name] = {
            "inputs": made_from[name],
            "cfg": _sha(text),
            "intent": _sha(intent_text),
            "stamps": [stamp(p) for p in paths],
            "seen": now_ns(),
        }
        stats.rendered.append(name)
        stats.lines += text.count("\n")
    # One line, no indent: the C encoder, 4,160 switches in 10 ms instead of 130.
    _write_if_changed(
        out / MANIFEST, json.dumps(manifest, sort_keys=True, separators=(",", ":")) + "\n", within
    )
    return stats
