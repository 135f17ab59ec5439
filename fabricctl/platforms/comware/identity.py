"""Comware switch identity: `display device manuinfo`, read with ntc-templates'
hp_comware_display_device_manuinfo template (the one napalm-h3c-comware's get_facts reads the
serial number from). The chassis' own entry (`Chassis self`) where the switch prints one (a
modular chassis), else the first slot's (a box switch: `Slot 1 CPU 0`); fans and power supplies
carry serials of their own and never stand for the switch."""

from __future__ import annotations

from typing import Any

from fabricctl.platforms.health import Probe
from fabricctl.platforms.identity import IdentityError, IdentityReader, SwitchIdentity, required

MANUINFO = "display device manuinfo"
_TEMPLATE = "hp_comware_display_device_manuinfo.textfsm"


def parse(rows: dict[str, Any]) -> SwitchIdentity:
    entries = [r for r in rows.get(MANUINFO) or [] if isinstance(r, dict)]
    chassis = [
        r for r in entries if r.get("slot_type", "").lower() == "chassis" and r.get("device_serial_number")
    ]
    slots = [r for r in entries if r.get("slot_type", "").lower() in ("slot", "")]
    if not chassis and not slots:
        raise IdentityError(f"{MANUINFO!r} lists no chassis or slot")
    found = (chassis or slots)[0]
    return SwitchIdentity(
        required(found.get("device_serial_number"), "DEVICE_SERIAL_NUMBER", MANUINFO),
        required(found.get("device_name"), "DEVICE_NAME", MANUINFO),
    )


IDENTITY = IdentityReader(probes=(Probe(MANUINFO, template=_TEMPLATE),), parse=parse)
