"""Each fabric link's two ends and each leaf's lossless GPU ports as the configs set PFC: the
per-link-end part of the lossless proof a reviewer reads (verify/proofs.py carries it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from fabricctl.config.readback import SwitchConfig
from fabricctl.model.fabric import cable_meters

if TYPE_CHECKING:
    from fabricctl.compile.build import Compiled


class Data(BaseModel):
    """Plain data of the plan file: strict, no unknown field."""

    model_config = ConfigDict(extra="forbid", strict=True)


class LinkEnd(Data):
    switch: str
    port: str
    no_drop: list[int]  # the PFC no-drop priorities the config enables on the port
    headroom_bytes: int | None  # the headroom sized for its speed and cable (the intent's)
    headroom_cells: int | None  # the headroom the config sets, where the NOS takes a size


class LinkProof(Data):
    tier: str  # leaf-spine | spine-superspine
    cable_m: int
    speed_gbps: int | None
    ends: list[LinkEnd]
    agree: bool  # both ends: the same no-drop priorities and headroom
    why: str = ""  # what differs, when they do not


class GpuPortsProof(Data):
    """A leaf's lossless GPU ports: the switch end only (the far end is a server NIC)."""

    switch: str
    ports: int
    no_drop: list[int]
    headroom_bytes: list[int]
    cable_m: int


def link_proofs(
    compiled: Compiled, parsed: dict[str, SwitchConfig]
) -> tuple[list[LinkProof], list[GpuPortsProof]]:
    """Each fabric link's two ends and each leaf's lossless GPU ports, as the configs set them."""
    settings = compiled.fabric.settings
    cable = {"leaf-spine": cable_meters(settings.cabling.uplink_cable)}
    if settings.pods is not None:
        cable["spine-superspine"] = cable_meters(settings.pods.uplink_cable)
    intents = compiled.intents

    def end(switch: str, port: str) -> tuple[LinkEnd, int | None]:
        intent = intents.get(switch)
        planned = next((i for i in intent.interfaces if i.name == port), None) if intent else None
        cfg = parsed.get(switch)
        qos = cfg.interfaces[port].qos if cfg is not None and port in cfg.interfaces else None
        no_drop = sorted(qos.no_drop) if qos is not None else []
        cells = [at.value for at in qos.headroom_cells.values()] if qos is not None else []
        headroom = planned.headroom if planned is not None else None
        speed = planned.speed_gbps if planned is not None else None
        return LinkEnd(
            switch=switch,
            port=port,
            no_drop=no_drop,
            headroom_bytes=headroom,
            headroom_cells=max(cells) if cells else None,
        ), speed

    links = []
    for ln in compiled.topology.links:
        (a, speed), (b, _) = end(ln.leaf, ln.leaf_port), end(ln.spine, ln.spine_port)
        differs = [
            what
            for what, x, y in (
                ("no-drop priorities", a.no_drop, b.no_drop),
                ("headroom", a.headroom_bytes, b.headroom_bytes),
                ("headroom cells", a.headroom_cells, b.headroom_cells),
            )
            if x != y
        ]
        missing = [e.switch for e in (a, b) if not e.no_drop]
        why = "; ".join(
            ([f"{', '.join(differs)} differ"] if differs else []) + [f"no PFC on {s}" for s in missing]
        )
        links.append(
            LinkProof(
                tier=ln.tier,
                cable_m=cable.get(ln.tier, 0),
                speed_gbps=speed,
                ends=[a, b],
                agree=not why,
                why=why,
            )
        )
    gpu: dict[str, tuple[int, set[int], set[int]]] = {}
    for (leaf, port), (alloc, _pa) in sorted(compiled.allocation.port_owner.items()):
        if not alloc.tenant.lossless:
            continue
        e, _ = end(leaf, port)
        count, prios, sizes = gpu.get(leaf, (0, set(), set()))
        gpu[leaf] = (
            count + 1,
            prios | set(e.no_drop),
            sizes | ({e.headroom_bytes} if e.headroom_bytes else set()),
        )
    gpu_cable = cable_meters(settings.cabling.gpu_cable)
    gpu_ports = [
        GpuPortsProof(switch=leaf, ports=n, no_drop=sorted(p), headroom_bytes=sorted(h), cable_m=gpu_cable)
        for leaf, (n, p, h) in gpu.items()
    ]
    return links, gpu_ports
