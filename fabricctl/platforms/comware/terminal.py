"""How a Comware V7 CLI looks over SSH: the running-config command, its prompts, its error forms."""

from __future__ import annotations

from fabricctl.platforms.base import Fetch

FETCH = Fetch(
    show_running="display current-configuration",
    prompt=r"[<\[][^\]>\r\n]+[\]>]\s*$",  # <host> in user view, [host] / [host-view] in system view
    netmiko_device_type="hp_comware",
)
#: A prompt at the start of a line: one per pasted line comes back.
PROMPT_LINE = r"(?m)^[<\[][^\]>\r\n]+[\]>]"
#: What a rejected command prints.
ERROR_PATTERN = r"% Unrecognized|% Incomplete|% Too many|% Wrong|% Invalid|Error"
