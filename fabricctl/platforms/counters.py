"""Port counters for tenant health and the exporter, read as each NOS documents them.

Each platform's `CounterReader` (its `Platform.counters`, from its own `counters` module) names
the read-only commands and turns their output into one neutral `SwitchCounters`: counts since the switch last cleared them, and the switch's own clock
when they were read, so two reads give rates over the time the switch says passed (the lab's
clock in tests, never this machine's). A field a platform does not report is None, never 0:
"not read" must not pass for "nothing happened".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fabricctl.platforms.health import HealthReader, Probe


@dataclass(frozen=True)
class Optic:
    """Receive power of a port's optic (its weakest lane) and the module's own thresholds."""

    rx_dbm: float
    rx_low_warn: float | None = None
    rx_low_alarm: float | None = None


@dataclass
class PortCounters:
    errors: int | None = None  # frames received or sent in error (FCS, runts, giants ...)
    discards: int | None = None  # frames dropped in or out
    #: PFC pause frames (received, sent) by priority; None as the key: the port's total over its
    #: no-drop priorities, where the NOS counts per port only (EOS).
    pfc: dict[int | None, tuple[int, int]] | None = None
    ecn_marked: dict[int, int] | None = None  # egress queue -> ECN-marked packets
    queue_dropped: dict[int, int] | None = None  # egress queue -> dropped packets
    queue_sent: dict[int, int] | None = None  # egress queue -> packets sent (the CNP queue: CNPs)
    up: bool | None = None  # line protocol up
    admin_up: bool | None = None  # not shut down (an admin-down port is meant to be dark)
    link_changes: int | None = None  # link up/down transitions (EOS)
    last_flap_ago: float | None = None  # seconds since the link last flapped (Comware; inf: never)
    optic: Optic | None = None
    #: Packets received and sent (unicast where the NOS counts it apart): traffic on the port,
    #: what a drained switch's ports must lose before it reboots.
    rx_packets: int | None = None
    tx_packets: int | None = None


@dataclass
class SwitchCounters:
    clock: float | None = None  # the switch's clock when read (seconds; only differences count)
    ports: dict[str, PortCounters] = field(default_factory=dict)
    #: BGP peer address -> session state as the health readers spell it (Established, Idle ...);
    #: None where the sessions were not read (`with_sessions`).
    sessions: dict[str, str] | None = None

    def port(self, name: str) -> PortCounters:
        return self.ports.setdefault(name, PortCounters())


@dataclass(frozen=True)
class CounterReader:
    probes: tuple[Probe, ...]
    parse: Callable[[dict[str, Any]], SwitchCounters]  # probe command -> parsed rows, JSON or text
    #: The probes a link's health reads (errors, flaps, optics: `check --links`), besides the
    #: clock (every reader's first probe); none named: all of them.
    link_commands: tuple[str, ...] = ()
    #: The probes that count packets per port (`rx_packets`, `tx_packets`), besides the clock.
    traffic_commands: tuple[str, ...] = ()

    def read(self, rows: dict[str, Any]) -> SwitchCounters:
        """The counters `parse` reads out of the probes' replies. A reply it cannot read (its
        parser raises on it: a key missing, a value of the wrong type, a CounterError) is a
        CounterError: the switch is not read, whatever the NOS's own parser raises."""
        try:
            return self.parse(rows)
        except CounterError:
            raise
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
            raise CounterError(
                f"a reply in no form the counters parser reads ({type(exc).__name__}: {exc})"
            ) from exc

    def for_links(self) -> CounterReader:
        """This reader with only the clock and the link probes (all of them where none are named)."""
        return self._only(self.link_commands)

    def for_traffic(self) -> CounterReader:
        """This reader with only the clock and the packet-counting probes (all where none are named)."""
        return self._only(self.traffic_commands)

    def _only(self, commands: tuple[str, ...]) -> CounterReader:
        if not commands:
            return self
        keep = {self.probes[0].command, *commands}
        return CounterReader(
            tuple(p for p in self.probes if p.command in keep),
            self.parse,
            self.link_commands,
            self.traffic_commands,
        )


class CounterError(ValueError):
    """A switch's answer that is not what its platform documents (a count that is no count, a
    reply in no documented form): the switch is not read, never read as zeros."""


class Unread(str):
    """Why a switch's counters were not read (the text), and `reason`: one word for it, as the
    exporter labels it (`unparsable`, `timeout`, `refused`, `auth`, ... deploy/failures.py)."""

    reason: str

    def __new__(cls, text: str, reason: str = "error") -> Unread:
        made = super().__new__(cls, text)
        made.reason = reason
        return made


def read_replies(
    rows: Mapping[str, Any],
    clock: float | None,
    readers: Mapping[str, Callable[[Any, SwitchCounters], object]],
) -> SwitchCounters:
    """One SwitchCounters from a switch's replies, each command's read by its reader (a command
    the switch did not answer is left out)."""
    out = SwitchCounters(clock=clock)
    for command, read in readers.items():
        if command in rows:
            read(rows[command], out)
    return out


def count(value: Any, where: str) -> int:
    """A counter's value: a non-negative integer (JSON's, or digits in text); anything else, a
    boolean, a float, a negative number, `lots`, is a CounterError that says where it was read."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)
    raise CounterError(f"{where}: {value!r} is not a count (a non-negative integer)")


def number(text: str, where: str) -> int:
    """A count printed in a text table (`display ...`): digits, else a CounterError."""
    return count(text.strip(), where)


def with_sessions(counters: CounterReader, health: HealthReader) -> CounterReader:
    """`counters` that also reads the BGP sessions, with the health reader's own session probes
    and parser (the exporter's `fabricctl_bgp_session_up`): one reading of a session table per
    NOS, shared by `check` and the exporter."""
    probes = tuple(p for p in health.probes if p.command in health.sessions)

    def parse(rows: dict[str, Any]) -> SwitchCounters:
        out = counters.parse(rows)
        out.sessions = health.parse({c: rows[c] for c in health.sessions if c in rows}).bgp
        return out

    return CounterReader((*counters.probes, *probes), parse)


def range_keys(key: str, prefix: str) -> list[int]:
    """The numbers a key names: `TC3` -> [3]; a range the switch reports together, `TC0-2` ->
    [0, 1, 2] (ANTA's get_value_by_range_key reads EOS's keys so)."""
    m = re.fullmatch(rf"{prefix}(\d+)(?:-(\d+))?", key)
    if m is None:
        return []
    low = int(m[1])
    return list(range(low, int(m[2] or low) + 1))
