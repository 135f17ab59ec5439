"""One SONiC switch's configuration as one text: its CONFIG_DB JSON document (what
`sonic-cfggen -d --print-data` prints, `config load` takes) followed by its frr.conf (what
`vtysh -c "show running-config"` prints in split-unified mode). `split` takes them apart again, and
reads a switch's `show runningconfiguration all` too: CONFIG_DB with frr.conf under `bgpraw`."""

from __future__ import annotations

import json
from typing import Any

from fabricctl.errors import StageError
from fabricctl.platforms.sonic.configdb import ConfigDb, config_db, dumps
from fabricctl.platforms.sonic.frr import frr_conf


class SonicConfigError(StageError):
    """Text that is not a CONFIG_DB JSON document (then frr.conf)."""


#: The key `show runningconfiguration all` adds to CONFIG_DB for FRR's running config
#: (sonic-utilities show/main.py, `all`: `output['bgpraw']`, vtysh's `show running-config`).
BGPRAW = "bgpraw"


def render(intent: Any) -> str:
    """The switch's whole configuration text."""
    return dumps(config_db(intent)) + frr_conf(intent)


def split(switch: str, text: str) -> tuple[ConfigDb, str, int]:
    """(CONFIG_DB, frr.conf text, the line frr.conf starts on) of a configuration text."""
    try:
        db, end = json.JSONDecoder().raw_decode(text)
    except json.JSONDecodeError as exc:
        raise SonicConfigError(
            f"{switch}: config does not start with a CONFIG_DB JSON document ({exc})"
        ) from None
    if isinstance(db, dict) and isinstance(db.get(BGPRAW), str):
        # `show runningconfiguration all`: FRR's running config is the value of `bgpraw`, after
        # vtysh's preamble ("Building configuration...", "Current configuration:").
        frr: str = db.pop(BGPRAW)
        start = frr.find("hostname ")
        frr = frr[start:] if start >= 0 else frr
    else:
        frr = text[end:].lstrip("\n")
    if not isinstance(db, dict) or not all(isinstance(v, dict) for v in db.values()):
        raise SonicConfigError(f"{switch}: CONFIG_DB is not an object of tables")
    tables: dict[str, dict[str, Any]] = db
    return tables, frr, text[:end].count("\n") + 2
