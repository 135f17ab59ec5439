"""State every runner and every checkout sees: the apply lock and the run records as refs on the
fabric repository's git remote.

* The lock is `refs/fabricctl/lock`, a commit whose tree holds `lock.json` (lock.py's format). It
  is taken with a compare-and-swap push (`git push --force-with-lease=REF:EXPECTED`): created only
  if absent, taken over only if it still is the stale lock that was read, released only if it
  still is ours. Two runners racing: git's lease lets exactly one push win.
* The run records are `runs/<run id>.json` in the tree of `refs/fabricctl/runs`, one commit per
  write, appended with the same lease (a lost race fetches the new tip and tries again).

The remote is `origin` of the repository that holds the fabric root (another with
FABRICCTL_STATE_REMOTE=NAME; `none` keeps the state local). A lab run keeps its state local
unless FABRICCTL_STATE_REMOTE names a remote: the lab's switches are not the fabric's. A fabric in
a subfolder of its repository gets refs of its own (`refs/fabricctl/fabrics/<folder>/...`).
Without a remote, lock.py's file lock and `.fabricctl/runs/` are the state, as before.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fabricctl.errors import StageError

ENV = "FABRICCTL_STATE_REMOTE"
TIMEOUT = 60.0
RETRIES = 8
_ABSENT = ""  # --force-with-lease=REF: with nothing after the colon: the ref must not exist
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
CHAIN_FILE = "chain.json"  # the runs ref's chain tip (chain.py)


class StateError(StageError):
    """The fabric repository's remote could not be read or written (the message says which)."""


class LeaseLost(StateError):
    """Someone else moved the ref between our read and our push."""


@dataclass(frozen=True)
class Remote:
    """Where a fabric's shared state lives: a git remote of the repository holding its root."""

    top: Path  # the repository's top folder
    name: str  # the remote's name
    prefix: str  # refs/fabricctl or refs/fabricctl/fabrics/<folder>

    @property
    def lock_ref(self) -> str:
        return f"{self.prefix}/lock"

    @property
    def runs_ref(self) -> str:
        return f"{self.prefix}/runs"

    def describe(self) -> str:
        return f"remote {self.name} ({self.prefix})"


def shared_remote(root: Path, lab: bool = False) -> Remote | None:
    """The remote that holds this fabric's lock and records, or None for local state."""
    named = os.environ.get(ENV, "").strip()
    if named == "none" or (lab and not named):
        return None
    if named and not _NAME.fullmatch(named):
        raise StateError(f"{ENV}={named!r}: not a git remote name (allowed: a remote's name, or none)")
    code, top = _run(Path(root), "rev-parse", "--show-toplevel")
    if code != 0 or not top.strip():
        if named:
            raise StateError(f"{ENV}={named}: {root} is not in a git repository")
        return None
    name = named or "origin"
    code, _ = _run(Path(root), "remote", "get-url", name)
    if code != 0:
        if named:
            raise StateError(f"{ENV}={named}: the repository has no remote of that name")
        return None
    code, prefix = _run(Path(root), "rev-parse", "--show-prefix")
    folder = prefix.strip().strip("/") if code == 0 else ""
    ref = "refs/fabricctl"
    if folder:
        ref += "/fabrics/" + "/".join(
            re.sub(r"[^A-Za-z0-9._-]", "_", p).lstrip(".") or "_" for p in folder.split("/")
        )
    return Remote(Path(top.strip()), name, ref)


def remote_of(root: Path, shared: dict[str, Any]) -> Remote | None:
    """The Remote a run record names (`shared`: {"remote", "refs"}), or None if it is gone."""
    code, top = _run(Path(root), "rev-parse", "--show-toplevel")
    name, prefix = shared.get("remote"), shared.get("refs")
    if code != 0 or not isinstance(name, str) or not isinstance(prefix, str):
        return None
    return Remote(Path(top.strip()), name, prefix)


# --- git plumbing -------------------------------------------------------------------------------


def _run(
    cwd: Path, *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> tuple[int, str]:
    """(exit code, stdout); stderr is kept for `_git`'s errors. 127: git missing or silent."""
    code, out, _ = _run3(cwd, *args, stdin=stdin, env=env)
    return code, out


def _run3(
    cwd: Path, *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    full_env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", **(env or {})}
    try:
        proc = subprocess.run(
            ["git", "-C", str(cwd), *args],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
            env=full_env,
            stdin=None if stdin is not None else subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 127, "", type(exc).__name__
    return proc.returncode, proc.stdout, proc.stderr


def _git(remote: Remote, *args: str, stdin: str | None = None, env: dict[str, str] | None = None) -> str:
    code, out, err = _run3(remote.top, *args, stdin=stdin, env=env)
    if code != 0:
        lines = [line for line in err.strip().splitlines() if line.strip()]
        raise StateError(f"git {args[0]} ({remote.describe()}): {lines[-1] if lines else f'exit {code}'}")
    return out


def remote_tip(remote: Remote, ref: str) -> str:
    """The commit `ref` points to on the remote ('' when absent); also fetched, so it can be read."""
    out = _git(remote, "ls-remote", "--refs", remote.name, ref)
    sha = next((line.split()[0] for line in out.splitlines() if line.split()[1:] == [ref]), "")
    if sha:
        _git(remote, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", remote.name, f"+{ref}:{ref}")
    return sha


def _identity() -> dict[str, str]:
    """Who writes the state commits: the runner's user at its host (no git identity needed)."""
    from fabricctl.procs import user_name

    user, host = user_name(), socket.gethostname()
    email = f"{re.sub(r'[^A-Za-z0-9._-]', '_', user)}@{host}"
    return {
        "GIT_AUTHOR_NAME": user,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": user,
        "GIT_COMMITTER_EMAIL": email,
    }


def _commit(
    remote: Remote, files: dict[str, str], message: str, parent: str = "", remove: tuple[str, ...] = ()
) -> str:
    """A commit of `parent`'s tree with `files` (path -> text) written into it, `remove` taken out."""
    with tempfile.TemporaryDirectory(prefix="fabricctl-state-") as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        if parent:
            _git(remote, "read-tree", parent, env=env)
        else:
            _git(remote, "read-tree", "--empty", env=env)
        for path, text in files.items():
            blob = _git(remote, "hash-object", "-w", "--stdin", stdin=text).strip()
            _git(remote, "update-index", "--add", "--cacheinfo", f"100644,{blob},{path}", env=env)
        for path in remove:
            _git(remote, "update-index", "--force-remove", path, env=env)
        tree = _git(remote, "write-tree", env=env).strip()
    args = ["commit-tree", tree, "-m", message] + (["-p", parent] if parent else [])
    return _git(remote, *args, env=_identity()).strip()


def _push(remote: Remote, ref: str, new: str, expected: str) -> None:
    """Compare-and-swap: `ref` becomes `new` ('' deletes it) only if it still is `expected`."""
    lease = f"--force-with-lease={ref}:{expected}"
    code, out, err = _run3(remote.top, "push", "--porcelain", "--atomic", lease, remote.name, f"{new}:{ref}")
    if code == 0:
        return
    text = out + err
    if "[rejected]" in text or "stale info" in text or "fetch first" in text or "already exists" in text:
        raise LeaseLost(f"{ref} moved on {remote.describe()}")
    lines = [line for line in err.strip().splitlines() if line.strip()]
    raise StateError(f"git push ({remote.describe()}): {lines[-1] if lines else f'exit {code}'}")


# --- the lock -----------------------------------------------------------------------------------


def read_lock(remote: Remote) -> tuple[str, str] | None:
    """(commit, lock.json text) of the lock on the remote, or None when nobody holds it."""
    sha = remote_tip(remote, remote.lock_ref)
    if not sha:
        return None
    code, text = _run(remote.top, "show", f"{sha}:lock.json")
    return sha, text if code == 0 else ""


def create_lock(remote: Remote, text: str, expected: str = _ABSENT, group: str = "", shard: str = "") -> str:
    """Publish lock.json `text` if the remote lock still is `expected` (absent by default);
    LeaseLost when another runner got there first. Returns our lock commit. A shard's lock also
    names its run group (`group`) and holds `shards/<shard>`: the shards of one group share it."""
    files = {"lock.json": text}
    if group:
        files.update({"group": group, f"shards/{shard}": text})
    sha = _commit(remote, files, f"fabricctl apply lock{f' ({group})' if group else ''}")
    _push(remote, remote.lock_ref, sha, expected)
    return sha


def lock_shards(remote: Remote, sha: str) -> tuple[str, dict[str, str]]:
    """(run group, shard -> holder text) of a lock commit; ('', {}) for a whole-fabric lock."""
    code, group = _run(remote.top, "show", f"{sha}:group")
    if code != 0:
        return "", {}
    names = _git(remote, "ls-tree", "--name-only", "-z", sha, "shards/").split("\0")
    holders = {}
    for path in filter(None, names):
        code, text = _run(remote.top, "show", f"{sha}:{path}")
        holders[path.split("/", 1)[1]] = text if code == 0 else ""
    return group.strip(), holders


def join_shard(remote: Remote, sha: str, shard: str, text: str) -> str:
    """Add `shard` to the shared lock `sha` (compare-and-swap); the new lock commit."""
    new = _commit(remote, {f"shards/{shard}": text}, f"fabricctl shard {shard} joins", sha)
    _push(remote, remote.lock_ref, new, sha)
    return new


def leave_shard(remote: Remote, sha: str, shard: str, last: bool) -> None:
    """Take `shard` (and its switch leases) out of the shared lock `sha`; the last shard out
    deletes it."""
    if last:
        _push(remote, remote.lock_ref, "", sha)
        return
    gone = (f"shards/{shard}", *(f"leases/{shard}" for _ in lock_leases(remote, sha, only=shard)))
    new = _commit(remote, {}, f"fabricctl shard {shard} leaves", sha, remove=gone)
    _push(remote, remote.lock_ref, new, sha)


def lock_leases(remote: Remote, sha: str, only: str | None = None) -> dict[str, str]:
    """shard -> its switch lease text (lock.py) in the lock commit `sha` (`only`: that shard's)."""
    folder = "leases/" if only is None else f"leases/{only}"
    names = _git(remote, "ls-tree", "--name-only", "-z", sha, folder).split("\0")
    out = {}
    for path in filter(None, names):
        code, text = _run(remote.top, "show", f"{sha}:{path}")
        out[path.split("/", 1)[1]] = text if code == 0 else ""
    return out


def write_leases(remote: Remote, sha: str, shard: str, text: str, drop: tuple[str, ...] = ()) -> str:
    """`leases/<shard>` = `text` in the shared lock `sha`, the leases of the shards in `drop`
    (stale ones) taken out, by compare-and-swap; the new lock commit (LeaseLost: it moved)."""
    remove = tuple(f"leases/{other}" for other in drop)
    new = _commit(
        remote, {f"leases/{shard}": text}, f"fabricctl shard {shard} leases its switches", sha, remove
    )
    _push(remote, remote.lock_ref, new, sha)
    return new


def delete_lock(remote: Remote, expected: str) -> None:
    """Remove the remote lock if it still is `expected` (ours); someone else's stays."""
    _push(remote, remote.lock_ref, "", expected)


# --- the run records ----------------------------------------------------------------------------


def push_record(
    remote: Remote,
    data_of: Callable[[], dict[str, Any]],
    set_link: Callable[[dict[str, Any]], None] | None = None,
) -> None:
    """Add or replace `runs/<run id>.json` on the remote's runs ref (retried when others append).
    With `set_link`, the record is a finished one: appended to the ref's chain, its link made
    from the tip the attempt read (`set_link` hears it before `data_of` is taken), and the tip
    (`chain.json`) moved to it in the same commit."""
    from fabricctl.deploy.chain import next_link, read_tip, tip_of
    from fabricctl.secrets import redacted_json

    run_id = ""
    for _ in range(RETRIES):
        tip = remote_tip(remote, remote.runs_ref)
        if set_link is not None:
            code, text = _run(remote.top, "show", f"{tip}:{CHAIN_FILE}") if tip else (1, "")
            set_link(next_link(remote.runs_ref, read_tip(text) if code == 0 else None))
        data = data_of()
        run_id, text = str(data["run_id"]), redacted_json(data)
        files = {f"runs/{run_id}.json": text}
        if set_link is not None:
            files[CHAIN_FILE] = json.dumps(tip_of(text, data)) + "\n"
        sha = _commit(remote, files, f"fabricctl run {run_id}: {data.get('state', '')}", tip)
        try:
            _push(remote, remote.runs_ref, sha, tip)
            return
        except LeaseLost:
            continue
    raise StateError(f"could not append run {run_id} to {remote.runs_ref}: {RETRIES} other writes in between")


def read_chain_tip(remote: Remote) -> str | None:
    """The text of the runs ref's chain tip (None: none)."""
    tip = remote_tip(remote, remote.runs_ref)
    if not tip:
        return None
    code, text = _run(remote.top, "show", f"{tip}:{CHAIN_FILE}")
    return text if code == 0 else None


def read_records(remote: Remote) -> dict[str, str]:
    """run id -> record text, every record on the remote's runs ref."""
    tip = remote_tip(remote, remote.runs_ref)
    if not tip:
        return {}
    listing = _git(remote, "ls-tree", "-z", tip, "runs/")
    entries = [e.split("\t", 1) for e in listing.split("\0") if "\t" in e]
    blobs = {Path(path).stem: meta.split()[2] for meta, path in entries if path.endswith(".json")}
    if not blobs:
        return {}
    try:  # bytes: a header's size counts bytes, and a record may hold any UTF-8
        proc = subprocess.run(
            ["git", "-C", str(remote.top), "cat-file", "--batch"],
            input="".join(f"{b}\n" for b in blobs.values()).encode(),
            capture_output=True,
            timeout=TIMEOUT,
            check=True,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise StateError(f"git cat-file ({remote.describe()}): {type(exc).__name__}") from None
    out, pos, texts = proc.stdout, 0, {}
    by_blob = {b: run for run, b in blobs.items()}
    while pos < len(out):
        header_end = out.index(b"\n", pos)
        sha, _, size = out[pos:header_end].decode().split()
        body = out[header_end + 1 : header_end + 1 + int(size)]
        texts[by_blob[sha]] = body.decode("utf-8", errors="replace")
        pos = header_end + 1 + int(size) + 1
    return texts
