"""Who a TinyOS switch is: `show version | json` names its serial number and model."""

from __future__ import annotations

from typing import Any

from fabricctl.platforms.health import Probe
from fabricctl.platforms.identity import IdentityReader, SwitchIdentity, required

VERSION = "show version"


def parse(rows: dict[str, Any]) -> SwitchIdentity:
    data = rows.get(VERSION)
    data = data if isinstance(data, dict) else {}
    return SwitchIdentity(
        required(data.get("serial"), "serial", VERSION), required(data.get("model"), "model", VERSION)
    )


IDENTITY = IdentityReader(probes=(Probe(VERSION, json_command=f"{VERSION} | json"),), parse=parse)
