"""Port counters over gNMI: which paths each NOS streams and how they become `SwitchCounters`.

A platform that streams counters has a `gnmi` module with `GNMI`: its switches' gNMI port, the
paths sampled and the paths watched on change, and `parse`, which turns the latest value of
every leaf into the same `SwitchCounters` its CLI reader (`counters.py`) makes from show
commands, field for field, so the exporter's series do not depend on how a switch was read.
A leaf whose value is not what the model says is an error (ValueError), never a 0.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fabricctl.platforms.counters import SwitchCounters

#: A gNMI path as the client holds it: (element name, ((key, value), ...) sorted) per element.
Path = tuple[tuple[str, tuple[tuple[str, str], ...]], ...]


@dataclass(frozen=True)
class GnmiCounters:
    port: int  # the switch's gNMI port (its NOS's default)
    sampled: tuple[str, ...]  # xpaths sampled every interval
    on_change: tuple[str, ...]  # xpaths watched on change (a port going down shows at once)
    encoding: str  # what the NOS serves: JSON, PROTO ...
    parse: Callable[[Mapping[Path, Any]], SwitchCounters]


def gnmi_counters(platform: str) -> GnmiCounters | None:
    """The `GNMI` of a platform's `gnmi` module; None: the platform streams no counters."""
    name = f"fabricctl.platforms.{platform}.gnmi"
    if importlib.util.find_spec(name) is None:
        return None
    found: GnmiCounters = importlib.import_module(name).GNMI
    return found


def names(path: Path) -> tuple[str, ...]:
    return tuple(name for name, _ in path)


def key(path: Path, index: int, name: str) -> str:
    """The value of key `name` of the path's element `index` (ValueError when it has none)."""
    found = dict(path[index][1]).get(name)
    if found is None:
        raise ValueError(f"{'/'.join(names(path))}: no key {name!r} at element {index}")
    return found


def count(path: Path, value: Any) -> int:
    """A counter: an unsigned integer, sent typed or as JSON (a number, or a string in JSON_IETF)."""
    if isinstance(value, bool):
        raise ValueError(f"{'/'.join(names(path))}: {value!r} is not a counter")
    if isinstance(value, int) and value >= 0:
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    raise ValueError(f"{'/'.join(names(path))}: {value!r} is not a counter")


def decimal(path: Path, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"{'/'.join(names(path))}: {value!r} is not a number")
    try:
        return float(value)
    except ValueError:
        raise ValueError(f"{'/'.join(names(path))}: {value!r} is not a number") from None


def text(path: Path, value: Any, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise ValueError(f"{'/'.join(names(path))}: {value!r} is not one of {', '.join(allowed)}")
    return str(value)
