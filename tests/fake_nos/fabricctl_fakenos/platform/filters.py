"""The Jinja filters TinyOS's templates use."""

from __future__ import annotations

import json
from collections.abc import Callable


def tiny_quote(value: object) -> str:
    """A scalar as a YAML double-quoted string (JSON's string form is one): a description with
    a colon or a leading dash stays one value."""
    return json.dumps(str(value))


FILTERS: dict[str, Callable[..., object]] = {"tiny_quote": tiny_quote}
