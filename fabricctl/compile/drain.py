"""maintenance.yaml against the topology: which underlay sessions each switch shuts down gracefully.

A drained switch shuts down every underlay session it has (RFC 8326 graceful shutdown: the
routes it announces carry the GRACEFUL_SHUTDOWN community, those it hears get LOCAL_PREF 0), so
every neighbour moves its traffic to the other paths before anything goes down. A drained link
does the same for the one session over that cable, at both ends: each end stops preferring it,
whatever the far end's NOS does with the community. How each NOS writes it is its templates'
business (templates/<nos>/bgp*.j2); the intent says only which sessions (`Bgp.graceful_shutdown*`).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from fabricctl.compile.topology import FabricLink, Topology, addr_str
from fabricctl.compile.view import FabricView, read_fabric
from fabricctl.model.bounds import MAX_INVENTORY_FILE_BYTES
from fabricctl.model.load import Fabric, validate_doc
from fabricctl.model.maintenance import MAINTENANCE_FILE, NOTHING_DRAINED, Drain, Maintenance
from fabricctl.model.problems import ProblemLog
from fabricctl.model.yamlsource import YamlDoc, load_yaml


@dataclass(frozen=True)
class DrainedOn:
    """What one switch shuts down gracefully: the whole switch, and the peers whose sessions go."""

    whole: bool = False
    peers: tuple[str, ...] = ()  # underlay neighbour addresses, sorted


NOT_DRAINED = DrainedOn()


def load_maintenance(root: Path, log: ProblemLog) -> tuple[Maintenance, YamlDoc | None]:
    """The fabric's maintenance.yaml (NOTHING_DRAINED without one); problems go to `log`."""
    path = root / MAINTENANCE_FILE
    if not (path.is_file() or path.is_symlink()):
        return NOTHING_DRAINED, None
    doc = load_yaml(path, log, max_bytes=MAX_INVENTORY_FILE_BYTES)
    if doc is None:
        return NOTHING_DRAINED, None
    if doc.data is None:  # an empty file drains nothing
        return NOTHING_DRAINED, doc
    found = validate_doc(doc, Maintenance, log)
    return (found or NOTHING_DRAINED), doc


def drained_links(maintenance: Maintenance, topo: Topology) -> list[FabricLink]:
    """Every fabric link out of the forwarding path: those of a drained switch, and drained ones."""
    switches = {d.switch for d in maintenance.drained if d.port is None}
    ports = {(d.switch, d.port) for d in maintenance.drained if d.port is not None}
    return [
        ln
        for ln in topo.links
        if ln.leaf in switches
        or ln.spine in switches
        or (ln.leaf, ln.leaf_port) in ports
        or (ln.spine, ln.spine_port) in ports
    ]


def drained_on(maintenance: Maintenance, topo: Topology, switch: str) -> DrainedOn:
    """The sessions `switch` shuts down: all of its underlay ones when it is drained (its
    neighbours, receivers of the community, change nothing: RFC 8326 needs no configuration at
    maintenance time but the initiator's), and the one over each drained link it terminates,
    whichever end maintenance.yaml names (so the link is left whatever the far end's NOS does
    with the community)."""
    if not maintenance.drained:
        return NOT_DRAINED
    whole = any(d.switch == switch and d.port is None for d in maintenance.drained)
    ports = {(d.switch, d.port) for d in maintenance.drained if d.port is not None}
    peers = set()
    for ln in topo.links_of(switch):
        link_drained = (ln.leaf, ln.leaf_port) in ports or (ln.spine, ln.spine_port) in ports
        if not (whole or link_drained):
            continue
        peers.add(addr_str(ln.spine_ip if ln.leaf == switch else ln.leaf_ip))
    if not whole and not peers:
        return NOT_DRAINED
    return DrainedOn(whole, tuple(sorted(peers, key=lambda ip: tuple(map(int, ip.split("."))))))


def link_name(link: FabricLink) -> str:
    """How a plan names a drained link, whichever end maintenance.yaml named: by its lower
    switch's port (a leaf's uplink, a spine's link up to a super-spine)."""
    return f"{link.leaf}:{link.leaf_port}"


def plan_name(topo: Topology, drain: Drain) -> str:
    """`drain`'s target as a plan names it (link_name for a link; a switch by its name)."""
    if drain.port is None:
        return drain.switch
    end = (drain.switch, drain.port)
    for ln in topo.links_of(drain.switch):
        if end in ((ln.leaf, ln.leaf_port), (ln.spine, ln.spine_port)):
            return link_name(ln)
    return drain.target


def check_drains(
    fabric: Fabric | FabricView,
    topo: Topology,
    maintenance: Maintenance,
    doc: YamlDoc | None,
    log: ProblemLog,
) -> None:
    """Every entry names a switch of the inventory and, when it names a port, one of that
    switch's fabric ports; no target twice, no port of a switch that is drained whole."""
    fabric = read_fabric(fabric)
    if doc is None:
        return
    for i, d in enumerate(maintenance.drained):
        problem = target_problem(fabric, topo, maintenance.drained[:i], d)
        if problem is not None:
            field, message, allowed = problem
            path = ("drained", i, field) if field else ("drained", i)
            log.add(
                doc.file,
                doc.line_of(path),
                f"drained[{i}]" + (f".{field}" if field else ""),
                message,
                allowed,
            )


def target_problem(
    fabric: Fabric | FabricView, topo: Topology, before: list[Drain], d: Drain
) -> tuple[str, str, str] | None:
    """What is wrong with draining `d` after the entries `before`: (field, message, allowed), or
    None. The field is `switch` or `port` (the value that is wrong), or "" (the entry as a whole)."""
    fabric = read_fabric(fabric)
    if fabric.switch(d.switch) is None:
        close = difflib.get_close_matches(d.switch, [sw.name for sw in fabric.switches], n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return (
            "switch",
            f"no switch named {d.switch!r} in the inventory{hint}",
            "a switch of inventory/hosts.yaml",
        )
    if d.port is not None:
        ports = _fabric_ports(topo, d.switch)
        if d.port not in ports:
            gpu = any(gp.name == d.port for gp in topo.gpu_ports.get(d.switch, ()))
            why = (
                " (a GPU port: a drain takes fabric links out of service, never a tenant's GPU)"
                if gpu
                else ""
            )
            return "port", f"{d.port!r} is not a fabric port of {d.switch}{why}", _listed(ports)
        if any(b.switch == d.switch and b.port is None for b in before):
            return (
                "",
                f"{d.target} is drained already: {d.switch} is drained as a whole",
                "one entry per switch or link",
            )
    if d.port is None and any(b.switch == d.switch for b in before):
        links = ", ".join(b.target for b in before if b.switch == d.switch)
        return (
            "",
            f"{d.switch} has drained links ({links}): undrain them before draining it whole",
            "one entry per switch or link",
        )
    if any(b.target == d.target for b in before):
        return "", f"{d.target} is drained already", "one entry per switch or link"
    return None


def _fabric_ports(topo: Topology, switch: str) -> list[str]:
    out = []
    for ln in topo.links_of(switch):
        out.append(ln.leaf_port if ln.leaf == switch else ln.spine_port)
    return out


def _listed(ports: list[str]) -> str:
    if not ports:
        return "none: the switch has no fabric links"
    shown = ", ".join(ports[:6])
    return f"{shown} ... ({len(ports)} fabric ports)" if len(ports) > 6 else shown


def drain_of(maintenance: Maintenance, target: str) -> Drain | None:
    """The entry of `spine3` or `leaf1:Ethernet3`, if maintenance.yaml has it."""
    return next((d for d in maintenance.drained if d.target == target), None)
