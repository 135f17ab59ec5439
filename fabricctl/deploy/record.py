"""The run record: who applied what, where, from which commit, and what each switch did.

Every apply writes `<root>/.fabricctl/runs/<run id>.json` (interrupted and refused runs too;
deploy/service.py `apply_safely`); `--report FILE` writes the same record again elsewhere (a CI
artifact). `history` reads them back, newest first. Run ids start with a UTC timestamp, so file
names sort by time.
"""

from __future__ import annotations

import getpass
import json
import os
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fabricctl.gitinfo import repo_state
from fabricctl.outputs import write_output
from fabricctl.secrets import redact, redacted_json

RUNS = Path(".fabricctl") / "runs"


def runs_dir(root: Path) -> Path:
    return Path(root) / RUNS


def record_path(root: Path, run_id: str) -> Path:
    return runs_dir(root) / f"{run_id}.json"


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return f"uid {os.getuid()}" if hasattr(os, "getuid") else "unknown"


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("fabricctl")
    except PackageNotFoundError:
        return "unknown"


def run_context(root: Path, argv: list[str] | None = None) -> dict[str, Any]:
    """user, host, pid, fabricctl version, the command line and the fabric repo's git state."""
    git = repo_state(Path(root))
    return {
        "user": _user(),
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "fabricctl_version": _version(),
        "command": redact(" ".join(argv)) if argv else "",
        "root": str(Path(root).resolve()),
        "git": git.to_dict(),
    }


def write_record(path: Path, data: dict[str, Any]) -> Path:
    """Atomic, redacted JSON (a reader never sees half a record; outputs.py: through a symlink,
    never over a device)."""
    write_output(Path(path), redacted_json(data))
    return Path(path)


@dataclass
class RunSummary:
    """One line of `fabricctl history`."""

    run_id: str
    started: str
    user: str
    host: str
    commit: str | None
    dirty: bool | None
    counts: dict[str, int]
    changed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    stopped_reason: str = ""
    path: str = ""
    problem: str = ""  # the file could not be read as a record

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "started": self.started,
            "user": self.user,
            "host": self.host,
            "commit": self.commit,
            "dirty": self.dirty,
            "counts": self.counts,
            "changed": self.changed,
            "failed": self.failed,
            "stopped_reason": self.stopped_reason,
            "path": self.path,
            **({"problem": self.problem} if self.problem else {}),
        }


def read_runs(root: Path, limit: int | None = None) -> list[RunSummary]:
    """The run records under `root`, newest first (at most `limit`)."""
    folder = runs_dir(root)
    if not folder.is_dir():
        return []
    paths = sorted((p for p in folder.glob("*.json") if p.is_file()), key=lambda p: p.name, reverse=True)
    out: list[RunSummary] = []
    for path in paths[:limit] if limit else paths:
        out.append(_summary(path, root))
    return out


def _summary(path: Path, root: Path) -> RunSummary:
    """One record's line; a record that cannot be read as one, whatever its shape (not JSON,
    nested past any depth, fields of the wrong type), is listed as unreadable with the reason."""
    rel = os.path.relpath(path, root) if Path(root).exists() else str(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return _from_record(data, path.stem, rel)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        why = str(exc) if isinstance(exc, _NotARecord) else type(exc).__name__
        return RunSummary(path.stem, "", "", "", None, None, {}, path=rel, problem=why)


class _NotARecord(ValueError):
    """JSON that is not a run record (the message says which field)."""


def _field(data: dict[str, Any], key: str, kind: type, default: Any) -> Any:
    """`data[key]` when it is absent, null or of `kind`; any other value makes no run record."""
    value = data.get(key, default)
    if value is not None and not isinstance(value, kind):
        raise _NotARecord(f"not a run record: {key} is {type(value).__name__}")
    return value


def _from_record(data: Any, stem: str, rel: str) -> RunSummary:
    if not isinstance(data, dict):
        raise _NotARecord(f"not a run record: a JSON {type(data).__name__}")
    switches = _field(data, "switches", dict, {}) or {}
    git = _field(data, "git", dict, {}) or {}
    counts = _field(data, "counts", dict, {}) or {}
    by_status: dict[str, list[str]] = {}
    for name, sw in switches.items():
        status = _field(sw, "status", str, "") if isinstance(sw, dict) else ""
        by_status.setdefault(status, []).append(str(name))
    if any(isinstance(v, bool) or not isinstance(v, int) for v in counts.values()):
        raise _NotARecord("not a run record: counts are not whole numbers")
    return RunSummary(
        run_id=_field(data, "run_id", str, stem) or stem,
        started=_field(data, "started", str, "") or "",
        user=_field(data, "user", str, "") or "-",
        host=_field(data, "host", str, "") or "-",
        commit=_field(git, "commit", str, None),
        dirty=_field(git, "dirty", bool, None),
        counts={str(k): v for k, v in counts.items()},
        changed=by_status.get("changed", []),
        failed=by_status.get("failed", []),
        stopped_reason=_field(data, "stopped_reason", str, "") or "",
        path=rel,
    )
