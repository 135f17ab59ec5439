"""SONiC switch identity: `show version` (sonic-utilities doc/Command-Reference.md, "show version":
the image's versions, then `Platform`, `HwSKU`, `ASIC`, `Serial Number`, `Model Number`, one
`<name>: <value>` line each, read from the switch's system EEPROM). The serial number is
`Serial Number`; the model `Model Number` (NVIDIA's ordering part, `MSN2700-CS2FO` for an
SN2700), else the platform string (`x86_64-nvidia_sn5600-r0`): both carry the model's name, as
`same_model` takes it."""

from __future__ import annotations

from typing import Any

from fabricctl.platforms.health import Probe
from fabricctl.platforms.identity import IdentityReader, SwitchIdentity, required

VERSION = "show version"
NOT_AVAILABLE = "N/A"  # what `show version` prints for a field the EEPROM lacks


def fields(text: str) -> dict[str, str]:
    """`<name>: <value>` lines of `show version`, up to the Docker images table."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("Docker images:"):
            break
        name, sep, value = line.partition(": ")
        if sep and name.strip():
            out[name.strip()] = value.strip()
    return out


def parse(rows: dict[str, Any]) -> SwitchIdentity:
    text = rows.get(VERSION)
    found = {k: v for k, v in (fields(text) if isinstance(text, str) else {}).items() if v != NOT_AVAILABLE}
    model = found.get("Model Number") or found.get("Platform")
    return SwitchIdentity(
        required(found.get("Serial Number"), "Serial Number", VERSION),
        required(model, "Model Number or Platform", VERSION),
    )


IDENTITY = IdentityReader(probes=(Probe(VERSION, text=True),), parse=parse)
