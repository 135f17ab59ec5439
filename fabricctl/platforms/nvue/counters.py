"""NVUE port counters for tenant health and the exporter: the RoCE counters NVIDIA documents.

`nv show interface qos-roce-counters` prints, for every interface, what `nv show interface <if>
qos roce counters` prints for one (Cumulus Linux user guide, RDMA over Converged Ethernet - RoCE >
"Verify RoCE Configuration"); with `-o json` each interface's object has the same keys as that
table: `rx-stats` > `rx-pfc-stats` > `pause-packets`, `rx-roce-stats` and `rx-non-roce-stats` >
`no-buffer-discard`, `tx-stats` > `tx-pfc-stats` > `pause-packets`, `tx-ecn-stats` >
`ecn-marked-packets`, `tx-cnp-stats` > `cnp-packets` and `unicast-no-buffer-discard`,
`tx-roce-stats` > `unicast-no-buffer-discard`. The counts are of the RoCE profile's classes:
PFC and ECN of the lossless priority 3, CNPs of class 6. The switch's clock is read with `date`
(Cumulus Linux is a Debian system: the login shell runs coreutils `date -u +%s`).
"""

from __future__ import annotations

from typing import Any

from fabricctl.platforms.counters import CounterReader, SwitchCounters, count
from fabricctl.platforms.health import Probe
from fabricctl.platforms.nvue.qos import ROCE_CNP_PRIORITY, ROCE_LOSSLESS_PRIORITY

SHOW_CLOCK = "date -u +%s"
ROCE = "nv show interface qos-roce-counters"


def read_clock(text: str) -> float | None:
    """Seconds since the epoch from `date -u +%s`, or None when the output is not that."""
    words = text.split()
    return float(words[0]) if len(words) == 1 and words[0].isdigit() else None


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _count(section: Any, key: str) -> int | None:
    """A packet count; None where the switch does not print it (never a guessed 0); anything
    printed that is no count is a CounterError (platforms/counters.py `count`)."""
    values = _mapping(section)
    return count(values[key], f"{ROCE!r}: {key}") if key in values else None


def read_roce(data: Any, out: SwitchCounters) -> None:
    for port, body in _mapping(data).items():
        rx, tx = _mapping(_mapping(body).get("rx-stats")), _mapping(_mapping(body).get("tx-stats"))
        if not rx and not tx:
            continue
        c = out.port(port)
        rx_pause = _count(rx.get("rx-pfc-stats"), "pause-packets")
        tx_pause = _count(tx.get("tx-pfc-stats"), "pause-packets")
        if rx_pause is not None and tx_pause is not None:
            c.pfc = {ROCE_LOSSLESS_PRIORITY: (rx_pause, tx_pause)}
        marked = _count(tx.get("tx-ecn-stats"), "ecn-marked-packets")
        if marked is not None:
            c.ecn_marked = {ROCE_LOSSLESS_PRIORITY: marked}
        cnps = _count(tx.get("tx-cnp-stats"), "cnp-packets")
        if cnps is not None:
            c.queue_sent = {ROCE_CNP_PRIORITY: cnps}
        dropped = {
            cls: n
            for cls, section in (
                (ROCE_LOSSLESS_PRIORITY, "tx-roce-stats"),
                (ROCE_CNP_PRIORITY, "tx-cnp-stats"),
            )
            if (n := _count(tx.get(section), "unicast-no-buffer-discard")) is not None
        }
        if dropped:
            c.queue_dropped = dropped
        ingress = [_count(rx.get(s), "no-buffer-discard") for s in ("rx-roce-stats", "rx-non-roce-stats")]
        if all(n is not None for n in ingress):
            c.discards = sum(n for n in ingress if n is not None) + sum(dropped.values())


def parse(rows: dict[str, Any]) -> SwitchCounters:
    out = SwitchCounters(
        clock=read_clock(rows[SHOW_CLOCK]) if isinstance(rows.get(SHOW_CLOCK), str) else None
    )
    if ROCE in rows:
        read_roce(rows[ROCE], out)
    return out


COUNTERS = CounterReader(
    probes=(Probe(SHOW_CLOCK, text=True), Probe(ROCE, json_command=f"{ROCE} -o json")),
    parse=parse,
)
