"""Parsers: hand-written config texts (incl. lines fabricctl does not own) read into the model."""

from __future__ import annotations

from ipaddress import IPv4Network

from fabricctl.config.addr import wildcard_network
from fabricctl.config.readback import TUNNEL_CLASS, TUNNEL_ECN, TUNNEL_MARKING
from fabricctl.platforms.comware.parse import parse_comware
from fabricctl.platforms.eos.parse import parse_eos

COMWARE = """\
#
 version 7.1.070, Release 6710
#
 sysname leaf01
#
local-user admin class manage
 password hash $h$6$abc
 service-type ssh
#
qos map-table dscp-dot1p
 import 26 export 3
 import 48 export 6
#
qos wred queue table ROCE-ECN
 queue 3 drop-level 0 low-limit 1000 high-limit 2000 discard-probability 20
 queue 3 ecn
#
ip vpn-instance mgmt
#
ip vpn-instance red
 route-distinguisher 10.0.0.1:50001
 address-family evpn
  vpn-target 65000:50001 import-extcommunity
  vpn-target 65000:50001 65000:50009 export-extcommunity
#
vsi blue
 gateway vsi-interface 102
 vxlan 10002
 evpn encapsulation vxlan
  vpn-target 65000:10002
#
acl advanced name red-in
 rule 10 permit ip source 10.1.0.0 0.0.0.255 destination 10.1.0.0 0.0.0.255
 rule 5 permit ip source 10.1.0.0 0.0.0.255 destination 10.2.0.1 0
 rule 65000 deny ip
#
interface M-GigabitEthernet0/0/0
 ip binding vpn-instance mgmt
 ip address 192.168.0.10 255.255.255.0
#
interface Vsi-interface4097
 ip binding vpn-instance red
 l3-vni 50001
#
interface FourHundredGigE1/0/33
 port link-mode route
 mtu 9000
 ip binding vpn-instance red
 ip address 10.1.0.0 255.255.255.254
 qos trust dscp
 priority-flow-control enable
 priority-flow-control no-drop dot1p 3
 priority-flow-control deadlock enable
 qos wrr cs6 group sp
 qos wred apply ROCE-ECN
 packet-filter name red-in inbound
#
interface FourHundredGigE1/0/34
 port link-mode bridge
 service-instance 102
  encapsulation untagged
  xconnect vsi blue
#
interface FourHundredGigE1/0/35
 shutdown
#
bgp 65101
 peer 10.250.0.0 as-number 65000
 ip vpn-instance red
  address-family ipv4 unicast
   import-route direct
#
return
"""

EOS = """\
! Command: show running-config
hostname leaf1
username admin privilege 15 role network-admin secret sha512 $6$xyz
!
qos map dscp 26 to traffic-class 3
qos map dscp 48 to traffic-class 6
!
qos profile ROCE-LOSSLESS
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   priority-flow-control pause watchdog
   tx-queue 3
      no priority
      random-detect ecn minimum-threshold 2000 segments maximum-threshold 10000 segments max-mark-probability 20 weight 0
   tx-queue 0
      no priority
!
vlan 112
   name blue
!
vrf instance MGMT
vrf instance red
!
ip access-list red-in
   counters per-entry
   10 permit ip 10.1.0.0/24 10.1.0.0/24
   20 permit ip host 10.1.0.1 10.2.0.0 0.0.0.255
   65000 deny ip any any
!
interface Management1
   vrf MGMT
   ip address 192.168.0.10/24
!
interface Ethernet9
   mtu 9214
   no switchport
   vrf red
   ip address 10.1.0.0/31
   ip access-group red-in in
   service-profile ROCE-LOSSLESS
!
interface Ethernet13
   switchport access vlan 112
!
interface Vlan112
   vrf red
   ip address virtual 10.3.0.1/24
!
interface Vxlan1
   vxlan vlan 112 vni 10112
   vxlan vrf red vni 50001
!
router bgp 65211
   neighbor 10.64.8.0 remote-as 65200
   vlan 112
      route-target both 65200:10112
   vrf red
      route-target import evpn 65200:50001
      route-target export evpn 65200:50001
!
end
"""


def test_comware_reads_owned_lines_and_skips_the_rest() -> None:
    cfg = parse_comware("leaf01", COMWARE)
    red = cfg.vrfs["red"]
    assert [a.value for a in red.imports] == ["65000:50001"]
    assert [a.value for a in red.exports] == ["65000:50001", "65000:50009"]
    assert red.vni is not None and red.vni.value == 50001 and red.vni.src.text == "l3-vni 50001"
    blue = cfg.segments["blue"]
    assert blue.vni is not None and blue.vni.value == 10002
    assert [a.value for a in blue.imports] == [a.value for a in blue.exports] == ["65000:10002"]
    assert blue.gateway is not None and blue.gateway.value == "Vsi-interface102"
    port = cfg.interfaces["FourHundredGigE1/0/33"]
    assert port.vrf is not None and port.vrf.value == "red"
    assert port.acl_in is not None and port.acl_in.value == "red-in"
    assert port.mtu is not None and port.mtu.value == 9000 and port.max_frame is None
    assert port.qos.trust_dscp and port.qos.pfc_enabled and port.qos.watchdog
    assert (
        set(port.qos.no_drop) == {3}
        and set(port.qos.ecn_queues) == {3}
        and set(port.qos.strict_queues) == {6}
    )
    assert cfg.interfaces["FourHundredGigE1/0/34"].segment.value == "blue"  # type: ignore[union-attr]
    assert cfg.interfaces["FourHundredGigE1/0/35"].shutdown is not None
    # The table's lines, over Comware's pre-defined dscp-dot1p map (DSCP d -> dot1p d // 8) for the rest.
    assert {d: a.value for d, a in cfg.dscp_map.items()} == {d: d // 8 for d in range(64)} | {26: 3, 48: 6}
    assert cfg.dscp_map[26].src.text == "import 26 export 3" and cfg.dscp_map[26].src.line > 0
    assert cfg.dscp_map[0].src.line == 0
    assert cfg.bgp_neighbors["10.250.0.0"].value == 65000
    rules = cfg.acls["red-in"].ordered()
    assert [r.seq for r in rules] == [5, 10, 65000]  # rule order is by number, not by text position
    assert rules[0].destination == IPv4Network("10.2.0.1/32")
    assert rules[2].source is None and rules[2].destination is None
    # line numbers point at the text
    assert COMWARE.splitlines()[port.vrf.src.line - 1].strip() == "ip binding vpn-instance red"


def test_eos_resolves_service_profile_and_default_strict_priority() -> None:
    cfg = parse_eos("leaf1", EOS)
    port = cfg.interfaces["Ethernet9"]
    q = port.qos
    assert q.profile is not None and q.profile.text == "service-profile ROCE-LOSSLESS"
    assert set(q.no_drop) == {3} and set(q.ecn_queues) == {3}
    assert 6 in q.strict_queues and 3 not in q.strict_queues and 0 not in q.strict_queues
    assert cfg.interfaces["Ethernet13"].segment.value == "112"  # type: ignore[union-attr]
    assert cfg.interfaces["Ethernet13"].qos.pfc_enabled is None  # no profile: not lossless
    seg = cfg.segments["112"]
    assert seg.label == "blue" and seg.vni.value == 10112  # type: ignore[union-attr]
    assert seg.gateway is not None and seg.gateway.value == "Vlan112"
    assert [a.value for a in seg.imports] == ["65200:10112"]
    assert cfg.vrfs["red"].vni.value == 50001  # type: ignore[union-attr]
    assert "MGMT" in cfg.vrfs and cfg.interfaces["Management1"].vrf.value == "MGMT"  # type: ignore[union-attr]
    rules = cfg.acls["red-in"].ordered()
    assert rules[1].source == IPv4Network("10.1.0.1/32") and rules[1].destination == IPv4Network(
        "10.2.0.0/24"
    )


def test_eos_reads_the_vteps_tunnel_qos() -> None:
    """Each `vxlan qos` line is a tunnel QoS fact with its line; `no` and absence mean the default."""
    vxlan = "   vxlan vrf red vni 50001\n"
    assert parse_eos("leaf1", EOS).tunnel_qos == {}
    text = EOS.replace(
        vxlan,
        vxlan + "   vxlan qos ecn propagation\n   vxlan qos map dscp to traffic-class decapsulation\n"
        "   no vxlan qos dscp propagation encapsulation\n",
    )
    qos = parse_eos("leaf1", text).tunnel_qos
    assert set(qos) == {TUNNEL_ECN, TUNNEL_CLASS}
    assert text.splitlines()[qos[TUNNEL_ECN].line - 1].strip() == "vxlan qos ecn propagation"
    both = text.replace("   no vxlan qos dscp", "   vxlan qos dscp")
    assert set(parse_eos("leaf1", both).tunnel_qos) == {TUNNEL_ECN, TUNNEL_CLASS, TUNNEL_MARKING}


def test_every_eos_vtep_renders_the_tunnel_qos_its_model_takes(rendered) -> None:  # type: ignore[no-untyped-def]
    """`vxlan qos` only where Arista documents it for the model (none of the shipped EOS models)."""
    eos = rendered["eos"]
    for name, intent in eos.compiled.intents.items():
        qos = parse_eos(name, eos.configs[name]).tunnel_qos
        assert set(qos) == set(intent.vtep.tunnel_qos if intent.vtep else ()), name
        assert qos == {}, name


def test_garbage_never_crashes() -> None:
    junk = (
        "interface\n  \n!!\nip access-list\n   10 permit ip\n   x permit ip any\nrouter bgp\nvrf instance\n"
        * 3
    )
    parse_eos("x", junk)
    parse_comware(
        "x",
        junk.replace("!", "#")
        + "rule 5 permit ip source 1.2.3 0.0.0.1\nacl advanced name a\n rule 1 permit ip source 1.2.3 bogus\n",
    )
    parse_eos("x", "")
    parse_comware("x", "")


def test_wildcards() -> None:
    assert wildcard_network("10.1.0.0", "0.0.255.255") == (IPv4Network("10.1.0.0/16"), True)
    assert wildcard_network("10.1.2.3", "0.0.0.0") == (IPv4Network("10.1.2.3/32"), True)
    net, exact = wildcard_network("10.1.0.0", "0.0.255.0")  # non-contiguous: widened, inexact
    assert net == IPv4Network("10.1.0.0/16") and not exact
