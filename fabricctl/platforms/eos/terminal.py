"""How an EOS CLI looks over SSH: the running-config command and its prompt."""

from __future__ import annotations

from fabricctl.platforms.base import Fetch

FETCH = Fetch(
    show_running="show running-config",
    prompt=r"[\w.\-]+(?:\([^)\r\n]*\))?[#>]\s*$",  # host# / host(config-...)#
    netmiko_device_type="arista_eos",
)
