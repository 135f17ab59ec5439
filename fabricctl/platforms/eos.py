"""Arista EOS (7060X5/7800R): facts from reference/platforms.md section 1."""

from __future__ import annotations

from dataclasses import dataclass

from fabricctl.platforms.base import Capabilities, Limits, Platform
from fabricctl.platforms.dialect import Dialect, Negation

# What fabricctl owns on an EOS switch and how each owned line is removed. Anything else
# (hostname, users, Management1, NTP, SNMP, ...) is never touched.
DIALECT = Dialect(
    indent=3,
    separators=("!", "end"),
    negate_prefix="no ",
    exit_command="exit",
    owned=(
        r"service routing protocols model ",
        r"qos map ",
        r"qos profile ",
        r"priority-flow-control ",
        r"vlan \d+$",
        r"vrf instance ",
        r"ip routing",
        r"ip access-list [a-z][a-z0-9-]*-in$",
        r"interface (Ethernet|Loopback[01]$|Vlan\d+|Vxlan1$)",
        r"ip virtual-router mac-address ",
        r"router bgp ",
    ),
    not_owned=(r"vrf instance (MGMT|mgmt|management)$", r"ip routing vrf (MGMT|mgmt|management)$"),
    single_value=(
        r"description ",
        r"mtu ",
        r"ip address (?!virtual)",
        r"ip address virtual ",
        r"router-id ",
        r"maximum-paths ",
        r"rd ",
        r"name ",
        r"speed ",
        r"vrf (?!instance)",
        r"vxlan source-interface ",
        r"vxlan udp-port ",
        r"vxlan vlan \d+ vni ",
        r"vxlan vrf \S+ vni ",
        r"qos map dscp \d+ to traffic-class ",
        r"qos map traffic-class \d+ to tx-queue ",
        r"priority-flow-control pause watchdog default timeout ",
        r"priority-flow-control pause watchdog default polling-interval ",
        r"priority-flow-control pause watchdog default recovery-time ",
        r"priority-flow-control pause watchdog action ",
        r"bandwidth percent ",
        r"random-detect ecn minimum-threshold ",
        r"neighbor \S+ remote-as ",
        r"neighbor \S+ description ",
        r"neighbor \S+ peer group \S",
        r"neighbor \S+ ebgp-multihop ",
        r"switchport access vlan ",
        r"ip access-group \S+ in$",
        r"service-profile ",
        r"ip virtual-router mac-address ",
    ),
    negations=(
        Negation(r"^(\d+) (permit|deny|remark) .*$", r"no \1"),
        Negation(r"^description .*$", "no description"),
        Negation(r"^mtu .*$", "no mtu"),
        Negation(r"^switchport access vlan .*$", "no switchport access vlan"),
        Negation(r"^service-profile .*$", "no service-profile"),
        Negation(r"^ip access-group (\S+) in$", r"no ip access-group \1 in"),
    ),
    never_remove=(r"interface Ethernet",),
    rebind=((r"vrf (?!instance)", r"ip address"),),
    removal_order=(
        r"interface Ethernet",
        r"interface Vlan",
        r"interface Vxlan",
        r"router bgp ",
        r"vlan ",
        r"ip routing vrf ",
        r"vrf instance ",
        r"ip access-list ",
    ),
)


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
    dialect=DIALECT,
)
