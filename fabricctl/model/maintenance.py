"""maintenance.yaml: the switches and fabric links taken out of the forwarding path, as intent.

The file sits in the fabric root, under version control like the tenants: a drain is a change
that is reviewed, planned, applied and recorded, and stays drained through every later apply
until its entry is removed. Each entry names a switch (the whole switch leaves the forwarding
path: every underlay session of it is gracefully shut down) or one of its fabric ports (the link
on that port leaves it: the session over that link, at both ends)::

    drained:
      - switch: spine3
        reason: OS upgrade, CHG-2211
      - switch: leaf07
        port: FourHundredGigE1/0/5
        reason: CRC errors rising, optic to be replaced

The file is checked field by field like any input (file, line, field, what is allowed); that a
switch exists and a port is one of its fabric ports is checked against the topology
(compile/drain.py). fabricctl writes it (`fabricctl drain`, `fabricctl undrain`) and a person may
edit it by hand: the same checks hold either way.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from fabricctl.model.fabric import Strict

#: The file, relative to the fabric root.
MAINTENANCE_FILE = "maintenance.yaml"
#: More entries than a fabric has links is a mistake, not maintenance.
MAX_DRAINS = 4096


class Drain(Strict):
    """One switch, or one fabric port of it, out of the forwarding path."""

    switch: str = Field(pattern=r"^[a-z][a-z0-9-]{0,31}$", description="A switch of the inventory")
    port: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z][A-Za-z0-9/:.-]{0,63}$",
        description="One of the switch's fabric ports, as the switch names it; none: the whole switch",
    )
    reason: str = Field(default="", max_length=200, description="Why (a ticket, a fault): kept in the plan")

    @property
    def target(self) -> str:
        """`spine3` or `leaf07:FourHundredGigE1/0/5`, as the command line names it."""
        return self.switch if self.port is None else f"{self.switch}:{self.port}"


class Maintenance(Strict):
    """maintenance.yaml."""

    drained: list[Drain] = Field(default_factory=list, max_length=MAX_DRAINS)


#: No file: nothing is drained.
NOTHING_DRAINED = Maintenance()


def with_drain(text: str | None, drain: Drain) -> str:
    """maintenance.yaml `text` (None: no file yet) with `drain` appended; comments and the other
    entries as they were written."""
    data, yaml = _round_trip(text)
    entry = {"switch": drain.switch}
    if drain.port is not None:
        entry["port"] = drain.port
    if drain.reason:
        entry["reason"] = drain.reason
    data.setdefault("drained", []).append(entry)
    return _dump(yaml, data)


def without_drain(text: str, target: str) -> str | None:
    """maintenance.yaml `text` without the entry of `target` (`spine3`, `leaf1:Ethernet3`); None
    when no entry is left (the file goes: nothing is drained)."""
    data, yaml = _round_trip(text)
    entries = data.get("drained") or []
    for e in [e for e in entries if _target(e) == target]:
        entries.remove(e)
    return _dump(yaml, data) if entries else None


def _target(entry: Any) -> str:
    if not isinstance(entry, dict):
        return ""
    port = entry.get("port")
    return f"{entry.get('switch')}" if port is None else f"{entry.get('switch')}:{port}"


def _round_trip(text: str | None) -> tuple[Any, Any]:
    from ruamel.yaml import YAML

    yaml = YAML()  # round trip: comments and layout stay
    yaml.indent(mapping=2, sequence=4, offset=2)
    data = yaml.load(text) if text else None
    if data is None:
        data = yaml.load(_HEADER + "drained: []\n")
        data["drained"] = []
    return data, yaml


def _dump(yaml: Any, data: Any) -> str:
    import io

    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


#: The comment a new maintenance.yaml starts with.
_HEADER = (
    "# Switches and fabric links out of the forwarding path (fabricctl drain / undrain):\n"
    "# BGP graceful shutdown (RFC 8326) of their underlay sessions, kept through every apply.\n"
)
