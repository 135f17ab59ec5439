"""SONiC Zero Touch Provisioning (sonic-net/SONiC doc/ztp/ztp.md): a factory switch takes the URL
of a ZTP JSON from DHCP and runs its sections; the `configdb-json` plugin fetches a CONFIG_DB JSON
document, writes it as /etc/sonic/config_db.json and reloads. The day-0 text deploy/ztp.py hands
over is day0.j2's CONFIG_DB object, then the rendered document (CONFIG_DB and frr.conf): the two
CONFIG_DB objects are merged into the switch's config_db.json. FRR's configuration is not a ZTP
plugin's: the first `fabricctl apply` pushes it through vtysh, as every later change."""

from __future__ import annotations

import json
from typing import Any

from fabricctl.platforms.day0 import Day0
from fabricctl.platforms.sonic.configdb import dumps
from fabricctl.platforms.sonic.document import split
from fabricctl.platforms.sonic.switch import SONIC_DOCS

_ZTP = f"{SONIC_DOCS}doc/ztp/ztp.md"

SOURCES = (
    (
        "DHCP option 67 (`bootfile-name`) gives the URL of the ZTP JSON file",
        _ZTP,
        "3.2 'ZTP JSON' and 'DHCP options': option 67 carries the ZTP JSON's URL",
    ),
    (
        "the ZTP JSON's `ztp` object holds sections run in their names' lexical order; a section's "
        "plugin is its name without a leading number",
        _ZTP,
        "'ZTP JSON': section names and plugins",
    ),
    (
        "the `configdb-json` plugin fetches `url.source`, installs it as /etc/sonic/config_db.json "
        "and runs `config reload`",
        _ZTP,
        "'configdb-json' plugin",
    ),
)


def boot_file(name: str) -> str:
    return f"{name}.ztp.json"


def _merged(name: str, config: str) -> dict[str, Any]:
    """day0.j2's CONFIG_DB object merged, row by row, into the rendered CONFIG_DB."""
    text = config.lstrip()
    header, end = json.JSONDecoder().raw_decode(text)
    db, _frr, _line = split(name, text[end:].lstrip("\n"))
    for table, rows in header.items():
        merged = db.setdefault(table, {})
        for key, fields in rows.items():
            merged[key] = {**merged.get(key, {}), **fields}
    return db


def files(name: str, config: str, base_url: str) -> dict[str, str]:
    """The ZTP JSON and the CONFIG_DB its configdb-json section installs."""
    startup = f"{name}.config_db.json"
    ztp = {"ztp": {"01-configdb-json": {"url": {"source": f"{base_url}/{startup}"}}}}
    return {boot_file(name): json.dumps(ztp, indent=4) + "\n", startup: dumps(_merged(name, config))}


def dhcp_options(url: str, server: str) -> list[dict[str, str]]:
    return [{"name": "boot-file-name", "data": url}]  # option 67: the ZTP JSON's URL


DAY0 = Day0(
    header_template="sonic/day0.j2",
    boot_file=boot_file,
    files=files,
    dhcp_options=dhcp_options,
    sources=SOURCES,
    secret_form="plain",
)
