"""What fabricctl knows about one NOS, as one object: the only place a platform name is looked up.

Every stage asks the switch's `Platform` for its part instead of branching on a name: compile and
validate read capabilities, limits and port names; render takes the template folder and filters;
verify takes the parser; plan takes the remediation rules; deploy takes the fetch command and
the push protocol. Adding a NOS means adding one package under platforms/ (docs/architecture.md).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import BaseModel, ConfigDict

from fabricctl.config.diff import DeviceDiff, Differ, diff_device
from fabricctl.config.readback import TUNNEL_CLASS, TUNNEL_ECN, TUNNEL_MARKING, SwitchConfig
from fabricctl.config.rules import TENANT_PREFIX, Dialect
from fabricctl.platforms.boot import BootSetting, Reboot
from fabricctl.platforms.counters import CounterReader
from fabricctl.platforms.day0 import Day0
from fabricctl.platforms.health import HealthReader
from fabricctl.platforms.identity import IdentityReader

if TYPE_CHECKING:
    from fabricctl.platforms.push import Pusher


class QosTuning(BaseModel):
    """Base of a platform's QoS values (fabric.yaml `qos.<platform>`): site policy, not syntax."""

    model_config = ConfigDict(extra="forbid", frozen=True)


#: Names no tenant takes on any NOS: the default VRF and the usual management VRF names (a tenant
#: named so would bind its ports to the management VRF, which fabricctl never touches).
COMMON_RESERVED_NAMES = ("default", "mgmt", "management")
#: fabricctl names its own objects (checkpoints, sessions) with this prefix.
RESERVED_PREFIX = "fabricctl"


NO_BREAKOUT = "none"


def breakout_lanes(mode: str) -> list[int | None]:
    """The lanes a `cabling.gpu_port_breakout` mode splits a port into, numbered from 1
    ("2x200G" -> [1, 2]); [None] for "none", the whole port."""
    if mode == NO_BREAKOUT:
        return [None]
    return list(range(1, int(mode.partition("x")[0]) + 1))


class PortNamer(Protocol):
    """A front-panel port's name (1-based), or a breakout lane's (lane 1.., None: the whole port)."""

    def __call__(self, port: int, lane: int | None = None) -> str: ...


@dataclass(frozen=True)
class Capabilities:
    """What a RoCE fabric needs from a NOS; validate refuses a switch or tenant that needs a missing one.

    pfc, pfc_watchdog, ecn_per_queue and strict_priority_queue: the lossless class runs on every
    fabric link, so every switch needs them. evpn_type5: every tenant VRF is an L3VNI. evpn_symmetric_irb:
    l2 tenants (L2VNI + anycast gateway). commit_confirm: apply pushes only under a confirm timer.
    max_ip_mtu: the largest IP MTU (`mtu`) a routed port accepts.
    """

    pfc: bool
    pfc_watchdog: bool
    ecn_per_queue: bool
    strict_priority_queue: bool
    evpn_type5: bool
    evpn_symmetric_irb: bool
    commit_confirm: bool
    #: The largest IP MTU a port takes (fabric.yaml qos.mtu must fit on every switch).
    max_ip_mtu: int


@dataclass(frozen=True)
class Limits:
    """Per-switch budgets (datasheet figures; override per fabric under `limits:` in fabric.yaml)."""

    max_vrfs: int
    max_vlans: int
    max_vnis: int
    max_acl_entries: int


#: Pause quanta a port may still send after it receives XOFF, by port speed in Gb/s (IEEE 802.3
#: annex 31B.3.7, as SONiC's headroom plugins list them: sonic-swss cfgmgr/buffer_headroom_*.lua).
IEEE_PAUSE_QUANTA: Mapping[int, int] = {10: 67, 25: 80, 40: 118, 50: 147, 100: 394, 200: 453, 400: 905}


@dataclass(frozen=True)
class BufferFigures:
    """The ASIC figures of SONiC's PFC headroom formula for one switch model (compile/buffers.py),
    in bytes, from `source`: the cell the buffer is carved in, the pipeline latency (XON), the
    bytes held in MAC/PHY, and the bytes held on the ASIC's tile per Gb/s of port speed."""

    cell_bytes: int
    pipeline_latency_bytes: float
    mac_phy_delay_bytes: float
    source: str
    tile_bytes_per_gbps: float = 0


#: How a VTEP of a model treats one step of RoCE's way through a VXLAN tunnel (verify/lossless.py):
#: "line": a documented configuration line does it (the templates write it);
#: "copy": by default the outer DSCP is the inner packet's (documented);
#: "from-class": by default the outer DSCP is derived from the packet's class through the model's
#:   class -> DSCP map (documented): the spines must map that DSCP into the lossless class;
#: "rfc6040": by default ECN is carried per RFC 6040 normal mode (documented);
#: "compatibility": by default the outer header is Not-ECT (RFC 6040 section 4.1 compatibility
#:   mode, documented): no switch inside the fabric can mark congestion, PFC alone holds the class;
#: "inner": by default decapsulated traffic keeps and is classified by its inner marking (documented);
#: "unknown": no vendor document states it; verify takes it as given and lists it.
TunnelMode = Literal["line", "copy", "from-class", "rfc6040", "compatibility", "inner", "unknown"]


@dataclass(frozen=True)
class TunnelStep:
    mode: TunnelMode
    source: str = ""  # the document and section that state it ("" for unknown)
    #: What the document leaves out where it states the behaviour for part of the traffic only
    #: (verify lists it as an assumption next to the documented part).
    unstated: str = ""


@dataclass(frozen=True)
class TunnelQos:
    """What a model's VTEPs do with RoCE's marking at encapsulation (`marking`: the outer DSCP),
    with ECN both ways (`ecn`, RFC 6040), and at decapsulation (`decap`: the inner DSCP kept, the
    lossless class kept)."""

    marking: TunnelStep = TunnelStep("unknown")
    ecn: TunnelStep = TunnelStep("unknown")
    decap: TunnelStep = TunnelStep("unknown")

    def lines(self) -> tuple[str, ...]:
        """The steps a configuration line sets (readback TUNNEL_* keys), for the templates."""
        steps = ((TUNNEL_MARKING, self.marking), (TUNNEL_ECN, self.ecn), (TUNNEL_CLASS, self.decap))
        return tuple(key for key, step in steps if step.mode == "line")


@dataclass(frozen=True)
class SwitchModel:
    """One switch model a platform runs on (`data.model` in the inventory): its datasheet's
    figures, each with its source in `sources` (figure name -> document and section).

    breakouts: the `cabling.gpu_port_breakout` modes its GPU ports split into, each
    `<lanes>x<Gb/s per lane>G` ("2x200G": a port in two 200G lanes).
    """

    name: str
    ports: int  # front-panel ports at port_gbps (a chassis: every line-card port)
    port_gbps: int
    breakouts: tuple[str, ...]
    buffer_mb: float | None  # packet buffer (None: the datasheet gives no figure)
    limits: Limits
    max_ecmp: int | None  # ECMP paths one route installs at most (None: no published figure)
    sources: Mapping[str, str]
    #: Its own port names where they differ from the platform's (a chassis names slot/port).
    port_name: PortNamer | None = None
    port_position: Callable[[str], tuple[int, int | None] | None] | None = None
    #: SerDes lanes of a front-panel port at port_gbps (a 400G QSFP-DD port: 8 x 50G).
    lanes: int = 8
    #: The figures its PFC headroom is sized from (None: its vendor publishes none; the fabric's
    #: `qos.buffer` gives them where the platform takes a size).
    buffer: BufferFigures | None = None
    #: Pause quanta per port speed (Gb/s) its peer response is sized with.
    pause_quanta: Mapping[int, int] = field(default_factory=lambda: dict(IEEE_PAUSE_QUANTA))
    tunnel_qos: TunnelQos = TunnelQos()

    def lane_gbps(self, mode: str) -> int:
        """The speed of one lane of a breakout mode ("2x200G" -> 200); the port's for "none"."""
        return self.port_gbps if mode == NO_BREAKOUT else int(mode.partition("x")[2].rstrip("G"))

    def serdes(self, gbps: int) -> int:
        """The SerDes lanes a port (or breakout lane) running at `gbps` uses: each carries
        port_gbps / lanes (a 400G-8 port split 2 x 200G: 4 lanes each)."""
        return max(1, gbps * self.lanes // self.port_gbps)


@dataclass(frozen=True)
class Release:
    """A release of the NOS fabricctl renders for (`data.os_version` in the inventory): every
    form its templates emit holds in this release, checked against `reference`, the release's
    own command reference (the vendor's document, URL and title)."""

    name: str  # as the inventory spells it: "5.17"
    reference: str  # the release's command reference (the document the syntax is checked against)
    #: How the NOS names the release where it prints it (NVUE's `version:` header).
    label: str = ""


@dataclass(frozen=True)
class Fetch:
    """How a running config is read over SSH: the command and the prompt that ends its output.

    `prompt` matches only at the very end of the output: netmiko's default (the bare hostname
    anywhere) stops reading at a `sysname spine01` or `description to spine01` inside the listing.
    """

    show_running: str
    show_saved: str  # the next-startup config: a committed change must also be saved
    prompt: str
    netmiko_device_type: str
    #: A further read-only command that reveals an armed commit-confirm (None: the configs do).
    pending_command: str | None = None
    #: Its NAPALM driver logs in over SSH (through netmiko), so the SSH host-key options apply to
    #: it too; False where NAPALM speaks an HTTPS API.
    napalm_over_ssh: bool = True
    #: The Nornir connection plugin that opens its SSH sessions (the read above, show commands,
    #: a push over SSH): its inventory options get the SSH timeouts and host-key checks. The
    #: default is the SSH client every NOS here is read with (nornir_netmiko's tasks).
    ssh_plugin: str = "netmiko"
    #: The exception classes (module.Class) that SSH client raises for a refused login and for
    #: a reply that never came: deploy/failures.py names the cause from them.
    ssh_auth_errors: tuple[str, ...] = ("netmiko.exceptions.NetmikoAuthenticationException",)
    ssh_timeout_errors: tuple[str, ...] = ("netmiko.exceptions.ReadTimeout",)
    #: The Nornir connection plugin whose inventory options say how its API is reached (port,
    #: transport: a push over an API reads them as `Target.napalm_extras`; the lab's API port
    #: replaces the port), or None: it is reached over SSH only.
    api_plugin: str | None = None


@dataclass(frozen=True)
class Platform:
    """One NOS: everything fabricctl knows about it (see the module docstring)."""

    name: str
    title: str
    capabilities: Capabilities
    #: The switch models it runs on; the first is the one a switch without `data.model` is taken for.
    models: tuple[SwitchModel, ...]
    cnp_class: int  # the CNP traffic class when the fabric's QoS policy does not set one
    #: The class of the NOS's own network-control traffic, scheduled strict priority (None: the
    #: NOS queues it apart from the front-panel queues fabricctl configures).
    protocol_class: int | None
    port_name: PortNamer
    #: The inverse of port_name: a port's (front-panel port, lane or None), None for other names.
    port_position: Callable[[str], tuple[int, int | None] | None]
    qos_tuning: type[QosTuning]
    filters: Mapping[str, Callable[..., object]]  # the Jinja filters its templates use
    parse: Callable[[str, str], SwitchConfig]  # (switch name, config text) -> neutral read-back model
    dialect: Dialect  # remediation rules: owned scope, negations, order
    fetch: Fetch
    health: HealthReader  # links, LLDP and BGP from show commands (fabricctl check)
    #: Port counters and the switch's clock from show commands (tenant health, the exporter).
    counters: CounterReader
    #: (running, saved, output of fetch.pending_command) -> what an interrupted push left, or None
    pending: Callable[[str, str, str | None], str | None]
    push_module: str  # its `PUSHER` implements `Pusher`; imported on first use (netmiko / NAPALM load slowly)
    day0: Day0  # day-0 provisioning: the boot file DHCP names and the files it is made of
    #: The releases it renders for, newest first; the first is the one a switch without
    #: `data.os_version` runs. validate refuses any other.
    releases: tuple[Release, ...]
    #: (exception, its class names, " <endpoint>", user) -> (cause, detail) for an exception of
    #: the platform's own client (deploy/failures.py asks every platform), or None: not its own.
    client_failure: Callable[[BaseException, set[str], str, str], tuple[str, str] | None] | None = None
    #: The NOS's own words for a refused line or commit (a regex, any case), as a push's message
    #: quotes them: deploy/failures.py names such a failure `rejected` (None: its pushes say so).
    refusal: str | None = None
    #: ECMP routes the system installs when no system-wide setting raises the cap (a Comware
    #: `max-ecmp-num`); None: BGP multipath alone decides. Compile sets the cap to
    #: `underlay.max_paths` where that is higher.
    default_max_ecmp: int | None = None
    #: Multihop BFD for sessions between loopbacks (the EVPN overlay) is documented for the NOS.
    multihop_bfd: bool = False
    #: VRF, ACL and VSI names the NOS keeps for itself (its default and management VRFs):
    #: tenant names become these names, so a tenant may not take one, in any letter case.
    reserved_names: tuple[str, ...] = ()
    #: The longest VRF name the NOS takes (a tenant's VRF is `tnt-<name>`); None: no shorter limit
    #: than fabricctl's own.
    max_vrf_name: int | None = None
    #: VLAN ids the NOS keeps for itself (inclusive ranges): no l2 tenant's VLAN may take one.
    reserved_vlans: tuple[tuple[int, int], ...] = ()
    #: Settings the switch applies only at its next boot (platforms/boot.py), with their sources.
    boot_settings: tuple[BootSetting, ...] = ()
    #: How the switch is told to reboot (`fabricctl reboot --rolling`); None: not over its CLI.
    reboot: Reboot | None = None
    #: An l2 tenant's SVI needs an address of its own on each switch besides the anycast gateway
    #: (Cumulus Linux VRR); compile gives it one from the tenant's block.
    svi_address: bool = False
    #: (switch, running text, intended text, its dialect, prune) -> the remediation and its
    #: reviewable diff (plan, a push's convergence check and restore, the rollback of a failed
    #: apply): by default the shared remediation over the platform's `dialect` (config/diff.py).
    differ: Differ = diff_device
    #: How a lossless port's PFC headroom is sized: "cells" (a line gives the size in buffer
    #: cells, computed by compile/buffers.py), "cable-length" (a line gives the cable length and
    #: the NOS sizes it), "nos" (the NOS sizes it from nothing fabricctl sets).
    headroom: Literal["cells", "cable-length", "nos"] = "nos"
    #: The serial number and model the switch reports (`rack accept`); None: not read on it.
    identity: IdentityReader | None = None
    #: The folder holding `<name>/device.j2` and the templates it includes, where the NOS ships
    #: its templates in its own distribution; None: fabricctl's built-in templates/. Searched
    #: after the fabric repo's own templates/ and the built-in ones.
    templates: str | None = None

    def reserved(self, name: str) -> str | None:
        """Why `name` cannot name a tenant's VRF, ACL or VSI on this NOS, or None."""
        folded = name.casefold()
        if folded.startswith(RESERVED_PREFIX):
            return f"names starting with '{RESERVED_PREFIX}' are kept for fabricctl's own objects"
        vrf = TENANT_PREFIX + name
        if self.max_vrf_name is not None and len(vrf) > self.max_vrf_name:
            return f"{self.title} takes VRF names of at most {self.max_vrf_name} characters ({vrf} has {len(vrf)})"
        if folded in (n.casefold() for n in (*COMMON_RESERVED_NAMES, *self.reserved_names)):
            return f"{self.title} reserves it (a default or management VRF, outside what fabricctl owns)"
        return None

    def reserved_list(self) -> list[str]:
        """Every reserved name, lower-cased, for the 'allowed' part of an error."""
        names = {n.casefold() for n in (*COMMON_RESERVED_NAMES, *self.reserved_names)}
        return [*sorted(names), f"{RESERVED_PREFIX}*"]

    @property
    def template_folder(self) -> str:
        """Its folder under templates/ (built-in, and in a fabric repo's own templates/)."""
        return self.name

    @property
    def device_template(self) -> str:
        """The template that renders a whole switch (it includes the per-feature ones)."""
        return f"{self.template_folder}/device.j2"

    def config_diff(
        self, name: str, running: str, intended: str, dialect: Dialect | None = None, prune: bool = False
    ) -> DeviceDiff:
        """Running vs intended config of switch `name` as this NOS compares them: the commands
        that remediate it and the diff a reviewer reads (`dialect`: its rules for one fabric,
        Dialect.for_fabric; by default its own)."""
        return self.differ(name, running, intended, dialect or self.dialect, prune)

    def pusher(self) -> Pusher:
        """The push protocol module (connect, fetch, push with commit-confirm, restore)."""
        from fabricctl.platforms.push import Pusher

        pusher = getattr(importlib.import_module(self.push_module), "PUSHER", None)
        if not isinstance(pusher, Pusher):
            raise TypeError(f"{self.push_module}.PUSHER does not implement the push protocol")
        return pusher

    def model(self, name: str = "") -> SwitchModel:
        """The model `name` (a switch's `data.model`; "" the default). load refuses unknown names."""
        if not name:
            return self.models[0]
        found = next((m for m in self.models if m.name == name), None)
        if found is None:
            raise KeyError(f"{self.title} has no model {name!r} (known: {', '.join(self.model_names)})")
        return found

    @property
    def model_names(self) -> list[str]:
        return [m.name for m in self.models]

    def release(self, name: str = "") -> Release:
        """The release `name` (a switch's `data.os_version`; "" the newest). load refuses unknown names."""
        if not name:
            return self.releases[0]
        found = next((r for r in self.releases if r.name == name), None)
        if found is None:
            raise KeyError(f"{self.title} has no release {name!r} (known: {', '.join(self.release_names)})")
        return found

    @property
    def release_names(self) -> list[str]:
        return [r.name for r in self.releases]

    @property
    def breakouts(self) -> tuple[str, ...]:
        """Every breakout mode one of its models takes (its templates spell each)."""
        return tuple(sorted({b for m in self.models for b in m.breakouts}))

    def port_namer(self, model: str = "") -> PortNamer:
        """How ports are named on the model (its own names, or the platform's)."""
        return self.model(model).port_name or self.port_name

    def limits_with(self, overrides: Mapping[str, int], model: str = "") -> Limits:
        """The model's datasheet limits with the fabric's own overrides applied."""
        known = {f.name for f in fields(Limits)}
        base = self.model(model).limits
        return Limits(**{**base.__dict__, **{k: v for k, v in overrides.items() if k in known}})
