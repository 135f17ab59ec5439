"""Racks against the inventory and the cabling rules, and which GPUs are in service.

A rack's leaves are one rail group of one pod (the leaves the cabling rules give the same
servers), its servers are servers of that rail group, each with one NIC MAC per rail, and the
ports `plugs_into` names are the ones the rules give. A switch belongs to one rack at most; no
serial number or MAC appears twice.

In service: a GPU is placeable when its server is in no rack file (a fabric without racks/, or
servers cabled before racks were recorded: they count as accepted, so existing fabrics behave
exactly as before) or in a rack whose acceptance record passed on the rack as it is now
(model/rack.py `accepted`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fabricctl.compile.topology import Topology
from fabricctl.compile.view import FabricView, read_fabric
from fabricctl.model.fabric import Switch
from fabricctl.model.load import Fabric
from fabricctl.model.problems import ProblemLog
from fabricctl.model.rack import Rack, RackDoc, accepted, load_racks


def span(values: list[int]) -> str:
    """[1, 2, 3, 7] -> '1-3,7' (the PortRange spelling of fabric.yaml)."""
    out: list[list[int]] = []
    for v in sorted(values):
        if out and out[-1][1] == v - 1:
            out[-1][1] = v
        else:
            out.append([v, v])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in out)


def rail_groups(fabric: Fabric | FabricView) -> dict[tuple[int | None, int], list[Switch]]:
    """(pod, rail group) -> its leaves in rail order: consecutive blocks of nics_per_server
    leaves of a pod, as compile/topology.py cables them."""
    fabric = read_fabric(fabric)
    n = fabric.settings.cabling.nics_per_server
    out: dict[tuple[int | None, int], list[Switch]] = {}
    for pod in fabric.pods:
        for i, leaf in enumerate(fabric.in_pod("leaf", pod)):
            out.setdefault((pod, i // n + 1), []).append(leaf)
    return out


def group_servers(topo: Topology, leaves: list[Switch]) -> list[str]:
    """The servers cabled to these leaves, in fabric order."""
    names = {leaf.name for leaf in leaves}
    order = {s: i for i, s in enumerate(topo.servers)}
    found = {p.server for leaf in names for p in topo.gpu_ports.get(leaf, [])}
    return sorted(found, key=lambda s: order.get(s, 0))


def plugs(fabric: Fabric | FabricView, leaves: list[Switch]) -> tuple[str, str]:
    """(leaf_uplink_ports, spine_ports) the cabling rules give these leaves: the uplinks every
    leaf of the pod uses, and the ports each spine of the pod gives these leaves."""
    fabric = read_fabric(fabric)
    cab = fabric.settings.cabling
    per = cab.leaf_uplinks_per_spine
    spines = fabric.in_pod("spine", leaves[0].pod)
    up = list(fabric.ports.leaf_uplinks[: len(spines) * per])
    down = fabric.ports.spine_downlinks
    spine_ports = [down[(leaf.index - 1) * per + k] for leaf in leaves for k in range(per)]
    return span(up), span(spine_ports)


@dataclass(frozen=True)
class RackPlace:
    """Where a rack sits, resolved: its pod, rail group, leaves and servers."""

    pod: int | None
    rail_group: int | None
    leaves: list[Switch]
    servers: list[str]


#: Reports a problem of one rack file: (path to the field, message, what is allowed).
AddProblem = Callable[[tuple[str | int, ...], str, str], None]


def check_racks(
    fabric: Fabric | FabricView, topo: Topology, racks: list[RackDoc], log: ProblemLog
) -> dict[str, RackPlace]:
    """Every rack against the inventory, the cabling rules and the other racks; problems to `log`."""
    fabric = read_fabric(fabric)
    groups = rail_groups(fabric)
    owner: dict[str, str] = {}  # switch / serial / MAC -> the rack and field that has it
    places: dict[str, RackPlace] = {}
    for rd in racks:
        rack = rd.rack

        def add(path: tuple[str | int, ...], message: str, allowed: str, rd: RackDoc = rd) -> None:
            log.add(
                rd.doc.file,
                rd.line(*path),
                ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in path).replace(".[", "["),
                message,
                allowed,
            )

        pod = _check_pod(fabric, rack, add)
        _check_switches(fabric, rack, rd.file, pod, owner, add)
        leaves = [
            fabric.switch(s.name)
            for s in rack.switches
            if s.role == "leaf" and fabric.switch(s.name) is not None
        ]
        members = _check_rail_group(fabric, rack, groups, pod, leaves, add)
        _check_servers(fabric, topo, rack, rd.file, members, owner, add)
        places[rack.name] = RackPlace(
            pod, rack.plugs_into.rail_group, members if leaves else [], [s.name for s in rack.servers]
        )
    return places


def _check_pod(fabric: FabricView, rack: Rack, add: AddProblem) -> int | None:
    """The pod the rack plugs into, as the fabric has pods: None on a 2-tier fabric."""
    pod = rack.plugs_into.pod
    if fabric.multipod and pod is None and rack.switches:
        add(
            ("plugs_into",),
            "a rack of a multi-pod fabric names its pod",
            f"pod: 1-{fabric.settings.pods.max_pods if fabric.settings.pods else 1}",
        )
    if not fabric.multipod and pod is not None:
        add(
            ("plugs_into", "pod"),
            "pod is set but fabric.yaml has no pods: (a 2-tier fabric is one pod)",
            "no pod",
        )
        pod = None
    return pod


def _check_switches(
    fabric: FabricView, rack: Rack, file: str, pod: int | None, owner: dict[str, str], add: AddProblem
) -> None:
    """The rack's switches: each once in all racks, and as the inventory has it."""
    ztp = fabric.settings.ztp
    for i, sw in enumerate(rack.switches):
        for what, value in (("name", sw.name), ("serial", sw.serial), ("mac", sw.mac)):
            key = f"{what}:{value}"
            if key in owner:
                add(
                    ("switches", i, what),
                    f"{value} is also in {owner[key]}",
                    f"a {what} no other rack switch has",
                )
            owner[key] = f"{file} ({sw.name})"
        inv = fabric.switch(sw.name)
        if inv is None:
            add(
                ("switches", i, "name"),
                f"{sw.name} is not in inventory/hosts.yaml",
                "a switch of the inventory (fabricctl rack add writes both)",
            )
            continue
        if inv.role != sw.role:
            add(
                ("switches", i, "role"),
                f"{sw.name} is a {inv.role} in inventory/hosts.yaml, not a {sw.role}",
                inv.role,
            )
        if inv.model and inv.model != sw.model:
            add(
                ("switches", i, "model"),
                f"{sw.name} is a {inv.model} in the inventory, not a {sw.model}",
                inv.model,
            )
        if inv.hostname != str(sw.address):
            add(
                ("switches", i, "address"),
                f"{sw.address} is not {sw.name}'s management address in inventory/hosts.yaml ({inv.hostname or 'none'})",
                inv.hostname or "the inventory's address",
            )
        if ztp is not None and sw.address not in ztp.management:
            add(
                ("switches", i, "address"),
                f"{sw.address} is outside fabric.yaml ztp.management {ztp.management}",
                str(ztp.management),
            )
        if inv.role != "superspine" and fabric.multipod and pod is not None and inv.pod != pod:
            add(
                ("switches", i, "name"),
                f"{sw.name} is in pod {inv.pod}, the rack plugs into pod {pod}",
                f"switches of pod {pod}",
            )


def _check_rail_group(
    fabric: FabricView,
    rack: Rack,
    groups: dict[tuple[int | None, int], list[Switch]],
    pod: int | None,
    leaves: list[Switch | None],
    add: AddProblem,
) -> list[Switch]:
    """The leaves of the rail group the rack plugs into (none when it names none that exists),
    checked against the rack's leaves and the ports the cabling rules give."""
    group = rack.plugs_into.rail_group
    members: list[Switch] = []
    if group is not None:
        members = groups.get((pod, group), [])
        if not members:
            have = sorted(g for p, g in groups if p == pod)
            add(
                ("plugs_into", "rail_group"),
                f"rail group {group} has no leaves{f' in pod {pod}' if pod else ''}",
                f"1-{max(have)}" if have else "a rail group of the inventory",
            )
    elif leaves or rack.servers:
        add(("plugs_into",), "a rack with leaves or servers names its rail_group", "rail_group: N")
    if leaves and members:
        want = {s.name for s in members}
        got = {s.name for s in leaves if s is not None}
        if got != want:
            add(
                ("switches",),
                f"the leaves of rail group {group} are {', '.join(s.name for s in members)}; the rack lists {', '.join(sorted(got))}",
                "every leaf of the rail group, none other",
            )
        else:
            up, down = plugs(fabric, members)
            checks: tuple[tuple[str, str | None, str], ...] = (
                ("leaf_uplink_ports", rack.plugs_into.leaf_uplink_ports, up),
                ("spine_ports", rack.plugs_into.spine_ports, down),
            )
            for key, given, expected in checks:
                if given != expected:
                    add(
                        ("plugs_into", key),
                        f"{given or 'missing'}: the cabling rules give {expected}",
                        expected,
                    )
    return members


def _check_servers(
    fabric: FabricView,
    topo: Topology,
    rack: Rack,
    file: str,
    members: list[Switch],
    owner: dict[str, str],
    add: AddProblem,
) -> None:
    """The rack's servers: each unit and NIC once in all racks, cabled to the rack's rail group,
    with a MAC per NIC."""
    n = fabric.settings.cabling.nics_per_server
    group = rack.plugs_into.rail_group
    servers = group_servers(topo, members) if members else []
    for i, server in enumerate(rack.servers):
        key = f"serial:{server.serial}"  # one namespace with the switches': a serial is one unit's
        if key in owner:
            add(
                ("servers", i, "serial"),
                f"{server.serial} is also in {owner[key]}: a unit is in one rack only",
                "a serial no other rack server or switch has",
            )
        owner[key] = f"{file} ({server.name})"
        for j, mac in enumerate(server.nics):
            key = f"mac:{mac}"
            if key in owner:
                add(
                    ("servers", i, "nics", j),
                    f"{mac} is also in {owner[key]}",
                    "a MAC no other NIC or switch has",
                )
            owner[key] = f"{file} ({server.name} nic{j})"
        key = f"server:{server.name}"
        if key in owner:
            add(
                ("servers", i, "name"),
                f"{server.name} is also in {owner[key]}",
                "a server no other rack has",
            )
        owner[key] = file
        if members and server.name not in servers:
            add(
                ("servers", i, "name"),
                f"{server.name} is not cabled to rail group {group}",
                f"{servers[0]}..{servers[-1]}" if servers else "a server of the rail group",
            )
        if len(server.nics) != n:
            add(
                ("servers", i, "nics"),
                f"{len(server.nics)} NIC MACs; the fabric's servers have {n} (cabling.nics_per_server)",
                f"{n} MACs, NIC 0 first",
            )


def out_of_service(
    fabric: Fabric | FabricView, topo: Topology, log: ProblemLog | None = None
) -> dict[str, str]:
    """Server -> why its GPUs are not placeable ("rack r05 is not accepted yet"), for the servers
        of racks that are not accepted and the servers cabled to their leaves (a leaf that is not
    accepted carries no tenant, whoever the server belongs to). Empty for a fabric without racks/."""
    fabric = read_fabric(fabric)
    scratch = log if log is not None else ProblemLog(fabric.root)
    racks = load_racks(fabric.root, scratch)
    out: dict[str, str] = {}
    for rd in racks:
        ok, why = accepted(fabric.root, rd)
        if not ok:
            leaves = [sw for s in rd.rack.switches if s.role == "leaf" and (sw := fabric.switch(s.name))]
            for server in [*(s.name for s in rd.rack.servers), *group_servers(topo, leaves)]:
                out.setdefault(server, f"rack {rd.rack.name}: {why}")
    return out
