"""Cumulus Linux Zero Touch Provisioning: a switch with no configuration asks DHCP for a
provisioning script URL (option 239, `cumulus-provision-url`), downloads it and runs it. The
script here replaces the pending configuration with the switch's day-0 NVUE YAML and applies it."""

from __future__ import annotations

from fabricctl.platforms.day0 import Day0

_ZTP = (
    "https://docs.nvidia.com/networking-ethernet-software/cumulus-linux/Installation-Management/"
    "Zero-Touch-Provisioning-ZTP/"
)
_CFG = "https://docs.nvidia.com/networking-ethernet-software/cumulus-linux/System-Configuration/"

SOURCES = (
    (
        "on first boot ZTP looks for a provisioning script; over DHCP it takes the URL from option "
        "239, `cumulus-provision-url`, downloads the script over HTTP and runs it",
        _ZTP,
        "Zero Touch Provisioning - ZTP > 'Use DHCP' (option cumulus-provision-url code 239)",
    ),
    (
        "ZTP runs only a script that contains the string CUMULUS-AUTOPROVISIONING",
        _ZTP,
        "Zero Touch Provisioning - ZTP > 'Write ZTP Scripts'",
    ),
    (
        "`nv config replace <file>` replaces the pending configuration with an NVUE YAML file; "
        "`nv config apply -y` applies it without asking",
        f"{_CFG}NVIDIA-User-Experience-NVUE/NVUE-CLI/",
        "NVUE CLI > 'Replace and Patch a Pending Configuration', 'Apply Configuration'",
    ),
)


def boot_file(name: str) -> str:
    return f"{name}.ztp.sh"


def files(name: str, config: str, base_url: str) -> dict[str, str]:
    """The provisioning script and the NVUE YAML it applies."""
    startup = f"{name}.nvue.yaml"
    script = "\n".join(
        [
            "#!/bin/bash",
            "# CUMULUS-AUTOPROVISIONING",
            "set -e",
            f"curl -fsS -o /tmp/{startup} {base_url}/{startup}",
            f"nv config replace /tmp/{startup}",
            "nv config apply -y",
            "exit 0",
        ]
    )
    return {boot_file(name): script + "\n", startup: config}


def dhcp_options(url: str, server: str) -> list[dict[str, object]]:
    """Option 239 carries the script's URL. Kea defines no option 239 (a site-specific code), so
    it goes as raw bytes: `"csv-format": false` with the URL in hex (Kea ARM, DHCPv4 "Standard
    DHCPv4 Options": an undefined option's data is given in hex)."""
    return [{"code": 239, "space": "dhcp4", "csv-format": False, "data": url.encode().hex()}]


DAY0 = Day0(
    header_template="nvue/day0.j2",
    boot_file=boot_file,
    files=files,
    dhcp_options=dhcp_options,
    sources=SOURCES,
    secret_form="sha512-crypt",
)
