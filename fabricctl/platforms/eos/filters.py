"""Jinja filters of the EOS templates: how EOS spells a MAC address."""

from __future__ import annotations

from fabricctl.platforms.filters import mac_digits


def mac(value: str) -> str:
    """'00:00:5e:00:01:01' -> '0000.5e00.0101'."""
    d = mac_digits(value)
    return f"{d[0:4]}.{d[4:8]}.{d[8:12]}"


FILTERS = {"mac": mac}
