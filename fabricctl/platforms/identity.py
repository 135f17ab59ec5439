"""Who a switch is: its serial number and model, read from the switch itself, for `rack accept`
to compare with the rack file before its capacity is released.

Each platform's identity reader (`Platform.identity`, its `identity` module) names the read-only command its vendor documents for the
chassis' manufacturing data and turns the answer into one `SwitchIdentity`; an answer that names
no serial is an IdentityError (a switch that cannot say who it is is not trusted).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fabricctl.platforms.health import Probe


class IdentityError(ValueError):
    """The switch's answer names no serial number or model in the form its vendor documents."""


@dataclass(frozen=True)
class SwitchIdentity:
    serial: str
    model: str


@dataclass(frozen=True)
class IdentityReader:
    probes: tuple[Probe, ...]
    parse: Callable[[dict[str, Any]], SwitchIdentity]


def _plain(text: str) -> str:
    return re.sub(r"[^A-Z0-9]", "", text.upper())


def same_model(rack_model: str, reported: str) -> bool:
    """Is `reported` (what the switch calls itself) the rack file's model? Vendors add a prefix
    or suffix to the model a rack file names (Arista `DCS-7060X5-64` for 7060X5-64, NVIDIA
    `MSN5600` for SN5600, HPE `HP FlexFabric 5930-32QSFP+ Switch JG726A`): the model, letters
    and digits only, must be inside it."""
    want = _plain(rack_model)
    return bool(want) and want in _plain(reported)


def required(value: Any, what: str, command: str) -> str:
    """A non-empty text field of the answer, else an IdentityError naming the command."""
    if isinstance(value, str) and value.strip():
        return value.strip()
    raise IdentityError(f"{command!r} names no {what} ({value!r})")
