"""The audit trail of an apply: why (`--reason`), under which change tickets, and which tenants
each switch's change touched.

Tickets come from `--ticket`, from the pull request the CI applies (FABRICCTL_PR_TITLE and
FABRICCTL_PR_LABELS, comma-separated, set by the shipped workflows), and from `Ticket:` trailers
of the applied commit (`git interpret-trailers`). A ticket id is what issue trackers print:
`NET-1234` (Jira style) or `CHG0012345` (ServiceNow style); a label `ticket:ID` names one too.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from fabricctl.model.text import printable

TICKET = re.compile(r"\b(?:[A-Z][A-Z0-9]{1,15}-\d{1,9}|(?:CHG|INC|RITM|CR)\d{4,12})\b")
MAX_TICKETS = 16
MAX_TICKET = 64  # characters of one ticket id the record keeps


def tickets_of(root: Path, given: Iterable[str], env: Mapping[str, str] | None = None) -> list[str]:
    """Ticket ids for the record, in the order found, each once."""
    env = os.environ if env is None else env
    found: list[str] = [t.strip() for t in given if t.strip()]
    found += TICKET.findall(env.get("FABRICCTL_PR_TITLE", ""))
    for label in env.get("FABRICCTL_PR_LABELS", "").split(","):
        label = label.strip()
        if label.lower().startswith("ticket:"):
            found.append(label.split(":", 1)[1].strip())
        elif TICKET.fullmatch(label):
            found.append(label)
    found += _trailers(root)
    unique = list(dict.fromkeys(printable(t)[:MAX_TICKET] for t in found if t))
    return unique[:MAX_TICKETS]


def _trailers(root: Path) -> list[str]:
    """`Ticket:` trailers of HEAD (several allowed, or one with a comma-separated list)."""
    try:
        proc = subprocess.run(
            ["git", "-C", str(root), "log", "-1", "--format=%(trailers:key=Ticket,valueonly,separator=%x2C)"],
            capture_output=True, text=True, timeout=10, check=False, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return []
    if proc.returncode != 0:
        return []
    return [t.strip() for t in proc.stdout.replace("\n", ",").split(",") if t.strip()]


def tenants_by_switch(changes: Mapping[str, Any], switches: Iterable[str]) -> dict[str, list[str]]:
    """switch -> the tenants its change touches, for the switches of this run. Plans that predate
    `tenants_by_switch` name each tenant's leaves instead."""
    names = list(switches)
    by_switch = changes.get("tenants_by_switch")
    if isinstance(by_switch, dict):
        return {n: sorted(map(str, _listed(by_switch.get(n)))) for n in names}
    out: dict[str, list[str]] = {n: [] for n in names}
    for row in _listed(changes.get("tenants")):
        for leaf in _listed(row.get("leaves")) if isinstance(row, dict) else []:
            if isinstance(leaf, str) and leaf in out:
                out[leaf].append(str(row.get("name")))
    return {n: sorted(set(t)) for n, t in out.items()}


def _listed(value: Any) -> list[Any]:
    """A list read from a plan file, or none (the file is checked whole later: service.recheck)."""
    return value if isinstance(value, list) else []
