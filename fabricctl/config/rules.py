"""What fabricctl owns of a NOS's configuration and how it changes it: the rules `diff` needs, as data
per platform."""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass, field

from fabricctl.config.syntax import Syntax


@dataclass(frozen=True)
class Negation:
    """Lines matching `pattern` are removed with `replacement` (re.sub on the stripped line)."""

    pattern: str
    replacement: str


#: Every object fabricctl creates for a tenant carries this prefix in its name (VRF, ACL, VSI,
#: VLAN name). The prefix alone proves nothing (an operator may name a VRF `tnt-ops` too): it only
#: makes an object fabricctl cannot prove it made a look-alike, which a plan reports.
TENANT_PREFIX = "tnt-"

#: First word of the mark: the description (or ACL remark) every object fabricctl creates carries.
MARK_WORD = "fabricctl"


def fabric_mark(fabric: str) -> str:
    """The mark of the objects fabricctl creates for `fabric`: 'fabricctl <fabric>', at the start
    of their description or remark. A description that starts so names the fabric that made it."""
    return f"{MARK_WORD} {fabric}"


def carries_mark(text: str, mark: str) -> bool:
    """True when a description/remark text is `mark`, or `mark` followed by a space and more."""
    return text == mark or text.startswith(mark + " ")


@dataclass(frozen=True)
class Provenance:
    """A kind of object fabricctl creates, and what proves, on a switch, that fabricctl made it.

    `pattern` matches the object's line; its group `key` names the object (a VRF name, a VLAN id).
    Proof is one of:
    - `mark`: a child line (regex; group `text`) whose text carries the fabric's mark;
    - `follows`: the object of that kind with the same key is fabricctl's (a VRF's routing
      follows the VRF; a VLAN follows its SVI where the VLAN itself has no description).
    Either way an object the intent declares is fabricctl's too (that is how unmarked objects of a
    fabric deployed before marks existed are adopted: the next apply marks them).
    `looks` says when an object fabricctl cannot prove it made looks like one of its own: a child
    line (regex; group `name`) carrying the tenant prefix, or (None) the key itself carrying it.
    `mark_under`: where an object tree keeps the mark deeper than a child line (an NVUE ACL's rule
    remarks: `rule` > `<n>` > `remark: ...`), the regexes of the lines on the way down; the mark
    line is a child of any line they reach.
    """

    kind: str
    pattern: str
    mark: str | None = None
    follows: str | None = None
    looks: str | None = None
    mark_under: tuple[str, ...] = ()


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
    """How one NOS writes config (`syntax`) and the ownership/negation/ordering rules fabricctl
    applies to it. The rules match the lines of the syntax's tree."""

    syntax: Syntax
    owned: tuple[str, ...] = ()  # fabric-wide top-level lines fabricctl owns whatever their name
    #: Front-panel ports (and breakout lanes): fabricctl's only when the cabling plan names them
    #: (they are in the intended config); any other port is never touched.
    ports: str = r"$^"
    tenant_objects: tuple[Provenance, ...] = ()  # top-level tenant objects, owned by provenance
    #: (owned section, tenant object inside it): e.g. a VRF under `router bgp`, also by provenance
    nested: tuple[tuple[str, Provenance], ...] = ()
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
    #: The mark of the fabric whose config is compared (`for_fabric`); None: no object proves
    #: itself by its mark, only by the intent.
    mark: str | None = None

    def for_fabric(self, fabric: str) -> Dialect:
        """These rules for the switches of `fabric`: objects carrying its mark are fabricctl's."""
        return _with_mark(self, fabric_mark(fabric))

    # The rules are matched once per config line and switch (millions of times in a plan of a
    # large fabric): each list is compiled once, and `value_key` tries all its prefixes in one
    # alternation (the first alternative that matches wins, as the patterns' order says).

    @functools.cached_property
    def _owned(self) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(p) for p in self.owned)

    @functools.cached_property
    def _tenant_objects(self) -> tuple[tuple[re.Pattern[str], Provenance], ...]:
        return tuple((re.compile(p.pattern), p) for p in self.tenant_objects)

    @functools.cached_property
    def _ports(self) -> re.Pattern[str]:
        return re.compile(self.ports)

    def is_port(self, top_line: str) -> bool:
        """A front-panel port or breakout lane (owned only when the intended config has it)."""
        return self._ports.match(top_line) is not None

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
        """Fabric-wide lines owned by shape (tenant objects and ports are owned by proof)."""
        return any(rx.match(top_line) for rx in self._owned)

    def tenant_object(self, line: str) -> tuple[Provenance, str] | None:
        """The kind of tenant object `line` opens, and its key."""
        for rx, p in self._tenant_objects:
            m = rx.match(line)
            if m:
                return p, m["key"]
        return None

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
        return self.syntax.negate(line)

    def removal_rank(self, top_line: str) -> int:
        for i, rx in enumerate(self._removal_order):
            if rx.match(top_line):
                return i
        return len(self.removal_order)


@functools.lru_cache(maxsize=64)
def _with_mark(dialect: Dialect, mark: str) -> Dialect:
    """One marked copy per (rules, fabric): its compiled patterns are made once per run."""
    return dataclasses.replace(dialect, mark=mark)
