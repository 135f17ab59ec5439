"""Arista EOS (7060X5 / 7800R): every part fabricctl needs, as one Platform object."""

from __future__ import annotations

import re

from fabricctl.platforms.base import Capabilities, Limits, Platform
from fabricctl.platforms.eos.filters import FILTERS
from fabricctl.platforms.eos.health import HEALTH
from fabricctl.platforms.eos.parse import parse_eos
from fabricctl.platforms.eos.qos import EosQosTuning
from fabricctl.platforms.eos.rules import DIALECT
from fabricctl.platforms.eos.terminal import FETCH, client_failure, pending


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
        breakouts=("2x200G",),
        max_ip_mtu=9214,  # 7060X5 / 7800R3: 9214-byte IP MTU with a 9236-byte frame (L2 MTU)
    ),
    limits=Limits(max_vrfs=1024, max_vlans=4094, max_vnis=16000, max_acl_entries=12288),
    cnp_class=6,
    protocol_class=None,  # EOS queues its own control traffic to the CPU apart from tx-queues
    port_count=64,
    port_name=port_name,
    port_position=port_position,
    qos_tuning=EosQosTuning,
    filters=FILTERS,
    parse=parse_eos,
    dialect=DIALECT,
    fetch=FETCH,
    health=HEALTH,
    pending=pending,
    client_failure=client_failure,
    push_module="fabricctl.platforms.eos.push",
    multihop_bfd=True,  # router bfd: multihop interval / min-rx / multiplier (AVD eos_designs sets it)
    # `vrf instance default` is the global table; MGMT is the management VRF (a tenant
    # of that name would take it over).
    reserved_names=("default", "MGMT", "mgmt", "management"),
    models=("7060X5-64",),  # 64 x 400G: port_count, breakouts, max_ip_mtu and the limits above
)
