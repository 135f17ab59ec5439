"""Comware port counters, from the `display` layouts H3C documents.

- `display counters inbound|outbound interface`: packets and error packets per port, one table
  row each (ntc-templates' hp_comware_display_counters_bound_interface template and its capture).
- `display priority-flow-control interface`: PFC frames received and sent per port and no-drop
  priority (health.py reads the same table; H3C S9825/S9855 R913x PFC command reference).
- `display qos queue-statistics interface outbound`: per egress queue, packets forwarded and
  dropped (Comware 7 ACL and QoS command reference: an `Interface:` block, `Direction:`, then
  `Queue N` with `Forwarded: N packets, ...` and `Dropped: N packets, ...`); the CNP queue's
  forwarded packets are the CNPs sent.
- `display transceiver diagnosis interface`: the optic's current RX power and its alarm
  thresholds (H3C command reference: `Current diagnostic parameters` with Temp.(°C), Voltage(V),
  Bias(mA), RX power(dBm), TX power(dBm), then `Alarm thresholds` High / Low rows; multi-lane
  modules print a row per channel, the weakest counts).
- `display interface`: `Last link flapping:` per port (real captures: `Never`, `6 hours 39
  minutes 25 seconds`, `14 weeks 4 days 22 hours 58 minutes`).
No documented Comware output counts ECN-marked packets per queue, so ECN marks are not read here.
"""

from __future__ import annotations

import math
import re
from typing import Any

from fabricctl.platforms.comware.health import PFC, long_name, pauses_by_priority
from fabricctl.platforms.comware.terminal import SHOW_CLOCK, read_clock
from fabricctl.platforms.counters import CounterError, CounterReader, Optic, SwitchCounters, number
from fabricctl.platforms.health import Probe

INBOUND = "display counters inbound interface"
OUTBOUND = "display counters outbound interface"
QUEUES = "display qos queue-statistics interface outbound"
OPTICS = "display transceiver diagnosis interface"
INTERFACES = "display interface"
#: ntc-templates indexes `display counters (\S+) interface` under this one template.
_COUNTERS_TEMPLATE = "hp_comware_display_counters_bound_interface.textfsm"

_UNITS = {"week": 604800, "day": 86400, "hour": 3600, "minute": 60, "second": 1}


def flap_age(words: str) -> float | None:
    """Seconds in a `Last link flapping:` value; inf for `Never`; None when it is not one."""
    words = words.strip()
    if words.lower() == "never":
        return math.inf
    parts = re.findall(r"(\d+)\s+(week|day|hour|minute|second)s?", words)
    return float(sum(int(n) * _UNITS[unit] for n, unit in parts)) if parts else None


#: What `display counters` prints in a cell it cannot fill (its own legend, under the table):
#: `--` not supported, `Overflow` more digits than the column holds. Not read: never a zero.
_NO_COUNT = ("--", "Overflow")


def read_errors(rows: Any, command: str, out: SwitchCounters) -> None:
    for r in rows if isinstance(rows, list) else []:
        cell = str(r.get("packets_error", "")).strip()
        if cell in _NO_COUNT:
            continue
        errors = number(cell, f"{command!r}: {r.get('interface')} Err")
        port = out.port(long_name(r["interface"]))
        port.errors = (port.errors or 0) + errors


def read_queues(text: str, out: SwitchCounters) -> int:
    """Per port block: packets forwarded and dropped per queue; returns the blocks read."""
    port: str | None = None
    queue: int | None = None
    blocks = 0
    for line in text.splitlines():
        words = line.split()
        if line.startswith("Interface:") and len(words) >= 2:
            port, queue = long_name(words[1]), None
            blocks += 1
            out.port(port).queue_sent, out.port(port).queue_dropped = {}, {}
        elif port and len(words) == 2 and words[0] == "Queue":
            queue = number(words[1], f"{QUEUES!r}: {port} queue")
        elif port and queue is not None and len(words) >= 3 and words[0] in ("Forwarded:", "Dropped:"):
            counted = number(words[1], f"{QUEUES!r}: {port} queue {queue} {words[0].rstrip(':')}")
            into = out.port(port).queue_sent if words[0] == "Forwarded:" else out.port(port).queue_dropped
            assert into is not None
            into[queue] = counted
    return blocks


_FLOAT = r"-?\d+(?:\.\d+)?"


def read_optics(text: str, out: SwitchCounters) -> int:
    """Per port: RX power from the rows under `Current diagnostic parameters` (5 values, or a
    channel number and 3 lane values: Bias, RX, TX), the low alarm from the `Low` row under
    `Alarm thresholds` (its 4th value)."""
    port: str | None = None
    section = ""
    rx: list[float] = []
    alarm: float | None = None
    read: list[str] = []

    def done() -> None:
        if port is not None and rx:
            out.port(port).optic = Optic(min(rx), None, alarm)
            read.append(port)

    for line in text.splitlines():
        m = re.match(r"^(\S+) transceiver diagnostic information:", line)
        if m:
            done()
            port, section, rx, alarm = long_name(m[1]), "", [], None
            continue
        stripped = line.strip()
        if stripped.startswith("Current diagnostic parameters"):
            section = "current"
            continue
        if stripped.startswith("Alarm thresholds"):
            section = "alarm"
            continue
        values = re.findall(_FLOAT, stripped)
        if section == "current" and re.fullmatch(rf"(?:{_FLOAT}\s+)+{_FLOAT}", stripped):
            if len(values) == 5:  # Temp Voltage Bias RX TX
                rx.append(float(values[3]))
            elif len(values) == 4:  # Channel Bias RX TX (per-lane modules)
                rx.append(float(values[2]))
        elif section == "alarm" and stripped.startswith("Low") and len(values) >= 4:
            alarm = float(values[3])
    done()
    return len(read)


def read_flaps(text: str, out: SwitchCounters) -> int:
    """Per port block: `Current state:` (UP, DOWN, Administratively DOWN) and the last flap;
    returns the blocks read."""
    port: str | None = None
    previous = ""
    seen: set[str] = set()
    for line in text.splitlines():
        m = re.match(r"^\s*(\S+) current state:", line)  # older releases indent the block
        if m:
            port = long_name(m[1])
        elif line.startswith("Current state:") and previous.strip() and " " not in previous.strip():
            port = long_name(previous.strip())
        if port and re.match(r"^\s*(?:\S+ )?[Cc]urrent state:", line):
            state = line.split(":", 1)[1].strip()
            out.port(port).up = state.upper() == "UP"
            # `Administratively DOWN`, or `DOWN ( Administratively )` in older releases
            out.port(port).admin_up = "administratively" not in state.lower()
            seen.add(port)
        elif port and line.startswith("Last link flapping:"):
            out.port(port).last_flap_ago = flap_age(line.split(":", 1)[1])
        previous = line
    return len(seen)


def parse(rows: dict[str, Any]) -> SwitchCounters:
    clock = rows.get(SHOW_CLOCK)
    out = SwitchCounters(clock=read_clock(clock) if isinstance(clock, str) else None)
    for command in (INBOUND, OUTBOUND):
        read_errors(rows.get(command), command, out)
    if isinstance(rows.get(PFC), str):
        for port, by_priority in pauses_by_priority(rows[PFC]).items():
            out.port(port).pfc = dict(by_priority)
    for command, read in ((QUEUES, read_queues), (OPTICS, read_optics), (INTERFACES, read_flaps)):
        text = rows.get(command)
        if not isinstance(text, str):
            continue
        blocks = read(text, out)
        if command != OPTICS and text.strip() and not blocks:
            # Every port has a block in these: a reply with none is in no documented layout.
            first = text.strip().splitlines()[0][:80]
            raise CounterError(f"{command!r}: the reply is in no documented layout ({first!r})")
    return out


COUNTERS = CounterReader(
    probes=(
        Probe(SHOW_CLOCK, text=True),
        Probe(INBOUND, template=_COUNTERS_TEMPLATE),
        Probe(OUTBOUND, template=_COUNTERS_TEMPLATE),
        Probe(PFC, text=True),
        Probe(QUEUES, text=True),
        Probe(OPTICS, text=True),
        Probe(INTERFACES, text=True),
    ),
    parse=parse,
    link_commands=(INBOUND, OPTICS, INTERFACES),
)
