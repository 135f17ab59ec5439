"""Comware V7 automatic configuration: DHCP names an HTTP URL in option 67; the switch downloads
that configuration file (.cfg) and runs it (HPE 5130 EI / 5920 fundamentals, 'Using automatic
configuration'; H3C white paper WP-18579)."""

from __future__ import annotations

from fabricctl.platforms.day0 import Day0

SOURCES = (
    (
        "a switch that starts without a configuration file runs automatic configuration: DHCP on "
        "its management Ethernet interface first, then a file server (TFTP or HTTP); the file may be "
        "a configuration file (.cfg), a Python script (.py) or a Tcl script (.tcl)",
        "https://support.hpe.com/techhub/eginfolib/networking/docs/switches/5920-5900/5200-4534_fund_cg/content/498612571.htm",
        "HPE 5920 & 5900 Fundamentals Configuration Guide (Comware 7), 'Using automatic configuration' > Overview",
    ),
    (
        "the configuration file name comes from option 67 (or the file field); a name in the form of "
        "an HTTP URL is downloaded from that HTTP server; option 66 names a TFTP server, option 150 its address",
        "https://www.easymanua.ls/hp/5130-ei-series/manual?p=139",
        "HPE 5130 EI Switch Series Fundamentals Configuration Guide (Comware 7), 'Using automatic "
        "configuration' > Figure 42 'Automatic configuration workflow' and 'Interface selection process'",
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
