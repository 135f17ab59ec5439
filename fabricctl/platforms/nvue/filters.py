"""Jinja filters of the NVUE templates: how NVUE spells a MAC address, a breakout, a YAML string,
and which DSCP entries the RoCE profile does not already set."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from fabricctl.macs import mac_as
from fabricctl.platforms.nvue.qos import roce_switch_priority


def mac(value: str) -> str:
    """'00:1C:73:00:00:99' (or '001c.7300.0099') -> '00:1c:73:00:00:99': NVUE's `mac` format is
    six colon-separated hex pairs (NVUE Format Reference, "mac")."""
    return mac_as(value, "MAC_COLON_TWO")


def breakout(mode: str) -> str:
    """A fabricctl breakout mode ('2x400G') as NVUE's `link breakout` value ('2x'): Cumulus Linux
    5.4 and later take the lane count only (Switch Port Attributes > "Configure a Breakout Port")."""
    return mode.partition("x")[0] + "x"


def quote(value: str) -> str:
    """A free-text YAML scalar (a description, a remark) as one double-quoted string: no text a
    tenant writes can open a key of its own (JSON strings are valid YAML double-quoted scalars)."""
    return json.dumps(value, ensure_ascii=False)


def beyond_roce(dscp_to_class: Mapping[int, int]) -> list[tuple[int, int]]:
    """The (DSCP, switch priority) entries of the fabric's map the RoCE profile does not already
    set (it maps DSCP 8p-8p+7 to priority p): only those need `qos mapping` lines."""
    return [(d, p) for d, p in sorted(dscp_to_class.items()) if roce_switch_priority(d) != p]


def pfc_profile(cable_m: int) -> str:
    """The PFC profile of the lossless ports on a `cable_m` cable (one per length on a switch)."""
    return f"roce-{cable_m}m"


def pfc_profiles(interfaces: Iterable[Any]) -> list[tuple[str, int]]:
    """(profile, cable length) for every cable length of the lossless ports, in NVUE's key order."""
    return sorted({(pfc_profile(i.cable_m), i.cable_m) for i in interfaces if i.lossless and i.cable_m})


FILTERS: dict[str, Callable[..., object]] = {
    "pfc_profile": pfc_profile,
    "pfc_profiles": pfc_profiles,
    "mac": mac,
    "breakout": breakout,
    "quote": quote,
    "beyond_roce": beyond_roce,
}
