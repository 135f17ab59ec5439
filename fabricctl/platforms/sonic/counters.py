"""SONiC port counters for tenant health and the exporter, in the neutral `SwitchCounters`, from
the show commands of sonic-utilities (sonic-net/sonic-utilities at 691b1bb; layouts as its own
tests print them, tests/portstat_test.py, tests/pfcstat_test.py, tests/queue_counter_test.py):

- `show interfaces counters` (portstat, utilities_common/portstat.py `header_std`, a tabulate
  table: a header line, a line of dashes under each column, a row per port): `IFACE`, `STATE`
  (U up, D down, X disabled: portstat.py PORT_STATE_UP/DOWN/DISABLED), `RX_OK`, `RX_ERR`,
  `RX_DRP`, `TX_OK`, `TX_ERR`, `TX_DRP`, each a count with thousands commas or `N/A`. Its
  `--json` form has no published capture; the table has (tests/captures/sonic/).
- `show pfc counters` (pfcstat; no JSON form): two such tables, `Port Rx` and `Port Tx`, columns
  `PFC0`..`PFC7`.
- `show queue counters --json` (queuestat `build_json`): per port per queue (`UC<n>` unicast,
  `MC<n>` multicast, `ALL<n>`) `totalpacket`, `droppacket`, each a count or `N/A`.

`N/A` is not read: None, never 0. ECN marks are not read here (None). The clock is `date -u +%s`
(SONiC's host is Debian, coreutils `date`). A reply that is not the documented shape is a
CounterError naming the command and the field.
"""

from __future__ import annotations

import re
from typing import Any

from fabricctl.platforms.counters import CounterError, CounterReader, SwitchCounters, count, read_replies
from fabricctl.platforms.health import Probe
from fabricctl.platforms.sonic.tables import TableError, text_tables

SHOW_CLOCK = "date -u +%s"
INTERFACES = "show interfaces counters"
PFC = "show pfc counters"
QUEUES = "show queue counters"
NOT_AVAILABLE = "N/A"

#: portstat's port states (utilities_common/portstat.py): up, down, disabled (admin down).
STATE_UP, STATE_DOWN, STATE_DISABLED = "U", "D", "X"

_QUEUE = re.compile(r"UC(\d+)")


def read_clock(text: str) -> float | None:
    words = text.split()
    return float(words[0]) if len(words) == 1 and words[0].isdigit() else None


def _objects(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise CounterError(f"{where}: expected an object, got {type(value).__name__}")
    return value


def _count(value: Any, where: str) -> int | None:
    """A count as sonic-utilities prints it (`1,000`), None for `N/A` or a field not printed."""
    if value is None or value == NOT_AVAILABLE:
        return None
    return count(value.replace(",", "") if isinstance(value, str) else value, where)


def _sum(values: list[int | None]) -> int | None:
    return None if any(v is None for v in values) else sum(v for v in values if v is not None)


def _tables(text: str, command: str) -> list[list[dict[str, str]]]:
    try:
        return text_tables(text, command)
    except TableError as exc:
        raise CounterError(str(exc)) from None


def read_interfaces(text: Any, out: SwitchCounters) -> None:
    if not isinstance(text, str):
        raise CounterError(f"{INTERFACES}: expected text")
    for row in _tables(text, INTERFACES)[0]:
        port = row.get("IFACE", "")
        where = f"{INTERFACES} {port}"
        if not port:
            raise CounterError(f"{INTERFACES}: no IFACE column")
        c = out.port(port)
        state = row.get("STATE")
        if state in (STATE_UP, STATE_DOWN, STATE_DISABLED):
            c.up = state == STATE_UP
            c.admin_up = state != STATE_DISABLED
        elif state not in (None, NOT_AVAILABLE):
            raise CounterError(f"{where} STATE: {state!r} is not U, D, X or N/A")
        c.errors = _sum([_count(row.get(k), f"{where} {k}") for k in ("RX_ERR", "TX_ERR")])
        c.discards = _sum([_count(row.get(k), f"{where} {k}") for k in ("RX_DRP", "TX_DRP")])
        c.rx_packets = _count(row.get("RX_OK"), f"{where} RX_OK")
        c.tx_packets = _count(row.get("TX_OK"), f"{where} TX_OK")


def read_pfc(text: Any, out: SwitchCounters) -> None:
    """Per port, per priority: (pause frames received, sent)."""
    if not isinstance(text, str):
        raise CounterError(f"{PFC}: expected text")
    by_way: dict[str, dict[str, dict[str, str]]] = {}
    for rows in _tables(text, PFC):
        for row in rows:
            key = next(iter(row))  # "Port Rx" / "Port Tx"
            by_way.setdefault(key, {})[row[key]] = row
    if set(by_way) != {"Port Rx", "Port Tx"}:
        raise CounterError(f"{PFC}: expected a `Port Rx` and a `Port Tx` table, got {sorted(by_way)}")
    for port, rx in by_way["Port Rx"].items():
        tx = by_way["Port Tx"].get(port)
        if tx is None:
            continue
        pfc: dict[int | None, tuple[int, int]] = {}
        for prio in range(8):
            got = _count(rx.get(f"PFC{prio}"), f"{PFC} {port} Rx PFC{prio}")
            sent = _count(tx.get(f"PFC{prio}"), f"{PFC} {port} Tx PFC{prio}")
            if got is not None and sent is not None:
                pfc[prio] = (got, sent)
        out.port(port).pfc = pfc or None


def read_queues(data: Any, out: SwitchCounters) -> None:
    """Unicast queue n (`UC<n>`) is egress queue n: its packets sent and dropped."""
    for port, queues in _objects(data, QUEUES).items():
        sent: dict[int, int] = {}
        dropped: dict[int, int] = {}
        for name, row in _objects(queues, f"{QUEUES} {port}").items():
            m = _QUEUE.fullmatch(name)
            if m is None:
                continue
            where = f"{QUEUES} {port} {name}"
            row = _objects(row, where)
            if (n := _count(row.get("totalpacket"), f"{where} totalpacket")) is not None:
                sent[int(m[1])] = n
            if (n := _count(row.get("droppacket"), f"{where} droppacket")) is not None:
                dropped[int(m[1])] = n
        c = out.port(port)
        c.queue_sent = sent or None
        c.queue_dropped = dropped or None


READERS = {INTERFACES: read_interfaces, PFC: read_pfc, QUEUES: read_queues}


def parse(rows: dict[str, Any]) -> SwitchCounters:
    clock = read_clock(rows[SHOW_CLOCK]) if isinstance(rows.get(SHOW_CLOCK), str) else None
    return read_replies(rows, clock, READERS)


COUNTERS = CounterReader(
    probes=(
        Probe(SHOW_CLOCK, text=True),
        Probe(INTERFACES, text=True),
        Probe(PFC, text=True),
        Probe(QUEUES, json_command=f"{QUEUES} --json"),
    ),
    parse=parse,
    link_commands=(INTERFACES,),
    traffic_commands=(INTERFACES,),
)
