"""Comware's `configuration commit delay`, and the log buffer that is the only place a switch
shows one armed.

`configuration commit delay N` takes a rollback point of running now and rolls back to it unless
`configuration commit` comes in time; armed again before it expires it moves the deadline, never
the rollback point (H3C Fundamentals Configuration Guide, "Configuring configuration commit
delay"). H3C documents no command that displays an armed delay (the guide's "Display and
maintenance commands for configuration files" lists none); what a switch does keep is the
information center's log buffer, where every command a user runs is logged as SHELL/6/SHELL_CMD
(`-Line=vty0-IPAddr=192.0.2.7-User=alice; Command is configuration commit delay 10`, H3C System
Log Messages Reference, SHELL_CMD), read with `display logbuffer` (H3C Network Management and
Monitoring Command Reference, "Information center commands"). The timer runs on the lab clock
(lab/clock.py); both are this NOS's state on the device (`LabDevice.nos_state`).
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

from fabricctl.lab.clock import Timer
from fabricctl.lab.config_tree import Node
from fabricctl.lab.device import LabDevice
from fabricctl.lab.sessions import commit_faults

#: The log buffer's default size on Comware V7 (`info-center logbuffer size`): the oldest
#: message is overwritten once it is full.
LOGBUFFER_SIZE = 512


@dataclass
class CommitDelay:
    """A pending `configuration commit delay`: rollback target and timer."""

    snapshot: Node
    timer: Timer | None = None
    deadline: float = 0.0  # lab time

    def cancel(self) -> None:
        """Reset / reboot (or a commit): the timer stops."""
        if self.timer is not None:
            self.timer.cancel()


@dataclass
class ComwareState:
    """What a Comware switch keeps besides its configuration: an armed delay and the log buffer."""

    delay: CommitDelay | None = None
    log: deque[str] = field(default_factory=lambda: deque(maxlen=LOGBUFFER_SIZE))
    overwritten: int = 0

    def cancel(self) -> None:
        """Reset / reboot: the timer stops and the log buffer (memory) is empty again."""
        if self.delay is not None:
            self.delay.cancel()
        self.delay = None
        self.log.clear()
        self.overwritten = 0

    def transactions(self) -> dict[str, str]:
        return {"configuration commit delay": "armed"} if self.delay is not None else {}


def state_of(dev: LabDevice) -> ComwareState:
    if not isinstance(dev.nos_state, ComwareState):
        dev.nos_state = ComwareState()
    return dev.nos_state


def commit_delay(dev: LabDevice) -> CommitDelay | None:
    """The switch's armed commit delay, or None."""
    return state_of(dev).delay


def arm(dev: LabDevice, minutes: int) -> None:
    """`configuration commit delay N`: snapshot now, roll back unless committed in time (a delay
    armed again keeps the first snapshot)."""
    st = state_of(dev)
    if st.delay is not None:
        st.delay.cancel()
        snapshot = st.delay.snapshot
    else:
        snapshot = dev.running.copy()
    seconds = minutes * 60
    delay = CommitDelay(snapshot, deadline=dev.clock.now() + seconds)
    delay.timer = dev.clock.call_later(seconds, _revert, dev, delay)
    st.delay = delay


def _revert(dev: LabDevice, delay: CommitDelay) -> None:
    st = state_of(dev)
    if st.delay is delay:
        st.delay = None
        dev.set_running(delay.snapshot)


async def commit(dev: LabDevice) -> None:
    """`configuration commit`: confirm the pending delayed commit (the timer keeps running
    when the commit fails, so the device still rolls back)."""
    await commit_faults(dev)
    st = state_of(dev)
    if st.delay is not None:
        st.delay.cancel()
        st.delay = None


def log_command(dev: LabDevice, line: str, user: str, address: str, vty: str, host: str) -> None:
    """A command a user ran, as SHELL_CMD logs it (the words as typed, abbreviations too)."""
    st = state_of(dev)
    if len(st.log) == st.log.maxlen:
        st.overwritten += 1
    stamp = dev.clock.calendar()
    when = time.strftime("%b %d %H:%M:%S", time.gmtime(stamp)) + f":{int(stamp * 1000) % 1000:03d}"
    year = time.strftime("%Y", time.gmtime(stamp))
    st.log.append(
        f"%{when} {year} {host} SHELL/6/SHELL_CMD: -Line={vty}-IPAddr={address}-User={user}; Command is {line}"
    )


def logbuffer(dev: LabDevice) -> str:
    """`display logbuffer`: the buffer's summary, then its messages, oldest first."""
    st = state_of(dev)
    return "\n".join(
        [
            "Log buffer: Enabled",
            "Max buffer size: 1024",
            f"Actual buffer size: {LOGBUFFER_SIZE}",
            "Dropped messages: 0",
            f"Overwritten messages: {st.overwritten}",
            f"Current messages: {len(st.log)}",
            *st.log,
        ]
    )
