"""Jinja filters of the Comware templates: how Comware spells a MAC address and a queue."""

from __future__ import annotations

from fabricctl.platforms.comware.qos import QUEUE_NAMES
from fabricctl.platforms.filters import mac_digits


def mac(value: str) -> str:
    """'00:00:5e:00:01:01' -> '0000-5e00-0101'."""
    d = mac_digits(value)
    return f"{d[0:4]}-{d[4:8]}-{d[8:12]}"


def queue_name(value: int) -> str:
    """Queue number 0..7 -> Comware queue name (3 -> 'af3', 6 -> 'cs6')."""
    return QUEUE_NAMES[value]


FILTERS = {"mac": mac, "queue_name": queue_name}
