"""Switch state for health checks, read the way engineers read it: show commands + ntc-templates.

Each platform names the read-only commands that show links, LLDP neighbors and BGP sessions and
turns the rows ntc-templates parses out of them into one neutral `SwitchHealth`, so the checks
(fabricctl check, the apply health gate) are the same for every NOS.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from netutils.interface import canonical_interface_name, split_interface

from fabricctl.platforms.boot import BootState

Rows = list[dict[str, str]]


@dataclass(frozen=True)
class Probe:
    command: str
    #: The ntc-templates file to parse it with, when the template index does not match the command.
    template: str | None = None
    #: The command that prints the same as JSON (the NOS's own structured output), read instead;
    #: its parsed answer is filed under `command`.
    json_command: str | None = None
    text: bool = False  # no template parses it: the platform's reader gets the text


@dataclass(frozen=True)
class PauseSeen:
    """PFC pause frames of one port, as the switch counts them."""

    received: int
    sent: int
    received_pps: int | None = None  # None: the platform reports counters, not rates
    sent_pps: int | None = None


@dataclass
class SwitchHealth:
    ports: dict[str, tuple[bool, bool]] = field(default_factory=dict)  # port -> (admin up, link up)
    lldp: dict[str, tuple[str, str]] = field(default_factory=dict)  # local port -> (neighbor, its port)
    bgp: dict[str, str] = field(default_factory=dict)  # peer address -> Established | Idle | Active ...
    vnis: set[int] | None = None  # VNIs bound on the VTEP (None: not read on this platform)
    remote_vteps: set[str] | None = None  # VTEPs EVPN taught this one (None: not read)
    vrfs: set[str] | None = None  # VRFs the switch holds (None: not read on this platform)
    pauses: dict[str, PauseSeen] | None = None  # PFC-enabled port -> its pause frames (None: not read)
    speeds: dict[str, int] | None = None  # port -> Gbps the switch reports (None: not read)
    #: Default-VRF prefix ("10.0.0.1/32") -> the next hops the switch installed (None: not read)
    routes: dict[str, int] | None = None
    #: Boot-time setting (platforms/boot.py name) -> its value in use and at the next boot, for
    #: each the NOS prints (None: not read on this platform)
    boot: dict[str, BootState] | None = None


@dataclass(frozen=True)
class HealthReader:
    probes: tuple[Probe, ...]
    parse: Callable[[dict[str, Any]], SwitchHealth]  # probe command -> parsed rows (or JSON)
    #: The probes whose rows alone give `SwitchHealth.bgp` (the exporter reads just these).
    sessions: tuple[str, ...] = ()


def next_hops(rows: Rows, count: Callable[[dict[str, Any]], int]) -> dict[str, int]:
    """Prefix -> next hops, over the rows a routing table parses into (`count` reads one row's:
    a row per next hop on Comware, a list per prefix on EOS)."""
    out: dict[str, int] = {}
    for r in rows:
        prefix = f"{r['network']}/{r['prefix_length']}"
        out[prefix] = out.get(prefix, 0) + count(r)
    return out


def numbers(words: list[str]) -> list[int]:
    """The words of a table row that are counts."""
    return [int(w) for w in words if w.isdigit()]


def expand_name(name: str, short_names: Mapping[str, str]) -> str:
    """`name` in full when it is one of the NOS's abbreviations followed by the port number
    (`XGE1/0/1` -> `Ten-GigabitEthernet1/0/1`, `Et1` -> `Ethernet1`), by netutils with the NOS's
    own table (`short_names`, in its platform package with its source: netutils' spellings are
    not every NOS's, e.g. FourHundredGigabitEthernet for Comware's FourHundredGigE); a full name
    and a name of a type the NOS does not list (a neighbour of another NOS's port) unchanged."""
    return _expanded(name, tuple(short_names.items()))


@functools.lru_cache(maxsize=8192)
def _expanded(name: str, short_names: tuple[tuple[str, str], ...]) -> str:
    """expand_name, once per name and table: a fabric's tables repeat the same port names, and
    netutils merges its maps on every call."""
    table = dict(short_names)
    kind, number = split_interface(name)
    if kind not in table or not number[:1].isdigit():
        return name
    full_names = {full: full for full in table.values()}
    return canonical_interface_name(name, addl_name_map={**full_names, **table})


def session_state(state: str) -> str:
    """One spelling of a BGP state across NOSes (EOS abbreviates Established to `Estab`)."""
    return "Established" if state.lower().startswith("estab") else state


def gbps(text: str) -> int | None:
    """A speed as switches print it in their port tables (`400G`, `a-100G`, `200G(a)`,
    `1000M`) -> Gbps; None for what names no speed (`auto`, `--`)."""
    m = re.search(r"(\d+)([GM])", text)
    if m is None:
        return None
    return int(m[1]) if m[2] == "G" else int(m[1]) // 1000
