"""Arista EOS configuration grammar: the shapes in docs/emitted-syntax.md plus factory lines.

Anything not listed here is rejected with `% Invalid input`, so a misspelled template line
fails in the lab. Values are validated loosely (numbers, names, IPs, prefixes).
"""

from __future__ import annotations

from fabricctl.lab.grammar import Grammar, Mode, Rule

_ABBREV = {"Ethernet": "Et", "Loopback": "Lo", "Vlan": "Vl", "Vxlan": "Vx", "Management": "Ma"}


def _if_prompt(words: list[str]) -> str:
    """`interface Ethernet1` -> `config-if-Et1` (EOS abbreviates the interface type)."""
    name = words[1]
    for full, short in _ABBREV.items():
        if name.startswith(full):
            return "config-if-" + short + name[len(full) :]
    return "config-if-" + name


_DESC = Rule("description <text>", key=1)
_SHUT = Rule("shutdown")
_MTU = Rule("mtu <int>", key=1)
_VRF = Rule("vrf <name>", key=1, resets=("ip address ",))  # a VRF change removes the addresses
_IPADDR = Rule("ip address <cidr>", key=2)
_ACCESS_GROUP = Rule("ip access-group <name> {in|out}", neg=2)

GLOBAL = Mode(
    rules=(
        Rule("hostname <name>", key=1),
        Rule("username <name> privilege <int> role <name> secret sha512 <word>", key=2),
        Rule("service routing protocols model {multi-agent|ribd}", key=4),
        Rule("ntp server <ip>", neg=2),
        Rule("snmp-server community <name> {ro|rw}", key=3),
        Rule("snmp-server location <text>", key=2),
        Rule("snmp-server contact <text>", key=2),
        Rule("logging host <ip>", neg=2),
        Rule("logging buffered <int>", key=2),
        Rule("qos map dscp <int> to traffic-class <int>", key=4),
        Rule("qos map traffic-class <int> to tx-queue <int>", key=4),
        Rule("priority-flow-control pause watchdog default timeout <num>", key=5),
        Rule("priority-flow-control pause watchdog default polling-interval <num>", key=5),
        Rule("priority-flow-control pause watchdog default recovery-time <num>", key=5),
        Rule("priority-flow-control pause watchdog action {drop|errdisable|notify-only}", key=4),
        Rule("qos profile <name>", child="qos-profile"),
        Rule("vlan <int>", child="vlan"),
        Rule("vrf instance <name>", child="vrf"),
        Rule("ip routing"),
        Rule("ip routing vrf <name>"),
        Rule("ip access-list <name>", child="acl"),
        Rule("interface Ethernet<port>", child="if-eth", keep=True),
        Rule("interface Loopback<int>", child="if-lo"),
        Rule("interface Vlan<int>", child="if-vlan"),
        Rule("interface Vxlan<int>", child="if-vx"),
        Rule("interface Management<int>", child="if-mgmt", keep=True),
        Rule("ip virtual-router mac-address <mac-eos>", key=3),
        Rule("ip route <cidr> <ip>", neg=3),
        Rule("router bgp <int>", child="bgp", neg=2),
        Rule("management api http-commands", child="mgmt-api"),
    )
)

MODES: dict[str, Mode] = {
    "global": GLOBAL,
    "qos-profile": Mode(
        rules=(
            Rule("qos trust {dscp|cos}", key=2),
            Rule("priority-flow-control on"),
            Rule("priority-flow-control priority <int> no-drop", key=3),
            Rule("priority-flow-control pause watchdog"),
            Rule("tx-queue <int>", child="txq"),
        ),
        prompt=lambda w: f"config-qos-profile-{w[2]}",
    ),
    "txq": Mode(
        rules=(
            Rule("no priority"),
            Rule("priority strict", key=1),
            Rule("bandwidth percent <int>", key=2),
            Rule(
                "random-detect ecn minimum-threshold <int> {bytes|kbytes|mbytes|segments} "
                "maximum-threshold <int> {bytes|kbytes|mbytes|segments} "
                "max-mark-probability <int> weight <int>",
                key=2,
            ),
        ),
        prompt=lambda w: f"config-qos-profile-txq-{w[1]}",
    ),
    "vlan": Mode(rules=(Rule("name <name>", key=1),), prompt=lambda w: f"config-vlan-{w[1]}"),
    "vrf": Mode(rules=(_DESC,), prompt=lambda w: f"config-vrf-{w[2]}"),
    "acl": Mode(
        rules=(
            Rule("counters per-entry"),
            Rule("<int> permit ip <cidr> <cidr>", key=1),
            Rule("<int> deny ip any any", key=1),
        ),
        prompt=lambda w: f"config-acl-{w[2]}",
    ),
    "if-eth": Mode(
        rules=(
            _DESC,
            Rule("speed <name>", key=1),
            _MTU,
            Rule("no switchport"),
            Rule("switchport", hidden=True),
            Rule("switchport access vlan <int>", key=3),
            _VRF,
            _IPADDR,
            _ACCESS_GROUP,
            Rule("service-profile <name>", key=1),
            _SHUT,
        ),
        prompt=_if_prompt,
    ),
    "if-lo": Mode(rules=(_DESC, _IPADDR, _VRF, _SHUT), prompt=_if_prompt),
    "if-vlan": Mode(
        rules=(
            _DESC,
            _MTU,
            _VRF,
            Rule("ip address virtual <cidr>", key=3),
            _IPADDR,
            _ACCESS_GROUP,
            _SHUT,
        ),
        prompt=_if_prompt,
    ),
    "if-vx": Mode(
        rules=(
            _DESC,
            Rule("vxlan source-interface Loopback<int>", key=2),
            Rule("vxlan udp-port <int>", key=2),
            Rule("vxlan vlan <int> vni <int>", key=3),
            Rule("vxlan vrf <name> vni <int>", key=3),
            Rule("vxlan qos ecn propagation"),
            Rule("vxlan qos dscp propagation encapsulation"),
            Rule("vxlan qos map dscp to traffic-class decapsulation"),
        ),
        prompt=_if_prompt,
    ),
    "if-mgmt": Mode(rules=(_DESC, _IPADDR, _VRF, _SHUT), prompt=_if_prompt),
    "bgp": Mode(
        rules=(
            Rule("router-id <ip>", key=1),
            Rule("no bgp default ipv4-unicast"),
            Rule("bgp default ipv4-unicast", hidden=True),
            Rule("maximum-paths <int> ecmp <int>", key=1),
            Rule("neighbor <name> peer group", neg=2),
            Rule("neighbor <ip> peer group <name>", key=3, neg=2),
            Rule("neighbor <name> update-source Loopback<int>", key=3, neg=2),
            Rule("neighbor <name> ebgp-multihop <int>", key=3, neg=2),
            Rule("neighbor <name> send-community", neg=2),
            Rule("neighbor <name> next-hop-unchanged", neg=2),
            Rule("neighbor <ip> remote-as <int>", key=3, neg=2),
            Rule("neighbor <ip> description <text>", key=3, neg=2),
            Rule("network <cidr>"),
            Rule("vlan <int>", child="bgp-vlan"),
            Rule("address-family evpn", child="bgp-af"),
            Rule("address-family ipv4", child="bgp-af-ipv4"),
            Rule("vrf <name>", child="bgp-vrf"),
        ),
        prompt=lambda w: "config-router-bgp",
    ),
    "bgp-vlan": Mode(
        rules=(
            Rule("rd <rd>", key=1),
            Rule("route-target both <rd>", neg=2),
            Rule("redistribute learned"),
        ),
        prompt=lambda w: f"config-macvrf-{w[1]}",
    ),
    "bgp-af": Mode(
        rules=(Rule("neighbor <name> activate", neg=2),),
        prompt=lambda w: "config-router-bgp-af",
    ),
    "bgp-af-ipv4": Mode(
        rules=(Rule("neighbor <name> activate", neg=2), Rule("network <cidr>")),
        prompt=lambda w: "config-router-bgp-af",
    ),
    "bgp-vrf": Mode(
        rules=(
            Rule("rd <rd>", key=1),
            Rule("route-target import evpn <rd>", neg=3),
            Rule("route-target export evpn <rd>", neg=3),
            Rule("redistribute connected"),
            Rule("router-id <ip>", key=1),
        ),
        prompt=lambda w: f"config-router-bgp-vrf-{w[1]}",
    ),
    "mgmt-api": Mode(
        rules=(
            Rule("protocol {http|https}"),
            Rule("no shutdown"),
            Rule("shutdown", key=1, hidden=True),
        ),
        prompt=lambda w: "config-mgmt-api-http-cmds",
    ),
}

GRAMMAR = Grammar(modes=MODES, negations=("no", "default"))
