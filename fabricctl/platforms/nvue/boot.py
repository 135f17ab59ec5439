"""NVUE settings that take effect only at the next boot (none of them is in fabricctl's
templates; a fabric's own templates may set one, and the plan then marks it)."""

from __future__ import annotations

from fabricctl.platforms.boot import BootSetting, Reboot

REBOOT_MODE = BootSetting(
    name="system reboot mode",
    line=r"nv set system reboot mode (\S+)",
    negation=r"nv unset system reboot mode(?: \S+)?",
    default=None,
    what="how the switch restarts (cold, fast, warm)",
    source="Cumulus Linux 5.17 user guide, System Power and Switch Reboot: 'After you change the "
    "reboot mode on the switch using NVUE or csmgrctl commands, you must reboot the switch to "
    "activate the mode change' (the mode in use: `nv show system reboot`)",
)
#: Not boot-time: `nv set system forwarding profile` (Forwarding Table Size and Profiles) and
#: RoCE buffer changes are applied by `nv config apply` restarting or reloading switchd, within
#: the apply itself.
BOOT_SETTINGS = (REBOOT_MODE,)

#: `nv action reboot system`: Cumulus Linux 5.17 user guide, System Power and Switch Reboot
#: (NVUE saves every applied revision since 5.9: no question about unsaved configuration).
REBOOT = Reboot(
    command="nv action reboot system",
    confirm=r"Do you want to continue\? \[y/N\]",
    answer="y",
    source="Cumulus Linux 5.17 user guide, System Power and Switch Reboot; NVUE Command Reference, nv action reboot system",
)
