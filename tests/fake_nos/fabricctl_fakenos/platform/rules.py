"""What fabricctl owns of a TinyOS object tree and how it changes it: `set <path> <value>` and
`delete <path>` (config/syntax.py ObjectTree). Each interface, VRF and ACL is a top-level line of
its own; the system's hostname, QoS, BGP and VTEP are fabric-wide and fabricctl's; a tenant's VRF
and ACL are fabricctl's by the fabric's mark in their description."""

from __future__ import annotations

from fabricctl.config.rules import Dialect, Provenance
from fabricctl.config.syntax import ObjectTree

SYNTAX = ObjectTree(collections=("interface", "vrf", "acl"), set_command="set", unset_command="delete")

DIALECT = Dialect(
    syntax=SYNTAX,
    owned=(r"system$", r"qos$", r"bgp$", r"vtep$", r"interface lo\d+$"),
    ports=r"interface port\d+$",
    tenant_objects=(
        Provenance("vrf", r"vrf (?P<key>\S+)$", mark=r"description: (?P<text>.*)$"),
        Provenance("acl", r"acl (?P<key>\S+?)(?:-in)?$", mark=r"description: (?P<text>.*)$"),
    ),
    single_value=(r"\S+?: ",),
    never_remove=(r"interface port",),
    admin_down=r"shutdown: on$",
    removal_order=(r"interface ", r"vrf ", r"acl "),
    vrf_header=r"^vrf (\S+)$",
)
