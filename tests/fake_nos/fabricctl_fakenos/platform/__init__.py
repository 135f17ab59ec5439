"""TinyOS's product side: every part fabricctl needs, as one Platform (entry point
`fabricctl.platforms` `tinyos`). Its one switch model, the T-16, is 16 ports of 400G."""

from __future__ import annotations

import re
from importlib import resources

from fabricctl.platforms.base import Capabilities, Limits, Platform, Release, SwitchModel

from .boot import BOOT_SETTINGS, REBOOT
from .counters import COUNTERS
from .filters import FILTERS
from .health import HEALTH
from .identity import IDENTITY
from .parse import NAME, parse
from .qos import TinyQosTuning
from .rules import DIALECT
from .terminal import FETCH, REFUSAL, pending
from .ztp import DAY0

_PORT = re.compile(r"port(\d+)")
DATASHEET = "TinyOS T-16 (the test NOS's own switch)"


def port_name(port: int, lane: int | None = None) -> str:
    """port<n>; TinyOS breaks out no port."""
    return f"port{port}"


def port_position(name: str) -> tuple[int, int | None] | None:
    m = _PORT.fullmatch(name)
    return (int(m[1]), None) if m else None


MODEL = SwitchModel(
    name="T-16",
    ports=16,
    port_gbps=400,
    breakouts=(),
    buffer_mb=None,
    limits=Limits(max_vrfs=16, max_vlans=4094, max_vnis=16, max_acl_entries=64),
    max_ecmp=8,
    sources={"ports": DATASHEET, "limits": DATASHEET, "max_ecmp": DATASHEET},
)

PLATFORM = Platform(
    name=NAME,
    title="TinyOS",
    capabilities=Capabilities(
        pfc=True,
        pfc_watchdog=True,
        ecn_per_queue=True,
        strict_priority_queue=True,
        evpn_type5=True,
        evpn_symmetric_irb=False,  # no bridging: its tenants are l3 only
        commit_confirm=True,
        max_ip_mtu=9214,
    ),
    models=(MODEL,),
    cnp_class=6,
    protocol_class=None,
    port_name=port_name,
    port_position=port_position,
    qos_tuning=TinyQosTuning,
    filters=FILTERS,
    parse=parse,
    dialect=DIALECT,
    fetch=FETCH,
    health=HEALTH,
    identity=IDENTITY,
    counters=COUNTERS,
    pending=pending,
    push_module=f"{__name__}.push",
    day0=DAY0,
    releases=(Release("1.0", "TinyOS 1.0 command reference (lab/commands.yaml of this package)"),),
    refusal=REFUSAL,
    boot_settings=BOOT_SETTINGS,
    reboot=REBOOT,
    templates=str(resources.files("fabricctl_fakenos").joinpath("templates")),
)
