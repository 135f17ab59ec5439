"""A lab port shows what it runs, defaults included: an interface without `mtu` says 1500.

Driven over SSH with real netmiko (and eAPI with the NAPALM eos driver's pyeapi node), as an
engineer checking a port after a change would.
"""

from __future__ import annotations

import dataclasses

import pytest

from fabricctl.lab import LabFabric
from fabricctl.lab.nos import lab_nos
from fabricctl.lab.reference import reference

from .conftest import connect, napalm_eos


def test_comware_port_without_mtu_shows_the_default(lab: LabFabric) -> None:
    conn = connect(lab, "spine01")
    try:
        before = conn.send_command("display interface FourHundredGigE1/0/1")
        assert "Maximum frame length: 9416" in before  # bridged: no IP MTU, the default frame limit
        assert "Maximum transmission unit" not in before

        conn.send_config_set(["interface FourHundredGigE1/0/1", "port link-mode route"])
        routed = conn.send_command("display interface FourHundredGigE1/0/1")
        assert "Maximum transmission unit: 1500" in routed
        assert "The maximum frame length is 9416" in routed

        conn.send_config_set(["interface FourHundredGigE1/0/1", "mtu 9000", "jumboframe enable 9100"])
        tuned = conn.send_command("display interface FourHundredGigE1/0/1")
        assert "Maximum transmission unit: 9000" in tuned
        assert "The maximum frame length is 9100" in tuned

        # Outside the documented range (IP MTU 46-9008): a wrong parameter, the port keeps 9000.
        refused = conn.send_config_set(["interface FourHundredGigE1/0/1", "mtu 9214"])
        assert "% Wrong parameter found at '^' position." in refused
        assert "Maximum transmission unit: 9000" in conn.send_command(
            "display interface FourHundredGigE1/0/1"
        )
    finally:
        conn.disconnect()


def test_eos_port_without_mtu_shows_the_default(lab: LabFabric) -> None:
    conn = connect(lab, "leaf01")
    try:
        conn.send_config_set(["interface Ethernet1", "no switchport", "ip address 10.0.0.1/31"])
        assert "IP MTU 1500 bytes" in conn.send_command("show interfaces Ethernet1")
        conn.send_config_set(["interface Ethernet1", "mtu 9214"])
        assert "IP MTU 9214 bytes" in conn.send_command("show interfaces Ethernet1")
        assert "IP MTU" not in conn.send_command("show interfaces Ethernet2")  # bridged
    finally:
        conn.disconnect()
    dev = napalm_eos(lab, "leaf01")
    try:
        [reply] = dev.device.run_commands(["show interfaces Ethernet1"])
        assert reply["interfaces"]["Ethernet1"]["mtu"] == 9214
        assert reply["interfaces"]["Ethernet1"]["forwardingModel"] == "routed"
    finally:
        dev.close()


def test_pyeapi_interface_and_vlan_apis(lab: LabFabric) -> None:
    """pyeapi reads `show running-config all`: a port not shut is up, a VLAN is active."""
    import pyeapi

    from .conftest import PASSWORD, USER

    lab.device("leaf01").configure(["vlan 110", "name tnt-x", "interface Ethernet2", "shutdown"])
    ep = lab.endpoints()["leaf01"]
    node = pyeapi.connect(
        transport="https", host=ep.host, port=ep.eapi_port, username=USER, password=PASSWORD, return_node=True
    )
    interfaces = node.api("interfaces").getall()
    assert interfaces["Ethernet1"]["shutdown"] is False and interfaces["Ethernet2"]["shutdown"] is True
    assert node.api("vlans").getall()["110"] == {
        "vlan_id": "110",
        "name": "tnt-x",
        "state": "active",
        "trunk_groups": [],
    }


def test_a_port_links_only_at_its_cables_speed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A port split by a breakout no longer runs (its lanes do); a lane links only with a 200G
    leg in it, and a 400G port only with a 400G cable (the racks must be re-cabled)."""
    from fabricctl.lab.fabric_state import Cabling
    from tests.conftest import EOS_SMALL, copy_fabric, on_platform
    from tests.test_expansion import split

    for platform, parent, lane, split_lines in (
        ("comware", "FourHundredGigE1/0/9", "TwoHundredGigE1/0/9:1", ["using twohundredgige"]),
        ("eos", "Ethernet9", "Ethernet9/1", []),
    ):
        root = on_platform(copy_fabric(EOS_SMALL, tmp_path / platform), platform)
        lab = LabFabric.from_inventory(root)
        leaf1 = lab.device("leaf1")
        leaf1.configure([f"interface {parent}", *split_lines])
        assert lab.state().link_up("leaf1", parent) is (platform == "eos")  # the 400G cable is in
        split(root)
        lab.recable(Cabling.from_inventory(root), ["leaf1"])  # a 200G leg per lane now
        assert not lab.state().link_up("leaf1", parent)
        leaf1.configure([f"interface {lane}"])
        # EOS runs a lane at the port's 400G until told its speed: a 200G leg does not link.
        assert lab.state().link_up("leaf1", lane) is (platform == "comware")
        if platform == "eos":
            leaf1.configure([f"interface {lane}", "speed 200g-4"])
            assert lab.state().link_up("leaf1", lane) and not lab.state().link_up("leaf1", parent)


def test_each_nos_says_where_its_reference_documents_a_ports_default_ip_mtu() -> None:
    """The lab's core asks the NOS for a port's view and the line whose default is its IP MTU:
    `mtu` in EOS's and Comware's interface views, NVUE's object path `interface <port> link mtu`."""
    expected = {
        ("eos", "Ethernet1"): ("if-eth", "1500"),
        ("eos", "Port-Channel1"): ("if-eth", "1500"),  # no prefix of its own: the catch-all view
        ("comware", "FourHundredGigE1/0/1"): ("if-eth", "1500"),
        ("comware", "Vsi-interface4197"): ("if-vsi", "1500"),
        ("nvue", "swp1"): ("set", "9216"),
    }
    for (platform, port), (view, default) in expected.items():
        nos = lab_nos(platform)
        assert nos.port_view(port) == view, (platform, port)
        assert reference(platform).default(*nos.mtu_at(port, view)) == default, (platform, port)
    narrow = dataclasses.replace(lab_nos("eos"), port_views=(("Ethernet", "if-eth"),))
    with pytest.raises(ValueError, match="eos: no port view for interface 'Loopback0'"):
        narrow.port_view("Loopback0")
