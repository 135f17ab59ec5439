"""Held GPUs never move: where each tenant's GPUs are cabled, compared before and after a change.

A held GPU is one NIC of one server that a tenant holds, cabled to one leaf port. A change of
inventory, cabling rules or breakout may rename that port (a 2 x 200G breakout names port P's
first lane P:1: the cable that was in the port is the breakout cable's first leg), but must not
move the GPU: the same tenant's server and NIC stay on the same leaf, at the same physical
position (front-panel port and lane, a whole port counting as lane 1), and the port a tenant
names keeps naming the same server and NIC.

"Before" is what the caller trusts: the fabric at a git revision (validate), or the GPU port
descriptions the leaves run (plan and apply: what customers are on now, whatever was committed).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from fabricctl.compile.allocate import Allocation, resolve_gpus
from fabricctl.compile.topology import GpuPort, Topology
from fabricctl.compile.view import read_fabric
from fabricctl.model.load import Fabric, TenantDoc
from fabricctl.model.problems import ProblemLog
from fabricctl.platforms import get_platform

#: What validate and plan allow instead of a move.
ALLOWED = "changes that keep held GPUs on their leaf and port (a breakout keeps port P as its lane 1), or --allow-gpu-moves"


@dataclass(frozen=True, order=True)
class HeldGpu:
    """One GPU a tenant holds and where it is cabled."""

    tenant: str
    server: str
    nic: int
    leaf: str
    port: str  # as the leaf names it
    #: (front-panel port, lane), a whole port being lane 1; None when the name is not one the
    #: leaf's platform gives a GPU port (compared by name then).
    position: tuple[int, int] | None

    @property
    def place(self) -> tuple[str, tuple[int, int] | str]:
        return self.leaf, self.position if self.position is not None else self.port

    @property
    def gpu(self) -> str:
        return f"{self.server} nic{self.nic}"


@dataclass(frozen=True)
class GpuMove:
    """A held GPU whose place (or whose name at its place) a change would alter."""

    before: HeldGpu
    after: HeldGpu

    @property
    def tenant(self) -> str:
        return self.after.tenant

    def text(self) -> str:
        b, a = self.before, self.after
        renamed = f" (there: {a.gpu})" if b.gpu != a.gpu else ""
        return f"{b.gpu} would move from {b.leaf} {b.port} to {a.leaf} {a.port}{renamed}"

    def to_dict(self) -> dict[str, object]:
        b, a = self.before, self.after
        return {
            "tenant": a.tenant,
            "before": {"server": b.server, "nic": b.nic, "leaf": b.leaf, "port": b.port},
            "after": {"server": a.server, "nic": a.nic, "leaf": a.leaf, "port": a.port},
        }


def _position(gp: GpuPort) -> tuple[int, int]:
    return gp.port, gp.lane or 1


def held_gpus(alloc: Allocation) -> list[HeldGpu]:
    """Every GPU every tenant holds in a compiled allocation."""
    return [
        HeldGpu(a.name, pa.gpu.server, pa.gpu.nic, pa.gpu.leaf, pa.gpu.name, _position(pa.gpu))
        for a in alloc.tenants
        for pa in a.ports
    ]


#: An interface block's first line, or a held GPU port's description inside one (the text
#: compile/tenants.py writes), scanned in one pass over a whole running config.
_DESCRIBED = re.compile(r"^interface (\S+)$|^[ \t]+description (\S+) nic(\d+) tenant (\S+)[ \t]*$", re.M)


def described_gpus(leaf: str, platform: str, running: str) -> list[HeldGpu]:
    """The GPUs a leaf's running config says its ports serve: the description fabricctl writes
    on every held GPU port ("gpu079 nic0 tenant uni-nlp")."""
    position_of = get_platform(platform).port_position
    out = []
    port = None
    for m in _DESCRIBED.finditer(running):
        if m[1] is not None:
            port = m[1]
        elif port is not None:
            where = position_of(port)
            position = (where[0], where[1] or 1) if where is not None else None
            out.append(HeldGpu(m[4], m[2], int(m[3]), leaf, port, position))
            port = None
    return out


def moves_on_leaves(alloc: Allocation, running: dict[str, tuple[str, str]]) -> list[GpuMove]:
    """Held GPUs `alloc` would move from where the leaves say they are now (`running`: leaf ->
    (platform, running config)): what customers are on, whatever any commit says."""
    before = [h for leaf, (platform, text) in running.items() for h in described_gpus(leaf, platform, text)]
    return gpu_moves(before, held_gpus(alloc)) if before else []


def gpu_moves(before: Iterable[HeldGpu], after: Iterable[HeldGpu]) -> list[GpuMove]:
    """Held GPUs of the same tenant whose place differs, or whose place now names another
    server or NIC. A GPU a tenant gives up or takes on is a tenant change, not a move."""
    by_gpu: dict[tuple[str, str, int], HeldGpu] = {}
    by_place: dict[tuple[str, object], HeldGpu] = {}
    for h in before:
        by_gpu[(h.tenant, h.server, h.nic)] = h
        by_place[(h.tenant, h.place)] = h
    moves = []
    for h in after:
        was = by_gpu.get((h.tenant, h.server, h.nic))
        if was is None:
            was = by_place.get((h.tenant, h.place))
        if was is not None and (was.place, was.server, was.nic) != (h.place, h.server, h.nic):
            moves.append(GpuMove(was, h))
    return sorted(moves, key=lambda m: (m.after.tenant, m.before.server, m.before.nic))


def log_moves(
    moves: list[GpuMove],
    docs: list[TenantDoc],
    fabric: Fabric,
    topo: Topology,
    log: ProblemLog,
    changes: list[tuple[str, str]],
) -> None:
    """One problem per moved GPU, at the line of its tenant file that names it, and one at each
    inventory change that moves them (`changes`: (field path, what changed) from
    inventory_changes)."""
    tenants = len({m.tenant for m in moves})
    count = f"{_plural(len(moves), 'held GPU')} of {_plural(tenants, 'tenant')}"
    cause = "moved by " + ", ".join(path or "inventory/hosts.yaml" for path, _ in changes)
    for path, what in changes:
        if path:
            where = (fabric.root / "inventory" / "fabric.yaml", fabric.settings_line(*path.split(".")))
        else:
            where = (fabric.root / "inventory" / "hosts.yaml", 1)
        log.add(*where, path, f"{what} would move {count} (each named at its tenant)", ALLOWED)
    by_tenant: dict[str, list[GpuMove]] = {}
    for m in moves:
        by_tenant.setdefault(m.tenant, []).append(m)
    view = read_fabric(fabric)  # read once for every tenant below
    for td in docs:
        mine = by_tenant.get(td.tenant.name)
        if not mine:
            continue
        origin: dict[GpuPort, tuple[str | int, ...]] = {}
        resolve_gpus(td, topo, view, ProblemLog(log.root), origin)
        at = {(gp.leaf, gp.name): path for gp, path in origin.items()}
        for m in mine:
            gpu_path = at.get((m.after.leaf, m.after.port), ("gpus",))
            field = ".".join(f"[{p}]" if isinstance(p, int) else p for p in gpu_path).replace(".[", "[")
            log.add(td.file, td.line(*gpu_path), field, f"{m.text()} ({cause})", ALLOWED)


def inventory_changes(before: Fabric, after: Fabric) -> list[tuple[str, str]]:
    """(fabric.yaml field path, what changed) of every inventory change that can move a GPU:
    the cabling rules, and the leaves of hosts.yaml (path ""; their pods and indexes order the
    servers)."""
    old, new = before.settings.cabling, after.settings.cabling
    out = [
        (f"cabling.{name}", f"{getattr(old, name)} -> {getattr(new, name)}")
        for name in type(new).model_fields
        if getattr(old, name) != getattr(new, name)
    ]
    if [(s.name, s.pod, s.index) for s in before.leaves] != [(s.name, s.pod, s.index) for s in after.leaves]:
        out.append(("", "a change of the leaves (names, pods or indexes)"))
    return out or [("", "the inventory change")]


def _plural(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"
