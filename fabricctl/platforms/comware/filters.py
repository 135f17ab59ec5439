"""Jinja filters of the Comware templates: how Comware spells a MAC address, a queue, a priority map."""

from __future__ import annotations

from collections.abc import Callable

from fabricctl.macs import mac_as
from fabricctl.platforms.comware.qos import DEFAULT_DOT1P_LP, QUEUE_NAMES, default_dscp_dot1p


def mac(value: str) -> str:
    """'00:00:5e:00:01:01' -> '0000-5e00-0101'."""
    return mac_as(value, "MAC_DASH_FOUR")


def queue_name(value: int) -> str:
    """Queue number 0..7 -> Comware queue name (3 -> 'af3', 6 -> 'cs6')."""
    return QUEUE_NAMES[value]


def dscp_remaps(dscp_to_class: dict[int, int]) -> list[tuple[int, int]]:
    """The (DSCP, dot1p) entries the pre-defined dscp-dot1p map lacks (only those are written)."""
    return [(d, c) for d, c in sorted(dscp_to_class.items()) if default_dscp_dot1p(d) != c]


def dot1p_lp_identity(_qos: object) -> list[tuple[int, int]]:
    """dot1p-lp entries that make class N leave from queue N (the default map sends 0 to queue 2)."""
    return [(p, p) for p, lp in sorted(DEFAULT_DOT1P_LP.items()) if lp != p]


def cells(size: int, cell_bytes: int) -> int:
    """Bytes -> the buffer cells Comware counts PFC headroom in (rounded up)."""
    return -(-size // cell_bytes)


FILTERS: dict[str, Callable[..., object]] = {
    "cells": cells,
    "mac": mac,
    "queue_name": queue_name,
    "dscp_remaps": dscp_remaps,
    "dot1p_lp_identity": dot1p_lp_identity,
}
