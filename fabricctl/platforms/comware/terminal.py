"""How a Comware V7 CLI looks over SSH: the running-config command, its prompts, its error forms,
and the mark a push leaves while its commit delay is armed."""

from __future__ import annotations

import calendar
import re

from fabricctl.config.tree import parse_tree
from fabricctl.platforms.base import Fetch

FETCH = Fetch(
    show_running="display current-configuration",
    show_saved="display saved-configuration",
    prompt=r"[<\[][^\]>\r\n]+[\]>]\s*$",  # <host> in user view, [host] / [host-view] in system view
    netmiko_device_type="hp_comware",
    api_plugin="napalm",  # napalm-h3c-comware's getters, over SSH (napalm_over_ssh)
)
#: The switch's clock, read to follow an armed `configuration commit delay` on the switch's own time.
SHOW_CLOCK = "display clock"
#: `display clock` as real switches print it (ntc-templates' hp_comware display_clock captures):
#: `19:35:31 UTC Sat 01/08/2011`, or local time with a `Time Zone : Z5 add 05:00:00` line after.
_CLOCK = re.compile(
    r"(?m)^\s*(\d{1,2}):(\d{2}):(\d{2})(?:\.(\d+))?\s+\S+\s+\w+\s+(\d{1,2})/(\d{1,2})/(\d{4})\s*$"
)


def read_clock(text: str) -> float | None:
    """Seconds on the switch's clock from `display clock` (its own zone: only differences count),
    or None when the output is not a clock."""
    m = _CLOCK.search(text)
    if m is None:
        return None
    hour, minute, sec, frac, month, day, year = m.groups()
    try:
        whole = calendar.timegm((int(year), int(month), int(day), int(hour), int(minute), int(sec), 0, 0, 0))
    except (ValueError, OverflowError):
        return None
    return whole + (float(f"0.{frac}") if frac else 0.0)


#: A prompt at the start of a line: one per pasted line comes back.
PROMPT_LINE = r"(?m)^[<\[][^\]>\r\n]+[\]>]"
#: What a refused command prints: the forms H3C's Fundamentals guide documents ("% Unrecognized
#: command found at '^' position." and its Incomplete / Ambiguous / Too many parameters / Wrong
#: parameter siblings), "% Error: ..." and a refused commit ("% Failed to commit ..."), in any case.
#: Anchored at a line start, so an echoed description that says "error" is never one.
#: The same forms as a push's failure message quotes them (deploy/failures.py: cause `rejected`).
REFUSAL = r"% ?(unrecognized|incomplete|ambiguous|wrong parameter|too many)"
ERROR_PATTERN = (
    r"(?im)^\s*%\s*(?:error\b|failed\b|invalid\b|unrecognized command|incomplete command|"
    r"ambiguous command|too many parameters|wrong parameter)"
)

#: Comware shows no armed `configuration commit delay`, so a push marks its own: while the delay
#: runs, the switch holds an empty VPN instance `fabricctl-pending` whose description names the
#: run (tenant names never start with `fabricctl`). The delay's rollback removes the mark with
#: the rest of the change; a committed push removes it after the commit.
MARK = "ip vpn-instance fabricctl-pending"


def mark_lines(run_id: str) -> list[str]:
    return [MARK, f" description run {run_id or 'unknown'}", " quit"]


def marked_run(running: str) -> str | None:
    """The run id of the mark in a running config, or None when no push is in flight."""
    for node in parse_tree(running):
        if node.text == MARK:
            words = next((c.text.split() for c in node.children if c.text.startswith("description ")), [])
            return words[2] if len(words) > 2 else "unknown"
    return None


def unmarked(running: str) -> str:
    """`running` without the mark: what it will be once the commit is through (as the switch
    lists it then, the mark's `#` separator gone with it)."""
    out: list[str] = []
    inside = False
    for line in running.splitlines():
        if line == MARK:
            inside = True
            if out and out[-1] == "#":  # the block's own separator goes with it
                out.pop()
            continue
        if inside and line.startswith(" ") and not line.startswith(" #"):
            continue
        inside = False
        out.append(line)
    return "\n".join(out) + "\n"


UNMARK_LINES = [f"undo {MARK}"]


def pending(running: str, saved: str, extra: str | None) -> str | None:
    run = marked_run(running)
    if run is not None:
        return f"an interrupted apply (run {run}) left its change under an armed commit delay"
    run = marked_run(saved)
    if run is not None:
        return f"the saved config still carries the mark of interrupted apply run {run}"
    return None
