"""Secrets stay secret: every secret fabricctl loads is registered here, and every text it prints,
writes or raises passes through `redact` first.

The lowest module of the package: logins (deploy/credentials.py) register what they load; push
protocols, reports and the CLI redact what they emit, without depending on how logins work.
"""

from __future__ import annotations

import json
import threading
from typing import Any

REDACTED = "********"
_lock = threading.Lock()
_secrets: set[str] = set()


def register_secret(secret: str | None) -> None:
    """Remember a secret so `redact` removes it from any text, also as logs and JSON spell it
    (a debug record of bytes sent shows `b'p\\x40ss'`, JSON escapes quotes and backslashes)."""
    if secret and len(secret) >= 3:
        forms = {secret, repr(secret)[1:-1], repr(secret.encode())[2:-1], json.dumps(secret)[1:-1]}
        with _lock:
            _secrets.update(f for f in forms if len(f) >= 3)


def redact(text: str) -> str:
    """`text` with every registered secret replaced (longest first, so overlaps stay hidden)."""
    with _lock:
        secrets = sorted(_secrets, key=len, reverse=True)
    for secret in secrets:
        text = text.replace(secret, REDACTED)
    return text


def describe_error(exc: BaseException) -> str:
    """One redacted line for an exception (type and first line of its message)."""
    msg = str(exc).strip().splitlines()
    first = msg[0] if msg else ""
    return redact(f"{type(exc).__name__}: {first}" if first else type(exc).__name__)


def redacted_json(data: Any) -> str:
    """Stable, indented, redacted JSON text with a final newline (plans, run records, reports)."""
    return redact(json.dumps(data, indent=2, sort_keys=False)) + "\n"
