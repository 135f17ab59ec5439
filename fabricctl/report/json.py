"""JSON forms (plan, run report, drift) for machines: no ANSI codes, secrets redacted."""

from __future__ import annotations

import json
from typing import Any

from fabricctl.secrets import redact


def dumps(data: Any) -> str:
    """Stable, indented, redacted JSON text with a final newline."""
    return redact(json.dumps(data, indent=2, sort_keys=False)) + "\n"
