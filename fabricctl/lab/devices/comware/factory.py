"""A Comware V7 switch out of the box (every port in bridge mode): the baseline fabricctl does not own.

The factory text is fed through the grammar, so the grammar provably accepts every factory line.
"""

from __future__ import annotations

from fabricctl.lab.factory import mgmt_gateway
from fabricctl.lab.nos import Spec


def factory(spec: Spec) -> str:
    """Factory current-configuration of a Comware V7 box (every port in bridge mode)."""
    lines = [
        "#",
        f" sysname {spec.name}",
        "#",
        " clock timezone UTC add 00:00:00",
        "#",
        " lldp global enable",
        "#",
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
        f" ip route-static 0.0.0.0 0 {mgmt_gateway(spec.mgmt_ip)}",
        "#",
        " snmp-agent community read simple fabricctl-ro",
        " snmp-agent sys-info version v2c v3",
        "#",
        "line vty 0 63",
        " authentication-mode scheme",
        "#",
        "local-user admin class manage",
        " service-type ssh",
        " authorization-attribute user-role network-admin",
        "#",
        "return",
    ]
    return "\n".join(lines) + "\n"


def ztp_factory(spec: Spec) -> str:
    """Out of the box, before ZTP: bridge ports in VLAN 1 and LLDP on (its shipped defaults)."""
    lines = ["#", " lldp global enable", "#", "vlan 1", "#"]
    for n in range(1, spec.ports + 1):
        lines += [f"interface FourHundredGigE1/0/{n}", " port link-mode bridge", "#"]
    lines += ["interface M-GigabitEthernet0/0/0", "#", "return"]
    return "\n".join(lines) + "\n"


def hardware(spec: Spec) -> str:
    """What erasing the configuration leaves: only hardware (physical port) blocks remain."""
    ports = [f"interface FourHundredGigE1/0/{n}\n#" for n in range(1, spec.ports + 1)]
    return "\n".join(ports) + "\n"
