"""TinyOS out of the box: its hostname and nothing else (its ports exist without a line)."""

from __future__ import annotations

import yaml

from fabricctl.lab.nos import Spec


def factory(spec: Spec) -> str:
    return f"system:\n  hostname: {spec.name}\n"


def hardware(spec: Spec) -> str:
    """What erasing the config leaves: an empty tree (the ports are not config lines)."""
    return "{}\n"


def ztp_boot(url: str, text: str, fetch: object) -> tuple[str, bool]:
    """Day 0: the boot file is the whole config, one object tree, committed as the startup
    config; ValueError: a file that is not one (an error page, another NOS's file)."""
    try:
        tree = yaml.load(text, Loader=yaml.BaseLoader)
    except yaml.YAMLError as exc:
        raise ValueError(f"{url}: not a TinyOS configuration: {exc}") from None
    if not isinstance(tree, dict):
        raise ValueError(f"{url}: not a TinyOS configuration: not one object tree")
    return text, True
