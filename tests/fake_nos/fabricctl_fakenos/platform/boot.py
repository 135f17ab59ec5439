"""What TinyOS applies only at boot (nothing: every line it takes is in effect once committed)
and how it is told to reboot: `reboot`, confirmed with `yes`; it refuses while running differs
from startup, so it never asks to save."""

from __future__ import annotations

from fabricctl.platforms.boot import BootSetting, Reboot

BOOT_SETTINGS: tuple[BootSetting, ...] = ()

REBOOT = Reboot(
    command="reboot", confirm=r"Reboot now\? \[yes/no\]", answer="yes", source="TinyOS CLI: reboot"
)
