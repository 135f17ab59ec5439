"""Arista EOS Zero Touch Provisioning: a switch with no startup-config asks DHCP for a boot file
URL (option 67), downloads it over HTTP and, a script, runs it; here the script copies the
switch's day-0 startup-config to flash, and the switch reboots with it."""

from __future__ import annotations

from fabricctl.platforms.day0 import Day0

SOURCES = (
    (
        "no startup-config in flash: the switch enters ZTP mode and downloads a startup-config or a "
        "boot script from the location a DHCP server names; after the download it reboots with the "
        "retrieved file",
        "https://www.arista.com/en/um-eos/eos-initial-switch-access",
        "EOS User Manual, 'Initial Switch Access' > 'Zero Touch Provisioning'",
    ),
    (
        "the switch boots, gets a DHCP address with option 67 (the bootstrap URL) and downloads its "
        "initial configuration from that URL over HTTP",
        "https://eos.arista.com/ztp-boot-process-with-cloudvision/",
        "Arista EOS Central, 'ZTP Boot Process with CloudVision' > 'ZTP Boot Process Summary'",
    ),
    (
        "the boot file is fetched with an HTTP GET; its URL comes from DHCP option 67",
        "https://ztpserver.readthedocs.io/",
        "Arista EOS+ ZTPServer documentation, 'ZTPServer Overview' > Client",
    ),
    (
        "a boot script that starts with #!/usr/bin/Cli -p2 is run by the EOS CLI; `copy <url> "
        "flash:startup-config` installs the startup-config",
        "https://github.com/RackHD/docs",
        "RackHD documentation, 'Creating a Custom Zerotouch Graph for Arista' > 'Zerotouch Profile'",
    ),
)


def boot_file(name: str) -> str:
    return f"{name}.ztp"


def files(name: str, config: str, base_url: str) -> dict[str, str]:
    """The boot script, and the startup-config it installs."""
    startup = f"{name}.startup-config"
    script = "\n".join(
        [
            "#!/usr/bin/Cli -p2",
            "enable",
            f"copy {base_url}/{startup} flash:startup-config",
        ]
    )
    return {boot_file(name): script + "\n", startup: config}


def dhcp_options(url: str, server: str) -> list[dict[str, str]]:
    return [{"name": "boot-file-name", "data": url}]  # option 67: the boot script's URL


DAY0 = Day0(
    header_template="eos/day0.j2",
    boot_file=boot_file,
    files=files,
    dhcp_options=dhcp_options,
    sources=SOURCES,
    secret_form="sha512-crypt",
)
