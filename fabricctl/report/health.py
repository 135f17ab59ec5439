"""Health check results as text (failures first, one line each), Markdown (a PR/ticket table) or JSON."""

from __future__ import annotations

from collections import Counter

from fabricctl.deploy.health import Check, as_dicts
from fabricctl.deploy.tenant_health import INFORMATIONAL
from fabricctl.report.summary import span
from fabricctl.secrets import redacted_json


def health_text(checks: list[Check]) -> str:
    failed = [c for c in checks if not c.ok]
    lines = [
        f"FAIL {c.name:<12} {c.switch} {c.subject}: expected {c.expected}, seen {c.seen}"
        + (f"\n     {c.hint}" if c.hint else "")
        for c in failed
    ]
    lines += [
        f"WAIT {c.name:<12} {c.switch} {c.subject}: pending reboot: {c.pending} (seen {c.seen})"
        + (f"\n     {c.hint}" if c.hint else "")
        for c in _waiting(checks)
    ]
    lines += [
        f"NOTE {c.name:<12} {c.switch} {c.subject}: {c.seen}" + (f"\n     {c.hint}" if c.hint else "")
        for c in _notes(checks)
    ]
    lines.append(_summary(checks))
    return "\n".join(lines) + "\n"


def health_markdown(checks: list[Check]) -> str:
    failed = [c for c in checks if not c.ok]
    out = [f"### Health: {_summary(checks)}", ""]
    if failed:
        out += ["| check | switch | port / peer | expected | seen | hint |", "|---|---|---|---|---|---|"]
        out += [
            f"| {c.name} | {c.switch} | {c.subject} | {c.expected} | {c.seen} | {c.hint} |" for c in failed
        ]
    waiting = _waiting(checks)
    if waiting:
        out += [
            "",
            "Pending reboot (not failures: a setting the switch applies only at boot):",
            "",
            "| check | switch | setting | seen | waits for |",
            "|---|---|---|---|---|",
        ]
        out += [f"| {c.name} | {c.switch} | {c.subject} | {c.seen} | {c.pending} |" for c in waiting]
    notes = _notes(checks)
    if notes:
        out += [
            "",
            "Informational (not failures):",
            "",
            "| check | switch | port | seen | note |",
            "|---|---|---|---|---|",
        ]
        out += [f"| {c.name} | {c.switch} | {c.subject} | {c.seen} | {c.hint} |" for c in notes]
    return "\n".join(out) + "\n"


def health_json(checks: list[Check]) -> str:
    return redacted_json(
        {
            "ok": all(c.ok for c in checks),
            "state": health_state(checks),
            "pending_reboot": pending_reboot(checks),
            "summary": _summary(checks),
            "checks": as_dicts(checks),
        }
    )


def health_state(checks: list[Check]) -> str:
    """failed (any check failed), pending reboot (none failed, a setting waits for a boot), healthy."""
    if not all(c.ok for c in checks):
        return "failed"
    return "pending reboot" if _waiting(checks) else "healthy"


def pending_reboot(checks: list[Check]) -> list[str]:
    """The switches that wait for a reboot, in check order."""
    return list(dict.fromkeys(c.switch for c in _waiting(checks)))


def _waiting(checks: list[Check]) -> list[Check]:
    return [c for c in checks if c.ok and c.pending]


def _notes(checks: list[Check]) -> list[Check]:
    """Informational checks that saw something (congestion: ECN marks, CNPs)."""
    return [c for c in checks if c.ok and c.name in INFORMATIONAL]


def _summary(checks: list[Check]) -> str:
    by = Counter(c.name for c in checks)
    bad = Counter(c.name for c in checks if not c.ok)
    parts = ", ".join(f"{name} {by[name] - bad[name]}/{by[name]}" for name in sorted(by))
    waiting = pending_reboot(checks)
    verdict = "healthy" if not bad else f"{sum(bad.values())} check(s) failed"
    if waiting:
        verdict += f"; pending reboot: {len(waiting)} switch(es) ({span(waiting)})"
    return f"{verdict} ({parts})" if parts else verdict
