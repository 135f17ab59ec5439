"""Factory (out-of-box) configuration of lab devices: the baseline fabricctl does not own.

The factory text is fed through the platform grammar, so the grammar provably accepts every
factory line. Hashes are fixed lab values, not derived from any password.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

EOS_HASH = "$6$fabricctllab$Xk9oY0VQnJ1bq2p7m4h3Lr8uQeW5zT6yA1sD2fG3hJ4kL5zX6cV7bN8mQ9wE0rT1yU2iO3pA4s"
COMWARE_HASH = "$h$6$fabricctllab$Qm3pL9vX2cN8bT4yR7wK1sD5fG6hJ0kA+zE/uI9oP2lM3nB4vC5xZ6aS7dF8gH=="


@dataclass(frozen=True)
class DeviceSpec:
    """What the lab needs to know to build a device."""

    name: str
    platform: str  # "eos" | "comware"
    mgmt_ip: str = "192.0.2.10"
    model: str = ""
    ports: int = 64
    mac: str = ""  # the management port's MAC (racks/<rack>.yaml): what DHCP knows the switch by
    ztp: bool = False  # delivered factory-default: no config until it boots by ZTP (lab/ztp.py)

    def __post_init__(self) -> None:
        if self.platform not in ("eos", "comware"):
            raise ValueError(f"{self.name}: unsupported lab platform {self.platform!r}")
        if not self.model:
            default = "7060X5-64" if self.platform == "eos" else "S9825-64D"
            object.__setattr__(self, "model", default)


def _gateway(mgmt_ip: str) -> str:
    """The management /24's .254, the default route's next hop."""
    net = ipaddress.ip_network(f"{mgmt_ip}/24", strict=False)
    return str(net.network_address + 254)


def eos_factory(spec: DeviceSpec) -> str:
    """Factory running-config of an EOS box with `spec.ports` front-panel ports."""
    lines = [
        f"hostname {spec.name}",
        f"username admin privilege 15 role network-admin secret sha512 {EOS_HASH}",
        "!",
        "logging buffered 10000",
        "logging host 192.0.2.251",
        "ntp server 192.0.2.250",
        "snmp-server location lab",
        "snmp-server community fabricctl-ro ro",
        "!",
    ]
    for n in range(1, spec.ports + 1):
        lines += [f"interface Ethernet{n}", "!"]
    lines += [
        "interface Management1",
        f"   ip address {spec.mgmt_ip}/24",
        "!",
        f"ip route 0.0.0.0/0 {_gateway(spec.mgmt_ip)}",
        "!",
        "management api http-commands",
        "   no shutdown",
        "!",
    ]
    return "\n".join(lines) + "\n"


def comware_factory(spec: DeviceSpec) -> str:
    """Factory current-configuration of a Comware V7 box (every port in bridge mode)."""
    lines = [
        "#",
        f" sysname {spec.name}",
        "#",
        " clock timezone UTC add 00:00:00",
        "#",
        " lldp global enable",
        "#",
        " ntp-service enable",
        " ntp-service unicast-server 192.0.2.250",
        "#",
        " info-center loghost 192.0.2.251",
        "#",
        " ssh server enable",
        "#",
        "vlan 1",
        "#",
    ]
    for n in range(1, spec.ports + 1):
        lines += [f"interface FourHundredGigE1/0/{n}", " port link-mode bridge", "#"]
    lines += [
        "interface M-GigabitEthernet0/0/0",
        f" ip address {spec.mgmt_ip} 255.255.255.0",
        "#",
        f" ip route-static 0.0.0.0 0 {_gateway(spec.mgmt_ip)}",
        "#",
        " snmp-agent",
        " snmp-agent community read simple fabricctl-ro",
        " snmp-agent sys-info version v2c v3",
        "#",
        "line vty 0 63",
        " authentication-mode scheme",
        " user-role network-operator",
        "#",
        "local-user admin class manage",
        f" password hash {COMWARE_HASH}",
        " service-type ssh",
        " authorization-attribute user-role network-admin",
        "#",
        "return",
    ]
    return "\n".join(lines) + "\n"


def factory_text(spec: DeviceSpec) -> str:
    """Factory config text for the spec's platform (a rack switch: as it leaves the factory)."""
    if spec.ztp:
        return ztp_factory_text(spec)
    return eos_factory(spec) if spec.platform == "eos" else comware_factory(spec)


def ztp_factory_text(spec: DeviceSpec) -> str:
    """A switch out of the box: no startup file, so no address, no login, nothing but its ports
    (Comware: bridge ports in VLAN 1 and LLDP on, its shipped defaults). It waits in its NOS's
    auto-configuration (lab/ztp.py) until a DHCP server and a file server give it a config."""
    if spec.platform == "eos":
        return hardware_text(spec)
    lines = ["#", " lldp global enable", "#", "vlan 1", "#"]
    for n in range(1, spec.ports + 1):
        lines += [f"interface FourHundredGigE1/0/{n}", " port link-mode bridge", "#"]
    lines += ["interface M-GigabitEthernet0/0/0", "#", "return"]
    return "\n".join(lines) + "\n"


def hardware_text(spec: DeviceSpec) -> str:
    """What `rollback clean-config` leaves: only hardware (physical port) blocks remain."""
    if spec.platform == "eos":
        ports = [f"interface Ethernet{n}\n!" for n in range(1, spec.ports + 1)]
        return "\n".join([*ports, "interface Management1", "!"]) + "\n"
    ports = [f"interface FourHundredGigE1/0/{n}\n#" for n in range(1, spec.ports + 1)]
    return "\n".join(ports) + "\n"
