"""Pick the parser for a switch's platform."""

from __future__ import annotations

from collections.abc import Callable

from fabricctl.verify.model import SwitchConfig
from fabricctl.verify.parse_comware import parse_comware
from fabricctl.verify.parse_eos import parse_eos

PARSERS: dict[str, Callable[[str, str], SwitchConfig]] = {"comware": parse_comware, "eos": parse_eos}


def parse_config(name: str, platform: str, text: str) -> SwitchConfig:
    """Config text of switch `name` -> neutral model; unknown platforms are a KeyError (a bug upstream)."""
    return PARSERS[platform](name, text)
