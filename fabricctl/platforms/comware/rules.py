"""What fabricctl owns on a Comware switch and how each owned line is removed (remediation rules).

Anything else in the running config (sysname, users, management, NTP, SNMP, ...) is never touched.
"""

from __future__ import annotations

from fabricctl.config.rules import Dialect, Negation, Provenance, Reset
from fabricctl.config.syntax import ModalCli

DIALECT = Dialect(
    syntax=ModalCli(indent=1, negate_prefix="undo ", exit_command="quit"),
    owned=(
        r"priority-flow-control ",
        r"qos map-table (dscp-dot1p|dot1p-lp)$",
        r"qos trust tunnel-dot1p$",
        r"lldp global enable$",
        r"qos wred queue table ",
        r"l2vpn enable$",
        r"vxlan tunnel ",
        r"tunnel global source-address ",
        r"interface LoopBack[01]$",
        r"bgp \d+$",
        r"max-ecmp-num ",
        # Drains (maintenance.yaml, templates/comware/bgp-drain.j2): fabricctl's by their names.
        r"route-policy FABRICCTL-DRAIN-(IN|OUT) ",
    ),
    ports=r"interface (FourHundredGigE|TwoHundredGigE)",
    # Ownership by proof (docs/plan-apply.md, "What fabricctl owns"): `description` in VPN
    # instance, VSI, ACL and VSI interface views carries the fabric's mark.
    tenant_objects=(
        Provenance("vrf", r"ip vpn-instance (?P<key>\S+)$", mark=r"description (?P<text>.*)$"),
        Provenance("vsi", r"vsi (?P<key>\S+)$", mark=r"description (?P<text>.*)$"),
        Provenance("acl", r"acl advanced name (?P<key>\S+)$", mark=r"description (?P<text>.*)$"),
        Provenance(
            "svi",
            r"interface Vsi-interface(?P<key>\d+)$",
            mark=r"description (?P<text>.*)$",
            looks=r"ip binding vpn-instance (?P<name>\S+)$",
        ),
    ),
    nested=((r"bgp \d+$", Provenance("bgp-vrf", r"ip vpn-instance (?P<key>\S+)$", follows="vrf")),),
    single_value=(
        r"description ",
        r"jumboframe enable ",
        r"mtu ",
        r"link-delay ",
        r"priority-flow-control dot1p \d+ headroom ",
        r"port link-mode ",
        r"ip address ",
        r"route-distinguisher ",
        r"router-id ",
        r"tunnel global source-address ",
        r"mac-address ",
        r"l3-vni ",
        r"gateway vsi-interface ",
        r"priority-flow-control deadlock precision ",
        r"priority-flow-control deadlock cos \d+ interval ",
        r"priority-flow-control deadlock auto-recover cos \d+ delay ",
        r"import \d+ export ",
        r"queue \d+ weighting-constant ",
        r"queue \d+ drop-level \d+ ",
        r"queue \d+ low-limit ",
        r"qos wrr \S+ group ",
        r"peer \S+ as-number ",
        r"peer \S+ description ",
        r"peer \S+ ebgp-max-hop ",
        r"balance ",
        r"max-ecmp-num ",
    ),
    negations=(
        Negation(r"^description .*$", "undo description"),
        Negation(r"^jumboframe enable.*$", "undo jumboframe enable"),
        Negation(r"^mtu .*$", "undo mtu"),
        Negation(r"^link-delay .*$", "undo link-delay"),
        Negation(
            r"^priority-flow-control dot1p (\d+) headroom .*$",
            r"undo priority-flow-control dot1p \1 headroom",
        ),
        Negation(r"^rule (\d+) .*$", r"undo rule \1"),
        Negation(r"^peer (\S+) as-number .*$", r"undo peer \1"),
        Negation(r"^qos wrr (\S+) group .*$", r"undo qos wrr \1"),
        Negation(r"^qos wred apply .*$", "undo qos wred apply"),
        Negation(r"^ip binding vpn-instance .*$", "undo ip binding vpn-instance"),
        Negation(r"^l3-vni .*$", "undo l3-vni"),
        Negation(r"^route-distinguisher .*$", "undo route-distinguisher"),
        Negation(r"^max-ecmp-num .*$", "undo max-ecmp-num"),
    ),
    never_remove=(r"interface (FourHundredGigE|TwoHundredGigE)", r"port link-mode "),
    resets=(
        # H3C Ethernet interface commands, `port link-mode`: changing the mode restores every
        # other setting of the port except `shutdown` to its default (lab/devices/comware/commands.yaml).
        Reset(r"port link-mode ", ("",), keeps=(r"shutdown$",), source="h3c-eth"),
        # `ip binding vpn-instance`: binding an interface to another VPN instance deletes its
        # IP addresses (lab/devices/comware/commands.yaml, h3c-ansible vpn_instance.py).
        Reset(r"ip binding vpn-instance ", (r"ip address ",), source="h3c-ansible"),
    ),
    admin_down=r"shutdown$",
    flaps=(r"port link-mode ", r"using "),
    removal_order=(
        r"interface (FourHundredGigE|TwoHundredGigE)",
        r"interface Vsi-interface",
        r"vsi ",
        r"bgp ",
        r"route-policy ",  # once no peer applies it
        r"ip vpn-instance ",
        r"acl ",
    ),
    vrf_header=r"^ip vpn-instance (\S+)$",
    vlan_objects=("Vsi-interface{id}",),
    l3vni_objects=("Vsi-interface{number}",),
)
