"""Jinja filters of the SONiC templates. SONiC's configuration is data, not lines: the device
template writes the lines of `configuration` (document.py: the CONFIG_DB JSON document, then
frr.conf), so the tables are built and key-sorted as `sonic-cfggen -d --print-data` prints them,
never by string templating; `json_string` writes one value of the day-0 JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from fabricctl.platforms.sonic.document import render


def configuration(intent: Any) -> list[str]:
    """The lines of the switch's CONFIG_DB JSON document followed by its frr.conf
    (document.render): the template writes them one by one, each checked as every rendered line
    is (no value breaks out of its line)."""
    return render(intent).splitlines()


def json_string(value: object) -> str:
    """One JSON value (a string quoted and escaped): no text can open a key of its own."""
    return json.dumps(value, ensure_ascii=False)


FILTERS: dict[str, Callable[..., object]] = {"configuration": configuration, "json_string": json_string}
