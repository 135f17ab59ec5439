"""What fabricctl owns of an NVUE object tree and how it changes it (remediation rules).

The tree's lines (config/syntax.py ObjectTree): each interface, VRF and ACL is a top-level line of
its own ("interface swp9", "vrf tnt-a", "acl tnt-a-in"); other top-level keys are lines ("qos",
"router", "evpn"); nested keys are lines ("link", "10.0.0.1/31"); a scalar is "key: value". The
remediation is `nv set <path> <value>` / `nv unset <path>` (NVUE CLI > Command Syntax), applied as
one revision. Anything else (system, users, eth0, the management VRF, NTP, ...) is never touched.
"""

from __future__ import annotations

from fabricctl.config.rules import Dialect, Provenance
from fabricctl.config.syntax import ObjectTree

#: Interfaces, VRFs and ACLs are collections: one top-level line per member.
# A link's state, a port's breakout and an SVI's VRR state are objects of one member, `state:
# {up: {}}`, `breakout: {2x: {}}`, `vrr-state: {up: {}}` (NVUE API: the interface PATCH payload;
# Switch Port Attributes), set by naming the member (`nv set interface swp1 link state down`
# replaces `up`): choices.
SYNTAX = ObjectTree(
    collections=("interface", "vrf", "acl"),
    set_command="nv set",
    unset_command="nv unset",
    choices=("state", "breakout", "vrr-state"),
)

DIALECT = Dialect(
    syntax=SYNTAX,
    # Fabric-wide objects, owned by shape: the RoCE profile and watchdog, the BGP instance, the
    # VTEP, EVPN and its L2VNIs, the bridge's tenant VLANs, the default VRF's routing and the
    # loopback. NVUE nests a VLAN three keys deep in `bridge` (and an L2VNI's targets in `evpn
    # vni`), below the depth ownership by proof reaches: on a fabric leaf those hold only
    # fabricctl's l2 tenants.
    owned=(
        r"qos$",
        r"router$",
        r"nve$",
        r"evpn$",
        r"bridge$",
        r"vrf default$",
        r"interface lo$",
    ),
    ports=r"interface swp\d+(?:s\d+)?$",
    # Ownership by proof: an SVI's description carries the fabric's mark; an ACL has no
    # description, its rules' remarks carry it (`rule` > `<n>` > `remark`); a tenant VRF has
    # neither and goes with the ACL of the same tenant (`tnt-<name>` and `tnt-<name>-in`).
    tenant_objects=(
        Provenance("svi", r"interface vlan(?P<key>\d+)$", mark=r"description: (?P<text>.*)$"),
        Provenance(
            "acl",
            r"acl (?P<key>\S+?)(?:-in)?$",
            mark=r"remark: (?P<text>.*)$",
            mark_under=(r"rule$", r"\d+$"),
        ),
        Provenance("vrf", r"vrf (?P<key>(?!default$)\S+)$", follows="acl"),
    ),
    # Every scalar leaf holds one value: `nv set` of a new value replaces the old one.
    single_value=(r"\S+?: ",),
    never_remove=(r"interface swp",),
    admin_down=r"state: down$",  # `link state down` (a choice: the tree line of `state: {down: {}}`)
    # Switch Port Attributes > Configure a Breakout Port: changing `link breakout` re-creates the
    # port's interfaces (swp<n> becomes swp<n>s0.. or back), so every lane goes down and up.
    flaps=(r"breakout: ",),
    removal_order=(r"interface ", r"vrf ", r"acl "),
    vrf_header=r"^vrf (?!default$)(\S+)$",
    vlan_objects=("vlan{id}", "{id}"),  # the SVI, and the bridge VLAN (its key under `vlan`)
)
