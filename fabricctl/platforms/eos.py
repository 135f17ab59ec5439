"""Arista EOS (7060X5/7800R): facts from reference/platforms.md section 1."""

from __future__ import annotations

from dataclasses import dataclass

from fabricctl.platforms.base import Capabilities, Limits, Platform


@dataclass(frozen=True)
class Eos(Platform):
    def port_name(self, port: int, lane: int | None = None) -> str:
        if lane is None:
            return f"{self.port_prefix_400g}{port}"
        # 400G-8 ports split into 2 x 200G-4: lanes 1 and 5.
        return f"{self.port_prefix_200g}{port}/{1 + (lane - 1) * 4}"


EOS = Eos(
    name="eos",
    netmiko_device_type="arista_eos",
    capabilities=Capabilities(
        pfc=True,
        pfc_watchdog=True,
        ecn_per_queue=True,
        strict_priority_queue=True,
        evpn_type5=True,
        evpn_symmetric_irb=True,
        commit_confirm=True,  # `configure session NAME commit timer`
        config_sessions=True,
    ),
    limits=Limits(max_vrfs=1024, max_vlans=4094, max_vnis=16000, max_acl_entries=12288),
    cnp_class=6,
    port_prefix_400g="Ethernet",
    port_prefix_200g="Ethernet",
)
