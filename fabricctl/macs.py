"""A MAC address in the form a NOS spells it, through netutils: the one helper the render filters,
the rack files and the twin's output share."""

from __future__ import annotations

from netutils.mac import is_valid_mac, mac_to_format


def mac_as(value: str, frmt: str) -> str:
    """A MAC address written in any of netutils' forms (':', '-' or '.' between pairs or groups
    of four, or none), in the form `frmt` (netutils' MAC_COLON_TWO, MAC_DASH_FOUR, MAC_DOT_FOUR
    ...), lower case; ValueError for anything else."""
    if not is_valid_mac(value):
        raise ValueError(f"not a MAC address: {value!r}")
    spelled: str = mac_to_format(value, frmt)
    return spelled.lower()
