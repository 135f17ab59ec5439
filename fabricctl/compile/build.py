"""The compile stage: inventory + tenants -> Allocation -> {switch: DeviceIntent}."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path

from fabricctl.compile import tenants as tenant_objects
from fabricctl.compile import underlay
from fabricctl.compile.allocate import Allocation, allocate
from fabricctl.compile.capabilities import check_capabilities
from fabricctl.compile.drain import check_drains, drained_on, load_maintenance
from fabricctl.compile.intent import Breakout, DeviceIntent, Interface, Vtep
from fabricctl.compile.lossless import qos_intent
from fabricctl.compile.racks import check_racks
from fabricctl.compile.topology import Topology, addr_str, build_topology
from fabricctl.compile.view import FabricView, read_fabric
from fabricctl.model.fabric import Switch
from fabricctl.model.load import Fabric, TenantDoc, load_fabric, load_tenants
from fabricctl.model.maintenance import Maintenance
from fabricctl.model.problems import ProblemLog
from fabricctl.model.rack import RACKS, load_racks
from fabricctl.procs import paused_gc


@dataclass
class Compiled:
    """Everything downstream stages need: the inputs, the allocation and per-switch intent."""

    fabric: Fabric
    tenants: list[TenantDoc]
    topology: Topology
    allocation: Allocation
    intents: dict[str, DeviceIntent]


def load_and_check(root: Path) -> tuple[Fabric, list[TenantDoc], Topology, Allocation]:
    """Load and validate the whole fabric repo; raises InputError with every problem at once."""
    with paused_gc():  # tens of thousands of tenant models, no cycles: see procs.paused_gc
        view, docs, topo, alloc = _load_and_check(root)
    return view.fabric, docs, topo, alloc


def _load_and_check(root: Path) -> tuple[FabricView, list[TenantDoc], Topology, Allocation]:
    log = ProblemLog(root)
    fabric = load_fabric(root, log)
    docs = load_tenants(root, log)
    log.check()
    assert fabric is not None
    view, topo, alloc = _checked(root, fabric, docs, log)
    return view, docs, topo, alloc


def _checked(
    root: Path, fabric: Fabric, docs: list[TenantDoc], log: ProblemLog
) -> tuple[FabricView, Topology, Allocation]:
    """The model read once into the view every later step works from, then topology, racks,
    drains, allocation and capabilities checked over it."""
    view = read_fabric(fabric)
    topo = build_topology(view, log)
    log.check()
    assert topo is not None
    if (root / RACKS).is_dir():  # racks against the inventory and cabling rules (compile/racks.py)
        check_racks(view, topo, load_racks(root, log), log)
        log.check()
    maintenance, doc = load_maintenance(root, log)
    check_drains(view, topo, maintenance, doc, log)
    log.check()
    fabric.maintenance = maintenance
    scratch = ProblemLog(root)
    alloc = allocate(view, topo, docs, scratch)
    if scratch.problems:  # the error path only: git is asked nothing when all is well
        order = blame_order(root, docs)
        if order != docs:
            scratch = ProblemLog(root)
            alloc = allocate(view, topo, order, scratch)
    log.problems += scratch.problems
    check_capabilities(view, alloc, docs, log)
    log.check()
    return view, topo, alloc


def blame_order(root: Path, docs: list[TenantDoc]) -> list[TenantDoc]:
    """The tenants in the order whose later member is blamed for a conflict (a GPU, id, name or
    VNI two tenants claim): files new or modified relative to git HEAD last, each group by id.
    Without git, or with nothing changed, that is id order: the higher id is blamed."""
    from fabricctl.gitinfo import changed_files

    changed = changed_files(root, "tenants")
    if not changed:
        return docs
    return sorted(docs, key=lambda d: (d.file in changed, d.tenant.id))


def compile_fabric(root: Path, only: set[str] | None = None) -> Compiled:
    """Compile every switch (or only the named ones; allocation is always fabric-wide)."""
    with paused_gc():
        view, docs, topo, alloc = _load_and_check(root)
        intents = {
            sw.name: device_intent(view, topo, alloc, sw)
            for sw in view.switches
            if only is None or sw.name in only
        }
    return Compiled(view.fabric, docs, topo, alloc, intents)


def with_maintenance(compiled: Compiled, maintenance: Maintenance) -> Compiled:
    """The same fabric with another maintenance.yaml (a drain proposed, not yet written): only the
    switches whose drained sessions differ are compiled again."""
    fabric = dataclasses.replace(compiled.fabric, maintenance=maintenance)
    view = read_fabric(fabric)
    topo, old = compiled.topology, compiled.fabric.maintenance
    intents = dict(compiled.intents)
    for sw in view.switches:
        if sw.name in intents and drained_on(old, topo, sw.name) != drained_on(maintenance, topo, sw.name):
            intents[sw.name] = device_intent(view, topo, compiled.allocation, sw)
    return Compiled(fabric, compiled.tenants, topo, compiled.allocation, intents)


def device_intent(
    fabric: Fabric | FabricView, topo: Topology, alloc: Allocation, switch: Switch
) -> DeviceIntent:
    """One switch's intent, assembled feature by feature (from the view compile read once; a
    caller with the model alone has it read here)."""
    fabric = read_fabric(fabric)
    model = fabric.model(switch)
    qos = qos_intent(fabric.settings.qos, switch, model)
    interfaces: list[Interface] = underlay.fabric_interfaces(fabric, topo, switch, qos.mtu)
    router_id = addr_str(topo.loopback[switch.name])
    fabric_name = fabric.settings.name
    here = alloc.by_leaf.get(switch.name, []) if switch.role == "leaf" else []
    breakouts: list[Breakout] = []
    if switch.role == "leaf":
        interfaces += tenant_objects.gpu_interfaces(fabric, topo, alloc, switch, qos.tenant_mtu)
        mode = fabric.settings.cabling.gpu_port_breakout
        breakouts = [Breakout(port=p, mode=mode) for p in topo.breakout_parents.get(switch.name, [])]
    # Ports outside the cabling plan are not in the intent: fabricctl never touches them.
    interfaces.sort(key=_port_order)
    return DeviceIntent(
        name=switch.name,
        platform=switch.platform,
        role=switch.role,
        model=switch.model,
        os_version=switch.os_version,
        fabric=fabric.settings.name,
        loopbacks=underlay.loopbacks(topo, switch),
        breakouts=breakouts,
        interfaces=interfaces,
        vrfs=tenant_objects.vrfs(here, router_id, fabric.settings.overlay, fabric_name),
        vlans=tenant_objects.vlans(
            here, switch.name, router_id, fabric.settings.overlay, qos.tenant_mtu, fabric_name
        ),
        acls=tenant_objects.acls(here, fabric_name),
        bgp=underlay.bgp(fabric, topo, switch),
        vtep=Vtep(
            source_interface=1,
            source_ip=addr_str(topo.vtep[switch.name]),
            tunnel_qos=list(model.tunnel_qos.lines()),
        )
        if switch.role == "leaf"
        else None,
        anycast_gateway_mac=fabric.settings.overlay.anycast_gateway_mac if switch.role == "leaf" else None,
        qos=qos,
    )


def _port_order(intf: Interface) -> tuple[int, ...]:
    """Front-panel order: FourHundredGigE1/0/9 before 1/0/10; lanes after their port."""
    return tuple(map(int, _DIGITS.findall(intf.name)))


_DIGITS = re.compile(r"\d+")
