"""How NVUE looks over SSH: the commands that print the applied and the startup config (YAML, the
object tree fabricctl renders), the shell prompt, and what an interrupted push leaves behind."""

from __future__ import annotations

import re
from collections.abc import Mapping

import yaml

from fabricctl.platforms.base import Fetch

FETCH = Fetch(
    # NVUE Config Commands: `nv config show` prints the applied configuration in YAML; `-o yaml`
    # asks for that form explicitly, `-r startup` for the startup revision (`nv config save`).
    show_running="nv config show -o yaml",
    show_saved="nv config show -r startup -o yaml",
    prompt=r"[\w.\-]+@[\w.\-]+(?::\w+)?:[^\r\n$#]*[$#]\s*$",  # cumulus@leaf01:mgmt:~$
    netmiko_device_type="cumulus_linux",
)


def _applied(text: str) -> object:
    """The `set` parts of a `nv config show` YAML (its header carries the revision: not config)."""
    try:
        data = yaml.load(text, Loader=yaml.BaseLoader)
    except yaml.YAMLError:
        return text
    if isinstance(data, list):
        return [part.get("set") for part in data if isinstance(part, Mapping) and "set" in part]
    return data


def pending(running: str, saved: str, extra: str | None) -> str | None:
    """An apply NVUE has not made permanent: the applied revision differs from startup. With
    auto-save on (Cumulus Linux 5.9 and later) every confirmed apply is saved, so a difference is
    an apply still under its confirm timer, or one made with auto-save off and never saved."""
    if not running.strip() or not saved.strip() or _applied(running) == _applied(saved):
        return None
    return "the applied configuration differs from startup (an apply not confirmed or not saved)"


#: `nv config revision` (Cumulus Linux 5.5 and later; NVUE command reference, "nv config
#: revision"): one row per revision, columns Rev ID, State, Apply ID, Apply Date, Type, User,
#: Reason, Message under a row of dashes that marks each column's width.
REVISIONS = "nv config revision"
#: The state of an applied revision that waits for `nv config apply --confirm-yes` (the NVUE
#: API's revision states: `confirm`; `confirm_fail` once its timer rolled it back).
WAITING = "confirm"
#: An apply fabricctl makes carries `-m 'fabricctl <mark>'` (platforms/push.py `new_mark`).
MESSAGE_PREFIX = "fabricctl "


def revision_rows(text: str) -> list[dict[str, str]]:
    """The rows of an NVUE table (`nv config revision`), each as column name -> value: the
    dashes under the header give each column's start, so a value with spaces (a message) and an
    empty one stay in their column."""
    lines = text.splitlines()
    for i, line in enumerate(lines[1:], 1):
        if line.strip() and set(line.strip()) <= {"-", " "}:
            starts = [m.start() for m in re.finditer(r"-+", line)]
            header = lines[i - 1]
            break
    else:
        return []
    bounds = list(zip(starts, [*starts[1:], None], strict=True))
    names = [header[a:b].strip() for a, b in bounds]
    rows = []
    for line in lines[i + 1 :]:
        if line.strip():
            rows.append({n: line[a:b].strip() for n, (a, b) in zip(names, bounds, strict=True)})
    return rows


def mark_of(row: dict[str, str]) -> str | None:
    """The mark in a revision's apply message, when fabricctl made the apply."""
    message = row.get("Message", "")
    return message[len(MESSAGE_PREFIX) :].split()[0] if message.startswith(MESSAGE_PREFIX) else None


def describe(row: dict[str, str]) -> str:
    """`revision 7 (applied by alice at 2025-01-01 10:00:00, message 'mtu')`, as far as the row says."""
    said = [
        f"by {row['User']}" if row.get("User") else "",
        f"at {row['Apply Date']}" if row.get("Apply Date") else "",
    ]
    if row.get("Message"):
        said.append(f"message {row['Message']!r}")
    told = ", ".join(s for s in said if s)
    return f"revision {row.get('Rev ID', '?')}" + (f" ({told})" if told else "")
