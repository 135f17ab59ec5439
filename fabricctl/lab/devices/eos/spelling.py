"""How the EOS twin spells a time span and a configure session's diff."""

from __future__ import annotations

import difflib


def duration(seconds: float) -> str:
    """EOS's `0:10:05` / `3 days, 4:05:06` spelling of a time span."""
    total = int(seconds)
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    clock = f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{days} days, {clock}" if days else clock


def session_diff(old: str, new: str, old_name: str, new_name: str) -> str:
    """A configure session's diff (`--- system:/running-config` / `+++ session:/...`)."""
    lines = difflib.unified_diff(
        old.splitlines(), new.splitlines(), fromfile=old_name, tofile=new_name, lineterm=""
    )
    return "\n".join(lines) + "\n" if old != new else ""
