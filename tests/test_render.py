"""Render stage: hand-built DeviceIntents through the built-in templates of every platform.

Full-fabric goldens live elsewhere; these tests pin the contract of the renderer itself (search
path, strictness, normalisation) and the key lines each platform must carry.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from pathlib import Path

import pytest

from fabricctl.compile.intent import (
    Acl,
    AclEntry,
    Bgp,
    BgpNeighbor,
    Breakout,
    DeviceIntent,
    Interface,
    Loopback,
    Qos,
    Vlan,
    Vrf,
    Vtep,
)
from fabricctl.errors import StageError
from fabricctl.platforms import get_platform
from fabricctl.render import (
    BUILTIN_TEMPLATES,
    Renderer,
    RenderError,
    cidr_ip,
    cidr_mask,
    cidr_network,
    cidr_wildcard,
    num,
)

PLATFORMS = ("comware", "eos")
DESCRIPTION = "gpu001 nic0 | tenant acme: 'big' job #1"


def _qos(platform: str) -> Qos:
    tuning = get_platform(platform).qos_tuning().model_dump()  # the platform's documented defaults
    return Qos(
        profile_name="ROCE-LOSSLESS",
        dscp_to_class={26: 3, 48: 6},
        lossless_class=3,
        cnp_class=6,
        default_class=0,
        lossless_bandwidth_percent=60,
        protocol_class=get_platform(platform).protocol_class,
        mtu=9000,
        tenant_mtu=8950,
        roce_mtu=4096,
        cell_bytes=144,
        tuning=tuning,
    )


def _fabric_port(name: str, ip: str, peer: str) -> Interface:
    return Interface(
        name=name,
        role="uplink",
        description=f"to {peer}",
        mtu=9000,
        ipv4=ip,
        lossless=True,
        speed_gbps=400,
        headroom=220_571,
        peer=peer,
    )


def leaf(platform: str) -> DeviceIntent:
    """Two uplinks, one l3 tenant GPU port, one l2 tenant GPU port, one unused port."""
    plat = get_platform(platform)
    p = plat.port_name
    return DeviceIntent(
        name="leaf01",
        platform=platform,
        role="leaf",
        model="test",
        os_version=plat.release().name,
        fabric="lab",
        loopbacks=[
            Loopback(number=0, description="router-id", ipv4="10.0.1.1/32"),
            Loopback(number=1, description="vtep", ipv4="10.0.2.1/32"),
        ],
        breakouts=[],
        interfaces=[
            _fabric_port(p(1), "10.1.0.1/31", f"spine01 {p(1)}"),
            _fabric_port(p(2), "10.1.0.3/31", f"spine02 {p(1)}"),
            Interface(
                name=p(33),
                role="gpu",
                description=DESCRIPTION,
                mtu=9000,
                ipv4="10.100.0.0/31",
                vrf="acme",
                acl_in="acme-in",
                lossless=True,
                speed_gbps=400,
                headroom=220_571,
                tenant="acme",
                peer="gpu001 nic0",
            ),
            Interface(
                name=p(34),
                role="gpu",
                description="gpu002 nic0",
                routed=False,
                mtu=9000,
                access_vlan=110,
                acl_in="beta-in",
                lossless=True,
                speed_gbps=400,
                headroom=220_571,
                tenant="beta",
                peer="gpu002 nic0",
            ),
            Interface(name=p(35), role="unused", description="unused", enabled=False),
        ],
        vrfs=[
            Vrf(
                name="acme",
                tenant="acme",
                tenant_id=7,
                description="tenant acme",
                l3vni=50007,
                l3vni_interface=4103,
                rd="10.0.1.1:50007",
                route_targets_import=["65000:50007"],
                route_targets_export=["65000:50007"],
            ),
            Vrf(
                name="beta",
                tenant="beta",
                tenant_id=8,
                description="tenant beta",
                l3vni=50008,
                l3vni_interface=4104,
                rd="10.0.1.1:50008",
                route_targets_import=["65000:50008"],
                route_targets_export=["65000:50008"],
            ),
        ],
        vlans=[
            Vlan(
                id=110,
                name="beta-110",
                description="fabricctl lab-fabric tenant beta",
                tenant="beta",
                l2vni=10110,
                rd="10.0.1.1:10110",
                route_target="65000:10110",
                vrf="beta",
                gateway="10.200.0.1/24",
                acl_in="beta-in",
                mtu=9000,
            )
        ],
        acls=[
            Acl(
                name="acme-in",
                tenant="acme",
                description="fabricctl lab-fabric tenant acme",
                entries=[
                    AclEntry(seq=10, action="permit", source="10.100.0.0/16", destination="10.100.0.0/16"),
                    AclEntry(seq=20, action="deny", source=None, destination=None),
                ],
            ),
            Acl(
                name="beta-in",
                tenant="beta",
                description="fabricctl lab-fabric tenant beta",
                entries=[
                    AclEntry(seq=10, action="permit", source="10.200.0.0/24", destination="10.200.0.0/24"),
                    AclEntry(seq=20, action="deny", source=None, destination=None),
                ],
            ),
        ],
        bgp=Bgp(
            asn=65101,
            router_id="10.0.1.1",
            max_paths=2,
            networks=["10.0.1.1/32", "10.0.2.1/32"],
            neighbors=[
                BgpNeighbor(ip="10.1.0.0", asn=65000, description="spine01", kind="underlay"),
                BgpNeighbor(ip="10.1.0.2", asn=65000, description="spine02", kind="underlay"),
                BgpNeighbor(ip="10.0.0.1", asn=65000, description="spine01 evpn", kind="overlay"),
                BgpNeighbor(ip="10.0.0.2", asn=65000, description="spine02 evpn", kind="overlay"),
            ],
            evpn=True,
            evpn_next_hop_unchanged=False,
            evpn_retain_all_routes=False,
        ),
        vtep=Vtep(
            source_interface=1,
            source_ip="10.0.2.1",
            tunnel_qos=["marking-encap", "ecn-propagation", "class-decap"],  # a model that sets all three
        ),
        anycast_gateway_mac="00:00:5e:00:01:01",
        qos=_qos(platform),
    )


def spine(platform: str) -> DeviceIntent:
    """One downlink to leaf01, one unused port; EVPN peers keep the VTEP as next hop."""
    p = get_platform(platform).port_name
    return DeviceIntent(
        name="spine01",
        platform=platform,
        role="spine",
        model="test",
        os_version=get_platform(platform).release().name,
        fabric="lab",
        loopbacks=[Loopback(number=0, description="router-id", ipv4="10.0.0.1/32")],
        breakouts=[],
        interfaces=[
            _fabric_port(p(1), "10.1.0.0/31", f"leaf01 {p(1)}"),
            Interface(name=p(2), role="unused", description="unused", enabled=False),
        ],
        vrfs=[],
        vlans=[],
        acls=[],
        bgp=Bgp(
            asn=65000,
            router_id="10.0.0.1",
            max_paths=1,
            networks=["10.0.0.1/32"],
            neighbors=[
                BgpNeighbor(ip="10.1.0.1", asn=65101, description="leaf01", kind="underlay"),
                BgpNeighbor(ip="10.0.1.1", asn=65101, description="leaf01 evpn", kind="overlay"),
            ],
            evpn=True,
            evpn_next_hop_unchanged=True,
            evpn_retain_all_routes=True,
        ),
        vtep=None,
        anycast_gateway_mac=None,
        qos=_qos(platform),
    )


def block(text: str, header: str, indent: str) -> list[str]:
    """The lines of the block opened by `header` (its children, in order)."""
    lines = text.splitlines()
    start = lines.index(header) + 1
    out = []
    for line in lines[start:]:
        if not line.startswith(indent):
            break
        out.append(line)
    return out


# --- filters ---------------------------------------------------------------------------------


def test_filters_only_format() -> None:
    assert cidr_ip("10.0.0.1/31") == "10.0.0.1"
    assert cidr_ip("10.0.0.1") == "10.0.0.1"
    assert cidr_mask("10.0.0.1/31") == "255.255.255.254"
    assert cidr_wildcard("10.0.0.1/31") == "0.0.0.1"
    assert cidr_network("10.1.2.3/16") == "10.1.0.0"
    comware, eos = get_platform("comware").filters, get_platform("eos").filters
    assert comware["mac"]("00:00:5e:00:01:01") == "0000-5e00-0101"
    assert eos["mac"]("00:00:5E:00:01:01") == "00:00:5e:00:01:01"  # what EOS prints back
    assert eos["mac"]("0000.5e00.0101") == "00:00:5e:00:01:01"
    assert [comware["queue_name"](q) for q in range(8)] == [
        "be",
        "af1",
        "af2",
        "af3",
        "af4",
        "ef",
        "cs6",
        "cs7",
    ]
    assert (num(1.0), num(0.2), num(10)) == ("1", "0.2", "10")
    with pytest.raises(ValueError):
        eos["mac"]("00:00:5e:00:01")


# --- both platforms --------------------------------------------------------------------------


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("make", [leaf, spine])
def test_output_is_normalised_and_deterministic(platform: str, make: Callable[[str], DeviceIntent]) -> None:
    first = Renderer().render(make(platform))
    assert first == Renderer().render(make(platform))
    assert first.endswith("\n") and not first.endswith("\n\n")
    lines = first.splitlines()
    assert all(line == line.rstrip() and line for line in lines)
    sep = "#" if platform == "comware" else "!"
    assert all(not (a == b == sep) for a, b in itertools.pairwise(lines))
    assert "\t" not in first


@pytest.mark.parametrize("platform", PLATFORMS)
def test_description_is_verbatim_on_one_line(platform: str) -> None:
    text = Renderer().render(leaf(platform))
    indent = " " if platform == "comware" else "   "
    assert f"{indent}description {DESCRIPTION}" in text.splitlines()
    assert text.count(DESCRIPTION) == 1


@pytest.mark.parametrize("platform", PLATFORMS)
def test_multiline_text_is_refused(platform: str) -> None:
    intent = leaf(platform)
    bad = intent.model_copy(
        update={"loopbacks": [Loopback(number=0, description="x\nshutdown", ipv4="10.0.1.1/32")]}
    )
    with pytest.raises(RenderError, match="multi-line"):
        Renderer().render(bad)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_missing_field_fails_loudly(platform: str, tmp_path: Path) -> None:
    user = tmp_path / "templates" / platform
    user.mkdir(parents=True)
    (user / "bgp.j2").write_text("bgp {{ bgp.no_such_field }}\n")
    with pytest.raises(RenderError, match="no_such_field"):
        Renderer(tmp_path).render(leaf(platform))


@pytest.mark.parametrize("platform", PLATFORMS)
def test_user_template_overrides_builtin(platform: str, tmp_path: Path) -> None:
    user = tmp_path / "templates" / platform
    user.mkdir(parents=True)
    (user / "acl.j2").write_text("{% for acl in acls %}\nCUSTOM {{ acl.name }}\n{% endfor %}\n")
    text = Renderer(tmp_path).render(leaf(platform))
    assert "CUSTOM acme-in" in text.splitlines()
    assert "CUSTOM beta-in" in text.splitlines()
    assert "counters per-entry" not in text and "acl advanced" not in text
    # The other features still come from the built-in templates.
    assert Renderer().render(leaf(platform)).count("\n") > text.count("\n")


def test_environment_is_built_once_per_search_path(tmp_path: Path) -> None:
    assert Renderer().environment("eos") is Renderer().environment("eos")
    assert Renderer(tmp_path).environment("eos") is Renderer(tmp_path).environment("eos")
    assert Renderer(tmp_path).environment("eos") is not Renderer().environment("eos")
    assert Renderer().environment("eos") is not Renderer().environment("comware")  # own filters
    assert Renderer(tmp_path).search_path == (str(tmp_path / "templates"), str(BUILTIN_TEMPLATES))


def test_unknown_platform_is_a_stage_error() -> None:
    intent = spine("eos").model_copy(update={"platform": "nxos"})
    with pytest.raises(StageError, match=r"no platform 'nxos' \(known: comware, eos, nvue, sonic\)"):
        Renderer().render(intent)


def test_every_platform_has_the_feature_templates() -> None:
    features = {"device", "qos", "underlay", "evpn", "tenants", "acl", "interfaces", "bgp"}
    for platform in PLATFORMS:
        names = {p.stem for p in (BUILTIN_TEMPLATES / platform).glob("*.j2")}
        assert features <= names, platform


# --- Comware ---------------------------------------------------------------------------------


def test_comware_leaf() -> None:
    text = Renderer().render(leaf("comware"))
    lines = text.splitlines()
    assert lines[0] == "#" and lines[-1] == "#" and "return" not in lines
    assert "sysname" not in text
    # DSCP 26 -> 3 and 48 -> 6 are Comware's defaults: no dscp-dot1p table; dot1p 0-2 to their queues.
    assert "qos map-table dscp-dot1p" not in text
    assert block(text, "qos map-table dot1p-lp", " ") == [
        " import 0 export 0",
        " import 1 export 1",
        " import 2 export 2",
    ]
    assert "lldp global enable" in lines and "qos trust tunnel-dot1p" in lines
    assert " queue 3 ecn" in block(text, "qos wred queue table ROCE-ECN", " ")
    assert "priority-flow-control deadlock cos 3 interval 10" in lines
    assert "tunnel global source-address 10.0.2.1" in lines
    assert block(text, "interface LoopBack1", " ") == [
        " description vtep",
        " ip address 10.0.2.1 255.255.255.255",
    ]
    assert block(text, "ip vpn-instance acme", " ") == [
        " description tenant acme",
        " route-distinguisher 10.0.1.1:50007",
        " address-family evpn",
        "  vpn-target 65000:50007 import-extcommunity",
        "  vpn-target 65000:50007 export-extcommunity",
    ]
    assert block(text, "interface Vsi-interface4103", " ") == [
        " description tenant acme",
        " ip binding vpn-instance acme",
        " mtu 8950",
        " l3-vni 50007",
    ]
    assert block(text, "interface Vsi-interface110", " ") == [
        " description fabricctl lab-fabric tenant beta",
        " ip binding vpn-instance beta",
        " ip address 10.200.0.1 255.255.255.0",
        " mtu 9000",
        " mac-address 0000-5e00-0101",
        " local-proxy-arp enable",
        " distributed-gateway local",
        " packet-filter name beta-in inbound",
    ]
    assert block(text, "vsi beta-110", " ")[:4] == [
        " description fabricctl lab-fabric tenant beta",
        " gateway vsi-interface 110",
        " vxlan 10110",
        " evpn encapsulation vxlan",
    ]
    assert block(text, "acl advanced name acme-in", " ") == [
        " description fabricctl lab-fabric tenant acme",
        " rule 10 permit ip source 10.100.0.0 0.0.255.255 destination 10.100.0.0 0.0.255.255",
        " rule 20 deny ip",
    ]
    lossless = [
        " qos trust dscp",
        " priority-flow-control enable",
        " priority-flow-control no-drop dot1p 3",
        " priority-flow-control dot1p 3 headroom 1532",  # the intent's headroom, in cells
        " priority-flow-control deadlock enable",
        " qos wrr be group 1 byte-count 40",
        " qos wrr af3 group 1 byte-count 60",
        " qos wrr cs6 group sp",
        " qos wrr cs7 group sp",
        " qos wred apply ROCE-ECN",
    ]
    assert block(text, "interface FourHundredGigE1/0/1", " ") == [
        " port link-mode route",
        " description to spine01 FourHundredGigE1/0/1",
        " mtu 9000",
        " link-delay 2 mode up",
        " ip address 10.1.0.1 255.255.255.254",
        *lossless,
    ]
    assert block(text, "interface FourHundredGigE1/0/33", " ") == [
        " port link-mode route",
        f" description {DESCRIPTION}",
        " mtu 9000",
        " ip binding vpn-instance acme",
        " ip address 10.100.0.0 255.255.255.254",
        *lossless,
        " packet-filter name acme-in inbound",
    ]
    assert block(text, "interface FourHundredGigE1/0/34", " ") == [
        " port link-mode bridge",
        " description gpu002 nic0",
        *lossless,
        " packet-filter name beta-in inbound",
        " service-instance 110",
        "  encapsulation untagged",
        "  xconnect vsi beta-110",
    ]
    assert block(text, "interface FourHundredGigE1/0/35", " ") == [
        " port link-mode route",
        " description unused",
        " shutdown",
    ]
    bgp = block(text, "bgp 65101", " ")
    assert bgp[:3] == [
        " router-id 10.0.1.1",
        " peer 10.1.0.0 as-number 65000",
        " peer 10.1.0.0 description spine01",
    ]
    assert " peer 10.0.0.1 connect-interface LoopBack0" in bgp
    assert " peer 10.0.0.1 ebgp-max-hop 3" in bgp
    assert " peer 10.1.0.0 connect-interface LoopBack0" not in bgp
    af = bgp.index(" address-family ipv4 unicast")
    evpn = bgp.index(" address-family l2vpn evpn")
    assert bgp[af + 1 : evpn] == [
        "  balance 2",
        "  network 10.0.1.1 255.255.255.255",
        "  network 10.0.2.1 255.255.255.255",
        "  peer 10.1.0.0 enable",
        "  peer 10.1.0.2 enable",
    ]
    assert bgp[evpn + 1 : evpn + 3] == ["  peer 10.0.0.1 enable", "  peer 10.0.0.2 enable"]
    assert "next-hop-invariable" not in text
    assert "undo policy vpn-target" not in text
    assert bgp[-3:] == [
        " ip vpn-instance beta",
        "  address-family ipv4 unicast",
        "   import-route direct",
    ]


def test_comware_port_order_and_sections() -> None:
    text = Renderer().render(leaf("comware"))
    ports = [ln.split()[1] for ln in text.splitlines() if ln.startswith("interface FourHundred")]
    assert ports == [f"FourHundredGigE1/0/{n}" for n in (1, 2, 33, 34, 35)]
    # Everything referenced exists earlier in the text (push order).
    assert text.index("acl advanced name beta-in") < text.index("packet-filter name beta-in")
    assert text.index("ip vpn-instance beta\n") < text.index("ip binding vpn-instance beta")
    assert text.index("interface Vsi-interface110") < text.index("vsi beta-110")
    assert text.index("vsi beta-110") < text.index("xconnect vsi beta-110")
    # Each top-level block is preceded by a `#` separator.
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(
            ("interface ", "bgp ", "vsi ", "acl ", "ip vpn-instance ", "qos map-table ", "qos wred ")
        ):
            assert lines[i - 1] == "#", line


def test_comware_spine() -> None:
    text = Renderer().render(spine("comware"))
    assert "l2vpn enable" not in text and "Vsi-interface" not in text
    assert "  peer 10.0.1.1 next-hop-invariable" in text.splitlines()
    assert "  undo policy vpn-target" in text.splitlines()
    assert " ip vpn-instance" not in text


def test_comware_breakout() -> None:
    intent = leaf("comware")
    p = get_platform("comware").port_name
    lane = Interface(name=p(40, 1), role="unused", description="unused", enabled=False)
    intent = intent.model_copy(
        update={
            "breakouts": [Breakout(port=p(40), mode="2x200G")],
            "interfaces": [*intent.interfaces, lane],
        }
    )
    text = Renderer().render(intent)
    assert block(text, "interface FourHundredGigE1/0/40", " ") == [" using twohundredgige"]
    assert "interface TwoHundredGigE1/0/40:1" in text.splitlines()
    assert text.index("using twohundredgige") < text.index("TwoHundredGigE1/0/40:1")


# --- EOS -------------------------------------------------------------------------------------


def test_eos_leaf() -> None:
    text = Renderer().render(leaf("eos"))
    lines = text.splitlines()
    assert lines[0] == "service routing protocols model multi-agent"
    assert lines[-2:] == ["!", "end"]
    assert "hostname" not in text
    assert "qos map dscp 26 to traffic-class 3" in lines
    assert "qos map dscp 48 to traffic-class 6" in lines
    assert "qos map traffic-class 3 to tx-queue 3" in lines
    assert "qos map traffic-class 6 to tx-queue 6" in lines
    assert "priority-flow-control pause watchdog default recovery-time 1" in lines
    assert block(text, "qos profile ROCE-LOSSLESS", "   ") == [
        "   qos trust dscp",
        "   priority-flow-control on",
        "   priority-flow-control priority 3 no-drop",
        "   priority-flow-control pause watchdog",
        "   tx-queue 0",
        "      no priority",
        "      bandwidth percent 40",
        "   tx-queue 3",
        "      no priority",
        "      bandwidth percent 60",
        "      random-detect ecn minimum-threshold 2000 segments maximum-threshold 10000 segments"
        " max-mark-probability 20 weight 0",
        "   tx-queue 6",
        "      priority strict",
    ]
    assert block(text, "ip access-list acme-in", "   ") == [
        "   counters per-entry",
        "   1 remark fabricctl lab-fabric tenant acme",
        "   10 permit ip 10.100.0.0/16 10.100.0.0/16",
        "   20 deny ip any any",
    ]
    assert "ip routing" in lines
    assert "ip routing vrf acme" in lines and "ip routing vrf beta" in lines
    assert block(text, "vrf instance acme", "   ") == ["   description tenant acme"]
    assert block(text, "vlan 110", "   ") == ["   name beta-110"]
    assert block(text, "interface Vlan110", "   ") == [
        "   description fabricctl lab-fabric tenant beta",
        "   mtu 9000",
        "   vrf beta",
        "   ip address virtual 10.200.0.1/24",
        "   ip access-group beta-in in",
    ]
    assert block(text, "interface Ethernet1", "   ") == [
        "   description to spine01 Ethernet1",
        "   mtu 9000",
        "   no switchport",
        "   ip address 10.1.0.1/31",
        "   service-profile ROCE-LOSSLESS",
    ]
    assert block(text, "interface Ethernet33", "   ") == [
        f"   description {DESCRIPTION}",
        "   mtu 9000",
        "   no switchport",
        "   vrf acme",
        "   ip address 10.100.0.0/31",
        "   ip access-group acme-in in",
        "   service-profile ROCE-LOSSLESS",
    ]
    assert block(text, "interface Ethernet34", "   ") == [
        "   description gpu002 nic0",
        "   mtu 9000",
        "   switchport access vlan 110",
        "   ip access-group beta-in in",
        "   service-profile ROCE-LOSSLESS",
    ]
    assert block(text, "interface Ethernet35", "   ") == [
        "   description unused",
        "   no switchport",
        "   shutdown",
    ]
    assert block(text, "interface Loopback0", "   ") == [
        "   description router-id",
        "   ip address 10.0.1.1/32",
    ]
    assert block(text, "interface Vxlan1", "   ") == [
        "   vxlan source-interface Loopback1",
        "   vxlan udp-port 4789",
        "   vxlan vlan 110 vni 10110",
        "   vxlan vrf acme vni 50007",
        "   vxlan vrf beta vni 50008",
        "   vxlan qos ecn propagation",
        "   vxlan qos dscp propagation encapsulation",
        "   vxlan qos map dscp to traffic-class decapsulation",
    ]
    assert "ip virtual-router mac-address 00:00:5e:00:01:01" in lines
    bgp = block(text, "router bgp 65101", "   ")
    assert bgp[:12] == [
        "   router-id 10.0.1.1",
        "   update wait-install",
        "   no bgp default ipv4-unicast",
        "   maximum-paths 2 ecmp 2",
        "   neighbor UNDERLAY peer group",
        "   neighbor UNDERLAY maximum-routes 256000",
        "   neighbor EVPN-OVERLAY peer group",
        "   neighbor EVPN-OVERLAY update-source Loopback0",
        "   neighbor EVPN-OVERLAY ebgp-multihop 3",
        "   neighbor EVPN-OVERLAY send-community",
        "   neighbor EVPN-OVERLAY maximum-routes 0",
        "   neighbor 10.1.0.0 peer group UNDERLAY",
    ]
    assert "   neighbor 10.0.0.1 peer group EVPN-OVERLAY" in bgp
    assert "   neighbor 10.0.0.1 description spine01 evpn" in bgp
    assert "next-hop-unchanged" not in text
    assert not any(line.startswith("   network ") for line in bgp)
    vlan = bgp.index("   vlan 110")
    assert bgp[vlan + 1 : vlan + 4] == [
        "      rd 10.0.1.1:10110",
        "      route-target both 65000:10110",
        "      redistribute learned",
    ]
    evpn = bgp.index("   address-family evpn")
    assert bgp[evpn + 1 : evpn + 6] == [
        "      neighbor EVPN-OVERLAY activate",
        "   address-family ipv4",
        "      neighbor UNDERLAY activate",
        "      network 10.0.1.1/32",
        "      network 10.0.2.1/32",
    ]
    assert bgp[-6:] == [
        "   vrf beta",
        "      rd 10.0.1.1:50008",
        "      route-target import evpn 65000:50008",
        "      route-target export evpn 65000:50008",
        "      router-id 10.0.1.1",
        "      redistribute connected",
    ]


def test_eos_push_order() -> None:
    text = Renderer().render(leaf("eos"))
    assert text.index("ip access-list beta-in") < text.index("ip access-group beta-in")
    assert text.index("vrf instance acme") < text.index("ip routing vrf acme")
    assert text.index("ip routing vrf acme") < text.index("   vrf acme")
    ports = [ln.split()[1] for ln in text.splitlines() if ln.startswith("interface Ethernet")]
    assert ports == [f"Ethernet{n}" for n in (1, 2, 33, 34, 35)]


def test_eos_spine() -> None:
    text = Renderer().render(spine("eos"))
    lines = text.splitlines()
    assert "   neighbor EVPN-OVERLAY next-hop-unchanged" in lines
    assert "interface Vxlan1" not in text and "virtual-router" not in text
    assert "ip routing vrf" not in text and "vrf instance" not in text


def test_eos_breakout_lane_speed() -> None:
    intent = leaf("eos")
    p = get_platform("eos").port_name
    lanes = [
        Interface(name=p(40, lane), role="unused", description="unused", enabled=False) for lane in (1, 2)
    ]
    intent = intent.model_copy(
        update={
            "breakouts": [Breakout(port=p(40), mode="2x200G")],
            "interfaces": [*intent.interfaces, *lanes],
        }
    )
    text = Renderer().render(intent)
    assert block(text, "interface Ethernet40/1", "   ")[:2] == [
        "   description unused",
        "   speed 200g-4",
    ]
    assert "   speed 200g-4" in block(text, "interface Ethernet40/5", "   ")
    assert "   speed 200g-4" not in block(text, "interface Ethernet35", "   ")


# --- compiled fabrics through the lab grammar -------------------------------------------------

REPO = Path(__file__).resolve().parent.parent
FABRICS = [REPO, REPO / "examples" / "eos-small"]


@functools.cache
def _compiled(root: Path) -> dict[str, str]:
    from fabricctl import pipeline

    return pipeline.render(pipeline.compile(root).intents, root)


@pytest.mark.parametrize("root", FABRICS, ids=lambda p: p.name)
def test_compiled_fabric_emits_only_the_spec(root: Path) -> None:
    """Every rendered line is accepted by the platform's command reference (the lab's grammar)."""
    from fabricctl.lab.config_tree import Node
    from fabricctl.lab.editor import Editor
    from fabricctl.lab.reference import reference

    grammars = {"#": reference("comware").grammar, "s": reference("eos").grammar}
    for name, text in _compiled(root).items():
        editor = Editor(grammars[text[0]], Node("root", block=True))
        try:
            editor.load(text)
        except Exception as exc:
            pytest.fail(f"{name}: {exc}")


def test_comware_block_headers_are_unique() -> None:
    for name, text in _compiled(REPO).items():
        headers = [ln for ln in text.splitlines() if ln and ln[0] not in " #"]
        dupes = sorted({h for h in headers if headers.count(h) > 1})
        assert not dupes, f"{name}: {dupes}"
