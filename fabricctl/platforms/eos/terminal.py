"""How an EOS CLI looks over SSH: the running-config command and its prompt, and how an armed
commit timer shows (EOS lists it itself, as a session pending on its timer)."""

from __future__ import annotations

import calendar
import json
import os
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


#: Sessions fabricctl opens are named after the run, so an abandoned one is known as fabricctl's.
SESSION_PREFIX = "fabricctl-"


def session_name(run_id: str) -> str:
    """fabricctl-<run>-<random>: a run's second push to a switch (a rollback) needs its own session."""
    run = "".join(c if c.isalnum() or c in "-_" else "-" for c in run_id or "unknown")
    return f"{SESSION_PREFIX}{run}-{os.urandom(3).hex()}"


def sessions(output: str | None) -> dict[str, str]:
    """Session name -> state, from `show configuration sessions | json`."""
    try:
        found = json.loads(output or "{}").get("sessions") or {}
    except (ValueError, AttributeError):
        return {}
    return {n: str(s.get("state", "")) for n, s in found.items() if isinstance(s, dict)}


def unsettled(output: str | None) -> tuple[list[str], list[str]]:
    """(fabricctl's sessions left pending or on a timer, other sessions committed on a timer)."""
    states = sessions(output)
    ours = sorted(n for n, st in states.items() if n.startswith(SESSION_PREFIX) and st.startswith("pending"))
    theirs = sorted(
        n for n, st in states.items() if not n.startswith(SESSION_PREFIX) and st == "pendingCommitTimer"
    )
    return ours, theirs


def pending(running: str, saved: str, extra: str | None) -> str | None:
    ours, theirs = unsettled(extra)
    states = sessions(extra)
    parts = [f"session {n} ({states[n]}) left by an interrupted apply" for n in ours]
    parts += [f"session {n} is committed on a timer and not confirmed" for n in theirs]
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
