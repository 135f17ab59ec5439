"""Crash-safe persistence of lab device configs under `<root>/.fabricctl/lab/state/<device>/`.

Every write goes to a temp file in the same directory and is renamed over the target, so
a crash (or a fault-injected disconnect) leaves either the old or the new file, never half.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from fabricctl.endpoints import LAB_DIR, lab_dir
from fabricctl.outputs import write_file

__all__ = ["LAB_DIR", "StateStore", "lab_dir"]


class StateStore:
    """Per-device config files; `directory=None` keeps everything in memory only."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory

    def _path(self, device: str, name: str) -> Path | None:
        return None if self.directory is None else self.directory / device / name

    def read(self, device: str, name: str) -> str | None:
        """Stored text, or None when absent (or in-memory mode)."""
        path = self._path(device, name)
        if path is None or not path.is_file():
            return None
        return path.read_text(encoding="utf-8")

    def write(self, device: str, name: str, text: str) -> None:
        """Persist atomically (no-op in memory mode)."""
        path = self._path(device, name)
        if path is not None:
            assert self.directory is not None
            write_file(path, text, within=self.directory)

    def files(self, device: str) -> dict[str, str]:
        """Stored flash files (e.g. `rollback-0`) of a device."""
        if self.directory is None:
            return {}
        flash = self.directory / device / "flash"
        if not flash.is_dir():
            return {}
        return {p.name: p.read_text(encoding="utf-8") for p in flash.iterdir() if p.is_file()}

    def clear(self, device: str) -> None:
        """Forget a device's state (reset to factory)."""
        if self.directory is not None:
            shutil.rmtree(self.directory / device, ignore_errors=True)
