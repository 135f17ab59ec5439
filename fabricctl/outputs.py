"""Files a user names for fabricctl to write (`-o`, `--report`, `--log-file`, `--out`): written
through a symlink to its target, never over a device, FIFO, socket or folder, and whole or not at
all, so "saved" is said only once the bytes are where the user asked.

A rename over the path itself would replace a symlink by a regular file, or, as root, turn
`/dev/full` or a container's `/dev/stdout` into one: the target is the path with every symlink
resolved, and a target that exists must be a regular file.

Lowest layer (beside errors.py): every stage that writes a user's file uses it.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from fabricctl.errors import StageError


class OutputError(StageError):
    """A file the user named cannot be written as asked (one line: the path and why)."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def output_target(path: Path) -> Path:
    """Where bytes for `path` land: its target once every symlink is resolved. Raises
    OutputError when that target exists and is not a regular file."""
    target = Path(os.path.realpath(path))
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return target
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or type(exc).__name__}") from None
    if not stat.S_ISREG(mode):
        shown = f"{path} (-> {target})" if target != Path(os.path.abspath(path)) else str(path)
        raise OutputError(
            f"cannot write {shown}: it is {_kind(mode)} (allowed: a regular file, or a new one)"
        )
    return target


def write_output(path: Path, text: str) -> Path:
    """Write `text` at `path` whole (a temporary file beside the target, renamed over it, with
    the target's permissions when it exists). Returns the target written."""
    target = output_target(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "x", encoding="utf-8") as fh:
            fh.write(text)
        with contextlib.suppress(FileNotFoundError):
            os.chmod(tmp, stat.S_IMODE(os.stat(target).st_mode))
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(exc, FileExistsError):
            raise OutputError(
                f"cannot write {path}: {tmp.name} is in the way (another run writing it?)"
            ) from None
        raise OutputError(f"cannot write {path}: {exc.strerror or type(exc).__name__}") from None
    return target
