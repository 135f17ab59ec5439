"""Inject one fault into the rendered configs of each example fabric; verify must name it.

Each mutation is a text edit of what the templates produced (as a template slip or a hand edit on a
switch would be), and the test asserts the violation's check, switch and witness.
"""

from __future__ import annotations

import pytest

from fabricctl import pipeline

from .conftest import Rendered
from .mutate import Edit, Mutation, apply

E = Edit
M = Mutation

EOS_BGP = "router bgp 65211"  # leaf1
EOS_BGP2 = "router bgp 65212"  # leaf2
EOS_BGP3 = "router bgp 65213"  # leaf3

EOS: list[Mutation] = [
    M(
        "rt-leak-mutual",
        (
            E(
                "leaf1",
                (EOS_BGP, "vrf tnt-team-llm"),
                r"^(\s+)(route-target export evpn 65200:50011)$",
                r"\1route-target import evpn 65200:50012\n\1\2",
            ),
            E(
                "leaf1",
                (EOS_BGP, "vrf tnt-team-hpc"),
                r"^(\s+)(route-target export evpn 65200:50012)$",
                r"\1route-target import evpn 65200:50011\n\1\2",
            ),
        ),
        "rt-leak",
        "leaf1",
        "mutual",
    ),
    M(
        "rt-leak-one-sided",
        (
            E(
                "leaf3",
                (EOS_BGP3, "vrf tnt-intern-01"),
                r"^(\s+)(route-target export evpn 65200:50021)$",
                r"\1route-target import evpn 65200:50011\n\1\2",
            ),
        ),
        "rt-leak",
        "leaf3",
        "one-sided",
    ),
    M(
        "rt-export-wrong",
        (
            E(
                "leaf1",
                (EOS_BGP, "vrf tnt-storage"),
                r"^(\s+)(route-target export evpn 65200:50090)$",
                r"\1\2\n\1route-target export evpn 65200:50021",
            ),
        ),
        "rt-leak",
        "leaf3",
        "intern-01",
    ),
    M(
        "exception-configured-one-side",
        (
            E("leaf1", (EOS_BGP, "vrf tnt-storage"), r"^ +route-target import evpn 65200:50011\n?", ""),
            E(
                "leaf2",
                ("router bgp 65212", "vrf tnt-storage"),
                r"^ +route-target import evpn 65200:50011\n?",
                "",
            ),
        ),
        "rt-one-sided",
        "(fabric)",
        "storage never imports team-llm",
    ),
    M(
        "l3vni-shared-disjoint-leaves",
        (
            E(
                "leaf3",
                ("interface Vxlan1",),
                r"vxlan vrf tnt-intern-01 vni 50021",
                "vxlan vrf tnt-intern-01 vni 50090",
            ),
        ),
        "vni-shared",
        "leaf3",
        "VNI 50090",
    ),
    M(
        "l2vni-equals-l3vni",
        (E("leaf2", ("interface Vxlan1",), r"vxlan vlan 112 vni 10012", "vxlan vlan 112 vni 50011"),),
        "vni-shared",
        "leaf2",
        "VNI 50011",
    ),
    M(
        "port-without-acl",
        (E("leaf1", ("interface Ethernet9",), r"^\s+ip access-group tnt-team-llm-in in\n?", ""),),
        "acl-missing",
        "leaf1",
        "team-llm",
    ),
    M(
        "acl-permit-any-first",
        (
            E(
                "leaf1",
                ("ip access-list tnt-team-llm-in",),
                r"^(\s+)(10 permit)",
                r"\g<1>5 permit ip any any\n\1\2",
            ),
        ),
        "acl-leak",
        "leaf1",
        "5 permit ip any any",
    ),
    M(
        "acl-permit-other-block",
        (
            E(
                "leaf2",
                ("ip access-list tnt-team-hpc-in",),
                r"^(\s+)(65000 deny ip any any)",
                r"\g<1>2000 permit ip 172.20.12.0/27 172.20.0.0/16\n\1\2",
            ),
        ),
        "acl-leak",
        "leaf2",
        "172.20.11.",
    ),
    M(
        "acl-undefined",
        (
            E(
                "leaf4",
                ("interface Ethernet12",),
                r"ip access-group tnt-team-llm-in in",
                "ip access-group tnt-team-llm-v2 in",
            ),
        ),
        "acl-undefined",
        "leaf4",
        "team-llm-v2",
    ),
    M(
        "port-in-other-vrf",
        (E("leaf1", ("interface Ethernet9",), r"^(\s+)vrf tnt-team-llm$", r"\1vrf tnt-storage"),),
        "port-vrf",
        "leaf1",
        "via VRF tnt-storage",
    ),
    M(
        "l2-port-in-global",
        (E("leaf2", ("interface Ethernet14",), r"^(\s+)switchport access vlan 112\n?", ""),),
        "port-segment",
        "leaf2",
        "team-hpc",
    ),
    M(
        "svi-in-other-vrf",
        (E("leaf1", ("interface Vlan112",), r"^(\s+)vrf tnt-team-hpc$", r"\1vrf tnt-team-llm"),),
        "svi-vrf",
        "leaf1",
        "team-llm",
    ),
    M(
        "uplink-in-tenant-vrf",
        (E("leaf1", ("interface Ethernet1",), r"^(\s+)(no switchport)$", r"\1\2\n\1vrf tnt-team-llm"),),
        "foreign-port",
        "leaf1",
        "team-llm",
    ),
    M(
        "unassigned-port-up",
        (E("leaf1", ("interface Ethernet15",), r"^\s+shutdown\n?", ""),),
        "port-not-shut",
        "leaf1",
        "node07 nic0",
    ),
    M(
        "pfc-off-one-uplink",
        (E("leaf1", ("interface Ethernet1",), r"^\s+service-profile ROCE-LOSSLESS\n?", ""),),
        "pfc",
        "leaf1",
        "leaf1 Ethernet1",
    ),
    M(
        "pfc-priority-moved",
        (
            E(
                "spine2",
                ("qos profile ROCE-LOSSLESS",),
                r"priority-flow-control priority 3 no-drop",
                "priority-flow-control priority 4 no-drop",
            ),
        ),
        "pfc",
        "spine2",
        "",
    ),
    M(
        "dscp-map-one-spine",
        (E("spine1", (), r"^qos map dscp 26 to traffic-class 3$", "qos map dscp 26 to traffic-class 4"),),
        "dscp-map",
        "spine1",
        "DSCP 26",
    ),
    M(
        "mtu-1500-fabric-port",
        (E("spine2", ("interface Ethernet3",), r"mtu 9214", "mtu 1500"),),
        "mtu",
        "spine2",
        "1500",
    ),
    M(
        "mtu-line-removed-fabric-port",
        (E("leaf1", ("interface Ethernet2",), r"^\s+mtu 9214\n?", ""),),
        "mtu",
        "leaf1",
        "default 1500",
    ),
    M(
        "gateway-mtu-removed",
        (E("leaf1", ("interface Vlan112",), r"^\s+mtu 9164\n?", ""),),
        "mtu",
        "leaf1",
        "default 1500",
    ),
    M(
        "headroom-gone-with-no-drop",
        (
            E(
                "spine1",
                ("qos profile ROCE-LOSSLESS",),
                r"^\s+priority-flow-control priority 3 no-drop\n?",
                "",
            ),
        ),
        "headroom",
        "spine1",
        "PAUSE",
    ),
    M(
        "lossless-class-to-other-queue",
        (
            E(
                "leaf3",
                (),
                r"^qos map traffic-class 3 to tx-queue 3$",
                "qos map traffic-class 3 to tx-queue 4",
            ),
        ),
        "queue-map",
        "leaf3",
        "queue 4",
    ),
    M(
        "best-effort-to-other-queue",
        (
            E(
                "leaf4",
                (),
                r"^(qos map traffic-class 3 to tx-queue 3)$",
                r"qos map traffic-class 0 to tx-queue 2\n\1",
            ),
        ),
        "queue-map",
        "leaf4",
        "best-effort",
    ),
    M(
        "cnp-not-strict",
        (E("leaf2", ("qos profile ROCE-LOSSLESS", "tx-queue 6"), r"priority strict", "no priority"),),
        "cnp-strict",
        "leaf2",
        "CNP",
    ),
    M(
        "ecn-off",
        (E("leaf4", ("qos profile ROCE-LOSSLESS", "tx-queue 3"), r"^\s+random-detect ecn .*\n?", ""),),
        "ecn",
        "leaf4",
        "ECN",
    ),
    M(
        "ecn-thresholds-differ-across-a-link",
        (
            E(
                "spine1",
                ("qos profile ROCE-LOSSLESS", "tx-queue 3"),
                r"minimum-threshold 2000 segments",
                "minimum-threshold 1000 segments",
            ),
        ),
        "lossless-ends",
        "spine1",
        "ECN on queue 3",
    ),
    M(
        "watchdog-differs-across-a-link",
        (
            E(
                "leaf2",
                (),
                r"^priority-flow-control pause watchdog default timeout 0.2$",
                "priority-flow-control pause watchdog default timeout 0.5",
            ),
        ),
        "lossless-ends",
        "spine1",
        "PFC watchdog",
    ),
    M(
        # a 7060X5 VTEP derives the outer DSCP from the class (class 3 -> DSCP 24): a spine that
        # maps DSCP 24 elsewhere takes RoCE out of the lossless class inside the tunnel
        "tunnel-outer-dscp-not-mapped-back",
        (
            E(
                "spine1",
                (),
                r"^(qos map dscp 26 to traffic-class 3)$",
                r"qos map dscp 24 to traffic-class 0\n\1",
            ),
        ),
        "tunnel-encap",
        "spine1",
        "outer DSCP 24",
    ),
    M(
        "ecmp-capped-by-maximum-paths",
        (E("leaf2", (EOS_BGP2,), r"^(\s+)maximum-paths 8 ecmp 8$", r"\1maximum-paths 4 ecmp 4"),),
        "ecmp-width",
        "leaf2",
        "over 4 of its 8 uplinks: multipath is capped at 4",
    ),
    M(
        "ecmp-session-asn-wrong",
        (E("leaf3", (EOS_BGP3,), r"^(\s+neighbor 10\.64\.8\.\d+ remote-as) 65200$", r"\1 65299"),),
        "ecmp-width",
        "leaf3",
        "only 7 of 8 uplinks",
    ),
]

CW_BGP1 = "bgp 65101"

COMWARE: list[Mutation] = [
    M(
        "rt-leak-mutual",
        (
            E(
                "leaf17",
                ("ip vpn-instance tnt-vision-startup", "address-family evpn"),
                r"^(\s+)(vpn-target 65000:50103 export-extcommunity)$",
                r"\1vpn-target 65000:50105 import-extcommunity\n\1\2",
            ),
            E(
                "leaf18",
                ("ip vpn-instance tnt-uni-nlp", "address-family evpn"),
                r"^(\s+)(vpn-target 65000:50105 export-extcommunity)$",
                r"\1vpn-target 65000:50103 import-extcommunity\n\1\2",
            ),
        ),
        "rt-leak",
        "leaf17",
        "mutual",
    ),
    M(
        "rt-leak-one-sided",
        (
            E(
                "leaf01",
                ("ip vpn-instance tnt-llm-pretrain", "address-family evpn"),
                r"^(\s+)(vpn-target 65000:50101 export-extcommunity)$",
                r"\1vpn-target 65000:50103 import-extcommunity\n\1\2",
            ),
        ),
        "rt-leak",
        "leaf01",
        "one-sided",
    ),
    M(
        "l3vni-shared-disjoint-leaves",
        (E("leaf20", ("interface Vsi-interface4301",), r"l3-vni 50205", "l3-vni 50101"),),
        "vni-shared",
        "leaf20",
        "VNI 50101",
    ),
    M(
        "port-without-acl",
        (
            E(
                "leaf03",
                ("interface FourHundredGigE1/0/40",),
                r"^\s+packet-filter name tnt-llm-pretrain-in inbound\n?",
                "",
            ),
        ),
        "acl-missing",
        "leaf03",
        "llm-pretrain",
    ),
    M(
        "acl-permit-any-first",
        (
            E(
                "leaf17",
                ("acl advanced name tnt-vision-startup-in",),
                r"^(\s+)(rule 10 permit)",
                r"\1rule 5 permit ip\n\1\2",
            ),
        ),
        "acl-leak",
        "leaf17",
        "rule 5 permit ip",
    ),
    M(
        "port-in-other-vrf",
        (
            E(
                "leaf17",
                ("interface FourHundredGigE1/0/41",),
                r"ip binding vpn-instance tnt-vision-startup",
                "ip binding vpn-instance tnt-uni-nlp",
            ),
        ),
        "port-vrf",
        "leaf17",
        "via VRF tnt-uni-nlp",
    ),
    M(
        "l2-port-in-other-vsi",
        (
            E(
                "leaf17",
                ("interface FourHundredGigE1/0/33", "service-instance 202"),
                r"xconnect vsi tnt-genomics-lab",
                "xconnect vsi tnt-fintech-risk",
            ),
        ),
        "port-segment",
        "leaf17",
        "fintech-risk",
    ),
    M(
        "svi-in-other-vrf",
        (
            E(
                "leaf17",
                ("interface Vsi-interface202",),
                r"ip binding vpn-instance tnt-genomics-lab",
                "ip binding vpn-instance tnt-vision-startup",
            ),
        ),
        "svi-vrf",
        "leaf17",
        "vision-startup",
    ),
    M(
        "unassigned-port-up",
        (E("leaf17", ("interface FourHundredGigE1/0/49",), r"^\s+shutdown\n?", ""),),
        "port-not-shut",
        "leaf17",
        "FourHundredGigE1/0/49",
    ),
    M(
        "pfc-off-one-uplink",
        (
            E(
                "leaf01",
                ("interface FourHundredGigE1/0/1",),
                r"^ +priority-flow-control no-drop dot1p 3\n?",
                "",
            ),
        ),
        "pfc",
        "leaf01",
        "leaf01 FourHundredGigE1/0/1",
    ),
    M(
        "dscp-map-one-spine",
        (
            E(  # Comware's default map already sends DSCP 26 to dot1p 3; a remap moves it away
                "spine03",
                (),
                r"^(qos wred queue table ROCE-ECN)$",
                r"qos map-table dscp-dot1p\n import 26 export 4\n#\n\1",
            ),
        ),
        "dscp-map",
        "spine03",
        "DSCP 26",
    ),
    M(
        "mtu-1500-fabric-port",
        (E("leaf02", ("interface FourHundredGigE1/0/5",), r"^(\s+)mtu 9000$", r"\1mtu 1500"),),
        "mtu",
        "leaf02",
        "1500",
    ),
    M(
        "mtu-line-removed-fabric-port",
        (E("spine04", ("interface FourHundredGigE1/0/7",), r"^\s+mtu 9000\n?", ""),),
        "mtu",
        "spine04",
        "default 1500",
    ),
    M(
        "jumboframe-only-fabric-port",  # the old template's shape: frame size set, IP MTU left at 1500
        (
            E(
                "leaf06",
                ("interface FourHundredGigE1/0/3",),
                r"^(\s+)mtu 9000$",
                r"\1jumboframe enable 9214",
            ),
        ),
        "mtu",
        "leaf06",
        "default 1500",
    ),
    M(
        "frame-limit-too-small",
        (
            E(
                "leaf07",
                ("interface FourHundredGigE1/0/2",),
                r"^(\s+)(mtu 9000)$",
                r"\1\2\n\1jumboframe enable 1536",
            ),
        ),
        "frame",
        "leaf07",
        "1536",
    ),
    M(
        "gateway-mtu-removed",
        (E("leaf17", ("interface Vsi-interface202",), r"^\s+mtu 8950\n?", ""),),
        "mtu",
        "leaf17",
        "default 1500",
    ),
    M(
        "headroom-below-the-bytes-in-flight",  # 800 cells on a 400G-8 port with a 40m cable
        (
            E(
                "leaf05",
                ("interface FourHundredGigE1/0/1",),
                r"priority-flow-control dot1p 3 headroom 2184",
                "priority-flow-control dot1p 3 headroom 800",
            ),
        ),
        "headroom",
        "leaf05",
        "takes 314,368 bytes after it sends XOFF: the link leaf05 FourHundredGigE1/0/1 <-> spine01",
    ),
    M(
        "headroom-differs-across-a-link",
        (
            E(
                "leaf05",
                ("interface FourHundredGigE1/0/2",),
                r"priority-flow-control dot1p 3 headroom 2184",
                "priority-flow-control dot1p 3 headroom 2300",
            ),
        ),
        "lossless-ends",
        "spine01",
        "PFC headroom is '2184' here but '2300' at the other end of the link leaf05 FourHundredGigE1/0/2 <-> spine01",
    ),
    M(
        "ecn-thresholds-differ-across-a-link",
        (
            E(
                "spine05",
                ("qos wred queue table ROCE-ECN",),
                r"low-limit 6000 high-limit 12000",
                "low-limit 3000 high-limit 12000",
            ),
        ),
        "lossless-ends",
        "spine05",
        "ECN on queue 3",
    ),
    M(
        "watchdog-differs-across-a-link",
        (
            E(
                "leaf06",
                (),
                r"^priority-flow-control deadlock cos 3 interval 10$",
                "priority-flow-control deadlock cos 3 interval 20",
            ),
        ),
        "lossless-ends",
        "spine01",
        "PFC watchdog",
    ),
    M(
        "l3vni-interface-mtu-removed",  # routed RoCE leaves through the L3VNI interface
        (E("leaf01", ("interface Vsi-interface4197",), r"^\s+mtu 8950\n?", ""),),
        "mtu",
        "leaf01",
        "(routed by Vsi-interface4197)",
    ),
    M(
        "tunnel-dot1p-not-trusted",
        (E("leaf09", (), r"^qos trust tunnel-dot1p\n?", ""),),
        "tunnel-trust",
        "leaf09",
        "VXLAN",
    ),
    M(
        "headroom-removed",
        (
            E(
                "spine02",
                ("interface FourHundredGigE1/0/9",),
                r"^\s+priority-flow-control dot1p 3 headroom \d+\n?",
                "",
            ),
        ),
        "headroom",
        "spine02",
        "FourHundredGigE1/0/9",
    ),
    M(
        "best-effort-in-default-queue-2",  # without dot1p-lp 0 -> 0 Comware puts dot1p 0 in af2
        (E("leaf10", ("qos map-table dot1p-lp",), r"^\s+import 0 export 0\n?", ""),),
        "queue-map",
        "leaf10",
        "best-effort",
    ),
    M(
        "protocol-queue-not-strict",
        (E("leaf11", ("interface FourHundredGigE1/0/4",), r"^\s+qos wrr cs7 group sp\n?", ""),),
        "protocol-strict",
        "leaf11",
        "FourHundredGigE1/0/4",
    ),
    M(
        "cnp-not-strict",
        (
            E(
                "leaf03",
                ("interface FourHundredGigE1/0/2",),
                r"qos wrr cs6 group sp",
                "qos wrr cs6 group 1 byte-count 10",
            ),
        ),
        "cnp-strict",
        "leaf03",
        "CNP",
    ),
    M(
        "ecn-off",
        (E("spine05", ("qos wred queue table ROCE-ECN",), r"^\s+queue 3 ecn\n?", ""),),
        "ecn",
        "spine05",
        "ECN",
    ),
    M(
        "uplink-in-tenant-vrf",
        (
            E(
                "leaf25",
                ("interface FourHundredGigE1/0/3",),
                r"^(\s+)(ip address .*)$",
                r"\1ip binding vpn-instance tnt-shared-storage\n\1\2",
            ),
        ),
        "foreign-port",
        "leaf25",
        "shared-storage",
    ),
    M(
        "ecmp-capped-by-max-ecmp-num-default",  # balance 32 with the system's default cap of 8
        (E("leaf03", (), r"^max-ecmp-num 32\n#\n", ""),),
        "ecmp-width",
        "leaf03",
        "no max-ecmp-num: the default 8",
    ),
    M(
        "ecmp-capped-by-balance",
        (E("leaf04", ("bgp 65104", "address-family ipv4 unicast"), r"^(\s+)balance 32$", r"\1balance 16"),),
        "ecmp-width",
        "leaf04",
        "over 16 of its 32 uplinks",
    ),
]

CASES = [pytest.param("eos", m, id=f"eos-{m.id}") for m in EOS] + [
    pytest.param("comware", m, id=f"comware-{m.id}") for m in COMWARE
]


@pytest.mark.parametrize("platform", ["eos", "comware"])
def test_unmutated_configs_verify_clean(rendered: dict[str, Rendered], platform: str) -> None:
    r = rendered[platform]
    report = pipeline.verify(r.compiled, r.configs)
    assert report.violations == []
    assert report.ok
    assert report.exceptions  # both examples declare shared storage both ways


@pytest.mark.parametrize(("platform", "mutation"), CASES)
def test_mutation_is_named(rendered: dict[str, Rendered], platform: str, mutation: Mutation) -> None:
    r = rendered[platform]
    mutated = apply(r.configs, mutation.edits)
    report = pipeline.verify(r.compiled, mutated)
    found = [v for v in report.violations if v.check == mutation.check and v.switch == mutation.switch]
    assert found, f"{mutation.id}: expected {mutation.check} on {mutation.switch}, got {report.violations}"
    assert any(mutation.contains in f"{v.counterexample} {v.text} {v.object}" for v in found), found
    assert not report.ok
    for v in found:
        assert v.counterexample
        if v.line is not None:
            assert mutated[v.switch].split("\n")[v.line - 1].strip() == v.text


def test_both_platforms_have_at_least_twelve_mutations() -> None:
    assert len(EOS) >= 12 and len(COMWARE) >= 12
