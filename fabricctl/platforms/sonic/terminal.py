"""How a SONiC switch is read over SSH: CONFIG_DB as `show runningconfiguration all` prints it
(sonic-utilities doc/Command-Reference.md, "Show Running Configuration"), then FRR's running
config (`vtysh -c "show running-config"`); the startup config is /etc/sonic/config_db.json (what
`config save -y` writes). The login is the admin's bash: netmiko's `linux` driver, its `$` prompt."""

from __future__ import annotations

from fabricctl.platforms.base import Fetch

FETCH = Fetch(
    show_running="show runningconfiguration all",
    show_saved="cat /etc/sonic/config_db.json",
    prompt=r"[\w.\-]+@[\w.\-]+:[^$]*\$ ?$",
    netmiko_device_type="linux",
)
SHOW_FRR = 'vtysh -c "show running-config"'
#: What the Generic Config Updater prints when it refuses a patch (config apply-patch), and vtysh
#: for a line it does not know.
REFUSAL = r"^(?:Failed to apply patch|Error: |% Unknown command|% Invalid)"
