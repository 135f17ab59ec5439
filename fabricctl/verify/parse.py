"""Read a switch's config text back with its platform's parser."""

from __future__ import annotations

from fabricctl.config.readback import SwitchConfig
from fabricctl.platforms import get_platform


def parse_config(name: str, platform: str, text: str) -> SwitchConfig:
    """Config text of switch `name` -> the neutral read-back model."""
    return get_platform(platform).parse(name, text)
