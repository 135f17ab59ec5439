"""Persistence across restarts, reset, and the grammar tables against emitted syntax."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabricctl.lab import LabFabric, lab_endpoints
from fabricctl.lab.config_tree import Node, render_comware, render_eos
from fabricctl.lab.editor import Editor, InvalidInput
from fabricctl.lab.grammar_comware import GRAMMAR as CW
from fabricctl.lab.grammar_eos import GRAMMAR as EOS

from .conftest import connect, make_specs

FIXTURE_ROOT = Path(__file__).parent / "fixtures" / "small"

EOS_EMITTED = """\
service routing protocols model multi-agent
qos map dscp 26 to traffic-class 3
qos map traffic-class 3 to tx-queue 3
priority-flow-control pause watchdog default timeout 0.05
priority-flow-control pause watchdog default polling-interval 0.01
priority-flow-control pause watchdog default recovery-time 0.5
priority-flow-control pause watchdog action drop
qos profile ROCE
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   priority-flow-control pause watchdog
   tx-queue 3
      no priority
      bandwidth percent 50
      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes \
max-mark-probability 20 weight 0
   tx-queue 6
      priority strict
vlan 110
   name tenant-a
vrf instance tenant-a
   description GPU tenant A
ip routing
ip routing vrf tenant-a
ip access-list TENANT-A-IN
   counters per-entry
   10 permit ip 10.1.0.0/16 10.1.0.0/16
   20 deny ip any any
interface Ethernet1/1
   description to-gpu01
   speed 200g-4
   mtu 9214
   no switchport
   vrf tenant-a
   ip address 10.1.0.1/31
   ip access-group TENANT-A-IN in
   service-profile ROCE
interface Ethernet2
   switchport access vlan 110
   shutdown
interface Loopback0
   description router-id
   ip address 10.255.0.1/32
interface Vlan110
   description tenant-a svi
   mtu 9214
   vrf tenant-a
   ip address virtual 10.110.0.1/24
   ip access-group TENANT-A-IN in
interface Vxlan1
   vxlan source-interface Loopback1
   vxlan udp-port 4789
   vxlan vlan 110 vni 10110
   vxlan vrf tenant-a vni 50001
   vxlan qos ecn propagation
   vxlan qos dscp propagation encapsulation
   vxlan qos map dscp to traffic-class decapsulation
ip virtual-router mac-address 00:1c:73:00:00:99
router bgp 65101
   router-id 10.255.0.1
   no bgp default ipv4-unicast
   maximum-paths 64 ecmp 64
   neighbor SPINES peer group
   neighbor SPINES update-source Loopback0
   neighbor SPINES ebgp-multihop 3
   neighbor SPINES send-community
   neighbor SPINES next-hop-unchanged
   neighbor 10.0.0.0 peer group SPINES
   neighbor 10.0.0.0 remote-as 65000
   neighbor 10.0.0.0 description spine01
   vlan 110
      rd 10.255.0.1:110
      route-target both 110:110
      redistribute learned
   address-family evpn
      neighbor SPINES activate
   address-family ipv4
      neighbor SPINES activate
      network 10.255.0.1/32
   vrf tenant-a
      rd 10.255.0.1:50001
      route-target import evpn 50001:50001
      route-target export evpn 50001:50001
      redistribute connected
"""

CW_EMITTED = """\
priority-flow-control deadlock precision high
priority-flow-control deadlock cos 3 interval 10
priority-flow-control deadlock auto-recover cos 3 delay 10
priority-flow-control deadlock recover-mode auto
qos map-table dscp-dot1p
 import 26 export 3
qos wred queue table ROCE
 queue 3 weighting-constant 0
 queue 3 drop-level 0 low-limit 1000 high-limit 2000 discard-probability 20
 queue 3 ecn
l2vpn enable
vxlan tunnel mac-learning disable
vxlan tunnel arp-learning disable
tunnel global source-address 10.255.0.1
ip vpn-instance tenant-a
 description GPU tenant A
 route-distinguisher 10.255.0.1:1
 address-family evpn
  vpn-target 65000:50001 import-extcommunity
  vpn-target 65000:50001 export-extcommunity
vsi tenant-a-110
 description tenant a
 gateway vsi-interface 110
 vxlan 10110
 evpn encapsulation vxlan
  route-distinguisher 10.255.0.1:110
  vpn-target 65000:10110 import-extcommunity
acl advanced name TENANT-A-IN
 description isolation
 rule 5 permit ip source 10.1.0.0 0.0.255.255 destination 10.1.0.0 0.0.255.255
 rule 10 deny ip
interface LoopBack0
 description router-id
 ip address 10.255.0.1 255.255.255.255
interface Vsi-interface110
 description svi
 ip binding vpn-instance tenant-a
 ip address 10.110.0.1 255.255.255.0
 mac-address 0000-5e00-0101
 local-proxy-arp enable
 distributed-gateway local
 l3-vni 50001
 packet-filter name TENANT-A-IN inbound
interface FourHundredGigE1/0/1
 description to-gpu01
 using twohundredg
 port link-mode route
 jumboframe enable 9216
 ip binding vpn-instance tenant-a
 ip address 10.1.0.1 255.255.255.254
 qos trust dscp
 priority-flow-control enable
 priority-flow-control no-drop dot1p 3
 priority-flow-control deadlock enable
 qos wrr af3 group 1 byte-count 50
 qos wrr cs6 group sp
 qos wred apply ROCE
 packet-filter name TENANT-A-IN inbound
 service-instance 10
  encapsulation untagged
  xconnect vsi tenant-a-110
 shutdown
interface TwoHundredGigE1/0/2:1
 description split
bgp 65000
 router-id 10.255.0.1
 peer 10.0.0.1 as-number 65101
 peer 10.0.0.1 description leaf01
 peer 10.0.0.1 connect-interface LoopBack0
 peer 10.0.0.1 ebgp-max-hop 3
 address-family ipv4 unicast
  balance 64
  network 10.255.0.1 255.255.255.255
  peer 10.0.0.1 enable
 address-family l2vpn evpn
  peer 10.0.0.1 enable
  peer 10.0.0.1 next-hop-invariable
 ip vpn-instance tenant-a
  address-family ipv4 unicast
   import-route direct
"""


@pytest.mark.parametrize(
    ("grammar", "text", "render"),
    [
        (EOS, EOS_EMITTED, lambda t: render_eos(t, "x", "7060X5-64")),
        (CW, CW_EMITTED, render_comware),
    ],
    ids=["eos", "comware"],
)
def test_every_emitted_shape_is_accepted_and_round_trips(grammar, text, render) -> None:  # type: ignore[no-untyped-def]
    root = Node("", block=True)
    editor = Editor(grammar, root)
    for line in text.splitlines():  # unindented, like napalm sends it
        editor.apply(line.strip())
    rendered = render(root)
    again = Node("", block=True)
    Editor(grammar, again).load(rendered)
    assert render(again) == rendered
    for line in text.splitlines():
        assert line.strip() in rendered


@pytest.mark.parametrize(
    ("grammar", "line"),
    [
        (EOS, "interface Ethernet1 extra"),
        (EOS, "router bgp notanumber"),
        (EOS, "qos map dscp 26 to traffic-clas 3"),
        (EOS, "ip address 10.0.0.1/31"),  # valid only inside an interface
        (CW, "interface FourHundredGigE1/0/x"),
        (CW, "qos wrr af9 group sp"),
        (CW, "tunnel global source-address 300.1.1.1"),
    ],
)
def test_wrong_shapes_are_rejected(grammar, line) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidInput):
        Editor(grammar, Node("", block=True)).apply(line)


def test_eos_prints_a_dotted_mac_in_colon_form() -> None:
    """EOS takes `hhhh.hhhh.hhhh` and shows `hh:hh:hh:hh:hh:hh`; a dotted `no` form still removes it."""
    root = Node("", block=True)
    editor = Editor(EOS, root)
    editor.apply("ip virtual-router mac-address 001C.7300.0099")
    assert list(root.children) == ["ip virtual-router mac-address 00:1c:73:00:00:99"]
    editor.apply("ip virtual-router mac-address 00:1c:73:00:00:98")
    assert list(root.children) == ["ip virtual-router mac-address 00:1c:73:00:00:98"]
    editor.apply("no ip virtual-router mac-address 001c.7300.0098")
    assert root.children == {}


def test_error_token_index() -> None:
    with pytest.raises(InvalidInput) as info:
        Editor(EOS, Node("", block=True)).apply("qos map dscp 26 to traffic-clas 3")
    assert info.value.index == 5


def test_restart_keeps_state_and_reset_restores_factory(state_dir: Path) -> None:
    with LabFabric(make_specs(), state_dir=state_dir) as lab:
        factory = lab.device("spine01").running_config()
        conn = connect(lab, "spine01")
        conn.send_config_set(["vlan 700"], error_pattern="Unrecognized")
        conn.disconnect()
        running = lab.device("spine01").running_config()
    assert not list(state_dir.rglob("*.tmp"))
    assert (state_dir / "spine01" / "running-config").read_text() == running
    with LabFabric(make_specs(), state_dir=state_dir) as lab:
        assert lab.device("spine01").running_config() == running
        assert "vlan 700" not in lab.device("spine01").startup_config()
        lab.reset("spine01")
        assert lab.device("spine01").running_config() == factory


def test_lab_endpoints_in_process(tmp_path: Path) -> None:
    import shutil

    shutil.copytree(FIXTURE_ROOT / "inventory", tmp_path / "inventory")
    with lab_endpoints(tmp_path) as eps:
        assert set(eps) == {"leaf01", "spine01"}
        assert eps["leaf01"].eapi_port is not None and eps["spine01"].eapi_port is None
        assert eps["leaf01"].platform == "eos"
        from netmiko import ConnectHandler

        ep = eps["leaf01"]
        conn = ConnectHandler(
            device_type="arista_eos",
            host=ep.host,
            port=ep.ssh_port,
            username="admin",
            password="fabricctl-lab",
        )
        assert "interface Management1\n   ip address 192.0.2.11/24" in conn.send_command(
            "show running-config"
        )
        conn.disconnect()
    assert (tmp_path / ".fabricctl" / "lab" / "state" / "leaf01" / "running-config").is_file()
