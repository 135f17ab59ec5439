"""NVIDIA Cumulus Linux with NVUE (Spectrum-4 SN5600): every part fabricctl needs, as one Platform.

NVUE is declarative: the config is one object tree, read as the YAML `nv config show -o yaml`
prints and changed with `nv set` / `nv unset` (rules.py). Figures and behaviours come from the
Cumulus Linux user guide (NVIDIA's CumulusNetworks/docs repository, release 5.17, cited by page
and section as docs.nvidia.com/networking-ethernet-software/cumulus-linux/<page>) and NVIDIA's
SN5000 datasheet.
"""

from __future__ import annotations

import re

from fabricctl.platforms.base import (
    IEEE_PAUSE_QUANTA,
    BufferFigures,
    Capabilities,
    Limits,
    Platform,
    Release,
    SwitchModel,
    TunnelQos,
    TunnelStep,
)
from fabricctl.platforms.nvue.boot import BOOT_SETTINGS, REBOOT
from fabricctl.platforms.nvue.counters import COUNTERS
from fabricctl.platforms.nvue.filters import FILTERS
from fabricctl.platforms.nvue.health import HEALTH
from fabricctl.platforms.nvue.identity import IDENTITY
from fabricctl.platforms.nvue.parse import parse_nvue
from fabricctl.platforms.nvue.qos import NvueQosTuning
from fabricctl.platforms.nvue.rules import DIALECT
from fabricctl.platforms.nvue.terminal import FETCH, pending
from fabricctl.platforms.nvue.ztp import DAY0

CL_GUIDE = "https://docs.nvidia.com/networking-ethernet-software/cumulus-linux/"


def port_name(port: int, lane: int | None = None) -> str:
    """swp<port>; a broken-out port's lanes are swp<port>s0, s1, ... (lane 1 is s0: `nv set
    interface swp1 link breakout 4x` makes swp1s0-3, Switch Port Attributes > "Configure a
    Breakout Port")."""
    if lane is None:
        return f"swp{port}"
    return f"swp{port}s{lane - 1}"


_PORT = re.compile(r"swp(\d+)(?:s(\d+))?")


def port_position(name: str) -> tuple[int, int | None] | None:
    """(port, lane) of a name port_name gives: swp47 -> (47, None), swp47s1 -> (47, 2)."""
    m = _PORT.fullmatch(name)
    if m is None:
        return None
    return (int(m[1]), None) if m[2] is None else (int(m[1]), int(m[2]) + 1)


#: SONiC's published Spectrum-4 figures and headroom plugin (sonic-net/sonic-buildimage
#: platform/mellanox/asic_table.j2 at 086b03b; sonic-net/sonic-swss cfgmgr/buffer_headroom_mellanox.lua
#: at e6b0c5b), NVIDIA's own headroom model for its ASICs.
_ASIC_TABLE = "sonic-net/sonic-buildimage platform/mellanox/asic_table.j2 (086b03b)"
_HEADROOM_LUA = "sonic-net/sonic-swss cfgmgr/buffer_headroom_mellanox.lua (e6b0c5b)"
_NVUE_517 = "https://docs.nvidia.com/networking-ethernet-software/cumulus-linux-517/NVUE-Command-Reference/"
_NVUE_VXLAN = f"{_NVUE_517}Set-and-Unset-Commands/VXLAN/"
_TUNNEL_DSCP = (
    f"{CL_GUIDE}Network-Virtualization/VXLAN-Tunnel-DSCP/ (VXLAN Tunnel DSCP Operations: 'The "
    "configuration options propagate ECN between the underlay and overlay according to RFC 6040')"
)

_PORTS_PAGE = (
    f"{CL_GUIDE}Layer-1-and-Switch-Ports/Interface-Configuration-and-Management/Switch-Port-Attributes/"
)

MODELS = (
    SwitchModel(
        name="SN5600",
        ports=64,
        port_gbps=800,
        breakouts=("2x400G", "4x200G"),
        buffer_mb=160,
        # A tenant VRF's L3VNI takes a VLAN NVUE assigns from its reserved L3VNI range (4000-4064
        # by default: 65 VRFs); l2 tenants' VLANs take ids outside it and outside the internal
        # reserved range (3725-3999): 1-3724 and 4065-4094.
        limits=Limits(max_vrfs=65, max_vlans=3754, max_vnis=3754 + 65, max_acl_entries=8192),
        max_ecmp=None,
        sources={
            "ports": f"{_PORTS_PAGE} (Breakout Ports, SN5600 and SN5600D: 64x OSFP 800GbE; bonus "
            "port 65 takes 1G-25G only and is not a fabric port)",
            "breakouts": f"{_PORTS_PAGE} (SN5600 400G: 64x OSFP break out into 2x; 200G: into 4x; "
            "Configure a Breakout Port: `link breakout 2x|4x`)",
            "buffer_mb": "NVIDIA Spectrum-4 SN5000 series datasheet: 160MB fully shared packet buffer",
            "limits": f"{CL_GUIDE}Layer-3/VRFs/Virtual-Routing-and-Forwarding-VRF/ (up to 255 VRFs on a "
            "switch) and Layer-2/Ethernet-Bridging-VLANs/VLAN-aware-Bridge-Mode/ (Reserved Layer 3 VNI "
            "VLANs: NVUE gives each L3VNI a VLAN of the range 4000-4064 by default), the smaller: 65",
            "max_vlans": "VLAN-aware Bridge Mode > Reserved VLAN Range (3725-3999 internal) and Reserved Layer "
            "3 VNI VLANs (4000-4064): of IEEE 802.1Q's 1-4094, 1-3724 and 4065-4094 are left for bridge VLANs",
            "max_vnis": "one per bridge VLAN (L2VNI, `bridge domain br_default vlan <id> vni <vni>`) and one "
            "per reserved L3VNI VLAN (EVPN Inter-subnet Routing)",
            "max_acl_entries": "no NVIDIA document states a rule count for Spectrum-4 (the ACL page "
            "gives ATCAM sharing, not a budget): fabricctl's conservative budget, override it under "
            "`limits:`",
            "max_ecmp": "no published figure",
            "lanes": "SN5600: 64 x OSFP 800G, eight 100G lanes each (a 400G breakout lane takes four)",
            "buffer": f"{_ASIC_TABLE} (ASIC_TABLE:MELLANOX-SPECTRUM-4: cell_size 192, pipeline_latency "
            f"19 KB, mac_phy_delay 0.8 KB) and {_HEADROOM_LUA} (kb_on_tile = speed Gb/s * 120 / 8 on "
            "Spectrum-4; 905 pause quanta at 800G)",
            "tunnel_qos": f"{_TUNNEL_DSCP}; {_NVUE_VXLAN}",
        },
        buffer=BufferFigures(
            cell_bytes=192,
            pipeline_latency_bytes=19 * 1024,
            mac_phy_delay_bytes=0.8 * 1024,
            tile_bytes_per_gbps=120 / 8,
            source=_ASIC_TABLE,
        ),
        pause_quanta={**IEEE_PAUSE_QUANTA, 800: 905},
        tunnel_qos=TunnelQos(
            marking=TunnelStep("line", f"{_NVUE_VXLAN}: `nve vxlan encapsulation dscp action copy`"),
            ecn=TunnelStep("rfc6040", _TUNNEL_DSCP),
            decap=TunnelStep("line", f"{_NVUE_VXLAN}: `nve vxlan decapsulation dscp action preserve`"),
        ),
    ),
)

PLATFORM = Platform(
    name="nvue",
    title="NVIDIA Cumulus Linux (NVUE)",
    capabilities=Capabilities(
        pfc=True,  # the RoCE lossless profile: PFC on switch priority 3
        pfc_watchdog=True,  # `nv set interface <swp> qos pfc-watchdog` (Quality of Service > PFC Watchdog)
        ecn_per_queue=True,  # ECN on traffic classes 0 and 3 in the RoCE profile
        strict_priority_queue=True,  # traffic class 6 (CNP) strict in the RoCE profile
        evpn_type5=True,  # Inter-subnet Routing > Symmetric Routing: an L3VNI per VRF
        evpn_symmetric_irb=True,  # symmetric routing needs Spectrum-A1 or later; the SN5600 is Spectrum-4
        commit_confirm=True,  # `nv config apply --confirm <time>` (NVUE Config Commands)
        max_ip_mtu=9216,  # Switch Port Attributes > MTU: 9216, the default and the largest an swp takes
    ),
    models=MODELS,
    cnp_class=6,  # the RoCE profile's CNP traffic class
    protocol_class=None,  # control traffic reaches the CPU through its own trap queues
    port_name=port_name,
    port_position=port_position,
    qos_tuning=NvueQosTuning,
    filters=FILTERS,
    parse=parse_nvue,
    dialect=DIALECT,
    fetch=FETCH,
    health=HEALTH,
    identity=IDENTITY,
    counters=COUNTERS,
    pending=pending,
    push_module="fabricctl.platforms.nvue.push",
    day0=DAY0,
    releases=(
        Release(
            "5.17",
            "https://docs.nvidia.com/networking-ethernet-software/cumulus-linux-517/NVUE-Command-Reference/",
            label="Cumulus Linux 5.17",
        ),
    ),
    # Virtual Router Redundancy (VRR): each switch's SVI carries an address of its own besides
    # the VRR (anycast) address, and `nv set interface <svi> ipv4 vrr state enabled`.
    svi_address=True,
    multihop_bfd=False,
    # mgmt: the management VRF (a VRF may not take the name, VRF page); NVUE reserves auto,
    # none, null, any and all for every name (NVUE Format Reference > Reserved Names).
    reserved_names=("default", "mgmt", "auto", "none", "null", "any", "all"),
    max_vrf_name=15,  # VRFs page: VRF table names can be a maximum of 15 characters
    # VLAN-aware Bridge Mode > Reserved VLAN Range (internal, 3725-3999 by default) and Reserved
    # Layer 3 VNI VLANs (4000-4064 by default).
    reserved_vlans=((3725, 3999), (4000, 4064)),
    boot_settings=BOOT_SETTINGS,
    reboot=REBOOT,
    headroom="cable-length",  # `qos pfc <profile> cable-length <m>`: the switch sizes the headroom
)
