"""The user's cache folder, and a store of what fabricctl derives there and can derive again.

Two caches live in the folder, never in a fabric repository: the compile cache
(compile/cache.py), one snapshot per fabric root, holds pickles, and a pickle committed to a pull
request would run code in CI; this store, shared by every fabric, holds configs under the hash of
their inputs, so whoever can write to it decides what a plan pushes. Both are the user's own,
like their SSH keys: not a folder to share between users or restore from an untrusted CI cache.
The store holds derived
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
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

from fabricctl import __version__

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


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """fabricctl's code as a hash: its version, the Python running it, and the stamp (size, mtime)
    of every module, so an edited checkout counts as new code as much as a release does."""
    h = hashlib.sha256(f"{__version__}\0{sys.version}\0".encode())
    for path in sorted(_PACKAGE.rglob("*.py")):
        st = path.stat()
        h.update(f"{path.relative_to(_PACKAGE)}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return h.hexdigest()


class Store:
    """Derived artifacts by kind and key, in one SQLite file of the cache folder."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None

    def _open(self) -> sqlite3.Connection:
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=10)
            db.execute("PRAGMA journal_mode = WAL")
            db.execute(
                "CREATE TABLE IF NOT EXISTS blob (kind TEXT, key TEXT, v BLOB, size INTEGER, used INTEGER,"
                " PRIMARY KEY (kind, key))"
            )
            db.execute("CREATE INDEX IF NOT EXISTS blob_used ON blob (used)")
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
    """The store of the user's cache folder (None: caching is off)."""
    folder = cache_dir()
    return Store(folder / "store.sqlite") if folder is not None else None
