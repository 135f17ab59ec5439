"""Per-NOS knowledge, looked up by the platform name used in the inventory."""

from __future__ import annotations

from fabricctl.platforms.base import Platform
from fabricctl.platforms.comware import COMWARE
from fabricctl.platforms.eos import EOS

PLATFORMS: dict[str, Platform] = {p.name: p for p in (COMWARE, EOS)}


def get_platform(name: str) -> Platform:
    return PLATFORMS[name]
