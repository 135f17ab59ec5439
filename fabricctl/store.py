"""The user's cache folder, and a store of what fabricctl derives there and can derive again.

Two caches live in the folder, never in a fabric repository: the compile cache
(compile/cache.py), one snapshot per fabric root, and this store, shared by every fabric, which
holds configs under the hash of their inputs. Both hold data only (SQLite rows and JSON with a
schema and a version, never pickles: nothing read back can run code), but whoever can write to
them decides what a plan pushes. So they are the user's own, as ssh treats keys: the folder and
every file in it are used only when owned by the user running fabricctl and not writable by group
or others (the folder's parent either: nobody else may swap the folder); otherwise the cache is
ignored, with a one-line warning (`trusted_folder`, `trusted_file`). Files are created 0600,
the folder 0700. The store holds derived
artifacts under a hash of everything they are made from, fabricctl's own code included, so an
entry is right or absent: today, the config rendered from an intent and its platform's templates.
A plan renders every switch of the fabric (verify proves all of them); for the 448 switches of
the 10k example that is 0.09 s from the store instead of 1.05 s.

The folder is `$FABRICCTL_CACHE_DIR`, else `$XDG_CACHE_HOME/fabricctl` (`~/.cache/fabricctl`);
`FABRICCTL_CACHE_DIR=off` turns both caches off. The store keeps at most `MAX_BYTES`: past that,
what was used longest ago goes. It never fails a command: a store it cannot read or write is
one it does without.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import sqlite3
import stat
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

from fabricctl import __version__
from fabricctl.outputs import write_file
from fabricctl.secrets import redact

log = logging.getLogger(__name__)

#: The store's bound: a few generations of a 100k fabric's configs (460 MB each) and read-backs.
MAX_BYTES = 2 * 1024**3
_PACKAGE = Path(__file__).resolve().parent


def cache_dir() -> Path | None:
    """The user's cache folder for fabricctl (None: caching is off)."""
    setting = os.environ.get("FABRICCTL_CACHE_DIR")
    if setting == "off":
        return None
    if setting:
        return Path(setting)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "fabricctl"


#: Places already warned about in this process (one line each per run).
_WARNED: set[str] = set()


def _warn(path: Path, why: str) -> None:
    log.warning("cache ignored at %s: %s", path, why)
    if str(path) not in _WARNED:
        _WARNED.add(str(path))
        sys.stderr.write(redact(f"warning: cache ignored: {path} {why} (chmod go-w, or remove it)\n"))


def _not_private(st: os.stat_result) -> str | None:
    """Why a file or folder is not the user's alone, or None."""
    uid = os.geteuid()
    if st.st_uid != uid:
        return f"is owned by uid {st.st_uid}, not by this user ({uid})"
    if st.st_mode & 0o022:
        return f"is writable by {'group and others' if st.st_mode & 0o022 == 0o022 else 'group' if st.st_mode & 0o020 else 'others'} (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def trusted_folder() -> Path | None:
    """The cache folder, created 0700 when missing, or None: caching off, the folder cannot be
    made, or it is not the user's alone (warned once)."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        if not folder.exists():
            folder.parent.mkdir(parents=True, exist_ok=True)
            folder.mkdir(mode=0o700)
        real = folder.resolve(strict=True)
        st, up = os.stat(real), os.stat(real.parent)
    except OSError as exc:
        log.debug("cache folder %s unusable: %s", folder, exc)
        return None
    if not stat.S_ISDIR(st.st_mode):
        _warn(folder, "is not a folder")
        return None
    why = _not_private(st)
    if why is None and up.st_uid not in (0, os.geteuid()):
        why = f"is inside {real.parent}, owned by uid {up.st_uid}, who could replace it"
    elif why is None and up.st_mode & 0o022 and not up.st_mode & stat.S_ISVTX:
        why = f"is inside {real.parent}, which others can write (no sticky bit): they could replace it"
    if why is not None:
        _warn(folder, why)
        return None
    return folder


def trusted_file(path: Path) -> bool:
    """A cache file fabricctl may read (and write): missing (then it is created 0600), or a
    regular file owned by the user and not writable by group or others. SQLite's `-wal` and
    `-shm` companions are judged the same way."""
    for part in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            st = os.lstat(part)
        except FileNotFoundError:
            continue
        except OSError as exc:
            log.debug("cache file %s unusable: %s", part, exc)
            return False
        why = "is not a regular file" if not stat.S_ISREG(st.st_mode) else _not_private(st)
        if why is not None:
            _warn(part, why)
            return False
    return True


def create_private(path: Path) -> None:
    """Make an empty file only the user can read and write (SQLite gives its companions the same
    mode), unless it exists (outputs.write_file: never through a symlink)."""
    with contextlib.suppress(FileExistsError):
        write_file(path, b"", within=path.parent, mode=0o600, exclusive=True)


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """fabricctl's code as a hash: its version, the Python running it, and the stamp (size, mtime)
    of every module, so an edited checkout counts as new code as much as a release does."""
    h = hashlib.sha256(f"{__version__}\0{sys.version}\0".encode())
    for path in sorted(_PACKAGE.rglob("*.py")):
        st = path.stat()
        h.update(f"{path.relative_to(_PACKAGE)}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return h.hexdigest()


#: The store's format (SQLite `user_version`): a file of another format is emptied and reused.
STORE_FORMAT = 2


class Store:
    """Derived artifacts by kind and key, in one SQLite file of the cache folder: rows of
    (kind TEXT, key TEXT, v BLOB, size INTEGER, used INTEGER); today only kind 'config', whose
    value is a rendered config as UTF-8 text."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None

    def _open(self) -> sqlite3.Connection:
        if self._db is None:
            if not trusted_file(self.path):
                raise sqlite3.DatabaseError(f"{self.path} is not the user's alone")
            create_private(self.path)
            db = sqlite3.connect(self.path, timeout=10)
            try:
                db.execute("PRAGMA journal_mode = WAL")
                (version,) = db.execute("PRAGMA user_version").fetchone()
                if version != STORE_FORMAT:
                    with db:
                        db.execute("DROP TABLE IF EXISTS blob")
                        db.execute(f"PRAGMA user_version = {STORE_FORMAT}")
                db.execute(
                    "CREATE TABLE IF NOT EXISTS blob (kind TEXT, key TEXT, v BLOB, size INTEGER, used INTEGER,"
                    " PRIMARY KEY (kind, key))"
                )
                db.execute("CREATE INDEX IF NOT EXISTS blob_used ON blob (used)")
            except sqlite3.Error:
                db.close()
                raise
            self._db = db
        return self._db

    @staticmethod
    def _key(key: str) -> str:
        return hashlib.sha256(f"{code_fingerprint()}\0{key}".encode()).hexdigest()

    def get(self, kind: str, keys: Iterable[str]) -> dict[str, bytes]:
        """The entries there are, by key; what is missing (or unreadable) is left out."""
        wanted = {self._key(k): k for k in keys}
        found: dict[str, bytes] = {}
        try:
            db = self._open()
            items = sorted(wanted)
            for start in range(0, len(items), 500):  # SQLite's bound on parameters per query
                part = items[start : start + 500]
                marks = ", ".join("?" * len(part))
                for hashed, value in db.execute(
                    f"SELECT key, v FROM blob WHERE kind = ? AND key IN ({marks})", [kind, *part]
                ):
                    found[wanted[hashed]] = value
            if found:
                with db:
                    db.executemany(
                        "UPDATE blob SET used = ? WHERE kind = ? AND key = ?",
                        ((time.time_ns(), kind, self._key(k)) for k in found),
                    )
        except (OSError, sqlite3.Error) as exc:
            log.debug("store: not read: %s", exc)
        return found

    def put(self, kind: str, items: Mapping[str, bytes]) -> None:
        """Keep `items`; then, past MAX_BYTES, drop what was used longest ago."""
        if not items:
            return
        try:
            db = self._open()
            now = time.time_ns()
            with db:
                db.executemany(
                    "INSERT OR REPLACE INTO blob VALUES (?, ?, ?, ?, ?)",
                    ((kind, self._key(k), v, len(v), now) for k, v in items.items()),
                )
            (total,) = db.execute("SELECT COALESCE(SUM(size), 0) FROM blob").fetchone()
            if total > MAX_BYTES:
                self._evict(db, total)
        except (OSError, sqlite3.Error) as exc:
            log.debug("store: not written: %s", exc)

    @staticmethod
    def _evict(db: sqlite3.Connection, total: int) -> None:
        """Down to three quarters of the bound, oldest use first."""
        drop: list[tuple[str, str]] = []
        for kind, key, size in db.execute("SELECT kind, key, size FROM blob ORDER BY used"):
            if total <= MAX_BYTES * 3 // 4:
                break
            drop.append((kind, key))
            total -= size
        with db:
            db.executemany("DELETE FROM blob WHERE kind = ? AND key = ?", drop)

    def close(self) -> None:
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None


def open_store() -> Store | None:
    """The store of the user's cache folder (None: caching is off, or the folder is not the
    user's alone)."""
    folder = trusted_folder()
    return Store(folder / "store.sqlite") if folder is not None else None
