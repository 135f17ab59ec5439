"""YAML loading that keeps line numbers, rejects duplicate keys, never executes tags, and bounds
what a hostile file can cost (size, nesting, aliases)."""

from __future__ import annotations

import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq, CommentedSet, TaggedScalar, merge_attrib
from ruamel.yaml.constructor import DuplicateKeyError
from ruamel.yaml.error import MarkedYAMLError

from fabricctl.model._fastyaml import ALIAS, MERGE, TOO_DEEP, TOO_DEEP_ALLOWED, Refused, fast_load
from fabricctl.model.bounds import MAX_CAREFUL_CHARS, MAX_DEPTH, MAX_TENANT_FILE_BYTES, size_text
from fabricctl.model.problems import ProblemLog
from fabricctl.model.text import ALLOWED, describe, first_refused_in_file, is_refused, one_line_problem

PathKey = tuple[str | int, ...]


@dataclass
class YamlDoc:
    """A parsed YAML file: plain Python data plus a map from field path to line number."""

    file: Path
    data: Any
    lines: dict[PathKey, int] | None  # None: let go to save memory, read again on first use

    def line_of(self, path: PathKey) -> int:
        """Line of the deepest known prefix of `path` (1-based), so errors always point somewhere."""
        if self.lines is None:
            again = load_yaml(self.file, ProblemLog(self.file.parent))
            self.lines = again.lines if again is not None and again.lines is not None else {}
        for n in range(len(path), -1, -1):
            line = self.lines.get(tuple(path[:n]))
            if line is not None:
                return line
        return 1


def validated(doc: YamlDoc) -> YamlDoc:
    """The doc once its model is built: the data and the line map go (a 100,000-tenant fabric
    held 235 MiB of them); an error found later reads the lines again from the file."""
    return YamlDoc(doc.file, None, None)


def dotted(path: PathKey) -> str:
    """('gpus', 0, 'servers') -> 'gpus[0].servers', the way errors name a field."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


class _Rejected(Exception):
    """A construct that plain data files must not use (tags, sets, binary), at a field path."""

    def __init__(self, path: PathKey, message: str, allowed: str = "") -> None:
        super().__init__(message)
        self.path = path
        self.message = message
        self.allowed = allowed


def _tag_of(node: Any) -> str | None:
    tag = getattr(node, "tag", None)
    value = getattr(tag, "value", None)
    if not isinstance(value, str):
        return None
    return (
        "!!" + value.removeprefix("tag:yaml.org,2002:") if value.startswith("tag:yaml.org,2002:") else value
    )


def _plain(node: Any, path: PathKey, lines: dict[PathKey, int], seen: set[int] | None = None) -> Any:
    """ruamel's round-trip data -> plain data. The structure check has already refused aliases,
    merge keys and deep nesting; this refuses them again on its own (a list or mapping met twice
    is an alias), so a document libyaml could not read still cannot expand exponentially."""
    seen = set() if seen is None else seen
    tag = _tag_of(node)
    if tag is not None or isinstance(node, TaggedScalar):
        raise _Rejected(path, f"YAML tag {tag} is not allowed: write plain values")
    if isinstance(node, CommentedSet):
        raise _Rejected(path, "a YAML set (!!set or {a, b}) is not allowed: write a list [a, b]")
    if isinstance(node, bytes):
        raise _Rejected(path, "binary data is not allowed: write plain values")
    if isinstance(node, (CommentedMap, CommentedSeq)):
        if id(node) in seen:
            raise _Rejected(path, ALIAS)
        if len(path) >= MAX_DEPTH:
            raise _Rejected(path, TOO_DEEP, TOO_DEEP_ALLOWED)
        seen.add(id(node))
    if isinstance(node, CommentedMap):
        if getattr(node, merge_attrib, None):
            raise _Rejected(path, MERGE)
        out: dict[Any, Any] = {}
        for key, value in node.items():
            pos = node.lc.key(key)
            lines[(*path, str(key))] = pos[0] + 1
            out[str(key) if not isinstance(key, (str, int, float, bool)) else key] = _plain(
                value, (*path, str(key)), lines, seen
            )
        return out
    if isinstance(node, CommentedSeq):
        items = []
        for i, value in enumerate(node):
            pos = node.lc.item(i)
            lines[(*path, i)] = pos[0] + 1 if pos else lines.get(path, 1)
            items.append(_plain(value, (*path, i), lines, seen))
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


def load_yaml(
    file: Path, log: ProblemLog, fast: bool = True, max_bytes: int = MAX_TENANT_FILE_BYTES
) -> YamlDoc | None:
    """Parse one input file; on any problem log it, located, and return None.

    Before parsing: the file must be a regular file inside the fabric root (a symlink may not
    lead out of it: its contents would end up in error messages), at most `max_bytes` long,
    UTF-8, and free of control characters anywhere. While parsing: no anchors, aliases, merge
    keys or deep nesting (model/_fastyaml.py). After: no string, key or value, may hold a
    character that breaks a line (model/text.py), wherever it is in the file.

    Plain files take libyaml's C parser (model/_fastyaml.py, ~25 times faster: it matters for
    thousands of tenant files); anything else, and every error, takes ruamel's careful path.
    tests/test_yaml_readers.py proves both give the same document and lines for every YAML file
    the project has. `fast=False` forces the ruamel path.
    """
    text = _read_text(file, log, max_bytes)
    if text is None:
        return None
    bad = first_refused_in_file(text)
    if bad is not None:
        line = text.count("\n", 0, bad) + 1
        column = bad - (text.rfind("\n", 0, bad) + 1) + 1
        # Name the field written on that line when the rest of the file reads.
        clean = text.translate(_IN_FILE_TRANSLATION)
        near = _parse(file, clean, ProblemLog(log.root), fast=True)
        field = _field_at(near.lines, line) if near is not None and near.lines is not None else ""
        log.add(
            file,
            line,
            field,
            f"{describe(text[bad])} at column {column} is not allowed in an input file",
            "printable text; lines end with LF or CR LF",
        )
        return None
    doc = _parse(file, text, log, fast)
    if doc is None:
        return None
    found = False
    for path, shown, problem in _refused_strings(doc.data, ()):
        log.add(file, doc.line_of(path), dotted(shown), problem, ALLOWED)
        found = True
    return None if found else doc


PLAIN = "plain YAML: quoted text, true/false, whole numbers, no tags or duplicate keys"


#: Every character `first_refused_in_file` finds, mapped to a space (only to locate a field).
_IN_FILE_TRANSLATION = {c: " " for c in [*range(0xA0), 0x2028, 0x2029] if first_refused_in_file(chr(c)) == 0}


def _field_at(lines: dict[PathKey, int], line: int) -> str:
    """The field whose key is written on `line` (the last, the deepest), or '' (a comment, say)."""
    on_line = [path for path, start in lines.items() if start == line and path]
    return dotted(on_line[-1]) if on_line else ""


def _refused_strings(data: Any, path: PathKey) -> Iterator[tuple[PathKey, PathKey, str]]:
    """(field path, the path as shown, why) for every key and string value that cannot stay on
    one CLI line; a key is shown with '?' for what it may not hold."""
    todo: list[tuple[Any, PathKey]] = [(data, path)]
    while todo:  # a loop, not recursion: the structure check bounds depth, this never depends on it
        node, at = todo.pop()
        if isinstance(node, str):
            problem = one_line_problem(node)
            if problem is not None:
                yield at, at, problem
        elif isinstance(node, dict):
            for key, value in node.items():
                key_problem = one_line_problem(key) if isinstance(key, str) else None
                if key_problem is not None:  # named with '?' for what it may not hold
                    safe = "".join("?" if is_refused(c) else c for c in key)
                    yield (*at, str(key)), (*at, safe), "the key " + key_problem
                else:
                    todo.append((value, (*at, str(key))))
        elif isinstance(node, list):
            todo.extend((value, (*at, i)) for i, value in enumerate(node))


def inside_root(path: Path, log: ProblemLog) -> Path | None:
    """`path` with symlinks resolved, or None after logging that it loops, dangles or leads out
    of the fabric root (what it points to would be read, and could end up in an error)."""
    try:
        # A plain file: resolve only its folder, once per run, not every file's whole path.
        real = path.resolve(strict=True) if path.is_symlink() else log.real_folder(path.parent) / path.name
        root = log.real_folder(log.root)
    except (OSError, RuntimeError):  # a dangling symlink, a symlink loop, no permission
        log.add(path, 0, "", "cannot read: missing, or a symbolic link that loops or leads nowhere")
        return None
    if real != root and root not in real.parents:
        log.add(
            path, 0, "", "is a symbolic link leading outside the fabric repository", "files inside --root"
        )
        return None
    return real


def _read_text(file: Path, log: ProblemLog, max_bytes: int) -> str | None:
    """The file's text, or None after logging why it cannot be an input file."""
    real = inside_root(file, log)
    if real is None:
        return None
    try:
        info = real.stat()
        if not stat.S_ISREG(info.st_mode):
            log.add(file, 0, "", "is not a regular file", "a YAML file")
            return None
        if info.st_size > max_bytes:
            log.add(
                file, 0, "", f"file is larger than {size_text(max_bytes)}", f"at most {size_text(max_bytes)}"
            )
            return None
        with real.open("rb") as stream:
            raw = stream.read(max_bytes + 1)
    except OSError as exc:
        log.add(file, 0, "", f"cannot read file: {exc.strerror or type(exc).__name__}")
        return None
    if len(raw) > max_bytes:  # it grew while being read
        log.add(file, 0, "", f"file is larger than {size_text(max_bytes)}", f"at most {size_text(max_bytes)}")
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        log.add(file, line, "", f"cannot read file: not UTF-8 text (an invalid byte at column {column})")
        return None
    return text.replace("\r\n", "\n")


def _parse(file: Path, text: str, log: ProblemLog, fast: bool) -> YamlDoc | None:
    """Structure check and parse (libyaml when plain, else ruamel); problems go to `log`."""
    reasons: list[tuple[int, str]] = []
    try:
        quick = fast_load(text, reasons)
    except Refused as exc:
        log.add(file, exc.line, dotted(exc.path), exc.message, exc.allowed)
        return None
    if quick is not None and fast:
        return YamlDoc(file, quick[0], quick[1])
    if quick is None and len(text) > MAX_CAREFUL_CHARS:
        # ruamel reads about 100 KiB a second: a large file must be plain (it then takes the fast
        # path) or it is refused at the first thing that is not, instead of costing seconds.
        line, why = reasons[0] if reasons else (1, "not plain YAML")
        log.add(file, line, "", f"{why} (in a file this large, over {MAX_CAREFUL_CHARS // 1024} KiB)", PLAIN)
        return None
    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
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
        log.add(file, where, dotted(exc.path), exc.message, exc.allowed)
        return None
    return YamlDoc(file, data, lines)
