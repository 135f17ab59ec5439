"""How a TinyOS config is read over SSH: `show configuration` (the committed tree as YAML) and
`show configuration saved` (the startup tree), ended by its `<host>>` or `<host>#` prompt."""

from __future__ import annotations

from fabricctl.platforms.base import Fetch

FETCH = Fetch(
    show_running="show configuration",
    show_saved="show configuration saved",
    prompt=r"[\w.\-]+[>#] ?$",
    netmiko_device_type="generic",
    pending_command="show commit pending",
)

#: What TinyOS answers to a line or commit it refuses (`error: ...`).
REFUSAL = r"^error: "


def pending(running: str, saved: str, extra: str | None) -> str | None:
    """A commit waiting for its confirm (`show commit pending` prints its seconds left)."""
    if extra and extra.strip().startswith("pending"):
        return f"a commit waits for its confirm ({extra.strip()})"
    return None
