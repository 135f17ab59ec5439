"""What every NOS's commit shares in the lab: the device faults that make a commit fail or hang.

Each NOS's own transactions (EOS configuration sessions, Comware's commit delay, NVUE's
revisions) live in its package, lab/devices/<nos>/, as its state on the device
(`LabDevice.nos_state`), with their timers on the lab clock (lab/clock.py).
"""

from __future__ import annotations

import asyncio

from fabricctl.lab.device import LabDevice


class CommitFailed(Exception):
    """A commit the device refused; running is untouched."""


async def commit_faults(dev: LabDevice) -> None:
    """The `hang_on_commit` and `commit_failure` faults, as a commit meets them."""
    if dev.faults.hang_on_commit:
        await asyncio.Event().wait()  # never answers, like a wedged configuration agent
    if dev.faults.commit_failure:
        raise CommitFailed("Failed to commit: configuration agent error (lab fault)")
