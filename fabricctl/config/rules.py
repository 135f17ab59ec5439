"""How a NOS writes and negates configuration: the rules `diff` needs, as data per platform."""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Negation:
    """Lines matching `pattern` are removed with `replacement` (re.sub on the stripped line)."""

    pattern: str
    replacement: str


@dataclass(frozen=True)
class Dialect:
    """Text conventions of one CLI and the ownership/negation/ordering rules fabricctl applies."""

    indent: int
    negate_prefix: str  # 'no ' / 'undo '
    exit_command: str  # leaves one level in config mode ('exit' / 'quit')
    owned: tuple[str, ...]  # top-level lines fabricctl owns (regex, matched at line start)
    not_owned: tuple[str, ...] = ()  # exceptions to `owned` (management VRFs, ...)
    single_value: tuple[str, ...] = ()  # regex prefix: a new value replaces the old, no negation
    negations: tuple[Negation, ...] = ()  # special removal forms, first match wins
    never_remove: tuple[str, ...] = ()  # lines that cannot be negated (physical ports, link-mode)
    # (changed line, lines to re-send): binding a port to another VRF clears its addresses
    rebind: tuple[tuple[str, str], ...] = ()
    removal_order: tuple[str, ...] = field(default_factory=tuple)  # top-level removals, in this order
    # How tenant objects are spelled, so a plan's diff lines can be traced back to their tenant:
    vrf_header: str = r"$^"  # a tenant VRF's top-level line; group 1 is the VRF's name
    vlan_objects: tuple[str, ...] = ()  # names a tenant VLAN gives config objects ({id})
    l3vni_objects: tuple[str, ...] = ()  # names a VRF's L3VNI gives config objects ({number})

    def owns(self, top_line: str) -> bool:
        return any(re.match(p, top_line) for p in self.owned) and not any(
            re.match(p, top_line) for p in self.not_owned
        )

    def value_key(self, line: str) -> str | None:
        """The part of a single-valued line that names the setting (without its value)."""
        for pattern in self.single_value:
            m = re.match(pattern, line)
            if m:
                return m.group(0)
        return None

    def negate(self, line: str) -> str | None:
        """The command that removes `line`, or None when it cannot be removed."""
        if any(re.match(p, line) for p in self.never_remove):
            return None
        for rule in self.negations:
            if re.match(rule.pattern, line):
                return re.sub(rule.pattern, rule.replacement, line)
        prefix = self.negate_prefix
        if line.startswith(prefix):
            return line[len(prefix) :]
        return prefix + line

    def removal_rank(self, top_line: str) -> int:
        for i, pattern in enumerate(self.removal_order):
            if re.match(pattern, top_line):
                return i
        return len(self.removal_order)
