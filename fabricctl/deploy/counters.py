"""Port counters read from the switches, and what they became over a window: rates and deltas.

Each switch is read with its platform's counters reader (platforms/<nos>/counters.py) over the
same SSH sessions health checks use. Rates divide by the time the switch's own clock says passed
between two reads, so a window is the switch's window (the lab's clock in tests). A counter that
went down between reads was cleared: what it counts since is the delta.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

from nornir.core import Nornir
from nornir.core.task import Result, Task

from fabricctl.deploy.failures import chain, classify
from fabricctl.deploy.health import _read_task
from fabricctl.deploy.nornir_inv import fabric_platform
from fabricctl.platforms import get_platform
from fabricctl.platforms.base import Platform
from fabricctl.platforms.counters import (
    CounterError,
    CounterReader,
    PortCounters,
    SwitchCounters,
    Unread,
    with_sessions,
)
from fabricctl.secrets import describe_error


def _counters_task(
    task: Task, read_timeout: float, keep_open: bool, sessions: bool, links: bool, traffic: bool = False
) -> Result:
    platform = get_platform(fabric_platform(task.host))
    reader = platform.counters
    if links:
        reader = reader.for_links()
    if traffic:
        reader = reader.for_traffic()
    if sessions:
        reader = with_sessions(reader, platform.health)
    return _read_task(task, read_timeout, close=not keep_open, reader=reader)


def read_counters(
    nr: Nornir,
    read_timeout: float = 30.0,
    keep_open: bool = False,
    sessions: bool = False,
    links: bool = False,
    traffic: bool = False,
) -> dict[str, SwitchCounters | str]:
    """name -> its counters now, or the error that kept them from being read. With `keep_open`
    the SSH session stays up for the next read (a poller's), and is closed after a failed read
    so the next one logs in afresh; with `sessions` the BGP sessions are read too (the exporter's);
    with `links`, only what a link's health needs (errors, flaps, optics: CounterReader.for_links);
    with `traffic`, only the packets each port carries (CounterReader.for_traffic)."""
    if not nr.inventory.hosts:
        return {}
    results = nr.run(
        task=_counters_task,
        read_timeout=read_timeout,
        keep_open=keep_open,
        sessions=sessions,
        links=links,
        traffic=traffic,
        on_failed=True,
    )
    out: dict[str, SwitchCounters | str] = {}
    for name, host in nr.inventory.hosts.items():
        multi = results[name]
        if multi.failed:
            exc = next((r.exception for r in multi if r.exception is not None), None)
            out[name] = unread(exc, get_platform(fabric_platform(host)))
            if keep_open:
                with contextlib.suppress(Exception):  # a session that broke may not close cleanly
                    nr.inventory.hosts[name].close_connections()
        else:
            out[name] = multi[0].result
    nr.data.reset_failed_hosts()
    return out


def unread(exc: BaseException | None, platform: Platform) -> Unread:
    """Why a read of a switch of `platform` failed, with one word for it: `unparsable` for an
    answer its counters reader (`platform.counters`) could not read (CounterError), else the
    failure's cause as the switch's own platform names its client's failures (deploy/failures.py:
    a NOS installed from another distribution is asked as a built-in one is, and no other NOS's
    forms are tried on it)."""
    if exc is None:
        return Unread("read failed")
    found = next((e for e in chain(exc) if isinstance(e, CounterError)), None)
    if found is not None:
        return Unread(str(found), "unparsable")
    return Unread(describe_error(exc), classify("connect", "", exc, platform=platform).cause)


def grown(before: int | None, after: int | None) -> int | None:
    """How much a counter grew between two reads (all of `after` when it was cleared between)."""
    if before is None or after is None:
        return None
    return after - before if after >= before else after


def _grown_map(before: dict[int, int] | None, after: dict[int, int] | None) -> dict[int, int] | None:
    if before is None or after is None:
        return None
    return {k: grown(before.get(k, 0), v) or 0 for k, v in after.items()}


@dataclass
class PortDelta:
    """What one port counted over the window (None: not read on this platform)."""

    errors: int | None = None
    discards: int | None = None
    pfc_rx: dict[int | None, int] | None = None  # priority -> pause frames received
    pfc_tx: dict[int | None, int] | None = None
    ecn_marked: dict[int, int] | None = None
    queue_dropped: dict[int, int] | None = None
    queue_sent: dict[int, int] | None = None
    flapped: bool | None = None
    link_changes: int | None = None  # link transitions in the window, where the switch counts them


@dataclass
class Window:
    """Two reads of one switch: the seconds its clock says passed, and each port's delta."""

    seconds: float
    ports: dict[str, PortDelta] = field(default_factory=dict)
    now: SwitchCounters = field(default_factory=SwitchCounters)

    def rate(self, count: int | None) -> float | None:
        return None if count is None or self.seconds <= 0 else count / self.seconds


def _pfc(before: PortCounters, after: PortCounters, way: int) -> dict[int | None, int] | None:
    if before.pfc is None or after.pfc is None:
        return None
    return {p: grown(before.pfc.get(p, (0, 0))[way], c[way]) or 0 for p, c in after.pfc.items()}


def _flapped(before: PortCounters, after: PortCounters, seconds: float) -> bool | None:
    if before.link_changes is not None and after.link_changes is not None:
        return after.link_changes != before.link_changes
    if after.last_flap_ago is not None:
        return after.last_flap_ago <= seconds
    return None


def window(before: SwitchCounters, after: SwitchCounters, fallback_seconds: float) -> Window:
    """The deltas between two reads; the seconds between them by the switch's clock, or
    `fallback_seconds` when the switch printed no clock we read."""
    if before.clock is not None and after.clock is not None:
        seconds = after.clock - before.clock
    else:
        seconds = fallback_seconds
    out = Window(seconds=seconds, now=after)
    for name, a in after.ports.items():
        b = before.ports.get(name, PortCounters())
        out.ports[name] = PortDelta(
            errors=grown(b.errors, a.errors),
            discards=grown(b.discards, a.discards),
            pfc_rx=_pfc(b, a, 0),
            pfc_tx=_pfc(b, a, 1),
            ecn_marked=_grown_map(b.ecn_marked, a.ecn_marked),
            queue_dropped=_grown_map(b.queue_dropped, a.queue_dropped),
            queue_sent=_grown_map(b.queue_sent, a.queue_sent),
            flapped=_flapped(b, a, seconds),
            link_changes=grown(b.link_changes, a.link_changes),
        )
    return out


def windows(
    names: list[str],
    first: dict[str, SwitchCounters | str],
    second: dict[str, SwitchCounters | str],
    fallback_seconds: float,
) -> dict[str, Window | str]:
    """Each switch's window between two reads, or why one of them failed."""
    out: dict[str, Window | str] = {}
    for name in names:
        a, b = first.get(name), second.get(name)
        if isinstance(a, SwitchCounters) and isinstance(b, SwitchCounters):
            out[name] = window(a, b, fallback_seconds)
        else:  # the read that failed says why (the second, when both did)
            out[name] = b if isinstance(b, str) else a if isinstance(a, str) else "not read"
    return out


def _clock_task(task: Task, read_timeout: float) -> Result:
    full = get_platform(fabric_platform(task.host)).counters
    clock_only = CounterReader(full.probes[:1], full.parse)  # every reader probes the clock first
    return _read_task(task, read_timeout, close=True, reader=clock_only)


def read_clock(nr: Nornir, name: str, read_timeout: float = 30.0) -> float | None:
    """One switch's clock now (None when it cannot be read or prints none we read)."""
    one = nr.filter(name=name)
    result = one.run(task=_clock_task, read_timeout=read_timeout, on_failed=True)
    nr.data.reset_failed_hosts()
    multi = result[name]
    got = None if multi.failed else multi[0].result
    return got.clock if isinstance(got, SwitchCounters) else None
