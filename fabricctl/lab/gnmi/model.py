"""What a lab switch's gNMI target serves: paths, values, capabilities. No gRPC here.

A path is a tuple of elements `(name, ((key, value), ...))`, keys sorted; `parse` reads the
xpath-like text clients print (`/interfaces/interface[name=Ethernet1]/state/oper-status`). A NOS
serves a set of leaves, each with the YANG module it comes from and its value, computed from
the switch's `View` (lab/view.py) at the lab's clock: the numbers its show commands print.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from fabricctl.lab.view import View

Elem = tuple[str, tuple[tuple[str, str], ...]]
Path = tuple[Elem, ...]
Value = int | float | str | bool
#: A leaf's YANG module and value; a float is a decimal64 with two fraction digits (dBm).
Leaf = tuple[str, Value]
Leaves = dict[Path, Leaf]

_ELEM = re.compile(r"([^/\[\]]+)((?:\[[^\]=]+=[^\]]*\])*)")
_KEY = re.compile(r"\[([^\]=]+)=([^\]]*)\]")


def elem(name: str, /, **keys: str) -> Elem:
    return (name, tuple(sorted(keys.items())))


def parse(text: str) -> Path:
    """`/a/b[k=v]/c` -> path; `*` and `...` stay as written (wildcards)."""
    out: list[Elem] = []
    for part in _split(text.strip().strip("/")):
        m = _ELEM.fullmatch(part)
        if m is None:
            raise ValueError(f"not a gNMI path element: {part!r}")
        out.append((m[1], tuple(sorted(_KEY.findall(m[2])))))
    return tuple(out)


def _split(text: str) -> list[str]:
    """Split on `/` outside `[...]` (a key value may hold a slash: `FourHundredGigE1/0/1`)."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "/" and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur:
        parts.append(cur)
    return parts


def text(path: Path) -> str:
    return "/" + "/".join(name + "".join(f"[{k}={v}]" for k, v in keys) for name, keys in path)


def _bare(name: str) -> str:
    """`openconfig-interfaces:interfaces` -> `interfaces` (a module-qualified element name)."""
    return name.split(":", 1)[-1]


def matches(pattern: Path, leaf: Path) -> bool:
    """Whether `leaf` is at or under `pattern`: `*` matches any one element or key value, `...`
    any number of elements; a key the pattern does not name matches any value."""
    for i, (name, keys) in enumerate(pattern):
        if name == "...":
            return any(matches(pattern[i + 1 :], leaf[j:]) for j in range(i, len(leaf) + 1))
        if i >= len(leaf):
            return False
        have_name, have_keys = leaf[i]
        if name != "*" and _bare(name) != have_name:
            return False
        known = dict(have_keys)
        if any(v != "*" and known.get(k) != v for k, v in keys):
            return False
    return True


def select(leaves: Mapping[Path, Leaf], pattern: Path) -> Leaves:
    return {p: leaf for p, leaf in leaves.items() if matches(pattern, p)}


@dataclass(frozen=True)
class Model:
    """One entry of Capabilities' supported_models."""

    name: str
    organization: str
    version: str = ""


@dataclass(frozen=True)
class GnmiTarget:
    """One NOS's gNMI server, as its vendor documents it (each NOS's lab/devices/<nos>/gnmi.py)."""

    gnmi_version: str
    models: tuple[Model, ...]
    encodings: tuple[str, ...]  # gNMI Encoding names: JSON, JSON_IETF, PROTO, ASCII
    #: (view, top-level element names asked for) -> every leaf under them, now.
    leaves: Callable[[View, frozenset[str]], Leaves]
    #: The top-level containers it serves: a Subscribe path under another is NOT_FOUND (one under
    #: these with no data yet, a port without PFC, streams nothing until there is some).
    trees: frozenset[str]
    get: bool = True  # Cumulus Linux answers no Get
    once_and_poll: bool = True  # the ONCE and POLL subscription modes
    min_sample_seconds: float = 0.0  # a shorter sample_interval is raised to this
    #: Origins the switch refuses, with the reason it gives (EOS without `provider eos-native`).
    refused_origins: Mapping[str, str] = field(default_factory=dict)
    #: Leaves that change by events, not by time: ON_CHANGE and TARGET_DEFINED watch these.
    event_leaves: frozenset[str] = frozenset({"oper-status", "admin-status", "last-change", "session-state"})

    def roots(self, paths: Iterable[Path]) -> frozenset[str]:
        """The top-level elements the paths reach (`*` or `...` first: every root)."""
        firsts = {_bare(p[0][0]) if p else "*" for p in paths}
        return frozenset() if firsts & {"*", "..."} else frozenset(firsts)


def nanoseconds(calendar_seconds: float) -> int:
    return round(calendar_seconds * 1e9)


def oper_status(up: bool) -> str:
    """openconfig-interfaces oper-status: UP, or DOWN (the enum's values)."""
    return "UP" if up else "DOWN"


def interface(name: str) -> Path:
    return (elem("interfaces"), elem("interface", name=name))


def interface_state(out: Leaves, name: str, up: bool, admin_up: bool, changed: int) -> Path:
    """A port's openconfig-interfaces name and state leaves (`changed`: last-change, ns); its
    `state` path, for the counters under it."""
    base = interface(name)
    state = under(base, "state")
    out[under(base, "name")] = ("openconfig-interfaces", name)
    out[under(state, "name")] = ("openconfig-interfaces", name)
    out[under(state, "oper-status")] = ("openconfig-interfaces", oper_status(up))
    out[under(state, "admin-status")] = ("openconfig-interfaces", oper_status(admin_up))
    out[under(state, "last-change")] = ("openconfig-interfaces", changed)
    return state


def qos_queue(port: str, queue: int) -> Path:
    return (
        elem("qos"),
        elem("interfaces"),
        elem("interface", **{"interface-id": port}),
        elem("output"),
        elem("queues"),
        elem("queue", name=str(queue)),
        elem("state"),
    )


def under(base: Path, *names: str) -> Path:
    return base + tuple(elem(n) for n in names)


def last_change(view: View, port: str, last_flap: float | None) -> int:
    """openconfig-interfaces last-change (ns since the epoch): the port's last flap by the lab
    clock, else the switch's boot (what `show interfaces` prints as its last status change)."""
    seconds = view.calendar - view.now + last_flap if last_flap is not None else view.calendar - view.uptime
    return nanoseconds(seconds)


OC_XCVR = "openconfig-platform-transceiver"
OC_NI = "openconfig-network-instance"


def transceiver(
    out: Leaves, component: str, rx_dbm: float, lanes: int, floors: Mapping[str, float] | None = None
) -> None:
    """A module's openconfig-platform-transceiver leaves: every lane's `input-power/instant`
    (dBm), and its `input-power-lower` thresholds by severity where the NOS serves them."""
    xcvr = (elem("components"), elem("component", name=component), elem("transceiver"))
    for lane in range(1, lanes + 1):
        ch = (*xcvr, elem("physical-channels"), elem("channel", index=str(lane)))
        out[under(ch, "state", "index")] = (OC_XCVR, lane)
        out[under(ch, "state", "input-power", "instant")] = (OC_XCVR, float(rx_dbm))
    for severity, floor in (floors or {}).items():
        th = (*xcvr, elem("thresholds"), elem("threshold", severity=severity), elem("state"))
        out[under(th, "severity")] = (OC_XCVR, severity)
        out[under(th, "input-power-lower")] = (OC_XCVR, float(floor))


def bgp_neighbors(view: View, out: Leaves) -> None:
    """The default network instance's BGP neighbors (openconfig-network-instance with
    openconfig-bgp): each session the switch's show commands list, its `session-state` the enum
    of the lab session's state (Established -> ESTABLISHED, Active -> ACTIVE, Idle -> IDLE)."""
    bgp = (
        elem("network-instances"),
        elem("network-instance", name="default"),
        elem("protocols"),
        elem("protocol", identifier="BGP", name="BGP"),
        elem("bgp"),
        elem("neighbors"),
    )
    for ip, session in sorted(view.state.sessions.get(view.name, {}).items()):
        neighbor = (*bgp, elem("neighbor", **{"neighbor-address": str(ip)}))
        out[under(neighbor, "neighbor-address")] = (OC_NI, str(ip))
        state = under(neighbor, "state")
        out[under(state, "neighbor-address")] = (OC_NI, str(ip))
        if session.remote_as is not None:
            out[under(state, "peer-as")] = (OC_NI, session.remote_as)
        out[under(state, "session-state")] = (OC_NI, session.state.upper())
