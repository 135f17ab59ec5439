"""An EOS switch out of the box: the baseline fabricctl does not own.

The factory text is fed through the grammar, so the grammar provably accepts every factory line.
The hash is a fixed lab value, not derived from any password.
"""

from __future__ import annotations

from fabricctl.lab.factory import mgmt_gateway
from fabricctl.lab.nos import Spec

ADMIN_HASH = "$6$fabricctllab$Xk9oY0VQnJ1bq2p7m4h3Lr8uQeW5zT6yA1sD2fG3hJ4kL5zX6cV7bN8mQ9wE0rT1yU2iO3pA4s"


def factory(spec: Spec) -> str:
    """Factory running-config of an EOS box with `spec.ports` front-panel ports."""
    lines = [
        f"hostname {spec.name}",
        f"username admin privilege 15 role network-admin secret sha512 {ADMIN_HASH}",
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
        f"ip route 0.0.0.0/0 {mgmt_gateway(spec.mgmt_ip)}",
        "!",
        "management api http-commands",
        "   no shutdown",
        "!",
    ]
    return "\n".join(lines) + "\n"


def hardware(spec: Spec) -> str:
    """What `rollback clean-config` leaves: only hardware (physical port) blocks remain."""
    ports = [f"interface Ethernet{n}\n!" for n in range(1, spec.ports + 1)]
    return "\n".join([*ports, "interface Management1", "!"]) + "\n"
