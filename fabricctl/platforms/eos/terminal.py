"""How an EOS CLI looks over SSH: the running-config command and its prompt, and how an armed
commit timer shows (EOS lists it itself, as a session pending on its timer)."""

from __future__ import annotations

import calendar
import json
import re
import time

from fabricctl.platforms.base import Fetch

FETCH = Fetch(
    show_running="show running-config",
    show_saved="show startup-config",
    prompt=r"[\w.\-]+(?:\([^)\r\n]*\))?[#>]\s*$",  # host# / host(config-...)#
    netmiko_device_type="arista_eos",
    pending_command="show configuration sessions | json",
    napalm_over_ssh=False,  # NAPALM's eos driver speaks eAPI (HTTPS)
    # eAPI's port and transport live with NAPALM's options, where NAPALM and ANTA read them too
    api_plugin="napalm",
)


#: The switch's clock, read to follow an armed session commit timer on the switch's own time.
SHOW_CLOCK = "show clock"


def read_clock(text: str) -> float | None:
    """Seconds on the switch's clock from `show clock`'s first line (`Mon Jan 14 18:42:49 2013`,
    as real switches print it: ntc-templates' arista_eos show_clock capture; the zone follows on
    its own line and only differences count), or None when the output is not a clock."""
    for line in text.splitlines():
        line = " ".join(line.split())
        if not line:
            continue
        try:
            return float(calendar.timegm(time.strptime(line, "%a %b %d %H:%M:%S %Y")))
        except ValueError:
            return None
    return None


#: Sessions fabricctl opens are named after the push's mark (platforms/push.py `new_mark`): the
#: run record holds the mark, so an abandoned session is provably fabricctl's.
SESSION_PREFIX = "fabricctl-"


def session_name(mark: str) -> str:
    return f"{SESSION_PREFIX}{mark}"


def sessions(output: str | None) -> dict[str, str]:
    """Session name -> state, from `show configuration sessions | json`."""
    try:
        found = json.loads(output or "{}").get("sessions") or {}
    except (ValueError, AttributeError):
        return {}
    return {n: str(s.get("state", "")) for n, s in found.items() if isinstance(s, dict)}


def live(output: str | None) -> dict[str, str]:
    """The sessions that hold a change: open (`pending`) or committed on a timer
    (`pendingCommitTimer`); completed ones are history."""
    return {n: st for n, st in sessions(output).items() if st.startswith("pending")}


def ours(name: str, claimed: frozenset[str]) -> bool:
    """A session fabricctl provably opened: its name carries a mark a run record holds."""
    return name.startswith(SESSION_PREFIX) and name[len(SESSION_PREFIX) :] in claimed


def pending(running: str, saved: str, extra: str | None) -> str | None:
    """What a plan shows: a session fabricctl left (settled by the next apply, which first proves
    it is fabricctl's) and any other session committed on a timer (a change someone else has not
    confirmed: the apply refuses the switch until its owner settles it)."""
    parts = []
    for name, state in live(extra).items():
        if name.startswith(SESSION_PREFIX):
            parts.append(f"session {name} ({state}) left by an interrupted apply")
        elif state == "pendingCommitTimer":
            parts.append(f"session {name} is committed on a timer and not confirmed (not fabricctl's)")
    return "; ".join(parts) or None


_CMD = re.compile(r"CLI command \d+ of \d+ '(?P<line>.*)' failed: (?P<why>.*)$")


def _first_line(exc: BaseException) -> str:
    lines = [ln.strip() for ln in str(exc).strip().splitlines() if ln.strip()]
    return lines[0] if lines else type(exc).__name__


def client_failure(exc: BaseException, names: set[str], at: str, user: str) -> tuple[str, str] | None:
    """(cause, detail) of an eAPI client (pyeapi, under NAPALM's EOS driver) exception, or None:
    a refused login, a line the switch refused (with its own error text), a closed session."""
    if "pyeapi.eapilib.ConnectionError" in names:
        if re.search(r"unauthori[sz]ed|401|authenticat", str(exc), re.I):
            return "auth", f"eAPI login refused for user {user!r} at{at} ({_first_line(exc)})"
        if re.search(r"closed|reset", str(exc), re.I):
            return "disconnected", f"{at.strip()} closed the session ({_first_line(exc)})"
    if "pyeapi.eapilib.CommandError" in names:
        text = str(getattr(exc, "error_text", "") or "")
        m = _CMD.search(text)
        own = getattr(exc, "command_error", None)
        own_text = ", ".join(map(str, own)) if isinstance(own, list) else str(own or "")
        if m:
            why = m.group("why") + (f": {own_text}" if own_text else "")
            return "rejected", f"{m.group('line')!r} rejected: {why}"
        return ("rejected", _first_line(exc)) if text else None
    return None
