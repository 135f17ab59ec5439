"""Every NOS fabricctl speaks, one package each; the registry is the only place a name is looked up.

A NOS is a plugin: its distribution names its `Platform` under the entry-point group
`fabricctl.platforms` (`<name> = "<package>:PLATFORM"`). The registry loads the group once, on
first use, so a NOS installed from another distribution is known exactly as the built-in ones.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from importlib.metadata import entry_points

from fabricctl.errors import StageError
from fabricctl.platforms.base import NO_BREAKOUT, Platform, breakout_lanes

#: The entry-point group a NOS's distribution names its `Platform` in.
ENTRY_POINTS = "fabricctl.platforms"


class DuplicatePlatform(ValueError):
    """A second platform under a name already registered (two distributions, or a test)."""


class _Registry(MutableMapping[str, Platform]):
    """Name -> Platform: the entry points of `ENTRY_POINTS`, loaded on first use, and those
    registered since. `register` refuses a taken name; assigning an item replaces one on
    purpose (a test swapping a platform for a variant of itself, undone by its monkeypatch)."""

    def __init__(self) -> None:
        self._found: dict[str, Platform] = {}
        self._sources: dict[str, str] = {}
        self._loaded = False

    def _load(self) -> dict[str, Platform]:
        if not self._loaded:
            self._loaded = True
            for ep in sorted(entry_points(group=ENTRY_POINTS), key=lambda e: e.name):
                platform = ep.load()
                if not isinstance(platform, Platform) or platform.name != ep.name:
                    self._loaded = False
                    raise TypeError(
                        f"entry point {ENTRY_POINTS} {ep.name} = {ep.value}: not the Platform {ep.name!r}"
                    )
                self.add(platform, f"entry point {ep.value}")
        return self._found

    def add(self, platform: Platform, source: str) -> None:
        if platform.name in self._found:
            raise DuplicatePlatform(
                f"platform {platform.name!r} is registered twice: by {self._sources[platform.name]} "
                f"and by {source}"
            )
        self._found[platform.name] = platform
        self._sources[platform.name] = source

    def remove(self, name: str) -> None:
        self._found.pop(name, None)
        self._sources.pop(name, None)

    def source(self, name: str) -> str:
        """Who registered `name`: its entry point, or a `register` call."""
        self._load()
        return self._sources[name]

    def __setitem__(self, name: str, platform: Platform) -> None:
        self._load()
        self._found[name] = platform
        self._sources.setdefault(name, "a replacement")

    def __delitem__(self, name: str) -> None:
        self._load()
        del self._found[name]
        self._sources.pop(name, None)

    def __getitem__(self, name: str) -> Platform:
        return self._load()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())


PLATFORMS = _Registry()


class UnknownPlatform(StageError):
    """A platform name no package provides."""


def breakout_modes() -> tuple[str, ...]:
    """Every breakout mode some registered platform offers, "none" first."""
    offered = {m for p in PLATFORMS.values() for m in p.breakouts}
    return (NO_BREAKOUT, *sorted(offered, key=lambda m: (len(breakout_lanes(m)), m)))


def register(platform: Platform) -> Platform:
    """Make `platform` known under its name (a test's own NOS; an installed one has an entry
    point). DuplicatePlatform: the name is taken."""
    PLATFORMS._load()
    PLATFORMS.add(platform, "register()")
    return platform


def unregister(name: str) -> None:
    """Forget a platform a test registered."""
    PLATFORMS.remove(name)


def get_platform(name: str) -> Platform:
    """The Platform registered under `name` (the inventory's `platform`)."""
    try:
        return PLATFORMS[name]
    except KeyError:
        raise UnknownPlatform(f"no platform {name!r} (known: {', '.join(PLATFORMS)})") from None
