"""H3C Comware V7 configuration grammar: docs/emitted-syntax.md shapes plus factory lines.

Anything not listed is rejected with `% Unrecognized command found at '^' position.`.
"""

from __future__ import annotations

from fabricctl.lab.grammar import Grammar, Mode, Rule

_DESC = Rule("description <text>", key=1)
_SHUT = Rule("shutdown")
_IPADDR = Rule("ip address <ip> <mask>", key=2)
_BIND = Rule("ip binding vpn-instance <name>", key=3, resets=("ip address ",))  # a rebind clears L3 config
_PFILTER = Rule("packet-filter name <name> inbound", neg=2)
_VPN_TARGET = Rule("vpn-target <rd> {import-extcommunity|export-extcommunity}", neg=1)
_QUEUES = "{be|af1|af2|af3|af4|ef|cs6|cs7}"


def _if_prompt(words: list[str]) -> str:
    """`interface FourHundredGigE1/0/1` -> `FourHundredGigE1/0/1` (Comware shows the name)."""
    return words[1]


GLOBAL = Mode(
    rules=(
        Rule("sysname <name>", key=1),
        Rule("clock timezone <name> add <time>", key=2),
        Rule("lldp global enable"),
        Rule("ntp-service enable"),
        Rule("ntp-service unicast-server <ip>", neg=2),
        Rule("info-center loghost <ip>", neg=2),
        Rule("snmp-agent"),
        Rule("snmp-agent community {read|write} {simple|cipher} <word>", key=4, neg=3),
        Rule("snmp-agent sys-info version <text>", key=3),
        Rule("ssh server enable"),
        Rule("ip route-static <ip> <int> <ip>", neg=3),
        Rule("priority-flow-control deadlock precision {high|normal|low}", key=3),
        Rule("priority-flow-control deadlock cos <int> interval <int>", key=4),
        Rule("priority-flow-control deadlock auto-recover cos <int> delay <int>", key=5),
        Rule("priority-flow-control deadlock recover-mode {auto|manual}", key=3),
        Rule("qos map-table dscp-dot1p", child="maptbl"),
        Rule("qos wred queue table <name>", child="wred"),
        Rule("l2vpn enable"),
        Rule("vxlan tunnel mac-learning disable"),
        Rule("vxlan tunnel arp-learning disable"),
        Rule("tunnel global source-address <ip>", key=3),
        Rule("ip vpn-instance <name>", child="vpn"),
        Rule("vsi <name>", child="vsi"),
        Rule("acl advanced name <name>", child="acl"),
        Rule("vlan <int>", child="vlan"),
        Rule("interface LoopBack<int>", child="if-lo"),
        Rule("interface Vsi-interface<int>", child="if-vsi"),
        Rule("interface FourHundredGigE1/0/<int>", child="if-eth", keep=True),
        Rule("interface TwoHundredGigE1/0/<int>:{1|2}", child="if-eth"),
        Rule("interface M-GigabitEthernet0/0/0", child="if-mgmt", keep=True),
        Rule("bgp <int>", child="bgp"),
        Rule("local-user <name> class {manage|network}", child="luser", neg=2),
        Rule("line vty <int> <int>", child="line"),
    )
)

MODES: dict[str, Mode] = {
    "global": GLOBAL,
    "vlan": Mode(rules=(_DESC, Rule("name <name>", key=1)), prompt=lambda w: f"vlan{w[1]}"),
    "luser": Mode(
        rules=(
            Rule("password hash <word>", key=1),
            Rule("service-type {ssh|telnet|terminal|http|https}", neg=1),
            Rule("authorization-attribute user-role <name>", neg=2),
        ),
        prompt=lambda w: f"luser-{w[3]}-{w[1]}",
    ),
    "line": Mode(
        rules=(
            Rule("authentication-mode {scheme|password|none}", key=1),
            Rule("user-role <name>", neg=1),
        ),
        prompt=lambda w: f"line-vty{w[2]}-{w[3]}",
    ),
    "maptbl": Mode(
        rules=(Rule("import <int> export <int>", key=2),),
        prompt=lambda w: "maptbl-dscp-dot1p",
    ),
    "wred": Mode(
        rules=(
            Rule("queue <int> weighting-constant <int>", key=3),
            Rule(
                "queue <int> drop-level {0|1|2} low-limit <int> high-limit <int> discard-probability <int>",
                key=4,
            ),
            Rule("queue <int> ecn"),
        ),
        prompt=lambda w: f"wred-table-{w[4]}",
    ),
    "vpn": Mode(
        rules=(
            _DESC,
            Rule("route-distinguisher <rd>", key=1),
            Rule("address-family evpn", child="vpn-af"),
        ),
        prompt=lambda w: f"vpn-instance-{w[2]}",
    ),
    "vpn-af": Mode(rules=(_VPN_TARGET,), prompt=lambda w: "vpn-evpn"),
    "vsi": Mode(
        rules=(
            _DESC,
            Rule("gateway vsi-interface <int>", key=2),
            Rule("vxlan <int>", key=1),
            Rule("evpn encapsulation vxlan", child="vsi-evpn"),
        ),
        prompt=lambda w: f"vsi-{w[1]}",
    ),
    "vsi-evpn": Mode(
        rules=(Rule("route-distinguisher <rd>", key=1), _VPN_TARGET),
        prompt=lambda w: "vsi-evpn-vxlan",
    ),
    "acl": Mode(
        rules=(
            _DESC,
            Rule("rule <int> permit ip source <ip> <ip> destination <ip> <ip>", key=2),
            Rule("rule <int> deny ip", key=2),
        ),
        prompt=lambda w: f"acl-ipv4-adv-{w[3]}",
    ),
    "if-lo": Mode(rules=(_DESC, _IPADDR, _SHUT), prompt=_if_prompt),
    "if-vsi": Mode(
        rules=(
            _DESC,
            _BIND,
            _IPADDR,
            Rule("mac-address <mac-cw>", key=1),
            Rule("local-proxy-arp enable"),
            Rule("distributed-gateway local"),
            Rule("l3-vni <int>", key=1),
            _PFILTER,
            _SHUT,
        ),
        prompt=_if_prompt,
    ),
    "if-eth": Mode(
        rules=(
            _DESC,
            Rule("using {twohundredg|hundredg}", key=1),
            Rule("port link-mode {route|bridge}", key=2),
            Rule("jumboframe enable <int>", key=2),
            _BIND,
            _IPADDR,
            Rule("qos trust {dscp|dot1p}", key=2),
            Rule("priority-flow-control enable"),
            Rule("priority-flow-control no-drop dot1p <int>", key=3),
            Rule("priority-flow-control deadlock enable"),
            Rule(f"qos wrr {_QUEUES} group 1 byte-count <int>", key=3),
            Rule(f"qos wrr {_QUEUES} group sp", key=3),
            Rule("qos wred apply <name>", key=2),
            _PFILTER,
            Rule("service-instance <int>", child="srv"),
            _SHUT,
        ),
        prompt=_if_prompt,
    ),
    "srv": Mode(
        rules=(Rule("encapsulation untagged", key=1), Rule("xconnect vsi <name>", key=2)),
        prompt=lambda w: f"srv{w[1]}",
    ),
    "if-mgmt": Mode(rules=(_DESC, _IPADDR, _SHUT), prompt=_if_prompt),
    "bgp": Mode(
        rules=(
            Rule("router-id <ip>", key=1),
            Rule("peer <ip> as-number <int>", key=3, neg=2),
            Rule("peer <ip> description <text>", key=3, neg=2),
            Rule("peer <ip> connect-interface LoopBack<int>", key=3, neg=2),
            Rule("peer <ip> ebgp-max-hop <int>", key=3, neg=2),
            Rule("address-family ipv4 unicast", child="bgp-ipv4"),
            Rule("address-family l2vpn evpn", child="bgp-evpn"),
            Rule("ip vpn-instance <name>", child="bgp-vpn"),
        ),
        prompt=lambda w: "bgp-default",
    ),
    "bgp-ipv4": Mode(
        rules=(
            Rule("balance <int>", key=1),
            Rule("network <ip> <mask>"),
            Rule("peer <ip> enable", neg=2),
        ),
        prompt=lambda w: "bgp-default-ipv4",
    ),
    "bgp-evpn": Mode(
        rules=(
            Rule("peer <ip> enable", neg=2),
            Rule("peer <ip> next-hop-invariable", neg=2),
            Rule("undo policy vpn-target"),
            Rule("policy vpn-target", hidden=True),
        ),
        prompt=lambda w: "bgp-default-evpn",
    ),
    "bgp-vpn": Mode(
        rules=(Rule("address-family ipv4 unicast", child="bgp-vpn-ipv4"),),
        prompt=lambda w: f"bgp-default-{w[2]}",
    ),
    "bgp-vpn-ipv4": Mode(
        rules=(Rule("import-route direct"), Rule("balance <int>", key=1)),
        prompt=lambda w: "bgp-default-ipv4-vpn",
    ),
}

GRAMMAR = Grammar(modes=MODES, negations=("undo",))
