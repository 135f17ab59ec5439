"""PFC headroom of one lossless port: SONiC's dynamic-buffer headroom calculation, step by step.

After a port sends XOFF for the lossless priority, bytes keep arriving until the far end stops:
what is in the MAC/PHY, on the cable both ways, what the far end sends while it reacts (IEEE
802.3 annex 31B: a number of pause quanta per speed), and one more frame it had started. SONiC
sizes the headroom from exactly these (sonic-net/SONiC doc/qos/dynamically-headroom-calculation.md,
"The well-known formula"); this module follows its implementation line by line,
sonic-net/sonic-swss cfgmgr/buffer_headroom_mellanox.lua at commit e6b0c5b ("Update headroom
calculation algorithm", #3235, and its successors), with the shared headroom pool off:

    worst case factor = ceil(cell / 64)      (cell > 128 bytes; else ceil(2 * cell / (1 + cell)))
    small% by byte    = 100 * 64 / ((small% * 64 + (100 - small%) * lossless MTU) / 100)
    cell occupancy    = (100 - small% by byte + small% by byte * worst case factor) / 100
    8-lane port       : pipeline latency x 2, and one more port MTU of headroom
    bytes on cable    = 2 * cable length * port speed / speed of light in fibre / 8
    peer response     = pause quanta (per speed) * 512 / 8
    propagation delay = port MTU + bytes on cable + MAC/PHY delay + peer response + bytes on tile
    xoff              = ceil1024(lossless MTU + propagation delay * cell occupancy)
                        (+ 2 KB where small% < 100 leaves xoff more than 2 KB below the worst case)
    xon               = ceil1024(pipeline latency)
    headroom          = ceil1024(xoff + xon + 8-lane port MTU)

The ASIC figures (cell size, pipeline latency, MAC/PHY delay, bytes on tile) are each switch
model's own (platforms/<nos>/__init__.py, with their sources), or the fabric's `qos.buffer` for a
model whose vendor publishes none; the speed of light in fibre, 198,000,000 m/s, is SONiC's.
Both ends of a fabric link are sized for the same link: its speed (the slower end's) and its
cable (the cabling rule of its tier).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from fabricctl.compile.topology import FabricLink
from fabricctl.compile.view import FabricView, read_fabric
from fabricctl.model.fabric import ETHERNET_OVERHEAD, ROCE_HEADERS, VXLAN_OVERHEAD, BufferModel
from fabricctl.model.load import Fabric
from fabricctl.platforms.base import BufferFigures, SwitchModel

#: Speed of light in the cable, m/s (buffer_headroom_mellanox.lua `speed_of_light`).
LIGHT_IN_FIBRE = 198_000_000
_MIN_PACKET = 64
_ROUND = 1024
#: Added to xoff when a small-packet share below 100% leaves it more than this below the worst case.
_COMPENSATION = 2 * 1024


@dataclass(frozen=True)
class Headroom:
    """Bytes a lossless priority reserves on one port after it sends XOFF."""

    xoff: int  # in flight after XOFF: what the headroom must absorb
    xon: int  # the pipeline's latency before XON takes effect
    size: int  # the reservation: xoff + xon (+ a port MTU on an 8-lane port), in 1 KB steps
    speed_gbps: int
    cable_m: int


def _ceil(value: float) -> int:
    return math.ceil(value / _ROUND) * _ROUND


def headroom(
    figures: BufferFigures,
    speed_gbps: int,
    lanes: int,
    cable_m: int,
    port_mtu: int,
    lossless_mtu: int,
    small_packet_percent: int,
    pause_quanta: int,
) -> Headroom:
    """The headroom one port needs (see the module docstring); MTUs are frame sizes in bytes."""
    cell = figures.cell_bytes
    worst = math.ceil(cell / _MIN_PACKET if cell > 2 * _MIN_PACKET else 2 * cell / (1 + cell))
    small = small_packet_percent
    by_byte = 100 * _MIN_PACKET / ((small * _MIN_PACKET + (100 - small) * lossless_mtu) / 100)
    occupancy = (100 - by_byte + by_byte * worst) / 100
    eight_lane = lanes == 8
    pipeline = figures.pipeline_latency_bytes * (2 if eight_lane else 1)
    on_cable = 2 * cable_m * speed_gbps * 1e9 / LIGHT_IN_FIBRE / 8
    peer_response = pause_quanta * 512 / 8
    tile = figures.tile_bytes_per_gbps * speed_gbps
    propagation = port_mtu + on_cable + figures.mac_phy_delay_bytes + peer_response + tile
    xoff = _ceil(lossless_mtu + propagation * occupancy)
    if small != 100 and xoff + _COMPENSATION < _ceil(lossless_mtu + propagation * worst):
        xoff += _COMPENSATION
    xon = _ceil(pipeline)
    size = _ceil(xoff + xon + (port_mtu if eight_lane else 0))
    return Headroom(xoff, xon, size, speed_gbps, cable_m)


def figures_for(model: SwitchModel, policy: BufferModel) -> BufferFigures | None:
    """The model's published figures, else the fabric's `qos.buffer` ones, else None."""
    if model.buffer is not None:
        return model.buffer
    if (
        policy.cell_bytes is None
        or policy.pipeline_latency_bytes is None
        or policy.mac_phy_delay_bytes is None
    ):
        return None
    return BufferFigures(
        cell_bytes=policy.cell_bytes,
        pipeline_latency_bytes=policy.pipeline_latency_bytes,
        mac_phy_delay_bytes=policy.mac_phy_delay_bytes,
        source="fabric.yaml qos.buffer",
    )


def lossless_port(
    model: SwitchModel,
    policy: BufferModel,
    speed_gbps: int,
    cable_m: int,
    ip_mtu: int,
    roce_mtu: int,
    vxlan: bool,
) -> int | None:
    """Headroom bytes of one lossless port of `model` running at `speed_gbps` on a `cable_m`
    cable (a fabric link carries RoCE inside VXLAN), or None when no figures size it."""
    figures = figures_for(model, policy)
    if figures is None:
        return None
    packet = roce_mtu + ROCE_HEADERS + (VXLAN_OVERHEAD if vxlan else 0) + ETHERNET_OVERHEAD
    return headroom(
        figures,
        speed_gbps,
        model.serdes(speed_gbps),
        cable_m,
        ip_mtu + ETHERNET_OVERHEAD,
        packet,
        policy.small_packet_percent,
        model.pause_quanta[speed_gbps],
    ).size


def link_sizing(fabric: Fabric | FabricView, link: FabricLink) -> tuple[int, int]:
    """(Gb/s, cable m) one fabric link's headroom is sized for, at both ends: the slower end's
    port speed, and the cabling rule of its tier (`cabling.uplink_cable`, `pods.uplink_cable`)."""
    fabric = read_fabric(fabric)
    meters = fabric.pod_uplink_meters if link.tier == "spine-superspine" else fabric.uplink_meters
    models = [fabric.models.get(name) for name in (link.leaf, link.spine)]
    return min(m.port_gbps for m in models if m is not None), meters
