"""EOS configuration sessions: a private copy of running until committed, a commit timer that
reverts a commit unless it is confirmed (Arista EOS User Manual, "Configure Session": `configure
session NAME`, `commit timer hh:mm:ss`, `configure session NAME commit|abort`).

The timer runs on the lab clock (lab/clock.py); on expiry running goes back to the snapshot taken
at commit time. The sessions are this NOS's state on the device (`LabDevice.nos_state`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fabricctl.lab.clock import Timer
from fabricctl.lab.config_tree import Node
from fabricctl.lab.device import LabDevice
from fabricctl.lab.sessions import CommitFailed, commit_faults

#: Completed sessions EOS keeps listed (`show configuration sessions`).
MAX_COMPLETED = 5


@dataclass
class EosSession:
    """One configuration session: a private copy of running until committed."""

    name: str
    tree: Node
    state: str = "pending"  # pending | pendingCommitTimer | completed
    commit_by: float | None = None  # the switch's uptime by which a commit on a timer must be confirmed
    snapshot: Node | None = None
    timer: Timer | None = None


@dataclass
class EosSessions:
    """The sessions of one switch, by name, in the order they were opened."""

    sessions: dict[str, EosSession] = field(default_factory=dict)

    def cancel(self) -> None:
        """Reset / reboot: the timers stop and the sessions go (EOS drops them on reload)."""
        for sess in self.sessions.values():
            if sess.timer is not None:
                sess.timer.cancel()
        self.sessions.clear()

    def transactions(self) -> dict[str, str]:
        return {name: sess.state for name, sess in self.sessions.items()}


def sessions_of(dev: LabDevice) -> dict[str, EosSession]:
    """The switch's sessions (kept as its `nos_state`)."""
    if not isinstance(dev.nos_state, EosSessions):
        dev.nos_state = EosSessions()
    return dev.nos_state.sessions


def open_session(dev: LabDevice, name: str) -> EosSession:
    """Enter (creating if needed) a named session based on the current running config."""
    sessions = sessions_of(dev)
    sess = sessions.get(name)
    if sess is not None and sess.state != "pending":
        raise CommitFailed(f"Cannot enter session {name} (session has already been committed)")
    if sess is None:
        sess = sessions[name] = EosSession(name, dev.running.copy())
    return sess


def _prune(dev: LabDevice) -> None:
    sessions = sessions_of(dev)
    done = [n for n, s in sessions.items() if s.state == "completed"]
    for name in done[:-MAX_COMPLETED]:
        del sessions[name]


async def commit_session(dev: LabDevice, name: str, timer: float | None = None) -> None:
    """`commit` / `configure session NAME commit [timer hh:mm:ss]`.

    A plain commit of a session pending on a timer confirms it.
    """
    sessions = sessions_of(dev)
    sess = sessions.get(name)
    if sess is None:
        raise CommitFailed(f"Session {name} does not exist")
    await commit_faults(dev)
    if sess.state == "pendingCommitTimer" and timer is None:
        if sess.timer is not None:
            sess.timer.cancel()
        sess.state, sess.timer, sess.snapshot, sess.commit_by = "completed", None, None, None
        _prune(dev)
        return
    if sess.state == "completed":
        raise CommitFailed(f"Session {name} has already been committed")
    others = [n for n, s in sessions.items() if s.state == "pendingCommitTimer" and n != name]
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
    sess = sessions_of(dev).pop(name, None)
    if sess is not None and sess.snapshot is not None:
        dev.set_running(sess.snapshot)


def abort_session(dev: LabDevice, name: str) -> None:
    """`abort`: drop the session; a commit pending on its timer is rolled back now.

    Aborting a session that no longer exists (already reverted) is a no-op.
    """
    sess = sessions_of(dev).get(name)
    if sess is None:
        return
    if sess.timer is not None:
        sess.timer.cancel()
    if sess.state == "pendingCommitTimer":
        _revert_session(dev, name)
    sessions_of(dev).pop(name, None)


def sessions_json(dev: LabDevice) -> dict[str, object]:
    """`show configuration sessions [detail] | json` as napalm reads it."""
    out: dict[str, object] = {}
    for name, sess in sessions_of(dev).items():
        entry: dict[str, object] = {"state": sess.state, "description": "", "instances": {}}
        if sess.commit_by is not None:
            entry["commitBy"] = sess.commit_by
        out[name] = entry
    return {"sessions": out, "maxSavedSessions": 1, "maxOpenSessions": 5, "mergeOnCommit": False}
