"""Factory (out-of-box) configuration of lab devices: the baseline fabricctl does not own.

Each NOS writes its own (lab/devices/<nos>/factory.py); a DeviceSpec names the NOS and model.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from fabricctl.lab.nos import lab_nos


@dataclass(frozen=True)
class DeviceSpec:
    """What the lab needs to know to build a device."""

    name: str
    platform: str  # a NOS under lab/devices/ (or one a test registered)
    mgmt_ip: str = "192.0.2.10"
    model: str = ""
    ports: int = 64
    mac: str = ""  # the management port's MAC (racks/<rack>.yaml): what DHCP knows the switch by
    serial: str = ""  # the serial number the switch reports (its rack file's; else one derived from its name)
    ztp: bool = False  # delivered factory-default: no config until it boots by ZTP (lab/ztp.py)
    #: The failure domain it belongs to ("pod:3", "plane:7"; "" for none): a sharded lab keeps
    #: each together on one shard (lab/shards.py).
    domain: str = ""

    def __post_init__(self) -> None:
        try:
            nos = lab_nos(self.platform)
        except ValueError as exc:
            raise ValueError(f"{self.name}: {exc}") from None
        if not self.model:
            object.__setattr__(self, "model", nos.default_model)


def mgmt_gateway(mgmt_ip: str) -> str:
    """The management /24's .254, the default route's next hop."""
    net = ipaddress.ip_network(f"{mgmt_ip}/24", strict=False)
    return str(net.network_address + 254)


def factory_text(spec: DeviceSpec) -> str:
    """Factory config text for the spec's platform (a rack switch: as it leaves the factory)."""
    if spec.ztp:
        return ztp_factory_text(spec)
    return lab_nos(spec.platform).factory(spec)


def ztp_factory_text(spec: DeviceSpec) -> str:
    """A switch out of the box: no startup file, so no address, no login, nothing but its ports
    (each NOS's shipped defaults). It waits in its NOS's auto-configuration (lab/ztp.py) until a
    DHCP server and a file server give it a config."""
    return lab_nos(spec.platform).ztp_factory(spec)


def hardware_text(spec: DeviceSpec) -> str:
    """What erasing the config (`rollback clean-config`) leaves: only hardware (physical port) blocks."""
    return lab_nos(spec.platform).hardware(spec)
