"""Every NOS fabricctl speaks, one package each; the registry is the only place a name is looked up."""

from __future__ import annotations

from fabricctl.errors import StageError
from fabricctl.platforms import comware, eos
from fabricctl.platforms.base import Platform

PLATFORMS: dict[str, Platform] = {p.name: p for p in (comware.PLATFORM, eos.PLATFORM)}


class UnknownPlatform(StageError):
    """A platform name no package provides."""


def get_platform(name: str) -> Platform:
    """The Platform registered under `name` (the inventory's `platform`)."""
    try:
        return PLATFORMS[name]
    except KeyError:
        raise UnknownPlatform(f"no platform {name!r} (known: {', '.join(PLATFORMS)})") from None
