"""File stamps: whether a file is the one read before, known without reading it again.

A stamp is what `lstat` says of a file: size, modification and change times, inode. The change
time (ctime) is set by the kernel on every write and cannot be set back, so an edit that keeps
the size and restores the modification time still changes the stamp. A stamp taken within
`RACY_NS` of the file's last change proves nothing (the file may be written again in the same
clock tick: git's "racily clean" entries), so such a file is read again until a later stamp
settles it.
"""

from __future__ import annotations

import os
import stat as stat_mode
import time
from pathlib import Path

#: How close to a file's change a stamp must not be taken to be trusted: file systems keep times
#: to a clock tick (a few ms on Linux; 2 s on FAT and some network file systems).
RACY_NS = 2_000_000_000

Stamp = tuple[int, int, int, int]


def stamp_of(result: os.stat_result) -> Stamp:
    return (result.st_size, result.st_mtime_ns, result.st_ctime_ns, result.st_ino)


def stamp(path: str | Path) -> Stamp | None:
    """The file's stamp, or None when it is not a regular file (gone, a folder, a symlink)."""
    try:
        result = os.lstat(path)
    except OSError:
        return None
    return stamp_of(result) if stat_mode.S_ISREG(result.st_mode) else None


def now_ns() -> int:
    """When a stamp is taken: read before the stamp, so it is never later than the stamp's truth."""
    return time.time_ns()


def trusted(current: Stamp | None, recorded: Stamp | None, taken_ns: int) -> bool:
    """True when the file is provably the one a stamp recorded at `taken_ns` describes."""
    return current is not None and current == recorded and current[2] < taken_ns - RACY_NS
