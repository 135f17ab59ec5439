"""Day-0 provisioning, per NOS: what a factory-default switch asks DHCP for, and the files its own
auto-configuration fetches (deploy/ztp.py assembles them for every rack switch; docs/day0.md).

Each platform says which boot file DHCP names (the URL its auto-configuration downloads over
HTTP), which DHCP options carry it, and which files make that boot file: the day-0 config
itself (management, login, underlay, LLDP, QoS; no tenant) or a script that installs it. Every
behaviour is cited in `sources` (docs/day0.md lists them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Day0:
    #: The Jinja template of the management and login lines that precede the rendered config.
    header_template: str
    #: switch name -> the file DHCP option 67 names (the URL's last part).
    boot_file: Callable[[str], str]
    #: (switch, day-0 config text, base URL of the files) -> file name -> text (the boot file among them).
    files: Callable[[str, str, str], dict[str, str]]
    #: (boot file URL, server address) -> Kea option-data of the switch's reservation (JSON values:
    #: an option Kea does not define goes as hex with `"csv-format": false`).
    dhcp_options: Callable[[str, str], Sequence[Mapping[str, object]]]
    #: (behaviour, URL, section) the files and options rest on.
    sources: tuple[tuple[str, str, str], ...]
    #: How the login's secret is written in the header: "sha512-crypt" or "plain" (the NOS hashes
    #: it when it stores the line; the file is a secret either way: ztp render writes it 0600).
    secret_form: str
