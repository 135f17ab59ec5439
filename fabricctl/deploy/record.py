"""The run record: who applied what, where, from which commit, and what each switch did.

Every apply writes `<root>/.fabricctl/runs/<run id>.json` (interrupted and refused runs too;
deploy/service.py `apply_safely`); `--report FILE` writes the same record again elsewhere (a CI
artifact). `history` reads them back, newest first. Run ids start with a UTC timestamp, so file
names sort by time.

Records are chained: a run's final record carries `chain` = {store, seq, previous,
previous_digest}, the digest (sha256 of its canonical JSON) of the record finished before it in
the same store, and the store keeps its tip (seq, run id, digest of the newest). The store is the
remote's runs ref where records are shared (gitstate.py, appended by compare-and-swap, so the
shards of one run chain in the order their pushes land), else `.fabricctl/runs/` (appended under
the fabric lock). `history --verify` walks every store and names the first broken link: a record
removed (a seq missing, the tip not the newest), edited (its digest not the one its successor
recorded) or moved (its file not named after its run id, two records on one seq).
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from fabricctl.deploy.hostkeys import checking
from fabricctl.gitinfo import repo_state
from fabricctl.outputs import write_file
from fabricctl.procs import user_name
from fabricctl.secrets import redact, redacted_json

RUNS = Path(".fabricctl") / "runs"
#: The local store's tip: {"store", "seq", "run_id", "digest"} of the newest chained record.
TIP = Path(".fabricctl") / "runs-chain.json"


def runs_dir(root: Path) -> Path:
    return Path(root) / RUNS


def record_path(root: Path, run_id: str) -> Path:
    return runs_dir(root) / f"{run_id}.json"


def fabricctl_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("fabricctl")
    except PackageNotFoundError:
        return "unknown"


def run_context(root: Path, argv: list[str] | None = None, lab: bool = False) -> dict[str, Any]:
    """user, host, pid, fabricctl version, the command line, the fabric repo's git state, and
    where the record is shared (the remote's runs ref: gitstate.py)."""
    from fabricctl.deploy.gitstate import shared_remote

    git = repo_state(Path(root))
    remote = shared_remote(Path(root), lab)
    return {
        "user": user_name(),
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "fabricctl_version": fabricctl_version(),
        "command": redact(" ".join(argv)) if argv else "",
        "root": str(Path(root).resolve()),
        "git": git.to_dict(),
        "host_keys": "checked" if checking() else "not checked (--insecure-host-keys)",
        **({"shared": {"remote": remote.name, "refs": remote.prefix}} if remote is not None else {}),
    }


def share_record(
    root: Path,
    context: dict[str, Any],
    data_of: Callable[[], dict[str, Any]],
    set_link: Callable[[dict[str, Any]], None] | None = None,
) -> str:
    """Push the record to the remote its context names (`shared`), if any; with `set_link`, a
    finished record, appended to the remote's chain (`set_link` hears its link before each
    attempt). A push that fails does not fail the run: the reason goes into
    `context["shared"]["problem"]` (the record on disk says it) and is returned; '' when pushed
    or when the state is local."""
    from fabricctl.deploy.gitstate import StateError, push_record, remote_of

    shared = context.get("shared")
    if not isinstance(shared, dict):
        return ""
    remote = remote_of(root, shared)
    try:
        if remote is None:
            raise StateError("the fabric is no longer in its git repository")
        push_record(remote, data_of, set_link)
    except StateError as exc:
        problem = f"not on the remote: {exc}"
        shared["problem"] = problem
        return problem
    shared.pop("problem", None)
    return ""


def write_record(path: Path, data: dict[str, Any], within: Path) -> Path:
    """Atomic, redacted JSON below `within` (a reader never sees half a record; outputs.py:
    never through a symlink, never over a device)."""
    return write_file(Path(path), redacted_json(data), within=within)


def finish_record(
    root: Path,
    data_of: Callable[[], dict[str, Any]],
    context: dict[str, Any],
    set_link: Callable[[dict[str, Any]], None],
) -> Path:
    """Write a finished record, appended to its store's chain: the remote's runs ref when the
    record is shared (the local copy is the same record), else the local store; a record the
    remote refused (it says why) is chained locally."""
    path = record_path(root, str(data_of()["run_id"]))
    if share_record(root, context, data_of, set_link) or not isinstance(context.get("shared"), dict):
        seal_local(root, data_of, set_link)
    else:
        write_record(path, data_of(), root)
    return path


def seal_local(
    root: Path, data_of: Callable[[], dict[str, Any]], set_link: Callable[[dict[str, Any]], None]
) -> None:
    """Append a finished record to the local store's chain: its link to the tip, the record
    written, the tip moved to it (the caller holds the fabric lock)."""
    from fabricctl.deploy.chain import LOCAL, next_link, read_tip, tip_of

    tip_file = Path(root) / TIP
    try:
        tip = read_tip(tip_file.read_text(encoding="utf-8"))
    except OSError:
        tip = None
    set_link(next_link(LOCAL, tip))
    data = data_of()
    text = redacted_json(data)
    write_file(record_path(root, str(data["run_id"])), text, within=root)
    write_file(tip_file, json.dumps(tip_of(text, data)) + "\n", within=root)


class RecordWriter:
    """Keeps a run's record on disk while the run works: a change is written at once when the
    last write is a second old, else a second after it, so a run killed at any moment leaves a
    record at most a second behind (the last word is the caller's final `write`)."""

    def __init__(self, path: Path, within: Path, interval: float = 1.0) -> None:
        self.path = path
        self.within = within
        self.interval = interval
        self.last = 0.0
        self.lock = threading.Lock()
        self.pending: Callable[[], dict[str, Any]] | None = None
        self.timer: threading.Timer | None = None

    def write(self, data: dict[str, Any]) -> None:
        with self.lock:
            if self.timer is not None:
                self.timer.cancel()
            self.timer, self.pending = None, None
            write_record(self.path, data, self.within)
            self.last = time.monotonic()

    def close(self) -> None:
        """No write after this (the run's final record is written by the caller)."""
        with self.lock:
            if self.timer is not None:
                self.timer.cancel()
            self.timer, self.pending = None, None

    def soon(self, data_of: Callable[[], dict[str, Any]]) -> None:
        """`data_of()` is taken when the write happens (the caller's lock, if any, is not held)."""
        with self.lock:
            self.pending = data_of
            wait = self.last + self.interval - time.monotonic()
            if wait <= 0:
                self._flush_locked()
            elif self.timer is None:
                self.timer = threading.Timer(wait, self._flush)
                self.timer.daemon = True
                self.timer.start()

    def _flush(self) -> None:
        with self.lock:
            self.timer = None
            self._flush_locked()

    def _flush_locked(self) -> None:
        if self.pending is not None:
            write_record(self.path, self.pending(), self.within)
            self.pending = None
            self.last = time.monotonic()


def settle_orphans(root: Path, run_id: str, outcomes: dict[str, dict[str, Any]]) -> list[str]:
    """Records of runs on this host still `in progress` whose process is gone (kill -9, a crash):
    each is marked `ended`, and every switch it left `in flight` gets what run `run_id` (which
    read the switches again) found and did with it. Returns the run ids settled."""
    from fabricctl.procs import pid_alive

    host = socket.gethostname()
    settled = []
    for path in sorted(runs_dir(root).glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict) or data.get("state") != "in progress" or data.get("run_id") == run_id:
            continue
        pid = data.get("pid")
        if data.get("host") != host or not isinstance(pid, int) or pid_alive(pid):
            continue
        switches = data["switches"] if isinstance(data.get("switches"), dict) else {}
        for name, sw in switches.items():
            if not isinstance(sw, dict) or sw.get("status") not in ("in flight", "not started"):
                continue
            if sw["status"] == "not started":
                sw.update(status="skipped", message="not started: the run's process ended")
                continue
            later = outcomes.get(name)
            found = (
                f"run {run_id} found it {later.get('status')}"
                + (f": {later.get('message')}" if later.get("message") else "")
                if later
                else f"run {run_id} did not read it again: plan shows what it runs"
            )
            sw.update(status="interrupted", message=f"the process ended mid-push; {found}")
        data["state"] = "ended"
        data["stopped_reason"] = (
            f"the process ended without finishing (killed or crashed); run {run_id} settled its switches"
        )
        data["counts"] = _counts(switches)
        data.pop("chain", None)
        _finish(root, data)
        settled.append(str(data.get("run_id", path.stem)))
    return settled


def _finish(root: Path, data: dict[str, Any]) -> None:
    def link(chain: dict[str, Any]) -> None:
        data["chain"] = chain

    finish_record(root, lambda: data, data, link)


def _counts(switches: dict[str, Any]) -> dict[str, int]:
    out: dict[str, int] = {}
    for sw in switches.values():
        status = sw.get("status", "") if isinstance(sw, dict) else ""
        out[status] = out.get(status, 0) + 1
    return dict(sorted(out.items()))


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
    reason: str = ""
    tickets: list[str] = field(default_factory=list)
    tenants: dict[str, list[str]] = field(default_factory=dict)  # switch -> tenants it changed for
    run_group: str = ""  # the shards of one run share it
    shards: list[str] = field(default_factory=list)

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
            "reason": self.reason,
            "tickets": self.tickets,
            "tenants": self.tenants,
            **({"run_group": self.run_group, "shards": self.shards} if self.run_group else {}),
        }


def read_runs(root: Path, limit: int | None = None, shared: dict[str, str] | None = None) -> list[RunSummary]:
    """The run records under `root` and those `shared` on the remote (run id -> text; a run
    recorded here is read from here, its freshest copy), newest first (at most `limit`)."""
    folder = runs_dir(root)
    local = {p.stem: p for p in folder.glob("*.json") if p.is_file()} if folder.is_dir() else {}
    shared = shared or {}
    ids = sorted(set(local) | set(shared), reverse=True)
    out: list[RunSummary] = []
    for run_id in ids:
        if run_id in local:
            out.append(_summary(local[run_id], root))
        else:
            out.append(_summary_of(partial(str, shared[run_id]), run_id, "remote"))
    merged = merge_shards(out)
    return merged[:limit] if limit else merged


def merge_shards(runs: list[RunSummary]) -> list[RunSummary]:
    """The shards of one run group as one run (newest first, at the place of its first shard):
    counts added up, switches and tenants joined, the shards listed in the order they started."""
    groups: dict[str, list[RunSummary]] = {}
    for r in runs:
        if r.run_group and not r.problem:
            groups.setdefault(r.run_group, []).append(r)
    out: list[RunSummary] = []
    for r in runs:
        members = groups.get(r.run_group) if r.run_group and not r.problem else None
        if members is None:
            out.append(r)
            continue
        if r is not members[0]:
            continue
        first = min(members, key=lambda m: m.started or m.run_id)
        counts: dict[str, int] = {}
        for m in members:
            for k, n in m.counts.items():
                counts[k] = counts.get(k, 0) + n
        ordered = sorted(members, key=lambda m: m.started or m.run_id)
        out.append(
            RunSummary(
                run_id=r.run_group,
                started=first.started,
                user=first.user,
                host=", ".join(dict.fromkeys(m.host for m in ordered)),
                commit=first.commit,
                dirty=any(m.dirty for m in members),
                counts=dict(sorted(counts.items())),
                changed=[n for m in ordered for n in m.changed],
                failed=[n for m in ordered for n in m.failed],
                stopped_reason="; ".join(
                    f"{m.shards[0]}: {m.stopped_reason}" for m in ordered if m.stopped_reason
                ),
                path=", ".join(m.path for m in ordered),
                reason=first.reason,
                tickets=list(dict.fromkeys(t for m in ordered for t in m.tickets)),
                tenants={k: v for m in ordered for k, v in m.tenants.items()},
                run_group=r.run_group,
                shards=[s for m in ordered for s in m.shards],
            )
        )
    return out


def _summary(path: Path, root: Path) -> RunSummary:
    """One record's line; a record that cannot be read as one, whatever its shape (not JSON,
    nested past any depth, fields of the wrong type), is listed as unreadable with the reason."""
    rel = os.path.relpath(path, root) if Path(root).exists() else str(path)
    return _summary_of(lambda: path.read_text(encoding="utf-8"), path.stem, rel)


def _summary_of(read: Callable[[], str], stem: str, rel: str) -> RunSummary:
    try:
        data = json.loads(read())
        return _from_record(data, stem, rel)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        why = str(exc) if isinstance(exc, _NotARecord) else type(exc).__name__
        return RunSummary(stem, "", "", "", None, None, {}, path=rel, problem=why)


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
        reason=_field(data, "reason", str, "") or "",
        tickets=[str(t) for t in _field(data, "tickets", list, []) or []],
        tenants={
            str(k): [str(t) for t in v] if isinstance(v, list) else []
            for k, v in (_field(data, "tenants", dict, {}) or {}).items()
        },
        run_group=_field(data, "run_group", str, "") or "",
        shards=[_field(data, "shard", str, "") or "all"] if data.get("run_group") else [],
    )


def claimed_marks(root: Path, lab: bool = False) -> dict[str, frozenset[str]]:
    """switch -> every mark the run records hold for it (what fabricctl's pushes left on it while
    in flight: RunReport.marks), from the records under `root` and those shared on the fabric
    repository's remote. Only these may `recover` settle; a remote that cannot be read leaves the
    local records (a change the records do not prove fabricctl's is left alone)."""
    from fabricctl.deploy.gitstate import StateError, read_records, shared_remote

    texts: list[str] = []
    try:
        remote = shared_remote(Path(root), lab)
        if remote is not None:
            texts += read_records(remote).values()
    except StateError:
        pass
    folder = runs_dir(root)
    if folder.is_dir():
        for path in sorted(folder.glob("*.json")):
            try:
                texts.append(path.read_text(encoding="utf-8"))
            except OSError:
                continue
    out: dict[str, set[str]] = {}
    for text in texts:
        try:
            marks = json.loads(text).get("marks")
        except (ValueError, AttributeError):
            continue
        for switch, listed in marks.items() if isinstance(marks, dict) else ():
            if isinstance(listed, list):
                out.setdefault(str(switch), set()).update(m for m in listed if isinstance(m, str))
    return {switch: frozenset(found) for switch, found in out.items()}
