"""H3C Comware V7 (S9825-64D / S9855): facts from reference/platforms.md section 4."""

from __future__ import annotations

from dataclasses import dataclass

from fabricctl.platforms.base import Capabilities, Limits, Platform


@dataclass(frozen=True)
class Comware(Platform):
    def port_name(self, port: int, lane: int | None = None) -> str:
        if lane is None:
            return f"{self.port_prefix_400g}1/0/{port}"
        return f"{self.port_prefix_200g}1/0/{port}:{lane}"


COMWARE = Comware(
    name="comware",
    netmiko_device_type="hp_comware",
    capabilities=Capabilities(
        pfc=True,
        pfc_watchdog=True,  # "PFC deadlock detection"
        ecn_per_queue=True,  # WRED queue table + `queue N ecn`
        strict_priority_queue=True,
        evpn_type5=True,
        evpn_symmetric_irb=True,
        commit_confirm=True,  # `configuration commit delay N`
        config_sessions=False,
    ),
    limits=Limits(max_vrfs=1024, max_vlans=4094, max_vnis=16000, max_acl_entries=8192),
    cnp_class=6,
    port_prefix_400g="FourHundredGigE",
    port_prefix_200g="TwoHundredGigE",
)
