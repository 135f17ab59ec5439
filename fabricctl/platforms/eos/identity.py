"""EOS switch identity: `show version` as JSON (eAPI's `serialNumber` and `modelName`, the
fields NAPALM's EOS driver reads for get_facts' serial_number and model; its captures are in
tests/captures/napalm/eos)."""

from __future__ import annotations

from typing import Any

from fabricctl.platforms.health import Probe
from fabricctl.platforms.identity import IdentityReader, SwitchIdentity, required

VERSION = "show version"


def parse(rows: dict[str, Any]) -> SwitchIdentity:
    data = rows.get(VERSION)
    data = data if isinstance(data, dict) else {}
    return SwitchIdentity(
        required(data.get("serialNumber"), "serialNumber", VERSION),
        required(data.get("modelName"), "modelName", VERSION),
    )


IDENTITY = IdentityReader(probes=(Probe(VERSION, json_command=f"{VERSION} | json"),), parse=parse)
