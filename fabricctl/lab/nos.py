"""What the lab knows about one NOS, as one object, looked up by name: the lab's platform registry.

Each NOS's twin is a package (the built-in ones: lab/devices/<nos>/) whose __init__.py builds a
`LabNos` (its CLI dialect, facts reader, config renderer, factory config, interface names,
command reference) as `NOS`, named by its distribution under the entry-point group
`fabricctl.lab_devices` (`<name> = "<package>:NOS"`). The rest of the lab asks `lab_nos(name)`
and never branches on a name. The group is loaded once, on first use, so a NOS installed from
another distribution is served exactly as the built-in ones; a test may `register` one of its
own, and a name registered twice is an error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, Protocol

from fabricctl.lab.config_tree import Node
from fabricctl.lab.facts import DeviceFacts
from fabricctl.lab.hardware import Model

#: The entry-point group a NOS's distribution names its `LabNos` in.
ENTRY_POINTS = "fabricctl.lab_devices"


class Spec(Protocol):
    """The parts of a DeviceSpec a factory config is written from."""

    @property
    def name(self) -> str: ...
    @property
    def mgmt_ip(self) -> str: ...
    @property
    def ports(self) -> int: ...


@dataclass(frozen=True)
class PortLayer:
    """What a port's own lines say, read by its NOS: routed or bridged, its VRF, its frame limit,
    whether it is shut, its description, its IPv4 address and the IP MTU it sets (None: the
    reference's documented default, `LabNos.mtu_at`)."""

    routed: bool
    vrf: str | None
    max_frame: int | None
    admin_up: bool = True
    description: str | None = None
    ipv4: str | None = None  # as configured ("10.0.0.1 255.255.255.254" or "10.0.0.1/31")
    ip_mtu: int | None = None


def _no_ports(running: Node) -> Mapping[str, Node]:
    return {}


@dataclass(frozen=True)
class LabNos:
    """One NOS's twin (see the module docstring)."""

    name: str
    default_model: str
    #: Switch model -> what the box reports about its hardware (lab/devices/<nos>/hardware.py).
    models: Mapping[str, Model]
    #: Full interface type -> the short form its tables print, in the NOS's own interface order.
    interface_types: Mapping[str, str]
    #: Interface name prefix -> the command-reference view its lines are in (the first that
    #: matches; a NOS whose every other interface is in one view lists it last under "").
    port_views: tuple[tuple[str, str], ...]
    #: (port name, its view) -> (view, words) of the command-reference line whose documented
    #: default is the IP MTU of a port that sets none (`mtu` in the port's view; NVUE: the
    #: object path `interface <port> link mtu`).
    mtu_at: Callable[[str, str], tuple[str, list[str]]]
    #: (port's config node, view, default of a command in a view) -> its layer.
    port_layer: Callable[[Node, str, Callable[[str, list[str]], str | None]], PortLayer]
    #: The command reference (YAML text, lab/devices/<nos>/commands.yaml).
    reference_text: Callable[[], str]
    #: (switch name, running tree) -> what the configs say (links, BGP, VTEPs, QoS).
    read_facts: Callable[[str, Node], DeviceFacts]
    #: (running tree, hostname, model) -> the running-config text the switch prints.
    render: Callable[[Node, str, str], str]
    factory: Callable[[Spec], str]  # the out-of-box config
    hardware: Callable[[Spec], str]  # what erasing the config leaves: the physical port blocks
    ztp_factory: Callable[[Spec], str]  # a switch delivered factory-default, waiting for ZTP
    #: (boot file URL, its text, a fetch of a further URL) -> (the config it boots with, whether
    #: it reboots into it as its startup-config); ValueError: a file the NOS would refuse.
    ztp_boot: Callable[[str, str, Callable[[str], str]], tuple[str, bool]]
    #: The first four hex digits of the lab's MACs for this NOS (the vendor's OUI starts so).
    mac_prefix: str
    #: The lines of the system description its LLDP advertises, for a model.
    system_description: Callable[[str], tuple[str, ...]]
    #: The CLI session class (lab/dialect.CliSession) a login to it runs: called with the LabDevice.
    cli: Callable[[Any], Any]
    #: Name prefixes of its front-panel ports and their breakout lanes: a cable plugs into one
    #: (its line protocol is the link's), anything else is a logical interface (a loopback).
    front_panel: tuple[str, ...]
    #: Serves one eAPI (HTTPS JSON-RPC) connection: (device, credentials, reader, writer); None: SSH only.
    eapi: Callable[..., Any] | None = None
    #: Config text as the NOS prints and stores it -> tree, for a NOS whose printed config is not
    #: its command lines (NVUE: the YAML object tree, every path checked against its reference);
    #: None: the grammar loads the text line by line.
    parse_config: Callable[[str], Node] | None = None
    #: Running config -> each port's config node, in config order: the ports the shared port
    #: view (lab/ports.py, `View.ports`) shows. A NOS whose shows read its own tree lists none.
    port_nodes: Callable[[Node], Mapping[str, Node]] = _no_ports
    #: Its gNMI target (lab/gnmi/model.GnmiTarget: capabilities, modes, paths); None: no gNMI.
    gnmi: Any = None

    def port_view(self, port: str) -> str:
        """The command-reference view the lines of interface `port` are in (`port_views`);
        ValueError: an interface none of its prefixes names."""
        view = next((v for prefix, v in self.port_views if port.startswith(prefix)), None)
        if view is None:
            raise ValueError(f"{self.name}: no port view for interface {port!r}")
        return view

    def hardware_facts(self, model: str) -> Model:
        """The facts of switch model `model`; a model this NOS's table does not list reports as
        its default model: its own vendor's facts, never another's guessed from the name."""
        return self.models.get(model) or self.models[self.default_model]


_REGISTRY: dict[str, LabNos] = {}
_LOADED: list[bool] = []


class UnknownNos(ValueError):
    """A platform name no lab package provides."""


class DuplicateNos(ValueError):
    """A second lab NOS under a name already registered."""


def _load() -> dict[str, LabNos]:
    """The registry, the entry points of `ENTRY_POINTS` loaded into it on first use."""
    if not _LOADED:
        _LOADED.append(True)
        for ep in sorted(entry_points(group=ENTRY_POINTS), key=lambda e: e.name):
            nos = ep.load()
            if not isinstance(nos, LabNos) or nos.name != ep.name:
                _LOADED.clear()
                raise TypeError(
                    f"entry point {ENTRY_POINTS} {ep.name} = {ep.value}: not the LabNos {ep.name!r}"
                )
            _add(nos)
    return _REGISTRY


def _add(nos: LabNos) -> None:
    if nos.name in _REGISTRY:
        raise DuplicateNos(f"lab platform {nos.name!r} is registered twice")
    _REGISTRY[nos.name] = nos


def register(nos: LabNos) -> LabNos:
    """Make `nos` known to the lab under its name (a test's own NOS; an installed one has an
    entry point). DuplicateNos: the name is taken."""
    _load()
    _add(nos)
    return nos


def unregister(name: str) -> None:
    """Forget a NOS a test registered."""
    _REGISTRY.pop(name, None)


def lab_nos(name: str) -> LabNos:
    """The NOS registered under `name` (its entry point loaded on first use)."""
    found = _load().get(name)
    if found is None:
        raise UnknownNos(f"unsupported lab platform {name!r} (known: {', '.join(known())})")
    return found


def known() -> list[str]:
    """Every NOS the lab can run: the installed ones and any registered since."""
    return sorted(_load())
