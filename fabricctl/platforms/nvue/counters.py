"""NVUE port counters for tenant health and the exporter, in the same neutral `SwitchCounters`
the other NOSes give, from the JSON NVUE prints for its documented show paths (`-o json`: the
object the NVUE API returns for the same path, keyed by interface).

- `nv show interface`: per interface, `link` with `admin-status`, `oper-status` and `stats`
  (`carrier-transitions`, `in-errors`, `out-errors`, `in-drops`, `out-drops`, `in-pkts`, `out-pkts`): the object the
  NVUE API page's `GET /nvue_v1/interface` shows, and the fields `nv show interface <if>
  counters` prints first (Cumulus Linux user guide 5.17, "Monitoring Interfaces and
  Transceivers with NVUE"). One command for every port: `nv show interface <if> counters` per
  port would be 64 commands per read of a 64-port switch.
- `nv show interface qos-roce-counters`: per interface what `nv show interface <if> qos roce
  counters` prints (RoCE page, "Verify RoCE Configuration"): `rx-stats` > `rx-pfc-stats` >
  `pause-packets`, `tx-stats` > `tx-pfc-stats` > `pause-packets`, `tx-ecn-stats` >
  `ecn-marked-packets`, `tx-cnp-stats` > `cnp-packets` and `unicast-no-buffer-discard`,
  `tx-roce-stats` > `unicast-no-buffer-discard`. They count the RoCE profile's classes: PFC and
  ECN of the lossless priority 3, CNPs of class 6.
- `nv show platform transceiver`: per module what `nv show platform transceiver <interface>`
  prints (NVUE Command Reference, Show Commands > Platform, since 5.11): `channel` >
  `channel-N` > `rx-power` with `power` (`0.8625 mW / -0.64 dBm`), `low-warning-threshold` and
  `low-alarm-threshold` (`-10.30 dBm`). A module without `channel` data (a DAC, no DOM) gives
  no optic reading: not read, never "fine".

The switch's clock is read with `date` (Cumulus Linux is a Debian system: the login shell runs
coreutils `date -u +%s`). A reply that is not the documented shape is an error naming the
command and the field, never a zero.
"""

from __future__ import annotations

import math
import re
from typing import Any

from fabricctl.platforms.counters import (
    CounterError,
    CounterReader,
    Optic,
    SwitchCounters,
    count,
    read_replies,
)
from fabricctl.platforms.health import Probe
from fabricctl.platforms.nvue.qos import ROCE_CNP_PRIORITY, ROCE_LOSSLESS_PRIORITY

SHOW_CLOCK = "date -u +%s"
INTERFACES = "nv show interface"
ROCE = "nv show interface qos-roce-counters"
TRANSCEIVERS = "nv show platform transceiver"

#: `-0.64 dBm`, `-inf dBm` (a dark lane), as the power and threshold values print.
_DBM = re.compile(r"(-?(?:\d+(?:\.\d+)?|inf))\s*dBm\b")


def read_clock(text: str) -> float | None:
    """Seconds since the epoch from `date -u +%s`, or None when the output is not that."""
    words = text.split()
    return float(words[0]) if len(words) == 1 and words[0].isdigit() else None


def _objects(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise CounterError(f"{where}: expected an object, got {type(value).__name__}")
    return value


def _count(section: Any, key: str, where: str) -> int | None:
    """A packet count; None where the switch does not print it (never a guessed 0)."""
    if section is None:
        return None
    value = _objects(section, where).get(key)
    return None if value is None else count(value, f"{where} {key}")


def _dbm(value: Any, where: str) -> float | None:
    """A power or threshold in dBm: a number, or NVUE's `0.8625 mW / -0.64 dBm` / `-10.30 dBm`."""
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    m = _DBM.search(value) if isinstance(value, str) else None
    if m is None:
        raise CounterError(f"{where}: {value!r} is not a power in dBm")
    return -math.inf if m[1] == "-inf" else float(m[1])


def read_interfaces(data: Any, out: SwitchCounters) -> None:
    """Admin and line state, error and discard frames, link changes of every switch port."""
    for port, body in _objects(data, INTERFACES).items():
        body = _objects(body, f"{INTERFACES} {port}")
        if body.get("type") != "swp":
            continue
        link = _objects(body.get("link", {}), f"{INTERFACES} {port} link")
        c = out.port(port)
        if "admin-status" in link:
            c.admin_up = link["admin-status"] == "up"
        if "oper-status" in link:
            c.up = link["oper-status"] == "up"
        stats = link.get("stats")
        if stats is None:
            continue
        where = f"{INTERFACES} {port} link stats"
        errors = [_count(stats, k, where) for k in ("in-errors", "out-errors")]
        drops = [_count(stats, k, where) for k in ("in-drops", "out-drops")]
        if all(n is not None for n in errors):
            c.errors = sum(n for n in errors if n is not None)
        if all(n is not None for n in drops):
            c.discards = sum(n for n in drops if n is not None)
        c.link_changes = _count(stats, "carrier-transitions", where)
        c.rx_packets = _count(stats, "in-pkts", where)
        c.tx_packets = _count(stats, "out-pkts", where)


def read_roce(data: Any, out: SwitchCounters) -> None:
    """PFC pauses of the lossless priority, ECN marks, CNPs sent and the RoCE queues' drops."""
    for port, body in _objects(data, ROCE).items():
        where = f"{ROCE} {port}"
        body = _objects(body, where)
        rx = _objects(body.get("rx-stats", {}), f"{where} rx-stats")
        tx = _objects(body.get("tx-stats", {}), f"{where} tx-stats")
        if not rx and not tx:
            continue
        c = out.port(port)
        rx_pause = _count(rx.get("rx-pfc-stats"), "pause-packets", f"{where} rx-pfc-stats")
        tx_pause = _count(tx.get("tx-pfc-stats"), "pause-packets", f"{where} tx-pfc-stats")
        if rx_pause is not None and tx_pause is not None:
            c.pfc = {ROCE_LOSSLESS_PRIORITY: (rx_pause, tx_pause)}
        marked = _count(tx.get("tx-ecn-stats"), "ecn-marked-packets", f"{where} tx-ecn-stats")
        if marked is not None:
            c.ecn_marked = {ROCE_LOSSLESS_PRIORITY: marked}
        cnps = _count(tx.get("tx-cnp-stats"), "cnp-packets", f"{where} tx-cnp-stats")
        if cnps is not None:
            c.queue_sent = {ROCE_CNP_PRIORITY: cnps}
        dropped = {
            cls: n
            for cls, section in (
                (ROCE_LOSSLESS_PRIORITY, "tx-roce-stats"),
                (ROCE_CNP_PRIORITY, "tx-cnp-stats"),
            )
            if (n := _count(tx.get(section), "unicast-no-buffer-discard", f"{where} {section}")) is not None
        }
        if dropped:
            c.queue_dropped = dropped


def read_transceivers(data: Any, out: SwitchCounters) -> None:
    """The weakest lane's receive power against the module's own low thresholds."""
    for port, body in _objects(data, TRANSCEIVERS).items():
        where = f"{TRANSCEIVERS} {port}"
        channels = _objects(body, where).get("channel")
        if channels is None:
            continue
        lanes: list[tuple[float, float | None, float | None]] = []
        for lane, entry in sorted(_objects(channels, f"{where} channel").items()):
            rx = _objects(entry, f"{where} {lane}").get("rx-power")
            if rx is None:
                continue
            rx = _objects(rx, f"{where} {lane} rx-power")
            power = _dbm(rx.get("power"), f"{where} {lane} rx-power power")
            if power is None:
                continue
            warn = _dbm(rx.get("low-warning-threshold"), f"{where} {lane} low-warning-threshold")
            alarm = _dbm(rx.get("low-alarm-threshold"), f"{where} {lane} low-alarm-threshold")
            lanes.append((power, warn, alarm))
        if lanes:
            power, warn, alarm = min(lanes, key=lambda lane: lane[0])
            out.port(port).optic = Optic(power, warn, alarm)


READERS = {INTERFACES: read_interfaces, ROCE: read_roce, TRANSCEIVERS: read_transceivers}


def parse(rows: dict[str, Any]) -> SwitchCounters:
    clock = read_clock(rows[SHOW_CLOCK]) if isinstance(rows.get(SHOW_CLOCK), str) else None
    return read_replies(rows, clock, READERS)


COUNTERS = CounterReader(
    probes=(Probe(SHOW_CLOCK, text=True), *(Probe(c, json_command=f"{c} -o json") for c in READERS)),
    parse=parse,
    traffic_commands=(INTERFACES,),
)
