"""How a NOS writes and negates configuration: the rules `diff` needs, as data per platform."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Negation:
    """Lines matching `pattern` are removed with `replacement` (re.sub on the stripped line)."""

    pattern: str
    replacement: str


#: Every object fabricctl creates for a tenant carries this prefix in its name (VRF, ACL, VSI,
#: VLAN name), and every other object it creates refers to one that does: that is how fabricctl
#: knows, on a switch, what it made. Anything else is the operator's and is never touched.
TENANT_PREFIX = "tnt-"


@dataclass(frozen=True)
class Provenance:
    """A kind of tenant object and how a switch shows that fabricctl made it.

    `pattern` matches the object's line. With `child` None, its `name` group must carry the
    tenant prefix; with `child`, one of the object's lines matching `child` must (an SVI bound
    to a tenant VRF). With `vlan`, its `id` group must be a VLAN fabricctl made on that switch.
    """

    pattern: str
    child: str | None = None
    vlan: bool = False


@dataclass(frozen=True)
class Reset:
    """A setting whose change makes the switch reset other settings of the same section.

    `trigger` matches the setting's line; `clears` (regex prefixes, "" for all) the lines the
    switch drops when it changes, except those matching `keeps`. The remediation sends the
    trigger before anything else in the section, never negates a cleared line (the switch has
    dropped it already) and re-sends every cleared line still intended, after the trigger.
    """

    trigger: str
    clears: tuple[str, ...]
    keeps: tuple[str, ...] = ()
    source: str = ""  # the vendor document that says so


@dataclass(frozen=True)
class Dialect:
    """Text conventions of one CLI and the ownership/negation/ordering rules fabricctl applies."""

    indent: int
    negate_prefix: str  # 'no ' / 'undo '
    exit_command: str  # leaves one level in config mode ('exit' / 'quit')
    owned: tuple[str, ...]  # fabric-wide top-level lines fabricctl owns whatever their name
    not_owned: tuple[str, ...] = ()  # exceptions to `owned` (management VRFs, ...)
    tenant_objects: tuple[Provenance, ...] = ()  # top-level tenant objects, owned by provenance
    #: (owned section, tenant object inside it): e.g. a VRF under `router bgp`, also by provenance
    nested: tuple[tuple[str, Provenance], ...] = ()
    vlan_names: str = r"$^"  # a top-level VLAN line whose `name` child shows provenance (group `id`)
    single_value: tuple[str, ...] = ()  # regex prefix: a new value replaces the old, no negation
    negations: tuple[Negation, ...] = ()  # special removal forms, first match wins
    never_remove: tuple[str, ...] = ()  # lines that cannot be negated (physical ports, link-mode)
    #: Settings whose change resets others (binding a port to another VRF clears its addresses).
    resets: tuple[Reset, ...] = ()
    #: The line that takes a port down administratively: added first in its section, so a port
    #: taken away goes down before anything else changes; its removal (the port comes up) last,
    #: after the port's VRF, address, QoS, PFC and packet filter are in place.
    admin_down: str = r"$^"
    #: Port lines whose change takes the port down and up (a mode change that resets the port,
    #: a breakout): a tenant keeping that port sees its link flap.
    flaps: tuple[str, ...] = ()
    removal_order: tuple[str, ...] = field(default_factory=tuple)  # top-level removals, in this order
    # How tenant objects are spelled, so a plan's diff lines can be traced back to their tenant:
    vrf_header: str = r"$^"  # a tenant VRF's top-level line; group 1 is the VRF's name
    vlan_objects: tuple[str, ...] = ()  # names a tenant VLAN gives config objects ({id})
    l3vni_objects: tuple[str, ...] = ()  # names a VRF's L3VNI gives config objects ({number})

    # The rules are matched once per config line and switch (millions of times in a plan of a
    # large fabric): each list is compiled once, and `value_key` tries all its prefixes in one
    # alternation (the first alternative that matches wins, as the patterns' order says).

    @functools.cached_property
    def _owned(self) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(p) for p in self.owned)

    @functools.cached_property
    def _not_owned(self) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(p) for p in self.not_owned)

    @functools.cached_property
    def _tenant_objects(self) -> tuple[tuple[re.Pattern[str], Provenance], ...]:
        return tuple((re.compile(p.pattern), p) for p in self.tenant_objects)

    @functools.cached_property
    def _single_value(self) -> re.Pattern[str]:
        return re.compile("|".join(f"(?:{p})" for p in self.single_value) or r"(?!)")

    @functools.cached_property
    def _negations(self) -> tuple[tuple[re.Pattern[str], str], ...]:
        return tuple((re.compile(n.pattern), n.replacement) for n in self.negations)

    @functools.cached_property
    def _never_remove(self) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(p) for p in self.never_remove)

    @functools.cached_property
    def compiled_flaps(self) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(p) for p in self.flaps)

    @functools.cached_property
    def _removal_order(self) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(p) for p in self.removal_order)

    def owns(self, top_line: str) -> bool:
        """Fabric-wide lines owned by shape (tenant objects also need `owns_object`)."""
        return any(rx.match(top_line) for rx in self._owned) and not any(
            rx.match(top_line) for rx in self._not_owned
        )

    def tenant_object(self, line: str) -> Provenance | None:
        return next((p for rx, p in self._tenant_objects if rx.match(line)), None)

    def value_key(self, line: str) -> str | None:
        """The part of a single-valued line that names the setting (without its value)."""
        m = self._single_value.match(line)
        return m.group(0) if m else None

    def negate(self, line: str) -> str | None:
        """The command that removes `line`, or None when it cannot be removed."""
        if any(rx.match(line) for rx in self._never_remove):
            return None
        for rx, replacement in self._negations:
            if rx.match(line):
                return rx.sub(replacement, line)
        prefix = self.negate_prefix
        if line.startswith(prefix):
            return line[len(prefix) :]
        return prefix + line

    def removal_rank(self, top_line: str) -> int:
        for i, rx in enumerate(self._removal_order):
            if rx.match(top_line):
                return i
        return len(self.removal_order)
