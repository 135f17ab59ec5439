"""NVUE's revisions: pending changes, apply, apply with confirm, rollback, history.

NVUE stages `nv set` / `nv unset` (and REST PATCHes) in a revision; `nv config apply` makes a
revision the applied configuration (and, with auto-save on, the startup one), `nv config
detach` drops the pending one, `nv config apply <rev>` applies an older one again (NVUE CLI,
"Configuration Management Commands"). `--confirm <time>` applies and rolls back unless
confirmed within the time (default ten minutes); the timer runs on the lab clock.

The applied configuration is the device's running tree (LabDevice.running), so everything the
lab derives (links, LLDP, BGP, routes) follows it; this module keeps what NVUE keeps besides.
"""

from __future__ import annotations

import copy
import re
import time
from dataclasses import dataclass, field
from typing import Any

from fabricctl.lab.clock import Timer
from fabricctl.lab.device import LabDevice
from fabricctl.lab.devices.nvue.tree import Tree, apply_diff, diff, from_node, to_node

DEFAULT_CONFIRM = 600.0  # seconds: "If you do not confirm within ten minutes, the configuration rolls back"
_DURATION = re.compile(r"(\d+)([smhd]?)")
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400, "": 60}  # a bare number: minutes (`--confirm 60`: one hour)


class RevisionError(Exception):
    """A revision operation NVUE refuses (unknown revision, nothing pending, a confirm pending)."""


def confirm_seconds(text: str) -> float:
    """`--confirm 60m`, `--confirm 90s`, `--confirm 60` (minutes) -> seconds."""
    m = _DURATION.fullmatch(text)
    if m is None or int(m[1]) == 0:
        raise RevisionError(f"Invalid confirm time: {text!r} (a number with s, m, h or d)")
    return float(int(m[1]) * _UNIT[m[2]])


@dataclass
class Revision:
    """One changeset: the config it was made from and the config it holds."""

    id: str
    base: Tree
    config: Tree
    #: pending | applied | confirm (applied, waiting for confirmation) | confirm_fail (rolled back
    #: by the timer or refused) | detached | invalid
    state: str = "pending"
    issue: dict[str, Any] = field(default_factory=dict)
    progress: str = ""
    user: str = ""  # who staged it (a pending revision) or applied it
    applies: int = 0  # how often it was applied (its Apply ID: rev_<id>_apply_<n>)
    applied_at: str = ""  # the last apply's date and time, as `nv config revision` prints it
    how: str = ""  # CLI or API
    message: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"state": self.state, "transition": {"issue": self.issue, "progress": self.progress}}


@dataclass
class Confirm:
    """An apply waiting for confirmation: what to go back to, and when."""

    rev: str
    previous: Tree
    deadline: float  # lab time
    timer: Timer


@dataclass
class NvueState:
    """What NVUE keeps on one switch besides the applied config."""

    revisions: dict[str, Revision] = field(default_factory=dict)
    next_id: int = 1
    applied_rev: str = "0"  # the revision the applied config came from ("0": the startup file)
    cli_pending: str | None = None  # the CLI's pending revision (all CLI sessions share it)
    confirm: Confirm | None = None
    history: list[dict[str, str]] = field(default_factory=list)

    def transactions(self) -> dict[str, str]:
        """Revision id -> state of what waits: the apply waiting for its confirm, staged changes."""
        out = {self.confirm.rev: "confirm"} if self.confirm is not None else {}
        staged = self.revisions.get(self.cli_pending or "")
        if staged is not None and staged.state == "pending" and staged.config != staged.base:
            out[staged.id] = "pending"
        return out

    def cancel(self) -> None:
        """Reset / reboot: timers stop, staged changes go."""
        if self.confirm is not None:
            self.confirm.timer.cancel()
        self.confirm = None
        self.cli_pending = None


def state_of(dev: LabDevice) -> NvueState:
    if not isinstance(dev.nos_state, NvueState):
        dev.nos_state = NvueState()
    return dev.nos_state


def applied(dev: LabDevice) -> Tree:
    return from_node(dev.running)


def startup(dev: LabDevice) -> Tree:
    return from_node(dev.parse(dev.startup))


def new_revision(dev: LabDevice) -> Revision:
    """POST /nvue_v1/revision, or the CLI's first `nv set`: a copy of the applied config."""
    st = state_of(dev)
    rev_id = str(st.next_id)
    st.next_id += 1
    base = applied(dev)
    rev = st.revisions[rev_id] = Revision(rev_id, base, copy.deepcopy(base))
    return rev


def cli_pending(dev: LabDevice, create: bool = True, user: str = "") -> Revision | None:
    st = state_of(dev)
    rev = st.revisions.get(st.cli_pending or "")
    if (rev is None or rev.state != "pending") and create:
        rev = new_revision(dev)
        rev.user = user
        st.cli_pending = rev.id
    return rev if rev is not None and rev.state == "pending" else None


def revision(dev: LabDevice, rev_id: str) -> Revision:
    rev = state_of(dev).revisions.get(rev_id)
    if rev is None:
        raise RevisionError(f"Revision {rev_id} not found")
    return rev


def named(dev: LabDevice, name: str) -> Tree:
    """A revision's config by id or name (applied, startup, empty, pending)."""
    if name == "applied":
        return applied(dev)
    if name == "startup":
        return startup(dev)
    if name == "empty":
        return {}
    if name == "pending":
        rev = cli_pending(dev, create=False)
        return rev.config if rev is not None else applied(dev)
    return revision(dev, name).config


def _set_applied(dev: LabDevice, tree: Tree) -> None:
    dev.set_running(to_node(tree))


def apply(
    dev: LabDevice, rev: Revision, confirm: float | None, who: str, how: str, message: str = ""
) -> None:
    """Make `rev` the applied configuration (its changes replayed onto the applied config when
    that moved since the revision was made); with `confirm`, roll back unless confirmed in time."""
    st = state_of(dev)
    if st.confirm is not None:
        raise RevisionError(
            f"Revision {st.confirm.rev} is waiting for confirmation; confirm it or roll it back first"
        )
    if rev.state not in ("pending", "applied", "confirm_fail"):
        raise RevisionError(f"Revision {rev.id} cannot be applied (state {rev.state})")
    previous = applied(dev)
    target = copy.deepcopy(rev.config)
    if rev.state == "pending" and rev.base != previous:
        sets, unsets = diff(rev.base, rev.config)
        target = copy.deepcopy(previous)
        apply_diff(target, sets, unsets)
    _set_applied(dev, target)
    rev.state, rev.progress = ("confirm", "Waiting for confirmation") if confirm else ("applied", "")
    st.applied_rev = rev.id
    if st.cli_pending == rev.id:
        st.cli_pending = None
    rev.applies += 1
    rev.user, rev.applied_at, rev.how, rev.message = who, _stamp(dev), how, message
    st.history.append(
        {"rev": rev.id, "date": _stamp(dev), "user": who, "type": how, "message": message or "-"}
    )
    if confirm:
        timer = dev.clock.call_later(confirm, _expire, dev, rev.id)
        st.confirm = Confirm(rev.id, previous, dev.clock.now() + confirm, timer)
    else:
        dev.save()  # auto-save is on by default (NVUE CLI, "Auto Save")


def confirm_apply(dev: LabDevice) -> str:
    """`nv config apply --confirm-yes`: keep the applied revision; the timer stops."""
    st = state_of(dev)
    if st.confirm is None:
        raise RevisionError("No configuration is waiting for confirmation")
    st.confirm.timer.cancel()
    rev = st.revisions[st.confirm.rev]
    rev.state, rev.progress = "applied", ""
    st.confirm = None
    dev.save()
    return rev.id


def roll_back(dev: LabDevice, why: str = "rolled back") -> str:
    """`nv config apply --confirm-no`, or the timer: the config from before the apply again."""
    st = state_of(dev)
    if st.confirm is None:
        raise RevisionError("No configuration is waiting for confirmation")
    conf = st.confirm
    conf.timer.cancel()
    st.confirm = None
    rev = st.revisions[conf.rev]
    rev.state, rev.progress = "confirm_fail", why
    _set_applied(dev, conf.previous)
    st.history.append(
        {"rev": rev.id, "date": _stamp(dev), "user": "system", "type": "rollback", "message": why}
    )
    return rev.id


def _expire(dev: LabDevice, rev_id: str) -> None:
    st = state_of(dev)
    if st.confirm is not None and st.confirm.rev == rev_id:
        roll_back(dev, "Confirm timer expired; configuration rolled back")


def seconds_left(dev: LabDevice) -> float | None:
    st = state_of(dev)
    if st.confirm is None:
        return None
    return max(0.0, st.confirm.deadline - dev.clock.now())


def detach(dev: LabDevice) -> str | None:
    """`nv config detach`: the pending changes leave the CLI's pending revision (kept, numbered)."""
    rev = cli_pending(dev, create=False)
    if rev is None:
        return None
    rev.state = "detached"
    state_of(dev).cli_pending = None
    return rev.id


#: `nv config revision`'s columns (NVUE command reference, Cumulus Linux 5.5 and later).
REVISION_COLUMNS = ("Rev ID", "State", "Apply ID", "Apply Date", "Type", "User", "Reason", "Message")


def revision_table(dev: LabDevice) -> str:
    """`nv config revision` in NVUE's table layout: each column as wide as its widest value, under
    a row of dashes. An applied revision is saved too (auto-save is on: `applied_and_saved`)."""
    rows = []
    for rev in state_of(dev).revisions.values():
        state = "applied_and_saved" if rev.state == "applied" else rev.state
        apply_id = f"rev_{rev.id}_apply_{rev.applies}" if rev.applies else ""
        reason = "Config update" if rev.applies else ""
        rows.append((rev.id, state, apply_id, rev.applied_at, rev.how, rev.user, reason, rev.message))
    widths = [max([len(c), *(len(r[i]) for r in rows)]) for i, c in enumerate(REVISION_COLUMNS)]
    lines = [REVISION_COLUMNS, tuple("-" * w for w in widths), *rows]
    return "\n".join(
        "  ".join(v.ljust(w) for v, w in zip(line, widths, strict=True)).rstrip() for line in lines
    )


def _stamp(dev: LabDevice) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(dev.clock.calendar()))
