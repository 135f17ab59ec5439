"""H3C Comware V7 (S9825-64D / S9855): every part fabricctl needs, as one Platform object."""

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
from fabricctl.platforms.comware.boot import BOOT_SETTINGS, REBOOT
from fabricctl.platforms.comware.counters import COUNTERS
from fabricctl.platforms.comware.filters import FILTERS
from fabricctl.platforms.comware.health import HEALTH
from fabricctl.platforms.comware.identity import IDENTITY
from fabricctl.platforms.comware.parse import DEFAULT_MAX_ECMP, parse_comware
from fabricctl.platforms.comware.qos import ComwareQosTuning
from fabricctl.platforms.comware.rules import DIALECT
from fabricctl.platforms.comware.terminal import FETCH, REFUSAL, pending
from fabricctl.platforms.comware.ztp import DAY0


def port_name(port: int, lane: int | None = None) -> str:
    """FourHundredGigE1/0/<port>, or TwoHundredGigE1/0/<port>:<lane> after a 2 x 200G breakout."""
    if lane is None:
        return f"FourHundredGigE1/0/{port}"
    return f"TwoHundredGigE1/0/{port}:{lane}"


_PORT = re.compile(r"(?:FourHundredGigE1/0/(\d+)|TwoHundredGigE1/0/(\d+):(\d+))")


def port_position(name: str) -> tuple[int, int | None] | None:
    """(port, lane) of a name port_name gives: FourHundredGigE1/0/47 -> (47, None), :2 -> lane 2."""
    m = _PORT.fullmatch(name)
    if m is None:
        return None
    return (int(m[1]), None) if m[1] else (int(m[2]), int(m[3]))


#: H3C's PFC configuration chapter (S9825 & S9855 PFC commands, docs/emitted-syntax.md h3c-pfc).
_TUNNEL_DOT1P = (
    "`qos trust tunnel-dot1p` (H3C 'Configuring PFC': 'For PFC to take effect in an overlay network, "
    "execute the qos trust tunnel-dot1p command'): decapsulated traffic keeps its inner priority"
)

MODELS = (
    SwitchModel(
        name="S9825-64D",
        ports=64,
        port_gbps=400,
        breakouts=("2x200G",),
        buffer_mb=None,
        limits=Limits(max_vrfs=1024, max_vlans=4094, max_vnis=16000, max_acl_entries=8192),
        max_ecmp=None,
        sources={
            "ports": "H3C S9825 series data sheet, model table: S9825-64D (64 x 400G QSFP-DD)",
            "breakouts": "H3C S9825 & S9855 interface command reference, `using twohundredgige` (a 400G "
            "port in two 200G ports)",
            "lanes": "a 400G QSFP-DD port is 400GAUI-8, eight 50G lanes (IEEE 802.3bs); a 200G breakout "
            "port takes four",
            "limits": "fabricctl's figure before switch models were data; no stored datasheet states it",
            "max_vlans": "IEEE 802.1Q: 12-bit VLAN id, 1-4094",
            "buffer_mb": "no H3C document found states the S9825-64D's packet buffer, its cell size, "
            "pipeline latency or MAC/PHY delay: the fabric gives the headroom figures (fabric.yaml "
            "qos.buffer) and validate refuses a Comware switch without them",
            "tunnel_qos": f"decapsulation: {_TUNNEL_DOT1P}; no H3C/HPE document found states how the "
            "outer DSCP is set at encapsulation or whether ECN is copied (RFC 6040), and none names a "
            "command that sets either: verify takes both as given and lists them",
        },
        tunnel_qos=TunnelQos(decap=TunnelStep("line", _TUNNEL_DOT1P)),
    ),
)

PLATFORM = Platform(
    name="comware",
    title="H3C Comware V7",
    capabilities=Capabilities(
        pfc=True,
        pfc_watchdog=True,  # "PFC deadlock detection"
        ecn_per_queue=True,  # WRED queue table + `queue N ecn`
        strict_priority_queue=True,
        evpn_type5=True,
        evpn_symmetric_irb=True,
        commit_confirm=True,  # `configuration commit delay N`
        max_ip_mtu=9008,  # H3C's own Comware code (h3c_open.comware mtu.py) refuses a larger mtu
    ),
    models=MODELS,
    cnp_class=6,
    protocol_class=7,  # cs7: network control, dot1p 7 -> local precedence 7 in the default map
    port_name=port_name,
    port_position=port_position,
    qos_tuning=ComwareQosTuning,
    filters=FILTERS,
    parse=parse_comware,
    dialect=DIALECT,
    fetch=FETCH,
    health=HEALTH,
    identity=IDENTITY,
    counters=COUNTERS,
    pending=pending,
    refusal=REFUSAL,
    push_module="fabricctl.platforms.comware.push",
    day0=DAY0,
    # Every H3C/HPE document the command reference cites (docs/citations.md) is a Comware V7 one.
    releases=(
        Release(
            "7.1",
            "H3C/HPE Comware V7 command and configuration references (docs/citations.md, the comware rows)",
            label="Comware Software, Version 7.1",
        ),
    ),
    default_max_ecmp=DEFAULT_MAX_ECMP,
    # The management vpn-instance goes by these names on S98xx (a tenant must not take it over).
    reserved_names=("mgmt", "Mgmt", "MGMT", "management"),
    boot_settings=BOOT_SETTINGS,
    reboot=REBOOT,
    headroom="cells",  # `priority-flow-control dot1p <p> headroom <cells>` per port
)
