"""What git says about a fabric repository: its commit, whether it is dirty, which files changed.

Used for the run record (who applied which commit) and by validate (a conflict is blamed on the
file that is new or modified relative to HEAD; an inventory that differs from HEAD is checked for
held GPUs it would move). git runs as a subprocess; when it is missing or
the fabric is not in a repository the answers say so (`note`) instead of failing: neither the
record nor an error message may depend on git being there.
"""

from __future__ import annotations

import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

TIMEOUT = 10.0
#: fabricctl's own state under a fabric root: never makes the repository dirty.
STATE_DIR = ".fabricctl"


@dataclass(frozen=True)
class GitState:
    commit: str | None  # HEAD, or None when unknown
    dirty: bool | None  # uncommitted changes under the fabric root (untracked files included)
    branch: str | None = None
    note: str = ""  # why commit/dirty are unknown ("not a git repository", "git not found")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _git(root: Path, *args: str) -> tuple[int, str]:
    """(exit code, stdout); exit 127 when git is not installed or does not answer."""
    try:
        proc = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (FileNotFoundError, PermissionError):
        return 127, ""
    except subprocess.TimeoutExpired:
        return 124, ""
    return proc.returncode, proc.stdout


def repo_state(root: Path) -> GitState:
    """HEAD and the dirty flag of the fabric at `root` (only its own folder counts)."""
    code, top = _git(root, "rev-parse", "--show-toplevel")
    if code == 127:
        return GitState(None, None, note="git not found")
    if code == 124:
        return GitState(None, None, note="git did not answer")
    if code != 0 or not top.strip():
        return GitState(None, None, note="not a git repository")
    code, head = _git(root, "rev-parse", "--verify", "--quiet", "HEAD")
    commit = head.strip() if code == 0 and head.strip() else None
    code, branch = _git(root, "symbolic-ref", "--quiet", "--short", "HEAD")
    code_s, status = _git(root, "status", "--porcelain", "--", ".", f":(exclude){STATE_DIR}")
    dirty = bool(status.strip()) if code_s == 0 else None
    note = "" if commit else "no commit yet"
    return GitState(commit, dirty, branch.strip() or None if code == 0 else None, note)


def changed_files(root: Path, folder: str) -> frozenset[str] | None:
    """Files under `root/folder` that are new or modified relative to HEAD (paths relative to
    root, '/'-separated), or None when that cannot be known (no git, no repository)."""
    code, out = _git(root, "status", "--porcelain", "--untracked-files=all", "--", folder)
    if code != 0:
        return None
    code, prefix = _git(root, "rev-parse", "--show-prefix")
    prefix = prefix.strip() if code == 0 else ""
    files: set[str] = set()
    for line in out.splitlines():
        path = line[3:]
        if " -> " in path:  # a rename: the new name is what changed
            path = path.split(" -> ", 1)[1]
        path = path.strip('"')
        files.add(path[len(prefix) :] if prefix and path.startswith(prefix) else path)
    return frozenset(files)


def uncommitted(root: Path, folders: tuple[str, ...]) -> list[str]:
    """Files under `folders` of `root` that differ from HEAD (edited, new, deleted), sorted;
    [] when there are none or git cannot tell (the record's `git.note` says why)."""
    found: set[str] = set()
    for folder in folders:
        found |= changed_files(root, folder) or frozenset()
    return sorted(found)


def differs_from(root: Path, commit: str, folder: str) -> bool | None:
    """True when `root/folder` differs from `commit` in the working tree (edits, new files,
    deletions), False when it is the same, None when git cannot tell."""
    code, _ = _git(root, "diff", "--quiet", commit, "--", folder)
    if code not in (0, 1):
        return None
    if code == 1:
        return True
    code, untracked = _git(root, "ls-files", "--others", "--exclude-standard", "--", folder)
    return bool(untracked.strip()) if code == 0 else None


def head_commit(root: Path) -> str | None:
    """HEAD's commit id, or None (no git, not a repository, no commit yet)."""
    code, out = _git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    return out.strip() or None if code == 0 else None


def file_status(root: Path, path: Path) -> tuple[bool, bool]:
    """(git tracks the file, it has changes git has not committed); (False, False) outside git."""
    code, _ = _git(root, "ls-files", "--error-unmatch", "--", str(path))
    if code != 0:
        return False, False
    code, out = _git(root, "status", "--porcelain", "--", str(path))
    return True, code == 0 and bool(out.strip())
