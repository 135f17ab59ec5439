"""Fault injection for lab devices, from a YAML file or set directly by tests.

File format: a mapping of device name to fault settings, e.g.::

    leaf01: {latency: 0.2, reject: "^qos wrr"}
    spine02: {unreachable: true}
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from fabricctl.errors import StageError


class FaultFileError(StageError, ValueError):
    """The fault file is unreadable or names unknown devices/settings."""


@dataclass
class Faults:
    """What goes wrong on one device. All off by default.

    unreachable: SSH and eAPI ports closed. auth_failure: every login is refused.
    latency: lab seconds added before each command reply. config_latency: lab seconds added
    before each configuration line takes effect (a busy config agent). disconnect_after: drop the
    connection when config line N+1 arrives. reject: config lines matching this regex are
    rejected with the platform error. commit_failure: commits fail, running untouched.
    hang_on_commit: commits never answer. hold: a command matching this regex waits, unanswered,
    until the test releases it (`LabFabric.release`): a push frozen at a chosen step, to kill
    the client there. garble: a command matching this regex answers garbage over SSH (neither
    the NOS's table nor its JSON, counts such as `lots` and `-7`): a broken agent. links_down: ports whose link is down (a pulled cable or a dead optic; the
    far end goes down too). bgp_down: BGP peer addresses whose sessions stay Idle. pfc_storm:
    ports that receive a PFC pause storm from the far end (a stuck NIC or switch queue), counted
    from the moment the fault is set; the far switch's port counts the pauses it sends.

    Counter faults, each a list of ports counted from the moment the fault is set (lab/traffic.py
    says at what rates): congestion: the port's lossless egress queue is congested, so it marks
    ECN and the receivers' CNPs come back through the far end; lossless_drops: the lossless
    queue drops (a headroom or buffer misfit); flapping: the link goes down and up again every
    FLAP_PERIOD lab seconds; optic_degrading: the optic's receive power falls steadily, and once
    below its low alarm the port counts FCS errors. A marginal link, still up: crc_errors: the
    port receives frames with bad FCS at MARGINAL_FCS_PER_SECOND (a dirty connector, a failing
    cable); optic_low: the optic receives at MARGINAL_RX_DBM, below its low warning, not yet at
    its alarm.
    """

    unreachable: bool = False
    auth_failure: bool = False
    latency: float = 0.0
    config_latency: float = 0.0
    disconnect_after: int | None = None
    reject: str | None = None
    commit_failure: bool = False
    hang_on_commit: bool = False
    hold: str | None = None
    garble: str | None = None
    links_down: list[str] = field(default_factory=list)
    bgp_down: list[str] = field(default_factory=list)
    pfc_storm: list[str] = field(default_factory=list)
    congestion: list[str] = field(default_factory=list)
    lossless_drops: list[str] = field(default_factory=list)
    flapping: list[str] = field(default_factory=list)
    optic_degrading: list[str] = field(default_factory=list)
    crc_errors: list[str] = field(default_factory=list)
    optic_low: list[str] = field(default_factory=list)

    @classmethod
    def from_mapping(cls, device: str, data: Any) -> Faults:
        """Validate one device's settings."""
        if not isinstance(data, dict):
            raise FaultFileError(f"{device}: fault settings must be a mapping")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise FaultFileError(f"{device}: unknown fault(s) {', '.join(unknown)}")
        for f in fields(cls):
            if f.name in data:
                _check_value(device, f.name, data[f.name])
        faults = cls(**data)
        for key in ("reject", "hold", "garble"):
            pattern = getattr(faults, key)
            if pattern is not None:
                import re

                try:
                    re.compile(pattern)
                except (re.error, TypeError) as exc:
                    raise FaultFileError(f"{device}: bad {key} regex: {exc}") from None
        return faults


_FLAGS = ("unreachable", "auth_failure", "commit_failure", "hang_on_commit")
_SECONDS = ("latency", "config_latency")
#: The faults that make counters grow, counted from the moment each is set on a port.
COUNTER_FAULTS = ("congestion", "lossless_drops", "flapping", "optic_degrading", "crc_errors", "optic_low")
_LISTS = ("links_down", "bgp_down", "pfc_storm", *COUNTER_FAULTS)


def _check_value(device: str, key: str, value: Any) -> None:
    """Each setting's type and range: a fault file is input like any other."""
    if key in _FLAGS and not isinstance(value, bool):
        raise FaultFileError(f"{device}: {key}: {value!r} is not true or false")
    if key in _SECONDS and (
        isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 86400
    ):
        raise FaultFileError(f"{device}: {key}: {value!r} is not a number of seconds (allowed: 0-86400)")
    if (
        key == "disconnect_after"
        and value is not None
        and (isinstance(value, bool) or not isinstance(value, int) or value < 0)
    ):
        raise FaultFileError(
            f"{device}: {key}: {value!r} is not a count of config lines (allowed: 0 or more)"
        )
    if key in _LISTS and (not isinstance(value, list) or not all(isinstance(v, str) for v in value)):
        raise FaultFileError(f"{device}: {key}: {value!r} is not a list of names")
    if key in ("reject", "hold", "garble") and value is not None and not isinstance(value, str):
        raise FaultFileError(f"{device}: {key}: {value!r} is not a regular expression")


def load_faults(path: Path, devices: set[str] | None = None) -> dict[str, Faults]:
    """Read a fault file; unknown device names are an error when `devices` is given."""
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise FaultFileError(f"cannot read fault file {path}: {exc}") from None
    if not isinstance(data, dict):
        raise FaultFileError(f"{path}: expected a mapping of device name to faults")
    if devices is not None:
        missing = sorted(set(data) - devices)
        if missing:
            raise FaultFileError(f"{path}: unknown device(s) {', '.join(missing)}")
    return {str(name): Faults.from_mapping(str(name), spec) for name, spec in data.items()}
