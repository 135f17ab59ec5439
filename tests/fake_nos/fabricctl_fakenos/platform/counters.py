"""TinyOS's counters: `show counters | json` prints the switch's clock and, per port, its packets,
errors and PFC pause frames."""

from __future__ import annotations

from typing import Any

from fabricctl.platforms.counters import CounterReader, SwitchCounters
from fabricctl.platforms.health import Probe

COUNTERS_COMMAND = "show counters"


def parse(rows: dict[str, Any]) -> SwitchCounters:
    data = rows.get(COUNTERS_COMMAND)
    data = data if isinstance(data, dict) else {}
    out = SwitchCounters(clock=float(data["clock"]) if "clock" in data else None)
    for name, seen in (data.get("ports") or {}).items():
        port = out.port(name)
        port.up, port.admin_up = bool(seen["up"]), bool(seen["admin"])
        port.errors, port.discards = int(seen["errors"]), int(seen["discards"])
        port.rx_packets, port.tx_packets = int(seen["rx-packets"]), int(seen["tx-packets"])
        if "pfc" in seen:  # priority -> [received, sent]
            port.pfc = {int(p): (int(rx), int(tx)) for p, (rx, tx) in seen["pfc"].items()}
    return out


COUNTERS = CounterReader(
    probes=(Probe(COUNTERS_COMMAND, json_command=f"{COUNTERS_COMMAND} | json"),), parse=parse
)
