"""Jinja filters of the EOS templates: how EOS spells a MAC address."""

from __future__ import annotations

from fabricctl.macs import mac_as


def mac(value: str) -> str:
    """'00:00:5E:00:01:01' (or '0000.5e00.0101') -> '00:00:5e:00:01:01'.

    EOS takes the dotted form too but `show running-config` prints colon-separated lowercase,
    and AVD renders the same (`ip_virtual_router_mac_address`: hh:hh:hh:hh:hh:hh); emitting the
    printed form keeps intended and running config equal after a push.
    """
    return mac_as(value, "MAC_COLON_TWO")


FILTERS = {"mac": mac}
