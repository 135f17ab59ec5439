"""What a plan does to each tenant's running service, read from the switches' own configs.

The running config of every switch a plan changes and the config it will run are both read back
into the neutral model (config/readback.py), and each tenant's footprint is compared: its VRF,
its GPU ports (mode, addresses, admin state), its gateways and its ACL's permitted blocks.

Classes, per tenant:
- `added`: nothing of it runs anywhere yet; `removed`: it runs, and no tenant file defines it;
- `re-addressed`: a server NIC it keeps is given another address or gateway (l3 -> l2, l2 -> l3,
  a new address block, a gateway moved), or a gateway or switch port takes an address a server
  NIC holds now: the servers must follow, and the plan lists every NIC with old -> new;
- `isolation changed`: a port it keeps changes mode (routed <-> bridged), or the blocks its
  ACL lets in change (who can reach it);
- `ports flapped`: a port it keeps goes down and up (a mode change, a breakout, a shutdown);
- `moved`: a GPU it holds moves to another leaf or port (recorded by the plan's move list);
- `changed`: anything else (a description, GPUs added or returned).

The first five after `added` are service-affecting: they head every plan format, and apply
pushes them only with --allow-disruptive or a canary (deploy/service.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from ipaddress import ip_interface, ip_network
from typing import TYPE_CHECKING

from fabricctl.config.readback import SwitchConfig
from fabricctl.config.rules import TENANT_PREFIX, Dialect
from fabricctl.platforms import get_platform

if TYPE_CHECKING:
    from fabricctl.compile.build import Compiled
    from fabricctl.compile.intent import DeviceIntent
    from fabricctl.deploy.plan import Plan

ADDED, REMOVED, CHANGED = "added", "removed", "changed"
MOVED, READDRESSED, ISOLATION, FLAPPED = "moved", "re-addressed", "isolation changed", "ports flapped"
#: Classes that interrupt or re-shape a running tenant's service, most severe first.
DISRUPTIVE = (REMOVED, MOVED, READDRESSED, ISOLATION, FLAPPED)


@dataclass(frozen=True)
class NicAddress:
    """What a GPU port gives the server NIC cabled to it: an l3 port its /31's other end, with
    the port's own address as its gateway; an l2 port any host of its segment's subnet but the
    gateway (the server team's choice, `address` None), with the segment's anycast gateway."""

    subnet: str  # "10.31.0.0/31", "10.31.0.0/24"
    gateway: str  # "10.31.0.0"
    address: str | None = None  # "10.31.0.1/31"; None: a host of `subnet` the server team picks

    def text(self) -> str:
        own = self.address or f"a host of {self.subnet}"
        return f"{own} via {self.gateway}"

    @classmethod
    def routed(cls, port: str) -> NicAddress:
        """The NIC behind a routed port whose address (a /31) is `port`."""
        at = ip_interface(port)
        other = next((h for h in at.network if h != at.ip), at.ip)
        return cls(str(at.network), str(at.ip), f"{other}/{at.network.prefixlen}")

    @classmethod
    def bridged(cls, gateway: str) -> NicAddress:
        """The NIC behind a bridged port whose segment's gateway is `gateway` (CIDR)."""
        at = ip_interface(gateway)
        return cls(str(at.network), str(at.ip))


@dataclass(frozen=True)
class PortState:
    """One tenant port as a config has it (`name`: what the config calls it)."""

    name: str
    routed: bool
    addresses: frozenset[str]
    down: bool
    nic: NicAddress | None = None  # what the server NIC behind it is given (None: nothing yet)


#: Where a port is: its front-panel position and lane (a whole port and its first lane are one
#: place, as a breakout keeps the GPU cabled there), or its name when it is no front-panel port.
Place = tuple[int, int] | str


def place_of(platform: str, name: str) -> Place:
    at = get_platform(platform).port_position(name)
    return (at[0], at[1] or 1) if at is not None else name


@dataclass
class Footprint:
    """What one config holds of one tenant."""

    vrf: bool = False
    ports: dict[tuple[str, Place], PortState] = field(default_factory=dict)  # (switch, place) ->
    gateways: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict)
    permits: set[str] = field(default_factory=set)  # blocks its ACL lets in

    @property
    def runs(self) -> bool:
        return self.vrf or bool(self.ports) or bool(self.gateways)


@dataclass
class TenantEffect:
    """The classes of one tenant and the evidence behind each (switch port, old -> new)."""

    name: str
    classes: list[str] = field(default_factory=list)
    evidence: dict[str, list[str]] = field(default_factory=dict)
    #: Every server NIC whose address or gateway the change gives another value (all of them,
    #: where `evidence` keeps the first few): what the server team must change on each server.
    readdressed: list[dict[str, str]] = field(default_factory=list)
    #: What the switches hold of it differs before and after (not only: it sits on a changed switch).
    differs: bool = False

    def add(self, cls: str, why: str) -> None:
        if cls not in self.classes:
            self.classes.append(cls)
        self.evidence.setdefault(cls, [])
        if len(self.evidence[cls]) < 20:  # enough to read; the plan's diff has the rest
            self.evidence[cls].append(why)

    @property
    def disruptive(self) -> list[str]:
        return [c for c in DISRUPTIVE if c in self.classes]


class _Names:
    """Which config objects belong to which tenant (from the intents, the VRF name otherwise)."""

    def __init__(self, compiled: Compiled) -> None:
        self.vrf: dict[str, str] = {}
        self.segment: dict[str, str] = {}
        self.acl: dict[str, str] = {}
        for intent in compiled.intents.values():
            for v in intent.vrfs:
                self.vrf[v.name] = v.tenant
            for vl in intent.vlans:
                self.segment[vl.name] = vl.tenant
                self.segment[str(vl.id)] = vl.tenant
            for a in intent.acls:
                self.acl[a.name] = a.tenant

    def of_vrf(self, name: str) -> str | None:
        if name in self.vrf:
            return self.vrf[name]
        return name.removeprefix(TENANT_PREFIX) if name.startswith(TENANT_PREFIX) else None


def footprints(cfg: SwitchConfig, names: _Names, gpu_places: set[Place]) -> dict[str, Footprint]:
    """tenant -> what this config holds of it (GPU ports by place, whatever their name)."""
    out: dict[str, Footprint] = {}
    for vrf in cfg.vrfs:
        tenant = names.of_vrf(vrf)
        if tenant is not None:
            out.setdefault(tenant, Footprint()).vrf = True
    gateways = {seg.gateway.value: key for key, seg in cfg.segments.items() if seg.gateway is not None}
    svi_address = {
        name: str((intf.anycast or intf.ipv4[0]).value)
        for name, intf in cfg.interfaces.items()
        if name in gateways and intf.ipv4
    }
    for name, intf in cfg.interfaces.items():
        tenant = None
        if intf.vrf is not None:
            tenant = names.of_vrf(intf.vrf.value)
        if tenant is None and intf.segment is not None:
            seg = cfg.segments.get(intf.segment.value)
            tenant = names.segment.get(intf.segment.value) or names.of_vrf(seg.label if seg else "")
        if tenant is None:
            continue
        addresses = frozenset(str(a.value) for a in intf.ipv4)
        place = place_of(cfg.platform, name)
        if name in gateways or place not in gpu_places:
            if addresses:
                out.setdefault(tenant, Footprint()).gateways[(cfg.name, name)] = addresses
            continue
        routed = intf.segment is None
        nic = None
        if routed and addresses:
            nic = NicAddress.routed(min(addresses))
        elif not routed and intf.segment is not None:
            seg = cfg.segments.get(intf.segment.value)
            svi = seg.gateway.value if seg is not None and seg.gateway is not None else None
            nic = NicAddress.bridged(svi_address[svi]) if svi in svi_address else None
        out.setdefault(tenant, Footprint()).ports[(cfg.name, place)] = PortState(
            name, routed, addresses, intf.shutdown is not None, nic
        )
    for acl in cfg.acls.values():
        tenant = names.acl.get(acl.name)
        if tenant is None and acl.name.startswith(TENANT_PREFIX):
            tenant = acl.name.removeprefix(TENANT_PREFIX).removesuffix("-in")
        if tenant is not None:
            out.setdefault(tenant, Footprint()).permits |= {  # other blocks (not its own, to itself)
                str(r.destination)
                for r in acl.rules
                if r.action == "permit" and r.destination is not None and r.destination != r.source
            }
    return out


def _flapping_ports(diff: str, dialect: Dialect) -> set[str]:
    """Ports whose section in a plan diff changes a line that takes the port down and up, or
    shuts it."""
    out: set[str] = set()
    section = ""
    down = re.compile(dialect.admin_down)
    for raw in diff.splitlines():
        if raw.startswith(("--- ", "+++ ")) or not raw:
            continue
        body = raw[1:]
        if not body.startswith(" "):
            section = body.removeprefix("interface ").strip()
            continue
        line = body.strip()
        flap = raw[0] in "+-" and any(p.match(line) for p in dialect.compiled_flaps)
        if flap or (raw[0] == "+" and down.match(line)):
            out.add(section)
    return out


def intended_footprints(intent: DeviceIntent) -> dict[str, Footprint]:
    """tenant -> what the switch will hold of it, from its intent (what the config says too,
    without parsing the rendered text again)."""
    out: dict[str, Footprint] = {}
    svi = get_platform(intent.platform).dialect.vlan_objects
    for vrf in intent.vrfs:
        out.setdefault(vrf.tenant, Footprint()).vrf = True
    for vlan in intent.vlans:
        gateway = next((f.format(id=vlan.id) for f in svi if not f.startswith("vlan ")), str(vlan.id))
        fp = out.setdefault(vlan.tenant, Footprint())
        own = (vlan.address,) if vlan.address else ()  # the switch's own SVI address (NVUE VRR)
        fp.gateways[(intent.name, gateway)] = frozenset(str(ip_interface(a)) for a in (vlan.gateway, *own))
    vlan_gateway = {v.id: v.gateway for v in intent.vlans}
    for intf in intent.interfaces:
        if intf.role != "gpu" or not intf.tenant:
            continue
        addresses = frozenset({str(ip_interface(intf.ipv4))} if intf.ipv4 else ())
        nic = None
        if intf.routed and intf.ipv4:
            nic = NicAddress.routed(intf.ipv4)
        elif not intf.routed and intf.access_vlan in vlan_gateway:
            nic = NicAddress.bridged(vlan_gateway[intf.access_vlan])
        out.setdefault(intf.tenant, Footprint()).ports[
            (intent.name, place_of(intent.platform, intf.name))
        ] = PortState(intf.name, intf.routed, addresses, not intf.enabled, nic)
    for acl in intent.acls:
        out.setdefault(acl.tenant, Footprint()).permits |= {
            str(ip_network(e.destination))
            for e in acl.entries
            if e.action == "permit" and e.destination is not None and e.destination != e.source
        }
    return out


def classify(compiled: Compiled, plan: Plan, running: dict[str, SwitchConfig]) -> dict[str, TenantEffect]:
    """tenant -> its classes, over the switches the plan changes (the others run their intent);
    `running`: their running configs, read back."""
    names = _Names(compiled)
    gpus = {a.name for a in compiled.allocation.tenants}
    before: dict[str, Footprint] = {}
    after: dict[str, Footprint] = {}
    flapping: set[tuple[str, Place]] = set()
    touched: dict[str, set[str]] = {}
    for name in plan.changed:
        sp = plan.switches[name]
        intent = compiled.intents.get(name)
        if name not in running or intent is None:
            continue
        places = {place_of(sp.platform, i.name) for i in intent.interfaces if i.role == "gpu"}
        was = footprints(running[name], names, places)
        for side, found in ((before, was), (after, intended_footprints(intent))):
            for tenant, fp in found.items():
                _merge(side.setdefault(tenant, Footprint()), fp)
                touched.setdefault(tenant, set()).add(name)
        dialect = get_platform(sp.platform).dialect
        flapping |= {(name, place_of(sp.platform, port)) for port in _flapping_ports(sp.diff, dialect)}
    on_unchanged = {
        t for n, sp in plan.switches.items() if sp.status == "unchanged" for t in _tenants_on(compiled, n)
    }
    servers = _servers(compiled)
    #: Every address a server NIC holds now (l3: its /31 end), and whose it is.
    held = {
        nic.address.split("/")[0]: servers.get(key, f"{port.name} ({key[0]})")
        for fp in before.values()
        for key, port in fp.ports.items()
        if (nic := port.nic) is not None and nic.address
    }
    effects: dict[str, TenantEffect] = {}
    for tenant in sorted(before.keys() | after.keys()):
        old, new = before.get(tenant, Footprint()), after.get(tenant, Footprint())
        effect = effects[tenant] = TenantEffect(tenant)
        if tenant not in gpus:
            if old.runs:
                effect.add(REMOVED, f"{len(old.ports)} GPU port(s) returned to the secure default")
            continue
        if not old.runs and tenant not in on_unchanged:
            effect.add(ADDED, f"{len(new.ports)} GPU port(s) on {len(touched.get(tenant, ()))} switch(es)")
            continue
        effect.differs = old != new
        _readdressed(effect, old, new, servers, held)
        _compare(effect, old, new, flapping)
        if not effect.classes and (old != new or tenant in touched):
            effect.add(CHANGED, "its objects change")
    return effects


def _servers(compiled: Compiled) -> dict[tuple[str, Place], str]:
    """(leaf, place) -> "gpu079 nic0": the server NIC cabled to each GPU port."""
    out = {}
    for leaf, ports in compiled.topology.gpu_ports.items():
        switch = compiled.fabric.switch(leaf)
        platform = switch.platform if switch is not None else ""
        for gp in ports:
            out[(leaf, place_of(platform, gp.name) if platform else gp.name)] = f"{gp.server} nic{gp.nic}"
    return out


def _readdressed(
    effect: TenantEffect,
    old: Footprint,
    new: Footprint,
    servers: dict[tuple[str, Place], str],
    held: dict[str, str],
) -> None:
    """Every server NIC the tenant keeps whose address or gateway changes, and every new
    gateway or switch address that takes an address a server NIC holds now."""
    taken: dict[str, str] = {}  # an address -> what holds it after the change
    for (switch, _), port in new.ports.items():
        for address in port.addresses:
            taken[address.split("/")[0]] = f"{switch} {port.name}"
        if port.nic is not None and not port.routed:
            taken[port.nic.gateway] = f"the tenant's gateway ({port.nic.gateway})"
    for key in sorted(old.ports.keys() & new.ports.keys(), key=lambda k: _natural(servers.get(k, str(k)))):
        was, now = old.ports[key].nic, new.ports[key].nic
        if was is None or now is None or was == now:
            continue
        nic = servers.get(key, f"{new.ports[key].name} ({key[0]})")
        where = f"{key[0]} {new.ports[key].name}"
        note = ""
        if was.address and was.address.split("/")[0] in taken:
            note = f"{taken[was.address.split('/')[0]]} takes its address"
        effect.readdressed.append(
            {
                "nic": nic,
                "switch": key[0],
                "port": new.ports[key].name,
                "old": was.text(),
                "new": now.text(),
                "note": note,
            }
        )
        effect.add(
            READDRESSED, f"{nic} ({where}): {was.text()} -> {now.text()}" + (f"; {note}" if note else "")
        )
    mine = {e["nic"] for e in effect.readdressed}
    for address, what in sorted(taken.items()):
        owner = held.get(address)
        if owner is not None and owner not in mine:  # another tenant's server keeps its address
            effect.add(READDRESSED, f"{what} takes {address}, held by {owner}")


def _natural(text: str) -> list[object]:
    """'gpu079 nic10' after 'gpu079 nic9': numbers compared as numbers."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def _tenants_on(compiled: Compiled, switch: str) -> set[str]:
    intent = compiled.intents.get(switch)
    if intent is None:
        return set()
    return {v.tenant for v in intent.vrfs} | {i.tenant for i in intent.interfaces if i.tenant}


def _merge(into: Footprint, fp: Footprint) -> None:
    into.vrf |= fp.vrf
    into.ports.update(fp.ports)
    into.gateways.update(fp.gateways)
    into.permits |= fp.permits


def _compare(effect: TenantEffect, old: Footprint, new: Footprint, flapping: set[tuple[str, Place]]) -> None:
    for key in sorted(old.ports.keys() & new.ports.keys(), key=str):
        was, now = old.ports[key], new.ports[key]
        where = f"{key[0]} {was.name}" + (f" (now {now.name})" if now.name != was.name else "")
        if was.nic is None and was.addresses and now.addresses and was.addresses != now.addresses:
            effect.add(READDRESSED, f"{where}: {_addr(was.addresses)} -> {_addr(now.addresses)}")
        if was.routed != now.routed:
            effect.add(ISOLATION, f"{where}: {_mode(was.routed)} -> {_mode(now.routed)}")
        if key in flapping or (not was.down and now.down):
            effect.add(FLAPPED, where)
    for key in sorted(old.gateways.keys() & new.gateways.keys()):
        if old.gateways[key] != new.gateways[key]:
            where = " ".join(key)
            effect.add(READDRESSED, f"{where}: {_addr(old.gateways[key])} -> {_addr(new.gateways[key])}")
    if old.runs and old.permits != new.permits:
        gone, came = sorted(old.permits - new.permits), sorted(new.permits - old.permits)
        parts = ([f"no longer lets in {', '.join(gone)}"] if gone else []) + (
            [f"now lets in {', '.join(came)}"] if came else []
        )
        effect.add(ISOLATION, "; ".join(parts))
    returned = old.ports.keys() - new.ports.keys()
    gained = new.ports.keys() - old.ports.keys()
    if returned or gained:
        effect.add(
            CHANGED,
            ", ".join(
                ([f"{len(gained)} GPU port(s) added"] if gained else [])
                + ([f"{len(returned)} GPU port(s) returned"] if returned else [])
            ),
        )


def _addr(addresses: Iterable[str]) -> str:
    return ", ".join(sorted(addresses))


def _mode(routed: bool) -> str:
    return "routed (l3)" if routed else "bridged (l2)"
