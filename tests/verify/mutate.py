"""Text mutations of rendered configs: scoped regex edits inside one config block.

A mutation names a path of block headers ("router bgp 65211" > "vrf team-llm") so the edit lands in
exactly one place, and it fails loudly when the pattern no longer matches (the template changed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Edit:
    switch: str
    path: tuple[str, ...]  # stripped header lines, outermost first; () = whole file
    pattern: str  # regex, applied once (MULTILINE) inside the block body
    repl: str


@dataclass(frozen=True)
class Mutation:
    id: str
    edits: tuple[Edit, ...]
    check: str  # the violation verify must report
    switch: str  # where it must report it
    contains: str = ""  # a fragment the counterexample must carry


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _region(lines: list[str], path: tuple[str, ...]) -> tuple[int, int]:
    """[start, end) line indexes of the body under the header path."""
    start, end, depth = 0, len(lines), -1
    for header in path:
        for i in range(start, end):
            if lines[i].strip() == header and _indent(lines[i]) > depth:
                depth = _indent(lines[i])
                start = i + 1
                end = start
                while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) > depth):
                    if lines[end].strip() in ("#", "!") and _indent(lines[end]) == 0:
                        break
                    end += 1
                break
        else:
            raise AssertionError(f"no block {header!r} (path {path})")
    return start, end


def apply(configs: dict[str, str], edits: tuple[Edit, ...]) -> dict[str, str]:
    """A copy of `configs` with every edit applied; each must change its block."""
    out = dict(configs)
    for e in edits:
        lines = out[e.switch].split("\n")
        start, end = _region(lines, e.path)
        body = "\n".join(lines[start:end])
        new = re.sub(e.pattern, e.repl, body, count=1, flags=re.MULTILINE)
        assert new != body, f"mutation did not apply: {e}"
        out[e.switch] = "\n".join([*lines[:start], *new.split("\n"), *lines[end:]])
    return out
