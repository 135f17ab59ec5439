"""One apply per fabric at a time: on the fabric repository's git remote when it has one
(`refs/fabricctl/lock`, taken by compare-and-swap push: gitstate.py), else
`<root>/.fabricctl/lock.json`, published atomically (link).

The lock says who holds it (user, host, pid, since when, which plan), in a format with a version
(`FORMAT`). A lock is stale when its pid is dead on this host, it is older than the lease
(`TTL_SECONDS`) or dated in the future (more than `MAX_SKEW`); a stale lock is taken over, aloud,
a live one is a clear refusal. A lock that cannot be read, or is of a format
this fabricctl does not know, proves nothing about its holder: it is a refusal too (fail closed),
naming the file and `fabricctl force-unlock`, which removes any lock by hand.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import getpass
import json
import os
import socket
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from fabricctl.errors import StageError
from fabricctl.model.text import printable
from fabricctl.outputs import write_file
from fabricctl.procs import pid_alive

if TYPE_CHECKING:
    from fabricctl.deploy.gitstate import Remote

TTL_SECONDS = 6 * 3600
#: How far ahead of this host's clock another host's may be (NTP keeps them within a second).
MAX_SKEW = 300.0
#: What a lock file says it is: `{"format": FORMAT_NAME, "version": FORMAT, ...LockInfo}`.
FORMAT_NAME = "fabricctl-lock"
FORMAT = 1


class LockHeld(StageError):
    """Another apply holds the fabric lock (or a lock nobody can read says one might)."""


@dataclass
class LockInfo:
    user: str
    host: str
    pid: int
    created: float
    plan_hash: str

    def describe(self) -> str:
        when = dt.datetime.fromtimestamp(self.created, dt.UTC).replace(microsecond=0).isoformat()
        who = printable(f"{self.user}@{self.host}")  # read from a file anyone may have written
        return f"{who} pid {self.pid} since {when} (plan {printable(self.plan_hash[:12])})"

    def stale(self, ttl: float = TTL_SECONDS, now: float | None = None) -> bool:
        return bool(self.why_stale(ttl, now))

    def why_stale(self, ttl: float = TTL_SECONDS, now: float | None = None) -> str:
        """Why the lock no longer holds ('' while it does): its lease ran out, it is dated in the
        future (past the clock skew two hosts may have: no live apply wrote that), or its process
        is gone from this host."""
        age = (time.time() if now is None else now) - self.created
        if age > ttl:
            return f"its lease of {ttl / 3600:g} h ran out"
        if age < -MAX_SKEW:
            return f"it is dated {-age:,.0f} s in the future"
        if self.host == socket.gethostname() and not pid_alive(self.pid):
            return "its process is gone"
        return ""


def lock_path(root: Path) -> Path:
    return Path(root) / ".fabricctl" / "lock.json"


def read_lock(root: Path) -> LockInfo | None:
    """The holder of the fabric lock, or None when there is no lock. Raises LockHeld when there is
    a lock that does not say who holds it: unreadable, not this format, or of another version."""
    path = lock_path(root)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise _unreadable(path, getattr(exc, "strerror", None) or type(exc).__name__) from None
    return parse_lock(text, path)


def parse_lock(text: str, path: Path) -> LockInfo:
    """A lock file's holder (format FORMAT), or LockHeld naming the file and `force-unlock`."""
    try:
        data = json.loads(text)
    except ValueError:
        raise _unreadable(path, "not JSON") from None
    if not isinstance(data, dict):
        raise _unreadable(path, "not a JSON object")
    if data.get("format") != FORMAT_NAME or "version" not in data:
        raise _unreadable(path, "not a fabricctl lock of a known format")
    if data["version"] != FORMAT:
        raise _unreadable(path, f"lock format version {data['version']!r} (this fabricctl reads {FORMAT})")
    fields = {k: v for k, v in data.items() if k not in ("format", "version")}
    types: dict[str, type | tuple[type, ...]] = {
        "user": str,
        "host": str,
        "pid": int,
        "created": (int, float),
        "plan_hash": str,
    }
    if set(fields) != set(types) or any(
        isinstance(fields[k], bool) or not isinstance(fields[k], t) for k, t in types.items()
    ):
        raise _unreadable(path, f"the fields are not {', '.join(types)}")
    if not 0 <= fields["created"] < 2**33 or not 0 <= fields["pid"] < 2**31:  # NaN fails too
        raise _unreadable(path, "its time or pid is out of range")
    return LockInfo(**fields)


def _unreadable(path: Path, why: str) -> LockHeld:
    return LockHeld(
        f"the fabric lock {path} cannot be read ({why}), so another apply may hold it: nothing applied; "
        "if no apply of this fabric runs anywhere, remove it with 'fabricctl force-unlock'"
    )


def remove_lock(root: Path) -> None:
    lock_path(root).unlink(missing_ok=True)


def _create(root: Path, info: LockInfo) -> bool:
    """Publish a complete lock file atomically (outputs.write_file, exclusive: a temporary file
    hard-linked into place, which fails when the lock exists, like O_EXCL), so a reader never
    sees a half-written lock (which it would take for a crashed, stale one and replace)."""
    try:
        write_file(lock_path(root), _lock_text(info), within=Path(root), exclusive=True)
    except FileExistsError:
        return False
    return True


def _take_over(path: Path, stale: LockInfo) -> None:
    """Move the stale lock aside; if a racer's fresh lock was moved instead, put it back."""
    aside = path.with_name(f".lock.stale.{os.getpid()}.{time.monotonic_ns()}")
    try:
        os.replace(path, aside)
    except FileNotFoundError:
        return
    try:
        moved: LockInfo | None = parse_lock(aside.read_text(encoding="utf-8"), path)
    except (OSError, UnicodeDecodeError, LockHeld):
        moved = None
    if moved != stale:
        with contextlib.suppress(FileExistsError):
            os.link(aside, path)
    aside.unlink(missing_ok=True)


def _lock_text(info: LockInfo) -> str:
    return json.dumps({"format": FORMAT_NAME, "version": FORMAT, **asdict(info)}, indent=2) + "\n"


def _this_holder(plan_hash: str) -> LockInfo:
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "unknown"
    return LockInfo(user, socket.gethostname(), os.getpid(), time.time(), plan_hash)


def _held(holder: LockInfo, where: str) -> LockHeld:
    return LockHeld(
        f"another apply holds the fabric lock{where}: {holder.describe()}; "
        f"wait for it, or run 'fabricctl force-unlock' if it is gone"
    )


def read_remote_lock(remote: Remote) -> tuple[str, LockInfo] | None:
    """(lock commit, holder) of the lock on the remote, or None; LockHeld when it cannot be read."""
    from fabricctl.deploy.gitstate import read_lock as read_ref

    held = read_ref(remote)
    if held is None:
        return None
    sha, text = held
    return sha, parse_lock(text, Path(f"{remote.name}:{remote.lock_ref}"))


def acquire_remote(
    remote: Remote,
    plan_hash: str,
    ttl: float = TTL_SECONDS,
    on_takeover: Callable[[LockInfo], None] | None = None,
    shard: tuple[str, str] | None = None,
) -> tuple[LockInfo, str]:
    """Take the lock on the remote by compare-and-swap push; (our holder, our lock commit).

    `shard` = (run group, shard name): the shards of one run group share the lock (each pod of
    a reviewed plan on its own runner); anything else holding it refuses them, and them it."""
    from fabricctl.deploy.gitstate import LeaseLost, StateError, create_lock, join_shard, lock_shards

    info = _this_holder(plan_hash)
    group, name = shard if shard is not None else ("", "")
    try:
        for _ in range(8):
            found = read_remote_lock(remote)
            expected = ""
            if found is not None:
                expected, holder = found
                held_group, held_shards = lock_shards(remote, expected)
                if group and held_group == group:
                    if name in held_shards:
                        earlier = _holder_of(held_shards[name], remote, f"shards/{name}")
                        if earlier is None or not earlier.stale(ttl):
                            who = earlier.describe() if earlier is not None else "its holder cannot be read"
                            raise LockHeld(f"shard {name} of run {group} is running already ({who})")
                        if on_takeover is not None:  # a killed run of this shard: run it again
                            on_takeover(earlier)
                    try:
                        return info, join_shard(remote, expected, name, _lock_text(info))
                    except LeaseLost:
                        continue
                if not holder.stale(ttl):
                    shards = (
                        f" (shards {', '.join(sorted(held_shards))} of run {held_group})"
                        if held_group
                        else ""
                    )
                    raise _held(holder, f" on {remote.describe()}{shards}")
                if on_takeover is not None:
                    on_takeover(holder)
            try:
                return info, create_lock(remote, _lock_text(info), expected, group, name)
            except LeaseLost:
                continue  # another runner moved it between our read and our push: read it again
    except StateError as exc:
        raise StateError(
            f"cannot take the fabric lock: {exc}; nothing applied (allowed: a reachable remote, or "
            "FABRICCTL_STATE_REMOTE=none for a fabric whose repository is not shared)"
        ) from None
    raise LockHeld(f"could not take the fabric lock on {remote.describe()} (contended); try again")


def _holder_of(text: str, remote: Remote, path: str) -> LockInfo | None:
    try:
        return parse_lock(text, Path(f"{remote.name}:{remote.lock_ref}:{path}"))
    except LockHeld:
        return None


class LeaseHeld(LockHeld):
    """A switch of this shard is leased to another shard of the run that still runs."""


def lease_switches(
    remote: Remote,
    shard: tuple[str, str],
    switches: Iterable[str],
    ttl: float = TTL_SECONDS,
    on_takeover: Callable[[LockInfo], None] | None = None,
) -> None:
    """Lease `switches` to `shard` (run group, shard name) in the shared lock, so that two runners
    never push one switch: refused (LeaseHeld, naming the switch and its holder) while another
    shard of the run holds a lease on one of them; a stale holder's leases (a killed runner: its
    process gone from this host, or its lease run out) are taken over, aloud. The leases leave
    with the shard (release_remote)."""
    from fabricctl.deploy.gitstate import LeaseLost, StateError, lock_leases, lock_shards, write_leases
    from fabricctl.deploy.gitstate import read_lock as read_ref

    group, name = shard
    mine = sorted(set(switches))
    info = _this_holder("apply")
    text = json.dumps({"holder": json.loads(_lock_text(info)), "switches": mine}, indent=1) + "\n"
    try:
        for _ in range(8):
            found = read_ref(remote)
            held_group, holders = lock_shards(remote, found[0]) if found is not None else ("", {})
            if found is None or held_group != group or name not in holders:
                raise LockHeld(
                    f"shard {name} of run {group} no longer holds the fabric lock: nothing applied"
                )
            stale = []
            for other, lease_text in lock_leases(remote, found[0]).items():
                if other == name:
                    continue
                holder, leased = _lease(lease_text, remote, other)
                clash = sorted(set(mine) & leased)
                if not clash:
                    continue
                if not holder.stale(ttl):
                    raise LeaseHeld(
                        f"--shard {name}: switch {clash[0]}"
                        + (f" (and {len(clash) - 1} more)" if len(clash) > 1 else "")
                        + f" is leased to shard {other} of run {group} ({holder.describe()}): nothing "
                        "applied; two runners never push one switch (allowed: shards whose switches "
                        "do not overlap, or this shard once that one ends)"
                    )
                if on_takeover is not None:
                    on_takeover(holder)
                stale.append(other)
            try:
                write_leases(remote, found[0], name, text, tuple(stale))
                return
            except LeaseLost:
                continue
    except StateError as exc:
        raise StateError(f"cannot lease the shard's switches: {exc}; nothing applied") from None
    raise LockHeld(
        f"could not lease the switches of shard {name} on {remote.describe()} (contended); try again"
    )


def _lease(text: str, remote: Remote, shard: str) -> tuple[LockInfo, set[str]]:
    """(holder, switches) of shard `shard`'s lease; LeaseHeld when it cannot be read (it proves
    nothing about who holds which switch: fail closed, as for the lock)."""
    path = Path(f"{remote.name}:{remote.lock_ref}:leases/{shard}")
    try:
        data = json.loads(text)
        holder = parse_lock(json.dumps(data["holder"]), path)
        switches = data["switches"]
        if not isinstance(switches, list) or not all(isinstance(n, str) for n in switches):
            raise TypeError
    except (ValueError, TypeError, KeyError, LockHeld):
        raise LeaseHeld(
            f"the switch lease {path} cannot be read, so shard {shard} may hold a switch of this "
            "one: nothing applied; if no apply of this fabric runs anywhere, remove it with "
            "'fabricctl force-unlock'"
        ) from None
    return holder, set(switches)


def release_remote(remote: Remote, ours: str, shard: tuple[str, str] | None) -> None:
    """Give the remote lock back: delete it if it still is ours; a shard leaves the shared lock
    (the last one out deletes it). A release that fails leaves a lock that goes stale (TTL)."""
    from fabricctl.deploy.gitstate import LeaseLost, StateError, delete_lock, leave_shard, lock_shards
    from fabricctl.deploy.gitstate import read_lock as read_ref

    with contextlib.suppress(StateError):
        if shard is None:
            delete_lock(remote, ours)
            return
        for _ in range(8):
            found = read_ref(remote)
            if found is None:
                return
            group, holders = lock_shards(remote, found[0])
            if group != shard[0] or shard[1] not in holders:
                return
            try:
                leave_shard(remote, found[0], shard[1], last=len(holders) == 1)
                return
            except LeaseLost:
                continue


def acquire(
    root: Path,
    plan_hash: str,
    ttl: float = TTL_SECONDS,
    on_takeover: Callable[[LockInfo], None] | None = None,
) -> LockInfo:
    """Take the lock or raise LockHeld naming the holder; a stale lock is replaced (and said so)."""
    path = lock_path(root)
    info = _this_holder(plan_hash)
    for _ in range(3):
        if _create(root, info):
            return info
        held = read_lock(root)
        if held is None:
            continue
        if not held.stale(ttl):
            raise _held(held, "")
        if on_takeover is not None:
            on_takeover(held)
        _take_over(path, held)
    raise LockHeld("could not take the fabric lock (contended); try again")


def release(root: Path, info: LockInfo) -> None:
    """Remove the lock if it is still ours (one that cannot be read is not)."""
    with contextlib.suppress(LockHeld):
        held = read_lock(root)
        if held is not None and held.pid == info.pid and held.created == info.created:
            remove_lock(root)


@contextmanager
def fabric_lock(
    root: Path,
    plan_hash: str,
    on_takeover: Callable[[LockInfo], None] | None = None,
    remote: Remote | None = None,
    shard: tuple[str, str] | None = None,
) -> Iterator[LockInfo]:
    """The lock for a block: on `remote` when given (shared by the shards of one run group),
    else the file under `root`."""
    if remote is None:
        info = acquire(root, plan_hash, on_takeover=on_takeover)
        try:
            yield info
        finally:
            release(root, info)
        return
    info, ours = acquire_remote(remote, plan_hash, on_takeover=on_takeover, shard=shard)
    try:
        yield info
    finally:
        release_remote(remote, ours, shard)
