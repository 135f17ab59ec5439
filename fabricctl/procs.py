"""Process liveness, shared by the apply lock and the detached lab's state file."""

from __future__ import annotations

import os


def pid_alive(pid: int) -> bool:
    """True when a process with this pid exists (and is not a zombie we own)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True
