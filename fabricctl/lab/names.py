"""Interface names as each NOS takes them in and prints them in its tables.

A switch takes any unambiguous, case-insensitive prefix of an interface type with or without a
space before the number (EOS `int Et64`, `interface ethernet 64`; Comware `int 400ge1/0/1`,
`interface FourHundredGigE 1/0/1`) and prints the short form in its one-line-per-port tables
(EOS `show interfaces status`, `show lldp neighbors`: Et1; Comware `display interface brief`,
`display lldp neighbor-information list`, ARP and MAC tables: 400GE1/0/1). The short forms are
those of real captures (ntc-templates' arista_eos / hp_comware fixtures: Et, Ma, Po, Lo, Vl,
Vx; GE, XGE, FGE, M-GE, Loop, InLoop, Vlan, BAGG) and, for the S98xx ports, public S9825
operator data (400GE1/0/8); docs/lab.md lists them. Each NOS's table of types is its own
(lab/devices/<nos>/names.py); these functions read any of them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from netutils.interface import abbreviated_interface_name, split_interface

_NUMBER = re.compile(r"\d+(?:/\d+)*(?::\d+)?(?:\.\d+)?")


def short(types: Mapping[str, str], name: str) -> str:
    """`name` as the NOS prints it in a table (`Ethernet1` -> `Et1`, `FourHundredGigE1/0/1` ->
    `400GE1/0/1`), by netutils with the NOS's own table (netutils' abbreviations are not every
    NOS's: FH for Comware's 400GE); a name of a type the NOS does not list is as it is."""
    kind, number = split_interface(name)
    if kind not in types or not number[:1].isdigit():
        return name
    return abbreviated_interface_name(
        name, addl_name_map={full: full for full in types}, addl_reverse_map=dict(types)
    )


def canonical(types: Mapping[str, str], text: str) -> str | None:
    """The full name of an interface as typed (`Et64`, `ethernet 64`, `400GE1/0/1`,
    `fourhundredgige 1/0/1`), or None when the words name no interface type unambiguously."""
    words = text.split()
    if not words or len(words) > 2:
        return None
    joined = "".join(words)
    m = re.match(r"([A-Za-z][A-Za-z-]*?|\d+GE)(\d.*)$", joined)
    if m is None or not _NUMBER.fullmatch(m[2]):
        return None
    typed, number = m[1].lower(), m[2]
    exact = [full for full, abbreviation in types.items() if typed in (full.lower(), abbreviation.lower())]
    found = exact or [full for full in types if full.lower().startswith(typed)]
    return found[0] + number if len(found) == 1 else None


def interface_order(types: Mapping[str, str], name: str) -> tuple[int, tuple[int, ...]]:
    """Sort key of an interface: its type in the NOS's order, then its numbers."""
    kind = next((i for i, full in enumerate(types) if name.startswith(full)), len(types))
    return kind, tuple(int(n) for n in re.findall(r"\d+", name))


def full_interface_line(types: Mapping[str, str], line: str, negations: tuple[str, ...]) -> str:
    """A config line that opens an interface with its name in full (`int Et64`, `interface
    ethernet 64`, `undo interface LoopBack 9`); any other line unchanged."""
    words = line.split()
    neg = words[:1] if words and words[0] in negations else []
    rest = words[len(neg) :]
    if len(rest) >= 2 and len(rest[0]) >= 2 and "interface".startswith(rest[0]):
        name = canonical(types, " ".join(rest[1:]))
        if name is not None:
            return " ".join([*neg, "interface", name])
    return line
