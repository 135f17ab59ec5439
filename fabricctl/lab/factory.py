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
    """Factory config text for the spec's platform."""
    return lab_nos(spec.platform).factory(spec)


def hardware_text(spec: DeviceSpec) -> str:
    """What erasing the config (`rollback clean-config`) leaves: only hardware (physical port) blocks."""
    return lab_nos(spec.platform).hardware(spec)
