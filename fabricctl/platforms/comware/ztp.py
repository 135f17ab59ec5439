"""Comware V7 automatic configuration: DHCP names an HTTP URL in option 67; the switch downloads
that configuration file (.cfg) and runs it (HPE 5130 EI / 5920 fundamentals, 'Using automatic
configuration'; H3C white paper WP-18579)."""

from __future__ import annotations

from fabricctl.platforms.day0 import Day0

SOURCES = (
    (
        "a switch that starts without a configuration file runs automatic configuration: DHCP on "
        "its management Ethernet interface first, then a file server (TFTP, or HTTP when the file "
        "name is an HTTP URL); the file may be a configuration file (.cfg), a Python script (.py) "
        "or a Tcl script (.tcl)",
        "https://support.hpe.com/techhub/eginfolib/networking/docs/switches/5920-5900/5200-4534_fund_cg/content/498612571.htm",
        "HPE 5920 & 5900 Fundamentals Configuration Guide (Comware 7), 'Using automatic configuration' > Overview",
    ),
    (
        "the configuration file name comes from option 67 (or the file field); option 150, then "
        "option 66, name the TFTP server",
        "https://www.manualowl.com/m/Hewlett-Packard/6125XLG/Manual/381305?page=130",
        "HP 6125XLG Blade Switch Fundamentals Configuration Guide (Comware 7, R2306), 'Using automatic "
        "configuration' > 'Configuration file acquisition process' (Option 67 or the file field carries "
        "the configuration file name; Option 150, then Option 66, name the file server)",
    ),
    (
        "text-type configuration files (.cfg), Python and Tcl script files; server-based automatic "
        "configuration over DHCP + HTTP/TFTP",
        "https://www.h3c.com/en/Support/Resource_Center/EN/Home/Public/00-Public/Technical_Documents/Technology_Literature/Technology_White_Papers/H3C_WP-18579/",
        "H3C Automatic Configuration Technology White Paper (2024-04-17): 'Text-type configuration "
        "files', 'Implementation of server-based automatic configuration'",
    ),
)


def boot_file(name: str) -> str:
    return f"{name}.cfg"


def files(name: str, config: str, base_url: str) -> dict[str, str]:
    """The .cfg is the day-0 config itself: the switch runs it as it is."""
    return {boot_file(name): config}


def dhcp_options(url: str, server: str) -> list[dict[str, str]]:
    return [
        {"name": "boot-file-name", "data": url},  # option 67: the configuration file, an HTTP URL
        {"name": "tftp-server-name", "data": server},  # option 66: the file server
    ]


DAY0 = Day0(
    header_template="comware/day0.j2",
    boot_file=boot_file,
    files=files,
    dhcp_options=dhcp_options,
    sources=SOURCES,
    secret_form="plain",
)
