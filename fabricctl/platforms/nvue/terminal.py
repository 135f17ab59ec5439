"""How NVUE looks over SSH: the commands that print the applied and the startup config (YAML, the
object tree fabricctl renders), the shell prompt, and what an interrupted push leaves behind."""

from __future__ import annotations

from collections.abc import Mapping

import yaml

from fabricctl.platforms.base import Fetch

FETCH = Fetch(
    # NVUE Config Commands: `nv config show` prints the applied configuration in YAML; `-o yaml`
    # asks for that form explicitly, `-r startup` for the startup revision (`nv config save`).
    show_running="nv config show -o yaml",
    show_saved="nv config show -r startup -o yaml",
    prompt=r"[\w.\-]+@[\w.\-]+(?::\w+)?:[^\r\n$#]*[$#]\s*$",  # cumulus@leaf01:mgmt:~$
    netmiko_device_type="cumulus_linux",
)


def _applied(text: str) -> object:
    """The `set` parts of a `nv config show` YAML (its header carries the revision: not config)."""
    try:
        data = yaml.load(text, Loader=yaml.BaseLoader)
    except yaml.YAMLError:
        return text
    if isinstance(data, list):
        return [part.get("set") for part in data if isinstance(part, Mapping) and "set" in part]
    return data


def pending(running: str, saved: str, extra: str | None) -> str | None:
    """An apply NVUE has not made permanent: the applied revision differs from startup. With
    auto-save on (Cumulus Linux 5.9 and later) every confirmed apply is saved, so a difference is
    an apply still under its confirm timer, or one made with auto-save off and never saved."""
    if not running.strip() or not saved.strip() or _applied(running) == _applied(saved):
        return None
    return "the applied configuration differs from startup (an apply not confirmed or not saved)"
