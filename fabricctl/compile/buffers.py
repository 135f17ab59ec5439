"""PFC headroom from port speed, cable length and MTU: SONiC's dynamic-buffer "well-known formula".

After a port sends XOFF for the lossless priority, bytes keep arriving until the far end stops:
what is in the MAC/PHY, on the cable both ways, what the far end sends while it reacts (IEEE
802.3 annex 31B: a number of pause quanta per speed), and one more frame it had started. SONiC's
dynamic buffer design (sonic-net/SONiC doc/qos/dynamically-headroom-calculation.md, "The well-known
formula") sizes the headroom from exactly these:

    worst case factor = cell / 64            (cell > 128 bytes; else 2 * cell / (1 + cell))
    cell occupancy    = (100 - small% + small% * worst case factor) / 100
    bytes on cable    = cable length / speed of light in the medium * port speed
    peer response     = pause quanta (per speed) * 512 bits
    propagation delay = port MTU + 2 * bytes on cable + MAC/PHY delay + peer response
    xoff              = lossless MTU + propagation delay * cell occupancy
    xon               = pipeline latency
    headroom          = xoff + xon

The ASIC figures (cell size, MAC/PHY delay, pipeline latency) are the fabric's `qos.buffer`
policy; the speed of light in fibre, 198,000,000 m/s, is the constant of SONiC's Mellanox plugin
(sonic-swss cfgmgr/buffer_headroom_mellanox.lua).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from fabricctl.model.fabric import ETHERNET_OVERHEAD, ROCE_HEADERS, VXLAN_OVERHEAD, BufferModel, cable_meters

#: Pause quanta a port may still send after it receives XOFF (IEEE 802.3 annex 31B.3.7, as the
#: SONiC design lists them), by port speed in Gb/s.
PAUSE_QUANTA = {10: 67, 25: 80, 40: 118, 50: 147, 100: 394, 200: 453, 400: 905, 800: 1810}
#: Speed of light in the cable, m/s.
LIGHT_IN_FIBRE = 198_000_000
_MIN_PACKET = 64


@dataclass(frozen=True)
class Headroom:
    """Bytes a lossless priority must hold on one port after it sends XOFF."""

    xoff: int  # in flight after XOFF: what the headroom must absorb
    xon: int  # the pipeline's latency before XON takes effect
    speed_gbps: int
    cable_m: int

    @property
    def size(self) -> int:
        return self.xoff + self.xon


def headroom(speed_gbps: int, cable_m: int, port_mtu: int, lossless_mtu: int, model: BufferModel) -> Headroom:
    """The headroom one port needs (see the module docstring). `port_mtu` and `lossless_mtu` are IP
    MTUs; the formula counts frames, so the Ethernet header is added to both."""
    cell = model.cell_bytes
    worst = cell / _MIN_PACKET if cell > 2 * _MIN_PACKET else 2 * cell / (1 + cell)
    small = model.small_packet_percent
    occupancy = (100 - small + small * worst) / 100
    bytes_per_s = speed_gbps * 1e9 / 8
    on_cable = cable_m / LIGHT_IN_FIBRE * bytes_per_s
    peer_response = PAUSE_QUANTA[speed_gbps] * 512 / 8
    propagation = port_mtu + ETHERNET_OVERHEAD + 2 * on_cable + model.mac_phy_delay_bytes + peer_response
    xoff = lossless_mtu + ETHERNET_OVERHEAD + propagation * occupancy
    return Headroom(math.ceil(xoff), model.pipeline_latency_bytes, speed_gbps, cable_m)


def lossless_port(
    model: BufferModel, speed_gbps: int, cable: str, port_mtu: int, roce_mtu: int, vxlan: bool
) -> int:
    """Headroom bytes of one lossless port: a fabric link carries RoCE inside VXLAN."""
    packet = roce_mtu + ROCE_HEADERS + (VXLAN_OVERHEAD if vxlan else 0)
    return headroom(speed_gbps, cable_meters(cable), port_mtu, packet, model).size
