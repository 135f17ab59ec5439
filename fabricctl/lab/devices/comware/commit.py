"""Comware's `configuration commit delay`: a snapshot of running now, rolled back to unless
`configuration commit` comes in time (H3C Fundamentals Configuration Guide, "Configuring the
configuration commit delay"). The timer runs on the lab clock (lab/clock.py) and is this NOS's
state on the device (`LabDevice.nos_state`).
"""

from __future__ import annotations

from dataclasses import dataclass

from fabricctl.lab.clock import Timer
from fabricctl.lab.config_tree import Node
from fabricctl.lab.device import LabDevice
from fabricctl.lab.sessions import commit_faults


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

    def transactions(self) -> dict[str, str]:
        return {"configuration commit delay": "armed"}


def commit_delay(dev: LabDevice) -> CommitDelay | None:
    """The switch's armed commit delay, or None."""
    return dev.nos_state if isinstance(dev.nos_state, CommitDelay) else None


def arm(dev: LabDevice, minutes: int) -> None:
    """`configuration commit delay N`: snapshot now, roll back unless committed in time (a delay
    armed again keeps the first snapshot)."""
    armed = commit_delay(dev)
    if armed is not None:
        armed.cancel()
        snapshot = armed.snapshot
    else:
        snapshot = dev.running.copy()
    seconds = minutes * 60
    delay = CommitDelay(snapshot, deadline=dev.clock.now() + seconds)
    delay.timer = dev.clock.call_later(seconds, _revert, dev, delay)
    dev.nos_state = delay


def _revert(dev: LabDevice, delay: CommitDelay) -> None:
    if dev.nos_state is delay:
        dev.nos_state = None
        dev.set_running(delay.snapshot)


async def commit(dev: LabDevice) -> None:
    """`configuration commit`: confirm the pending delayed commit (the timer keeps running
    when the commit fails, so the device still rolls back)."""
    await commit_faults(dev)
    armed = commit_delay(dev)
    if armed is not None:
        armed.cancel()
        dev.nos_state = None
