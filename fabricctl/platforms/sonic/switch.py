"""SONiC on the switches it runs on: the switch model and its figures, port names (by SerDes
lane), breakout modes, the releases rendered for and the sonic-net documents they are cited at,
and how a tenant's VRF is named. The package's other modules read these names; `PLATFORM`
(__init__.py) assembles them with the rest."""

from __future__ import annotations

import re

from fabricctl.config.rules import TENANT_PREFIX
from fabricctl.platforms.base import (
    IEEE_PAUSE_QUANTA,
    BufferFigures,
    Limits,
    Release,
    SwitchModel,
    TunnelQos,
    TunnelStep,
)

#: sonic-net/sonic-buildimage at the commit the switch model's figures are read at.
BUILDIMAGE = "https://github.com/sonic-net/sonic-buildimage/blob/086b03bd70f9e211aaaf5f6aefe0790b508d2a94/"
#: The 202505 branch at the commit its YANG models are vendored from (tests/data/sonic-yang/202505/):
#: the CONFIG_DB manual and the models are cited there, the oldest release rendered for.
BRANCH_202505 = "https://github.com/sonic-net/sonic-buildimage/blob/ff3c0c9f686a1d0dbddbe813b233b3b7a51bd8e2/"
BRANCH_202511 = "https://github.com/sonic-net/sonic-buildimage/blob/fde92d26cb6a743e4ca290b8591736f377db741b/"
#: sonic-net/SONiC (the design documents) at the commit cited.
SONIC_DOCS = "https://github.com/sonic-net/SONiC/blob/98de38fd1512017cfee5513025d750da8b1fa2f1/"
#: The CONFIG_DB manual ("SONiC Configuration Database Manual"), cited by section.
CONFIG_DB_MANUAL = f"{BRANCH_202505}src/sonic-yang-models/doc/Configuration.md"
YANG = f"{BRANCH_202505}src/sonic-yang-models/yang-models/"

_SN5600 = f"{BUILDIMAGE}device/mellanox/x86_64-nvidia_sn5600-r0/"

#: SONiC names a front-panel port by its first SerDes lane: the SN5600's port p (1-64) holds lanes
#: 8(p-1) .. 8(p-1)+7 and is Ethernet<8(p-1)> (platform.json: "Ethernet0": lanes "0,1,...,7").
LANES_PER_PORT = 8


def port_name(port: int, lane: int | None = None, ways: int = 2) -> str:
    """Ethernet<first SerDes lane>: port 1 is Ethernet0, port 64 Ethernet504. A port broken out
    `ways` ways gives each lane 8/ways SerDes lanes, named by its first: 2x400G makes Ethernet0 and
    Ethernet4 of port 1, 4x200G Ethernet0, 2, 4, 6 (SN5600 platform.json "breakout_modes")."""
    base = LANES_PER_PORT * (port - 1)
    if lane is None:
        return f"Ethernet{base}"
    if not 1 <= lane <= ways:
        raise ValueError(f"lane {lane} of a port broken out {ways} ways")
    return f"Ethernet{base + (lane - 1) * (LANES_PER_PORT // ways)}"


_PORT = re.compile(r"Ethernet(\d+)")


def port_position(name: str, ways: int = 2) -> tuple[int, int | None] | None:
    """(port, lane) of a name port_name gives for a port broken out `ways` ways (lane None: a
    whole port's first lane, Ethernet0 -> (1, None)); None for other names."""
    m = _PORT.fullmatch(name)
    if m is None:
        return None
    serdes = int(m[1])
    port, offset = divmod(serdes, LANES_PER_PORT)
    if offset == 0:
        return (port + 1, None)
    step = LANES_PER_PORT // ways
    return (port + 1, offset // step + 1) if offset % step == 0 else None


def port_lanes(port: int, lane: int | None = None, ways: int = 1) -> list[int]:
    """The SerDes lanes of a port (or of one lane of its breakout): the PORT table's `lanes`."""
    width = LANES_PER_PORT // ways
    first = LANES_PER_PORT * (port - 1) + ((lane or 1) - 1) * width
    return list(range(first, first + width))


#: The SN5600's breakout modes as SONiC's BREAKOUT_CFG spells them (`brkout_mode`: the mode of
#: platform.json "breakout_modes", speeds it also takes in brackets), by fabricctl's mode.
BREAKOUT_MODES = {
    "none": "1x800G[400G,200G,100G,50G,40G,25G,10G]",
    "2x400G": "2x400G[200G,100G,50G,40G,25G,10G]",
    "4x200G": "4x200G[100G,50G,25G,10G]",
}

_ASIC_TABLE = "sonic-net/sonic-buildimage platform/mellanox/asic_table.j2 (086b03b)"
_HEADROOM_LUA = "sonic-net/sonic-swss cfgmgr/buffer_headroom_mellanox.lua (e6b0c5b)"
_VXLAN_HLD = f"{SONIC_DOCS}doc/vxlan/EVPN/EVPN_VXLAN_HLD.md"

MODELS = (
    SwitchModel(
        name="SN5600",
        ports=64,
        port_gbps=800,
        # 2x400G only: SONiC names a lane by its first SerDes lane, so a lane's name depends on the
        # mode (4x200G's lane 2 is Ethernet2, 2x400G's Ethernet4) and a port namer is given none.
        breakouts=("2x400G",),
        buffer_mb=160,
        # SONiC gives each L3VNI a VLAN of its own (EVPN VXLAN HLD 4.3, "EVPN Control Plane and
        # configurations": L3VNI-VLAN mapping); fabricctl keeps 3001-4094 for them (L3VNI_VLANS).
        limits=Limits(max_vrfs=1000, max_vlans=3000, max_vnis=4000, max_acl_entries=8192),
        max_ecmp=None,
        sources={
            "ports": f"{_SN5600}platform.json (interfaces Ethernet0 .. Ethernet504: 64 ports of 8 lanes; "
            "Ethernet512, the 65th, is not a fabric port)",
            "breakouts": f"{_SN5600}platform.json (breakout_modes: 1x800G, 2x400G, 4x200G; fabricctl "
            "names 2x400G lanes, Ethernet<8(p-1)> and Ethernet<8(p-1)+4>)",
            "buffer_mb": "NVIDIA Spectrum-4 SN5000 series datasheet: 160MB fully shared packet buffer",
            "limits": "VLANs: 802.1Q ids 1-3000 (3001-4094 kept for L3VNI VLANs); VRFs and VNIs: "
            f"fabricctl's budget (the VRF YANG model {YANG}sonic-vrf.yang states none); override under `limits:`",
            "max_acl_entries": "no sonic-net document states a rule count for Spectrum-4: fabricctl's "
            "conservative budget, override it under `limits:`",
            "max_ecmp": "no published figure",
            "lanes": f'{_SN5600}platform.json (lanes "0,1,2,3,4,5,6,7" for Ethernet0)',
            "buffer": f"{_ASIC_TABLE} (ASIC_TABLE:MELLANOX-SPECTRUM-4: cell_size 192, pipeline_latency "
            f"19 KB, mac_phy_delay 0.8 KB) and {_HEADROOM_LUA} (kb_on_tile = speed Gb/s * 120 / 8)",
            "tunnel_qos": f"{YANG}sonic-vxlan.yang (VXLAN_TUNNEL ttl_mode only: no DSCP or ECN mode is "
            f"configurable) and {_VXLAN_HLD}",
        },
        buffer=BufferFigures(
            cell_bytes=192,
            pipeline_latency_bytes=19 * 1024,
            mac_phy_delay_bytes=0.8 * 1024,
            tile_bytes_per_gbps=120 / 8,
            source=_ASIC_TABLE,
        ),
        pause_quanta={**IEEE_PAUSE_QUANTA, 800: 905},
        # No sonic-net document states what a SONiC VTEP does with the outer DSCP or ECN: the
        # proofs take them as given and list them.
        tunnel_qos=TunnelQos(
            marking=TunnelStep("unknown"), ecn=TunnelStep("unknown"), decap=TunnelStep("unknown")
        ),
    ),
)

#: The releases rendered for, newest first: SONiC's community releases (YYYYMM), each checked
#: against the YANG models and CONFIG_DB manual of its branch (the test validates every table
#: with both releases' models). 202411 is not one: its VLAN_INTERFACE has no `mac_addr`, so an
#: anycast gateway cannot be given the fabric's MAC (configdb.py).
RELEASES = (
    Release("202511", f"{BRANCH_202511}src/sonic-yang-models/doc/Configuration.md", label="SONiC.202511"),
    Release("202505", f"{BRANCH_202505}src/sonic-yang-models/doc/Configuration.md", label="SONiC.202505"),
)

#: VLAN ids fabricctl gives L3VNIs (one per tenant VRF, `L3VNI_VLAN_BASE + tenant id`): no l2
#: tenant VLAN takes one.
L3VNI_VLAN_BASE = 3000
L3VNI_VLANS = (L3VNI_VLAN_BASE + 1, 4094)

#: A SONiC VRF's name starts with "Vrf" (sonic-vrf.yang, VRF_LIST name: pattern
#: "Vrf[a-zA-Z0-9_-]+") and has at most 15 characters (sonic-types.yang `interface_name`, IFNAMSIZ).
VRF_PREFIX = "Vrf-"
MAX_VRF_NAME = 15


def vrf_name(name: str) -> str:
    """A tenant VRF's SONiC name: fabricctl's (`tnt-<tenant>`) with `Vrf-` for its `tnt-`, so
    `tnt-<tenant>` and `Vrf-<tenant>` have the same length: MAX_VRF_NAME bounds both."""
    return VRF_PREFIX + name.removeprefix(TENANT_PREFIX)


def fabric_vrf(name: str) -> str:
    """The inverse of vrf_name: fabricctl's VRF name of a SONiC VRF."""
    return TENANT_PREFIX + name.removeprefix(VRF_PREFIX)
