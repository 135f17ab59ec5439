"""YAML loading that keeps line numbers, rejects duplicate keys and never executes tags."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq, CommentedSet, TaggedScalar
from ruamel.yaml.constructor import DuplicateKeyError
from ruamel.yaml.error import MarkedYAMLError

from fabricctl.model.problems import ProblemLog

PathKey = tuple[str | int, ...]


@dataclass
class YamlDoc:
    """A parsed YAML file: plain Python data plus a map from field path to line number."""

    file: Path
    data: Any
    lines: dict[PathKey, int]

    def line_of(self, path: PathKey) -> int:
        """Line of the deepest known prefix of `path` (1-based), so errors always point somewhere."""
        for n in range(len(path), -1, -1):
            line = self.lines.get(tuple(path[:n]))
            if line is not None:
                return line
        return 1


def dotted(path: PathKey) -> str:
    """('gpus', 0, 'servers') -> 'gpus[0].servers', the way errors name a field."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


class _Rejected(Exception):
    """A construct that plain data files must not use (tags, sets, binary), at a field path."""

    def __init__(self, path: PathKey, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


def _tag_of(node: Any) -> str | None:
    tag = getattr(node, "tag", None)
    value = getattr(tag, "value", None)
    if value is None:
        return None
    return (
        "!!" + value.removeprefix("tag:yaml.org,2002:") if value.startswith("tag:yaml.org,2002:") else value
    )


def _plain(node: Any, path: PathKey, lines: dict[PathKey, int]) -> Any:
    tag = _tag_of(node)
    if tag is not None or isinstance(node, TaggedScalar):
        raise _Rejected(path, f"YAML tag {tag} is not allowed: write plain values")
    if isinstance(node, CommentedSet):
        raise _Rejected(path, "a YAML set (!!set or {a, b}) is not allowed: write a list [a, b]")
    if isinstance(node, bytes):
        raise _Rejected(path, "binary data is not allowed: write plain values")
    if isinstance(node, CommentedMap):
        out: dict[Any, Any] = {}
        for key, value in node.items():
            pos = node.lc.key(key)
            lines[(*path, str(key))] = pos[0] + 1
            out[str(key) if not isinstance(key, (str, int, float, bool)) else key] = _plain(
                value, (*path, str(key)), lines
            )
        return out
    if isinstance(node, CommentedSeq):
        items = []
        for i, value in enumerate(node):
            pos = node.lc.item(i)
            lines[(*path, i)] = pos[0] + 1 if pos else lines.get(path, 1)
            items.append(_plain(value, (*path, i), lines))
        return items
    if isinstance(node, str):
        return str(node)
    return node


def _first_occurrence(text: str, key: str, start: int, duplicate_line: int) -> int:
    """Line of the first `key:` at the duplicate's indentation, between the mapping start and it."""
    lines = text.splitlines()
    if not 0 < duplicate_line <= len(lines):
        return 0
    dup = lines[duplicate_line - 1]
    column = len(dup) - len(dup.lstrip(" -"))  # a list item's "- " counts as indentation
    pattern = re.compile(rf"^[ -]{{{column}}}{re.escape(key)}\s*:")
    for n in range(start, duplicate_line - 1):
        if pattern.match(lines[n]):
            return n + 1
    return 0


def load_yaml(file: Path, log: ProblemLog, fast: bool = True) -> YamlDoc | None:
    """Parse one file; on a syntax error or a duplicate key log a problem and return None.

    Plain files take libyaml's C parser (model/_fastyaml.py, ~25 times faster: it matters for
    thousands of tenant files); anything else, and every error, takes ruamel's careful path.
    tests/test_yaml_readers.py proves both give the same document and lines for every YAML file
    the project has. `fast=False` forces the ruamel path.
    """
    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        log.add(file, 0, "", f"cannot read file: {exc.__class__.__name__}")
        return None
    from fabricctl.model._fastyaml import fast_load

    quick = fast_load(text) if fast else None
    if quick is not None:
        return YamlDoc(file, quick[0], quick[1])
    try:
        raw = yaml.load(text)
    except DuplicateKeyError as exc:
        mark = exc.problem_mark
        key = exc.problem.split('"')[1] if '"' in (exc.problem or "") else "?"
        line = mark.line + 1 if mark else 0
        first = _first_occurrence(text, key, exc.context_mark.line if exc.context_mark else 0, line)
        message = "duplicate key" + (f" (first written at line {first})" if first else "")
        log.add(file, line, key, message, "each key once")
        return None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = f"invalid YAML: {exc.problem}"
        if exc.context and exc.context_mark and exc.context_mark.line != getattr(mark, "line", None):
            message += f" ({exc.context} that starts at line {exc.context_mark.line + 1})"
        if "'\\t'" in (exc.problem or ""):
            message += "; indent with spaces, not tabs"
        log.add(file, mark.line + 1 if mark else 0, "", message)
        return None
    except Exception as exc:  # the YAML library itself failed on odd input: still one located line
        log.add(file, 1, "", f"invalid YAML: the reader failed ({type(exc).__name__}); simplify the document")
        return None
    lines: dict[PathKey, int] = {(): 1}
    try:
        data = _plain(raw, (), lines)
    except _Rejected as exc:
        where = YamlDoc(file, None, lines).line_of(exc.path)
        log.add(file, where, dotted(exc.path), exc.message)
        return None
    return YamlDoc(file, data, lines)
