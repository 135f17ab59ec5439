"""Input problems: collected, not raised one by one, so a user sees every mistake at once."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with the input, pinned to a file, a line and a field path."""

    file: str
    line: int
    path: str
    message: str
    allowed: str = ""

    def render(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        text = f"{where}: {self.path}: {self.message}" if self.path else f"{where}: {self.message}"
        if self.allowed:
            text += f" (allowed: {self.allowed})"
        return text


class InputError(Exception):
    """Raised at a stage boundary when any problem was collected; carries all of them."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = sorted(set(problems))
        super().__init__(f"{len(self.problems)} input problem(s)")

    def render(self) -> str:
        lines = [p.render() for p in self.problems]
        n = len(self.problems)
        lines.append(f"{n} error{'s' if n != 1 else ''}; nothing was contacted or pushed.")
        return "\n".join(lines)


@dataclass
class ProblemLog:
    """Accumulates problems during one stage; `check()` raises them together."""

    root: Path
    problems: list[Problem] = field(default_factory=list)
    _folders: dict[Path, Path] = field(default_factory=dict, repr=False, compare=False)
    _relative_folders: dict[Path, str] = field(default_factory=dict, repr=False, compare=False)

    def real_folder(self, folder: Path) -> Path:
        """`folder` with symlinks resolved, once per stage (thousands of tenant files share one)."""
        if folder not in self._folders:
            self._folders[folder] = folder.resolve(strict=True)
        return self._folders[folder]

    def add(self, file: Path | str, line: int, path: str, message: str, allowed: str = "") -> None:
        self.problems.append(Problem(self.relative(file), line, path, message, allowed))

    def relative(self, file: Path | str) -> str:
        """The file as the user names it under --root: a symlink by its own name, never its target
        (which may be outside the repository, or loop). Worked out once per folder: thousands of
        tenant files share one."""
        p = Path(file)
        if p.name in ("", ".", ".."):
            return self._relative(p)
        folder = self._relative_folders.get(p.parent)
        if folder is None:
            folder = self._relative_folders[p.parent] = self._relative(p.parent)
        return p.name if folder == "." else f"{folder}/{p.name}"

    def _relative(self, p: Path) -> str:
        # Resolving costs a realpath walk per call: only when the names as written do not nest.
        for base, path in ((self.root.absolute, p.absolute), (lambda: _real(self.root), lambda: _real(p))):
            try:
                return Path(os.path.normpath(path())).relative_to(os.path.normpath(base())).as_posix()
            except ValueError:
                continue
        return p.as_posix()

    def check(self) -> None:
        if self.problems:
            raise InputError(self.problems)


def _real(path: Path) -> Path:
    """`path` with symlinks resolved where that is possible (a loop is left as written)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def kind_of(value: Any) -> str:
    """What a value is, without any of its content ('a list', 'text', 'a number'): for errors
    about a value that may be anything (a password, a whole foreign file read as one string)."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, str):
        return "text"
    if isinstance(value, (int, float)):
        return "a number"
    return f"a value of type {type(value).__name__}"
