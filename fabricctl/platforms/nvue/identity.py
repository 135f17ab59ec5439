"""NVUE switch identity: `nv show platform` (Cumulus Linux 5.9 and later: the platform's
hardware, NVUE command reference "nv show platform" and the user guide's Monitoring Best
Practices), a table of `operational` values: `serial-number`, and the model as `product-name`
(or `system-type`, which later releases print instead)."""

from __future__ import annotations

from typing import Any

from fabricctl.platforms.health import Probe
from fabricctl.platforms.identity import IdentityReader, SwitchIdentity, required

PLATFORM = "nv show platform"


def table(text: str) -> dict[str, str]:
    """key -> its operational value, from NVUE's two-column table (the rows under the dashes)."""
    out: dict[str, str] = {}
    lines = text.splitlines()
    start = next((i + 1 for i, ln in enumerate(lines) if ln.strip() and set(ln.strip()) <= {"-", " "}), None)
    for line in lines[start or 0 :] if start is not None else []:
        key, _, value = line.strip().partition(" ")
        if key:
            out[key] = value.strip()
    return out


def parse(rows: dict[str, Any]) -> SwitchIdentity:
    text = rows.get(PLATFORM)
    found = table(text) if isinstance(text, str) else {}
    model = found.get("product-name") or found.get("system-type")
    return SwitchIdentity(
        required(found.get("serial-number"), "serial-number", PLATFORM),
        required(model, "product-name or system-type", PLATFORM),
    )


IDENTITY = IdentityReader(probes=(Probe(PLATFORM, text=True),), parse=parse)
