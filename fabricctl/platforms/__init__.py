"""Every NOS fabricctl speaks, one package each; the registry is the only place a name is looked up."""

from __future__ import annotations

import importlib
import pkgutil

from fabricctl.errors import StageError
from fabricctl.platforms.base import NO_BREAKOUT, Platform, breakout_lanes


def _packages() -> dict[str, Platform]:
    """The `PLATFORM` of every package in this folder, by name: a new NOS is a new folder."""
    found: dict[str, Platform] = {}
    for info in pkgutil.iter_modules(__path__):  # sorted by name
        if info.ispkg:
            platform = getattr(importlib.import_module(f"{__name__}.{info.name}"), "PLATFORM", None)
            if isinstance(platform, Platform):
                found[platform.name] = platform
    return found


PLATFORMS: dict[str, Platform] = _packages()


class UnknownPlatform(StageError):
    """A platform name no package provides."""


def breakout_modes() -> tuple[str, ...]:
    """Every breakout mode some registered platform offers, "none" first."""
    offered = {m for p in PLATFORMS.values() for m in p.breakouts}
    return (NO_BREAKOUT, *sorted(offered, key=lambda m: (len(breakout_lanes(m)), m)))


def register(platform: Platform) -> Platform:
    """Make `platform` known under its name (a package outside this one, or a test's own NOS)."""
    PLATFORMS[platform.name] = platform
    return platform


def unregister(name: str) -> None:
    """Forget a platform a test registered."""
    PLATFORMS.pop(name, None)


def get_platform(name: str) -> Platform:
    """The Platform registered under `name` (the inventory's `platform`)."""
    try:
        return PLATFORMS[name]
    except KeyError:
        raise UnknownPlatform(f"no platform {name!r} (known: {', '.join(PLATFORMS)})") from None
