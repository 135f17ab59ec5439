"""What SONiC applies only at boot: none of what fabricctl writes. The Generic Config Updater
applies a JSON Patch to the running CONFIG_DB and the daemons subscribed to each table act on it
(sonic-net/SONiC doc/config-generic-update-rollback/Json_Change_Application_Design.md), and vtysh
changes FRR at once. With no setting waiting for a boot, fabricctl gives no reboot dialog for
SONiC (`Platform.reboot` None: `fabricctl reboot --rolling` refuses its switches)."""

from __future__ import annotations

from fabricctl.platforms.boot import BootSetting

BOOT_SETTINGS: tuple[BootSetting, ...] = ()
