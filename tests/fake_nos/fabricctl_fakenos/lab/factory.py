"""TinyOS out of the box: its hostname and nothing else (its ports exist without a line)."""

from __future__ import annotations

from fabricctl.lab.nos import Spec


def factory(spec: Spec) -> str:
    return f"system:\n  hostname: {spec.name}\n"


def hardware(spec: Spec) -> str:
    """What erasing the config leaves: an empty tree (the ports are not config lines)."""
    return "{}\n"


def ztp_boot(url: str, text: str, fetch: object) -> tuple[str, bool]:
    """Day 0: the boot file is the whole config, committed as the startup config."""
    return text, True
