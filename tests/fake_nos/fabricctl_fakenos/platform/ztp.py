"""TinyOS day 0: DHCP option 67 names the switch's boot file, its whole config as YAML (the
management header, then the fabric's tree), which it commits as its startup config."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from fabricctl.platforms.day0 import Day0

SOURCES = (
    ("a factory-default switch fetches the file DHCP option 67 names and commits it", "TinyOS", "day 0"),
)


def boot_file(name: str) -> str:
    return f"{name}.tiny.yaml"


def files(name: str, config: str, base_url: str) -> dict[str, str]:
    return {boot_file(name): config}


def dhcp_options(url: str, server: str) -> Sequence[Mapping[str, object]]:
    """Option 67 (bootfile-name), which Kea defines: the URL as text."""
    return [{"name": "boot-file-name", "data": url}]


DAY0 = Day0(
    header_template="tinyos/day0.j2",
    boot_file=boot_file,
    files=files,
    dhcp_options=dhcp_options,
    sources=SOURCES,
    secret_form="plain",
)
