"""Every NOS fabricctl speaks, one package each; the registry is the only place a name is looked up."""

from __future__ import annotations

from fabricctl.errors import StageError
from fabricctl.platforms import comware, eos
from fabricctl.platforms.base import NO_BREAKOUT, Platform, breakout_lanes

PLATFORMS: dict[str, Platform] = {p.name: p for p in (comware.PLATFORM, eos.PLATFORM)}


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
