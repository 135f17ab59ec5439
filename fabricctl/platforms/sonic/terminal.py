"""How a SONiC switch is read over SSH: `show runningconfiguration all` (sonic-utilities
doc/Command-Reference.md, "Show Running Configuration"): CONFIG_DB, with FRR's running config
(`vtysh -c "show running-config"`) under `bgpraw` (sonic-utilities show/main.py). The startup
config is /etc/sonic/config_db.json (what `config save -y` writes) and then the frr.conf `vtysh -c
"write memory"` writes (/etc/sonic/frr/frr.conf on the host in split-unified mode), one `cat`. The login is the admin's bash: netmiko's `linux` driver, its `$` prompt."""

from __future__ import annotations

from fabricctl.platforms.base import Fetch
from fabricctl.platforms.sonic.document import SonicConfigError, split

FETCH = Fetch(
    show_running="show runningconfiguration all",
    show_saved="cat /etc/sonic/config_db.json /etc/sonic/frr/frr.conf",
    prompt=r"[\w.\-]+@[\w.\-]+:[^$]*\$ ?$",
    netmiko_device_type="linux",
)
#: What the Generic Config Updater prints when it refuses a patch (config apply-patch), and vtysh
#: for a line it does not know.
REFUSAL = r"^(?:Failed to apply patch|Error: |% Unknown command|% Invalid)"


def pending(running: str, saved: str, extra: str | None) -> str | None:
    """A change not made permanent: the running CONFIG_DB differs from /etc/sonic/config_db.json
    (a push saves with `config save -y` once it is proven, so a difference is a push interrupted
    before it, or someone's change never saved)."""
    if not running.strip() or not saved.strip():
        return None
    try:
        db = split("running", running)[0]
        startup = split("saved", saved)[0]
    except SonicConfigError:
        return None
    if db == startup:
        return None
    return "the running CONFIG_DB differs from /etc/sonic/config_db.json (a change applied and not saved)"
