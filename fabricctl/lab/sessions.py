"""Transactions: EOS config sessions with commit timers, Comware `configuration commit delay`.

Both arm a timer on the lab clock (lab/clock.py); on expiry running is restored to the snapshot
taken at commit time (EOS) or at `commit delay` time (Comware) and persisted.
"""

from __future__ import annotations

import asyncio

from fabricctl.lab.device import CommitDelay, EosSession, LabDevice

MAX_COMPLETED = 5


class CommitFailed(Exception):
    """A commit the device refused; running is untouched."""


async def _commit_faults(dev: LabDevice) -> None:
    if dev.faults.hang_on_commit:
        await asyncio.Event().wait()  # never answers, like a wedged ConfigAgent
    if dev.faults.commit_failure:
        raise CommitFailed("Failed to commit: configuration agent error (lab fault)")


def open_session(dev: LabDevice, name: str) -> EosSession:
    """Enter (creating if needed) a named session based on the current running config."""
    sess = dev.sessions.get(name)
    if sess is not None and sess.state != "pending":
        raise CommitFailed(f"Cannot enter session {name} (session has already been committed)")
    if sess is None:
        sess = dev.sessions[name] = EosSession(name, dev.running.copy())
    return sess


def _prune(dev: LabDevice) -> None:
    done = [n for n, s in dev.sessions.items() if s.state == "completed"]
    for name in done[:-MAX_COMPLETED]:
        del dev.sessions[name]


async def commit_session(dev: LabDevice, name: str, timer: float | None = None) -> None:
    """`commit` / `configure session NAME commit [timer hh:mm:ss]`.

    A plain commit of a session pending on a timer confirms it.
    """
    sess = dev.sessions.get(name)
    if sess is None:
        raise CommitFailed(f"Session {name} does not exist")
    await _commit_faults(dev)
    if sess.state == "pendingCommitTimer" and timer is None:
        if sess.timer is not None:
            sess.timer.cancel()
        sess.state, sess.timer, sess.snapshot, sess.commit_by = "completed", None, None, None
        _prune(dev)
        return
    if sess.state == "completed":
        raise CommitFailed(f"Session {name} has already been committed")
    others = [n for n, s in dev.sessions.items() if s.state == "pendingCommitTimer" and n != name]
    if others:
        raise CommitFailed(f"Cannot commit: session {others[0]} has a pending commit timer")
    if sess.state == "pending":
        sess.snapshot = dev.running.copy()
        dev.set_running(sess.tree)
    if timer is None:
        sess.state = "completed"
        _prune(dev)
        return
    if sess.timer is not None:
        sess.timer.cancel()
    sess.state = "pendingCommitTimer"
    sess.commit_by = dev.uptime() + timer
    sess.timer = dev.clock.call_later(timer, _revert_session, dev, name)


def _revert_session(dev: LabDevice, name: str) -> None:
    sess = dev.sessions.pop(name, None)
    if sess is not None and sess.snapshot is not None:
        dev.set_running(sess.snapshot)


def abort_session(dev: LabDevice, name: str) -> None:
    """`abort`: drop the session; a commit pending on its timer is rolled back now.

    Aborting a session that no longer exists (already reverted) is a no-op.
    """
    sess = dev.sessions.get(name)
    if sess is None:
        return
    if sess.timer is not None:
        sess.timer.cancel()
    if sess.state == "pendingCommitTimer":
        _revert_session(dev, name)
    dev.sessions.pop(name, None)


def sessions_json(dev: LabDevice) -> dict[str, object]:
    """`show configuration sessions [detail] | json` as napalm reads it."""
    out: dict[str, object] = {}
    for name, sess in dev.sessions.items():
        entry: dict[str, object] = {"state": sess.state, "description": "", "instances": {}}
        if sess.commit_by is not None:
            entry["commitBy"] = sess.commit_by
        out[name] = entry
    return {"sessions": out, "maxSavedSessions": 1, "maxOpenSessions": 5, "mergeOnCommit": False}


def comware_commit_delay(dev: LabDevice, minutes: int) -> None:
    """`configuration commit delay N`: snapshot now, roll back unless committed in time."""
    if dev.commit_delay is not None and dev.commit_delay.timer is not None:
        dev.commit_delay.timer.cancel()
        snapshot = dev.commit_delay.snapshot
    else:
        snapshot = dev.running.copy()
    seconds = minutes * 60
    delay = CommitDelay(snapshot, deadline=dev.clock.now() + seconds)
    delay.timer = dev.clock.call_later(seconds, _revert_delay, dev, delay)
    dev.commit_delay = delay


def _revert_delay(dev: LabDevice, delay: CommitDelay) -> None:
    if dev.commit_delay is delay:
        dev.commit_delay = None
        dev.set_running(delay.snapshot)


async def comware_commit(dev: LabDevice) -> None:
    """`configuration commit`: confirm the pending delayed commit (the timer keeps running
    when the commit fails, so the device still rolls back)."""
    await _commit_faults(dev)
    delay = dev.commit_delay
    if delay is not None:
        if delay.timer is not None:
            delay.timer.cancel()
        dev.commit_delay = None
