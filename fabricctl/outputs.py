"""Every file fabricctl writes goes through here: plans, records, locks, rendered configs, day-0
files, the lab's state, logs, scaffolds, caches.

A write names its boundary (`within`): the fabric root for fabricctl's own files, or the output
the user named (`named_output`). Below the boundary no symlink is followed, at any depth, and the
path may not leave it (`..`): a fabric repository is written by many people (a pull request
can add `inventory` as a symlink to a runner's home), an output folder may be shared (the ZTP
folder a web server reads). The boundary itself is taken as the user gave it, symlinks and all.
A target that exists must be a regular file; it is replaced whole (a temporary file beside it,
renamed over it, with the target's permissions), or not at all; "saved" is said only once the
bytes are where the user asked. Folders are walked and created from an open folder descriptor
(`O_NOFOLLOW`, `dir_fd`), so a symlink planted while fabricctl works is refused too.

Lowest layer (beside errors.py).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from fabricctl.errors import StageError


class OutputError(StageError):
    """A file cannot be written as asked (one line: the path and why)."""


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symlink"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def named_output(path: Path, root: Path | None = None, folder: bool = False) -> Path:
    """The boundary of an output the user named (a file, or a `folder`): the fabric root when
    the path lies in it (no symlink of the repository is followed), else the folder named, or
    the folder the named file is in."""
    target = Path(os.path.abspath(path))
    if root is not None:
        base = Path(os.path.abspath(root))
        if base == target or base in target.parents:
            return base
    return target if folder else target.parent


def _parts(path: Path, within: Path | None, folder: bool = False) -> tuple[Path, list[str]]:
    """(the boundary, the names below it down to `path`), or OutputError when `path` leaves it
    (a `folder` may be the boundary itself)."""
    target = Path(os.path.normpath(os.path.abspath(path)))
    base = Path(os.path.normpath(os.path.abspath(within))) if within is not None else target.parent
    if folder and target == base:
        return base, []
    if target == base or base not in target.parents:
        raise OutputError(f"cannot write {path}: it is outside {base} (allowed: a file under {base})")
    return base, list(target.relative_to(base).parts)


@contextlib.contextmanager
def _folder(path: Path, base: Path, names: list[str], create: bool, mode: int | None = None) -> Iterator[int]:
    """An open descriptor of the folder `base`/`names`, walked without following a symlink
    (created when missing, if `create`, with `mode` for the last one)."""
    try:
        fd = os.open(base, _DIR_FLAGS)
    except OSError as exc:
        if create and isinstance(exc, FileNotFoundError):
            with contextlib.suppress(FileExistsError):
                os.makedirs(base)
            fd = os.open(base, _DIR_FLAGS)
        else:
            raise OutputError(f"cannot write {path}: {base}: {exc.strerror or type(exc).__name__}") from None
    try:
        for i, name in enumerate(names):
            here = base.joinpath(*names[: i + 1])
            try:
                sub = os.open(name, _DIR_FLAGS | _NOFOLLOW, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o777 if mode is None or i < len(names) - 1 else mode, dir_fd=fd)
                sub = os.open(name, _DIR_FLAGS | _NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise OutputError(f"cannot write {path}: {here}: {exc.strerror}") from None
                what = _kind(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode)
                raise OutputError(
                    f"cannot write {path}: {here} is {what} (allowed: a folder; fabricctl follows no "
                    f"symlink under {base})"
                ) from None
            os.close(fd)
            fd = sub
        yield fd
    finally:
        os.close(fd)


def _existing(path: Path, fd: int, name: str) -> os.stat_result | None:
    """The target as it is (None: absent); OutputError when it is not a regular file."""
    try:
        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode):
        raise OutputError(
            f"cannot write {path}: it is {_kind(st.st_mode)} (allowed: a regular file, or a new one)"
        )
    return st


def check_output(path: Path, within: Path | None = None) -> None:
    """Refuse now, before anything is read or contacted, what `write_file` would refuse: a
    path leaving `within`, a symlink or a file on the way, a target that is not a regular file."""
    base, names = _parts(path, within)
    try:
        with _folder(path, base, names[:-1], create=False) as fd:
            _existing(path, fd, names[-1])
    except FileNotFoundError:
        return  # a folder on the way does not exist yet: it is created when written


def write_file(
    path: Path,
    data: str | bytes,
    *,
    within: Path | None = None,
    mode: int | None = None,
    exclusive: bool = False,
) -> Path:
    """Write `data` at `path` whole, below the boundary `within` (None: the folder `path`
    names), creating folders on the way. The file gets `mode` when given (a private file stays
    private), else an existing target keeps its permissions and a new one gets 0666 less the
    umask. `exclusive`: only if `path` does not exist (FileExistsError otherwise, as with
    open(..., "x")). Returns `path`."""
    base, names = _parts(path, within)
    body = data.encode("utf-8") if isinstance(data, str) else data
    with _folder(path, base, names[:-1], create=True) as fd:
        name = names[-1]
        if exclusive:  # anything there (a file, a symlink, a folder) is there already
            with contextlib.suppress(FileNotFoundError):
                os.stat(name, dir_fd=fd, follow_symlinks=False)
                raise FileExistsError(errno.EEXIST, "File exists", str(path))
        st = _existing(path, fd, name)
        keep = mode if mode is not None else stat.S_IMODE(st.st_mode) if st is not None else None
        tmp = f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        try:
            out = os.open(
                tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o666 if keep is None else keep & 0o700,
                dir_fd=fd,
            )  # fmt: skip
            try:
                view = memoryview(body)
                while view:
                    view = view[os.write(out, view) :]
                if keep is not None:
                    os.fchmod(out, keep)
            finally:
                os.close(out)
            if exclusive:
                os.link(tmp, name, src_dir_fd=fd, dst_dir_fd=fd, follow_symlinks=False)
            else:
                os.replace(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
        except FileExistsError:
            raise
        except OSError as exc:
            raise OutputError(f"cannot write {path}: {exc.strerror or type(exc).__name__}") from None
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=fd)
    return Path(path)


def make_folder(path: Path, *, within: Path | None = None, mode: int | None = None) -> Path:
    """The folder `path` below `within` (None: the folder it is in; `path` itself may be the
    boundary), created when missing, with `mode` when given; refused through a symlink like any
    write."""
    base, names = _parts(path, within, folder=True)
    with _folder(path, base, names, create=True, mode=mode) as fd:
        if mode is not None:
            os.fchmod(fd, mode)
    return Path(path)


def open_append(path: Path, *, within: Path | None = None, mode: int | None = None) -> BinaryIO:
    """`path` opened to append (created with `mode` when missing), below `within` like a write:
    a log (the lab's, --log-file, the ZTP fetch log)."""
    base, names = _parts(path, within)
    with _folder(path, base, names[:-1], create=True) as fd:
        _existing(path, fd, names[-1])
        try:
            out = os.open(
                names[-1], os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
                0o666 if mode is None else mode, dir_fd=fd,
            )  # fmt: skip
        except OSError as exc:
            raise OutputError(f"cannot write {path}: {exc.strerror or type(exc).__name__}") from None
    return os.fdopen(out, "ab")
