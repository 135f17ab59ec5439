"""Arista EOS (7060X5 / 7800R): every part fabricctl needs, as one Platform object."""

from __future__ import annotations

import re

from fabricctl.platforms.base import (
    Capabilities,
    Limits,
    Platform,
    Release,
    SwitchModel,
    TunnelQos,
    TunnelStep,
)
from fabricctl.platforms.eos.boot import BOOT_SETTINGS, REBOOT
from fabricctl.platforms.eos.counters import COUNTERS
from fabricctl.platforms.eos.filters import FILTERS
from fabricctl.platforms.eos.health import HEALTH
from fabricctl.platforms.eos.identity import IDENTITY
from fabricctl.platforms.eos.parse import parse_eos
from fabricctl.platforms.eos.qos import EosQosTuning
from fabricctl.platforms.eos.rules import DIALECT
from fabricctl.platforms.eos.terminal import FETCH, client_failure, pending
from fabricctl.platforms.eos.ztp import DAY0


def port_name(port: int, lane: int | None = None) -> str:
    """Ethernet<port>; a 400G-8 port split into 2 x 200G-4 gives lanes 1 and 5 (Ethernet<port>/1, /5)."""
    if lane is None:
        return f"Ethernet{port}"
    return f"Ethernet{port}/{1 + (lane - 1) * 4}"


_PORT = re.compile(r"Ethernet(\d+)(?:/(\d+))?")


def port_position(name: str) -> tuple[int, int | None] | None:
    """(port, lane) of a name port_name gives: Ethernet47 -> (47, None), Ethernet47/5 -> lane 2."""
    m = _PORT.fullmatch(name)
    if m is None:
        return None
    if m[2] is None:
        return int(m[1]), None
    lane, rest = divmod(int(m[2]) - 1, 4)
    return (int(m[1]), lane + 1) if rest == 0 else None


#: A 7800R3 chassis: line-card slots start at 3 (1 and 2 hold supervisors), 36 x 400G per
#: 7800R3-36P line card; EOS names a chassis port Ethernet<slot>/<port>/<lane>.
_FIRST_SLOT, _PER_CARD = 3, 36


def chassis_port_name(port: int, lane: int | None = None) -> str:
    """Port `port` of the chassis counted across its line cards: 37 -> Ethernet4/1/1."""
    slot, at = divmod(port - 1, _PER_CARD)
    return f"Ethernet{_FIRST_SLOT + slot}/{at + 1}/{1 if lane is None else 1 + (lane - 1) * 4}"


_CHASSIS_PORT = re.compile(r"Ethernet(\d+)/(\d+)/(\d+)")


def chassis_port_position(name: str) -> tuple[int, int | None] | None:
    m = _CHASSIS_PORT.fullmatch(name)
    if m is None or int(m[1]) < _FIRST_SLOT or not 1 <= int(m[2]) <= _PER_CARD:
        return None
    lane, rest = divmod(int(m[3]) - 1, 4)
    port = (int(m[1]) - _FIRST_SLOT) * _PER_CARD + int(m[2])
    return (port, lane + 1 if lane else None) if rest == 0 else None


#: The limits fabricctl has carried for EOS since its first release (no stored datasheet gives
#: the VRF, VNI or ACL figures of these models; override them per fabric under `limits:`).
_EOS_LIMITS = Limits(max_vrfs=1024, max_vlans=4094, max_vnis=16000, max_acl_entries=12288)
_CARRIED = "fabricctl's figure before switch models were data; no stored datasheet states it"
_VLANS = "IEEE 802.1Q: 12-bit VLAN id, 1-4094"
#: `vxlan qos ...` (EOS User Manual, VXLAN DSCP Mapping) lists the 7050X3 family only
#: (DCS-7050SX3-48YC12, DCS-7050CX3M-32S, DCS-7050CX3-32S); without it Arista documents what a
#: VTEP does with bridged packets (a TOI of 2023-08-31 under the ECN tag,
#: arista.com/zh/support/toi/tag/ecn): "for bridged packets undergoing VXLAN encapsulation, the
#: DSCP in the outer IP header is derived from TC and the ECN bits are set to zero". TC n leaves
#: with DSCP 8n by EOS's default TC -> DSCP map (EOS User Manual, Quality of Service), so the
#: spines' default DSCP -> TC map (d/8) puts it back in class n; ECN in the outer header is
#: Not-ECT (RFC 6040 section 4.1 compatibility mode). For routed packets (an l3 tenant's RoCE
#: through its L3VNI) the TOI says nothing: verify takes the same as given and lists it.
_TOI_ECN = "Arista TOI of 2023-08-31 under the ECN tag (arista.com/zh/support/toi/tag/ecn), bridged packets"
_ROUTED = "routed RoCE (an l3 tenant's, through its L3VNI) is encapsulated as bridged RoCE is"
_NO_VXLAN_QOS = TunnelQos(
    marking=TunnelStep(
        "from-class",
        f"{_TOI_ECN}: the outer DSCP is derived from TC; EOS User Manual, Quality of Service: the default "
        "TC -> DSCP map (TC n -> DSCP 8n)",
        unstated=_ROUTED,
    ),
    ecn=TunnelStep("compatibility", f"{_TOI_ECN}: the outer ECN bits are set to zero"),
)
_VXLAN_QOS_SOURCE = (
    "EOS User Manual, VXLAN DSCP Mapping (arista.com/um-eos/eos-vxlan-dscp-mapping): Platform "
    "Compatibility lists DCS-7050SX3-48YC12, DCS-7050CX3M-32S and DCS-7050CX3-32S only; this model "
    "is not among them"
)

MODELS = (
    SwitchModel(
        name="7060X5-64",
        ports=64,
        port_gbps=400,
        breakouts=("2x200G",),
        buffer_mb=None,
        limits=_EOS_LIMITS,
        max_ecmp=None,
        sources={
            "ports": "Arista 7060X5 series datasheet, model table: DCS-7060X5-64 (64 x 400G)",
            "breakouts": "lab/devices/eos/commands.yaml `speed 200g-4` (a 400G-8 port in two 200G-4 lanes)",
            "lanes": "a 400G QSFP-DD/OSFP port is 400G-8, eight 50G lanes (EOS `speed 400g-8`)",
            "limits": _CARRIED,
            "max_vlans": _VLANS,
            "buffer_mb": "EOS sizes PFC headroom itself (no command takes a size): no figure is needed",
            "tunnel_qos": _VXLAN_QOS_SOURCE,
        },
        tunnel_qos=_NO_VXLAN_QOS,
    ),
    SwitchModel(
        name="7808R3",
        ports=288,
        port_gbps=400,
        breakouts=(),
        buffer_mb=None,
        limits=_EOS_LIMITS,
        max_ecmp=None,
        sources={
            "ports": "Arista 7800R3 Platform Architecture white paper, Platform Overview and Table 1: the "
            "8-slot 7808R3 takes 288 x 400G (8 x 7800R3-36P line cards)",
            "lanes": "7800R3-36P: 400G QSFP-DD ports, eight 50G lanes each",
            "limits": _CARRIED,
            "max_vlans": _VLANS,
            "buffer_mb": "EOS sizes PFC headroom itself (no command takes a size): no figure is needed",
            "tunnel_qos": _VXLAN_QOS_SOURCE,
        },
        tunnel_qos=_NO_VXLAN_QOS,
        port_name=chassis_port_name,
        port_position=chassis_port_position,
    ),
)

PLATFORM = Platform(
    name="eos",
    title="Arista EOS",
    capabilities=Capabilities(
        pfc=True,
        pfc_watchdog=True,
        ecn_per_queue=True,
        strict_priority_queue=True,
        evpn_type5=True,
        evpn_symmetric_irb=True,
        commit_confirm=True,  # `configure session NAME commit timer`
        max_ip_mtu=9214,  # 7060X5 / 7800R3: 9214-byte IP MTU with a 9236-byte frame (L2 MTU)
    ),
    models=MODELS,
    cnp_class=6,
    protocol_class=None,  # EOS queues its own control traffic to the CPU apart from tx-queues
    port_name=port_name,
    port_position=port_position,
    qos_tuning=EosQosTuning,
    filters=FILTERS,
    parse=parse_eos,
    dialect=DIALECT,
    fetch=FETCH,
    health=HEALTH,
    identity=IDENTITY,
    counters=COUNTERS,
    pending=pending,
    client_failure=client_failure,
    push_module="fabricctl.platforms.eos.push",
    day0=DAY0,
    # The EOS User Manual and pyavd 6.4's eos_cli_config_gen, the references every EOS line is
    # checked against (docs/citations.md, the eos rows).
    releases=(
        Release(
            "4.31",
            "Arista EOS User Manual and pyavd 6.4 eos_cli_config_gen (docs/citations.md, the eos rows)",
            label="EOS 4.31",
        ),
    ),
    multihop_bfd=True,  # router bfd: multihop interval / min-rx / multiplier (AVD eos_designs sets it)
    # `vrf instance default` is the global table; MGMT is the management VRF (a tenant
    # of that name would take it over).
    reserved_names=("default", "MGMT", "mgmt", "management"),
    boot_settings=BOOT_SETTINGS,
    reboot=REBOOT,
)
