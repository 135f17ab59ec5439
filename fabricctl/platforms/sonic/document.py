"""One SONiC switch's configuration as one text: its CONFIG_DB JSON document (what
`sonic-cfggen -d --print-data` prints, `config load` takes) followed by its frr.conf (what
`vtysh -c "show running-config"` prints in split-unified mode). `split` takes them apart again."""

from __future__ import annotations

import json
from typing import Any

from fabricctl.errors import StageError
from fabricctl.platforms.sonic.configdb import ConfigDb, config_db, dumps
from fabricctl.platforms.sonic.frr import frr_conf


class SonicConfigError(StageError):
    """Text that is not a CONFIG_DB JSON document (then frr.conf)."""


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
    if not isinstance(db, dict) or not all(isinstance(v, dict) for v in db.values()):
        raise SonicConfigError(f"{switch}: CONFIG_DB is not an object of tables")
    tables: dict[str, dict[str, Any]] = db
    return tables, text[end:].lstrip("\n"), text[:end].count("\n") + 2
