"""Port counters over gNMI: which paths each NOS streams and how they become `SwitchCounters`.

A platform that streams counters has a `gnmi` module with `GNMI`: its switches' gNMI port, the
paths sampled and the paths watched on change, and `parse`, which turns the latest value of
every leaf into the same `SwitchCounters` its CLI reader (`counters.py`) makes from show
commands, field for field, so the exporter's series do not depend on how a switch was read.
A leaf whose value is not what the model says is an error (ValueError), never a 0.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fabricctl.platforms.counters import Optic, SwitchCounters

#: A gNMI path as the client holds it: (element name, ((key, value), ...) sorted) per element.
Path = tuple[tuple[str, tuple[tuple[str, str], ...]], ...]


@dataclass(frozen=True)
class GnmiCounters:
    port: int  # the switch's gNMI port (its NOS's default)
    sampled: tuple[str, ...]  # xpaths sampled every interval
    on_change: tuple[str, ...]  # xpaths watched on change (a port going down shows at once)
    encoding: str  # what the NOS serves: JSON, PROTO ...
    parse: Callable[[Mapping[Path, Any]], SwitchCounters]
    #: PortCounters fields the CLI reader gives and no documented gNMI path does, with why:
    #: left None (never 0), so their series are absent for a streamed switch.
    unread: tuple[tuple[str, str], ...] = ()


def gnmi_counters(platform: str) -> GnmiCounters | None:
    """The `GNMI` of a platform's `gnmi` module; None: the platform streams no counters."""
    name = f"fabricctl.platforms.{platform}.gnmi"
    if importlib.util.find_spec(name) is None:
        return None
    found: GnmiCounters = importlib.import_module(name).GNMI
    return found


def names(path: Path) -> tuple[str, ...]:
    return tuple(name for name, _ in path)


def key(path: Path, index: int, name: str) -> str:
    """The value of key `name` of the path's element `index` (ValueError when it has none)."""
    found = dict(path[index][1]).get(name)
    if found is None:
        raise ValueError(f"{'/'.join(names(path))}: no key {name!r} at element {index}")
    return found


def count(path: Path, value: Any) -> int:
    """A counter: an unsigned integer, sent typed or as JSON (a number, or a string in JSON_IETF)."""
    if isinstance(value, bool):
        raise ValueError(f"{'/'.join(names(path))}: {value!r} is not a counter")
    if isinstance(value, int) and value >= 0:
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    raise ValueError(f"{'/'.join(names(path))}: {value!r} is not a counter")


def decimal(path: Path, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"{'/'.join(names(path))}: {value!r} is not a number")
    try:
        return float(value)
    except ValueError:
        raise ValueError(f"{'/'.join(names(path))}: {value!r} is not a number") from None


def text(path: Path, value: Any, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise ValueError(f"{'/'.join(names(path))}: {value!r} is not one of {', '.join(allowed)}")
    return str(value)


#: openconfig-interfaces 3.6.0 enums (aristanetworks/yang EOS-4.31.2F, commit 63be023):
#: `oper-status` (RFC 2863's ifOperStatus) and `admin-status`.
OPER_STATUS = ("UP", "DOWN", "TESTING", "UNKNOWN", "DORMANT", "NOT_PRESENT", "LOWER_LAYER_DOWN")
ADMIN_STATUS = ("UP", "DOWN", "TESTING")
#: openconfig-bgp-neighbor 9.5.0 `session-state` -> the spelling the CLI health readers give
#: (platforms/health.py `session_state`): the exporter counts a session up when Established.
SESSION_STATES = {
    "IDLE": "Idle",
    "CONNECT": "Connect",
    "ACTIVE": "Active",
    "OPENSENT": "OpenSent",
    "OPENCONFIRM": "OpenConfirm",
    "ESTABLISHED": "Established",
}

_IF = "/interfaces/interface[name=*]"
_XCVR = "/components/component[name=*]/transceiver"
#: The default network instance's BGP neighbors (the CLI readers read the default VRF's sessions).
BGP_NEIGHBORS = (
    "/network-instances/network-instance[name=default]/protocols/protocol[identifier=*][name=*]"
    "/bgp/neighbors/neighbor[neighbor-address=*]"
)
#: The interface counters both readers total: errors in + out, discards in + out, link changes.
PORT_COUNTERS = tuple(
    f"{_IF}/state/counters/{leaf}"
    for leaf in ("in-errors", "out-errors", "in-discards", "out-discards", "carrier-transitions")
)
#: Leaves that change by events: watched on change.
PORT_STATE = (f"{_IF}/state/oper-status", f"{_IF}/state/admin-status", f"{_IF}/state/transceiver")
SESSION_STATE = (f"{BGP_NEIGHBORS}/state/session-state",)
RX_POWER = f"{_XCVR}/physical-channels/channel[index=*]/state/input-power/instant"
RX_THRESHOLDS = f"{_XCVR}/thresholds/threshold[severity=*]/state/input-power-lower"

_COUNTER_LEAVES = {"in-errors", "out-errors", "in-discards", "out-discards", "carrier-transitions"}
_NEIGHBOR = ("network-instances", "network-instance", "protocols", "protocol", "bgp", "neighbors", "neighbor")


class OpenConfig:
    """The openconfig-interfaces, -platform-transceiver and -bgp leaves every streaming NOS
    serves alike, gathered leaf by leaf (`take`), then written into `SwitchCounters` (`into`):

    - a port's `admin-status` and `oper-status`; its errors (`in-errors` + `out-errors`), its
      discards (`in-discards` + `out-discards`) and its link changes (`carrier-transitions`),
      each only when every leaf it sums arrived;
    - a transceiver's weakest lane (`input-power/instant`, dBm) against its `input-power-lower`
      thresholds (WARNING, CRITICAL) where the NOS serves them. A transceiver is a component: its
      port is the interface whose `state/transceiver` names it (every one that does, for a module
      shared by breakout ports), else the port the component is named after;
    - each BGP neighbor's `session-state`. A NOS whose subscription carries SESSION_STATE has
      its sessions read (an empty table is none), as the CLI readers' session probes do.
    """

    def __init__(self, sessions: bool) -> None:
        self.counters: dict[str, dict[str, int]] = {}
        self.oper: dict[str, bool] = {}
        self.admin: dict[str, bool] = {}
        self.holders: dict[str, list[str]] = {}  # transceiver component -> the ports naming it
        self.lanes: dict[str, list[float]] = {}
        self.floors: dict[str, dict[str, float]] = {}
        self.sessions: dict[str, str] | None = {} if sessions else None

    def take(self, path: Path, value: Any) -> bool:
        """Keep `value` when `path` is one of these leaves (False: the caller's to read)."""
        n = names(path)
        if n[:2] == ("interfaces", "interface") and len(n) >= 4 and n[2] == "state":
            port = key(path, 1, "name")
            if len(n) == 5 and n[3] == "counters" and n[4] in _COUNTER_LEAVES:
                self.counters.setdefault(port, {})[n[4]] = count(path, value)
            elif n[3:] == ("oper-status",):
                self.oper[port] = text(path, value, OPER_STATUS) == "UP"
            elif n[3:] == ("admin-status",):
                self.admin[port] = text(path, value, ADMIN_STATUS) == "UP"
            elif n[3:] == ("transceiver",):
                if not isinstance(value, str) or not value:
                    raise ValueError(f"{'/'.join(n)}: {value!r} is not a component name")
                self.holders.setdefault(value, []).append(port)
            else:
                return False
            return True
        if n[:3] == ("components", "component", "transceiver"):
            component = key(path, 1, "name")
            if n[3:] == ("physical-channels", "channel", "state", "input-power", "instant"):
                self.lanes.setdefault(component, []).append(decimal(path, value))
            elif n[3:] == ("thresholds", "threshold", "state", "input-power-lower"):
                self.floors.setdefault(component, {})[key(path, 4, "severity")] = decimal(path, value)
            else:
                return False
            return True
        if n[:7] == _NEIGHBOR and n[7:] == ("state", "session-state"):
            if self.sessions is not None:
                state = text(path, value, tuple(SESSION_STATES))
                self.sessions[key(path, 6, "neighbor-address")] = SESSION_STATES[state]
            return True
        return False

    def into(self, out: SwitchCounters) -> None:
        for port, up in self.oper.items():
            out.port(port).up = up
        for port, up in self.admin.items():
            out.port(port).admin_up = up
        for port, got in self.counters.items():
            p = out.port(port)
            if "in-errors" in got and "out-errors" in got:
                p.errors = got["in-errors"] + got["out-errors"]
            if "in-discards" in got and "out-discards" in got:
                p.discards = got["in-discards"] + got["out-discards"]
            if "carrier-transitions" in got:
                p.link_changes = got["carrier-transitions"]
        for component, rx in self.lanes.items():
            limits = self.floors.get(component, {})
            optic = Optic(min(rx), limits.get("WARNING"), limits.get("CRITICAL"))
            for port in self.holders.get(component, [component]):
                out.port(port).optic = optic
        if self.sessions is not None:
            out.sessions = dict(self.sessions)
