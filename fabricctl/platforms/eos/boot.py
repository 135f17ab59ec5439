"""EOS settings that take effect only at the next reload, and how `check` reads them."""

from __future__ import annotations

from typing import Any

from fabricctl.platforms.boot import BootSetting, BootState, Reboot

SHOW_ROUTE_SUMMARY = "show ip route summary"

ROUTING_MODEL = BootSetting(
    name="service routing protocols model",
    line=r"service routing protocols model (\S+)",
    negation=r"no service routing protocols model(?: \S+)?",
    default=None,  # ribd on older releases, multi-agent later (4.32 removes ribd): release-dependent
    what="the routing protocol model (multi-agent runs EVPN)",
    source="Arista ANTA, anta/tests/routing/generic.py VerifyRoutingProtocolModel: `show ip route "
    "summary` protoModelStatus configuredProtoModel and operatingProtoModel, which differ until the "
    "switch reloads (its test data 'failure-mismatch-operating-model'); Arista TOI: ribd removed "
    "from EOS 4.32.0F",
    show=SHOW_ROUTE_SUMMARY,
)
BOOT_SETTINGS = (ROUTING_MODEL,)


def read_routing_model(data: Any) -> BootState | None:
    """The model in use (operating) and the one the next reload runs (configured)."""
    status = data.get("protoModelStatus") if isinstance(data, dict) else None
    if not isinstance(status, dict):
        return None
    operating, configured = status.get("operatingProtoModel"), status.get("configuredProtoModel")
    if not isinstance(operating, str) or not isinstance(configured, str):
        return None
    return BootState(operating, configured)


#: `reload`: EOS User Manual, "Rebooting and Power Cycling": "System configuration has been
#: modified. Save? [yes/no/cancel/diff]:" when running is not saved, then "Proceed with reload?
#: [confirm]" (Enter confirms).
REBOOT = Reboot(
    command="reload",
    confirm=r"Proceed with reload\? \[confirm\]",
    answer="",
    unsaved=r"Save\? \[yes/no/cancel/diff\]:",
    decline=("cancel",),
    source="Arista EOS User Manual, Rebooting and Power Cycling, reload",
)
