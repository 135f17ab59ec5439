"""Comware settings that take effect only after the device reboots, and how `check` reads the
value in use against the one the next boot takes."""

from __future__ import annotations

import re

from fabricctl.platforms.boot import BootSetting, BootState, Reboot
from fabricctl.platforms.comware.parse import DEFAULT_MAX_ECMP

SHOW_MAX_ECMP = "display max-ecmp-num"

MAX_ECMP = BootSetting(
    name="max-ecmp-num",
    line=r"max-ecmp-num (\d+)",
    negation=r"undo max-ecmp-num",
    default=str(DEFAULT_MAX_ECMP),
    what="the system's ECMP cap (next hops one route installs)",
    source="H3C S6520X-EI & S6520X-HI Layer 3 IP Routing Configuration Guide R1110, 1.5 'Configuring "
    "the maximum number of ECMP routes': system-view, max-ecmp-num number, default 8, 该配置在设备重启"
    "后才能生效 (takes effect after the device reboots); IP Routing Command Reference, display "
    "max-ecmp-num: 'Max-ECMP-Num in use: 6' / 'Max-ECMP-Num at the next reboot: 10'",
    show=SHOW_MAX_ECMP,
    ecmp_cap=True,
)
ECMP_MODE = BootSetting(
    name="ecmp mode",
    line=r"ecmp mode (enhanced)",
    negation=r"undo ecmp mode(?: enhanced)?",
    default="default",
    what="the IPv4 ECMP mode",
    source="H3C IP Routing Command Reference, display ecmp mode: 'ECMP-mode in use: Default' / "
    "'ECMP-mode at the next reboot: Enhanced'; H3C ISSU guide: max-ecmp-num and ecmp mode enhanced "
    "must match before an ISSU reboot",
)
SWITCH_MODE = BootSetting(
    name="switch-mode",
    line=r"switch-mode (\d+)",
    negation=r"undo switch-mode",
    default="0",
    what="the hardware resource mode (0 NORMAL, 1 VXLAN, 2 802.1BR, 3 MPLS, 4 MPLS-IRF)",
    source="H3C IRF troubleshooting guide: `switch-mode 0` answers 'Reboot device to make the "
    "configuration take effect'; display switch-mode status: 'Switch-mode in use' / 'Switch-mode "
    "for next reboot'",
)
BOOT_SETTINGS = (MAX_ECMP, ECMP_MODE, SWITCH_MODE)


def read_max_ecmp(text: str) -> BootState | None:
    """`display max-ecmp-num`: the cap in use and the one the next boot takes (None: not that output)."""
    in_use = re.search(r"Max-ECMP-Num in use:\s*(\d+)", text, re.IGNORECASE)
    after = re.search(r"Max-ECMP-Num at the next reboot:\s*(\d+)", text, re.IGNORECASE)
    return BootState(in_use[1], after[1]) if in_use and after else None


#: `reboot`: HPE Comware 7 fundamentals command reference, `reboot`: "Current configuration may be
#: lost after the reboot, save current configuration? [Y/N]:" (running not saved), then "This
#: command will reboot the device. Continue? [Y/N]:". `reboot force` skips the checks and is
#: documented as a cause of lost data: never sent.
REBOOT = Reboot(
    command="reboot",
    confirm=r"reboot the device\. Continue\? \[Y/N\]:",
    answer="Y",
    unsaved=r"save current configuration\? \[Y/N\]:",
    decline=("N", "N"),
    source="HPE Comware 7 Fundamentals Command Reference, reboot",
)
