"""What fabricctl owns on an EOS switch and how each owned line is removed (remediation rules).

Anything else (hostname, users, Management1, NTP, SNMP, ...) is never touched.
"""

from __future__ import annotations

from fabricctl.config.rules import Dialect, Negation, Provenance, Reset
from fabricctl.config.syntax import ModalCli

DIALECT = Dialect(
    syntax=ModalCli(indent=3, negate_prefix="no ", exit_command="exit"),
    owned=(
        r"service routing protocols model ",
        r"qos map ",
        r"qos profile ",
        r"priority-flow-control ",
        r"ip routing$",
        r"interface (Loopback[01]|Vxlan1)$",
        r"ip virtual-router mac-address ",
        r"router bgp ",
        r"router bfd$",
        # Drains (maintenance.yaml, templates/eos/bgp-drain.j2): maintenance mode is how
        # fabricctl takes a switch or link out of service, so its units are fabricctl's; the BGP
        # group is fabricctl's by its name.
        r"group bgp FABRICCTL-DRAIN$",
        r"maintenance$",
    ),
    ports=r"interface Ethernet",
    # Ownership by proof (docs/plan-apply.md, "What fabricctl owns"): a VRF's description, an
    # ACL's remark and an SVI's description carry the fabric's mark (`description` in VRF and
    # interface modes, `<seq> remark` in ACL mode: AVD eos_cli_config_gen); VLAN mode has no
    # description, so a VLAN is fabricctl's with its SVI.
    tenant_objects=(
        Provenance("vrf", r"vrf instance (?P<key>\S+)$", mark=r"description (?P<text>.*)$"),
        Provenance("acl", r"ip access-list (?P<key>\S+)$", mark=r"\d+ remark (?P<text>.*)$"),
        Provenance(
            "svi",
            r"interface Vlan(?P<key>\d+)$",
            mark=r"description (?P<text>.*)$",
            looks=r"vrf (?P<name>\S+)$",
        ),
        Provenance("vrf-routing", r"ip routing vrf (?P<key>\S+)$", follows="vrf"),
        Provenance("vlan", r"vlan (?P<key>\d+)$", follows="svi", looks=r"name (?P<name>\S+)$"),
    ),
    nested=(
        (r"router bgp ", Provenance("bgp-vrf", r"vrf (?P<key>\S+)$", follows="vrf")),
        (r"router bgp ", Provenance("bgp-vlan", r"vlan (?P<key>\d+)$", follows="vlan")),
        (
            r"interface Vxlan1$",
            Provenance("vni-vlan", r"vxlan vlan (?P<key>\d+) vni ", follows="vlan"),
        ),
        (r"interface Vxlan1$", Provenance("vni-vrf", r"vxlan vrf (?P<key>\S+) vni ", follows="vrf")),
    ),
    single_value=(
        r"description ",
        r"mtu ",
        r"ip address (?!virtual)",
        r"ip address virtual ",
        r"router-id ",
        r"maximum-paths ",
        r"neighbor \S+ maximum-routes ",
        r"multihop interval ",
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
    # EOS: moving an interface to another VRF removes its IP addresses (AVD; lab/devices/eos/commands.yaml).
    resets=(Reset(r"vrf (?!instance)", (r"ip address",), source="avd"),),
    admin_down=r"shutdown$",
    flaps=(r"speed ",),
    removal_order=(
        r"maintenance$",  # out of maintenance before the group it quiesces goes
        r"group bgp ",
        r"interface Ethernet",
        r"interface Vlan",
        r"interface Vxlan",
        r"router bgp ",
        r"vlan ",
        r"ip routing vrf ",
        r"vrf instance ",
        r"ip access-list ",
    ),
    vrf_header=r"^vrf instance (\S+)$",
    vlan_objects=("vlan {id}", "Vlan{id}"),
)
