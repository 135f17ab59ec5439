"""The NVUE twin over SSH: a Cumulus Linux login, `nv set` staging, `nv config apply --confirm`
on the lab clock, `nv config show` YAML, `nv show ... -o json` state derived from two cabled
switches, driven by netmiko's `cumulus_linux` driver."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from netmiko import ConnectHandler
from netmiko.base_connection import BaseConnection

import tests.lab.test_reference as reference_checks
from fabricctl.lab import DeviceSpec, LabClock, LabFabric
from fabricctl.lab.fabric_state import Cabling
from fabricctl.lab.nos import lab_nos
from tests.conftest import send_text
from tests.lab.conftest import PASSWORD, USER

LEAF = [
    "nv set system hostname leaf01",
    "nv set interface swp1 link mtu 9216",
    "nv set interface swp1 ipv4 address 10.0.0.0/31",
    'nv set interface swp1 description "fabricctl lab uplink"',
    "nv set interface lo ipv4 address 10.0.255.11/32",
    "nv set router bgp autonomous-system 65101",
    "nv set router bgp router-id 10.0.255.11",
    "nv set vrf default router bgp neighbor 10.0.0.1 remote-as 65001",
    "nv set qos roce mode lossless",
]
SPINE = [
    "nv set interface swp1 ipv4 address 10.0.0.1/31",
    "nv set router bgp autonomous-system 65001",
    "nv set router bgp router-id 10.0.255.1",
    "nv set vrf default router bgp neighbor 10.0.0.0 remote-as 65101",
]


@pytest.fixture
def nvue_lab(tmp_path: Path) -> Iterator[LabFabric]:
    cabling = Cabling()
    cabling.add(("leaf01", "swp1"), ("spine01", "swp1"))
    specs = [
        DeviceSpec("leaf01", "nvue", mgmt_ip="192.0.2.11"),
        DeviceSpec("spine01", "nvue", mgmt_ip="192.0.2.1"),
    ]
    with LabFabric(specs, state_dir=tmp_path / "state", clock=LabClock.frozen(), cabling=cabling) as lab:
        yield lab


def connect(lab: LabFabric, name: str) -> BaseConnection:
    ep = lab.endpoints()[name]
    return ConnectHandler(
        device_type="cumulus_linux", host=ep.host, port=ep.ssh_port, username=USER, password=PASSWORD
    )


def _push(conn: BaseConnection, lines: list[str]) -> None:
    for line in lines:
        assert send_text(conn, line) == "", line


def test_the_registry_gives_the_lab_an_sn5600_nvue_switch() -> None:
    spec = DeviceSpec("leaf01", "nvue")
    assert spec.model == "SN5600" == lab_nos("nvue").default_model
    assert lab_nos("nvue").hardware_facts(spec.model).name == "MSN5600"


def test_an_sn4700_reports_nvidia_facts_not_another_vendors() -> None:
    """A model the twin's table does not list reports as its NOS's default model: an SN4700 (its
    name starts as Comware's S9825 does) gets NVIDIA's facts, never H3C's."""
    box = lab_nos("nvue").hardware_facts("SN4700")
    assert box == lab_nos("nvue").hardware_facts("SN5600")
    assert (box.name, box.optic_vendor) == ("MSN5600", "NVIDIA")
    assert lab_nos("comware").hardware_facts("SN4700").optic_vendor == "H3C"
    assert lab_nos("eos").hardware_facts("S9825-64D").optic_vendor == "Arista Networks"


def test_every_nvue_path_has_a_reviewed_source() -> None:
    reference_checks.test_every_entry_has_a_source_with_url_section_and_device("nvue")
    reference_checks.test_every_source_is_in_the_reviewed_citation_table("nvue")


def test_netmiko_stages_applies_and_reads_back(nvue_lab: LabFabric) -> None:
    conn = connect(nvue_lab, "leaf01")
    assert conn.find_prompt() == f"{USER}@leaf01:mgmt:~$"
    _push(conn, LEAF)
    diff = yaml.safe_load(send_text(conn, "nv config diff"))
    assert diff[0]["set"]["interface"]["swp1"]["link"]["mtu"] == 9216
    assert "swp1" not in nvue_lab.device("leaf01").running_config()  # staged, not applied
    assert "applied [rev_id: 1]" in conn.save_config()  # netmiko sends `nv config apply`
    shown = yaml.load(send_text(conn, "nv config show -o yaml"), Loader=yaml.BaseLoader)
    assert shown[0]["header"]["nvue-api-version"] == "nvue_v1"
    swp1 = shown[1]["set"]["interface"]["swp1"]
    assert swp1 == {
        "description": "fabricctl lab uplink",
        "ipv4": {"address": {"10.0.0.0/31": {}}},
        "link": {"mtu": "9216"},
        "type": "swp",
    }
    assert send_text(conn, "nv config diff") == ""
    assert "nv config show" not in nvue_lab.device("leaf01").startup_config()
    assert "10.0.0.0/31" in nvue_lab.device("leaf01").startup_config()  # auto-save
    conn.disconnect()


def test_an_invalid_path_or_value_is_refused_and_nothing_is_staged(nvue_lab: LabFabric) -> None:
    conn = connect(nvue_lab, "leaf01")
    assert send_text(conn, "nv set interface swp1 link mtu 100").startswith("Error: Invalid value '100'")
    assert send_text(conn, "nv set interface swp1 bogus on").startswith("Error: Invalid Command")
    assert send_text(conn, "nv config diff") == ""
    assert "command not found" in send_text(conn, "frobnicate")
    conn.disconnect()


def test_state_follows_the_applied_config_of_both_ends(nvue_lab: LabFabric) -> None:
    leaf, spine = connect(nvue_lab, "leaf01"), connect(nvue_lab, "spine01")
    _push(leaf, LEAF)
    send_text(leaf, "nv config apply -y")
    swp1 = json.loads(send_text(leaf, "nv show interface swp1 -o json"))
    assert swp1["link"]["oper-status"] == "down"  # the far end is not configured yet
    _push(spine, SPINE)
    send_text(spine, "nv config apply -y")
    swp1 = json.loads(send_text(leaf, "nv show interface swp1 -o json"))
    assert swp1["link"]["oper-status"] == "up" and swp1["link"]["mtu"] == 9216
    lldp = json.loads(send_text(leaf, "nv show interface swp1 lldp neighbor -o json"))
    assert lldp["spine01"]["port"]["name"] == "swp1"
    detail = json.loads(send_text(leaf, "nv show interface lldp-detail -o json"))
    assert detail["swp1"]["lldp"]["neighbor"] == lldp  # every interface's, as one object
    peers = json.loads(send_text(leaf, "nv show vrf default router bgp neighbor -o json"))
    assert peers["10.0.0.1"]["state"] == "established" and peers["10.0.0.1"]["remote-as"] == 65001
    pfc = json.loads(send_text(leaf, "nv show interface swp1 counters qos pfc-stats -o json"))
    assert pfc["3"]["rx-pause-frames"] == 0
    nvue_lab.set_faults("leaf01", pfc_storm=["swp1"])
    pfc = json.loads(send_text(leaf, "nv show interface swp1 counters qos pfc-stats -o json"))
    assert pfc["3"]["rx-pause-frames"] > 0 and pfc["0"]["rx-pause-frames"] == 0
    # The spine moves its ASN: the session goes down on both ends.
    send_text(spine, "nv set router bgp autonomous-system 65002")
    send_text(spine, "nv config apply -y")
    peers = json.loads(send_text(leaf, "nv show vrf default router bgp neighbor -o json"))
    assert peers["10.0.0.1"]["state"] == "idle"
    leaf.disconnect()
    spine.disconnect()


def test_apply_with_confirm_rolls_back_on_the_lab_clock_unless_confirmed(nvue_lab: LabFabric) -> None:
    conn = connect(nvue_lab, "leaf01")
    before = nvue_lab.device("leaf01").running_config()
    send_text(conn, "nv set interface swp1 link mtu 9000")
    assert send_text(conn, "nv config apply --confirm 60s -y").startswith("applied [rev_id:")
    assert send_text(conn, "nv config apply --confirm-status") == "Confirm timeout remaining: 60s"
    assert "9000" in nvue_lab.device("leaf01").running_config()
    assert "9000" not in nvue_lab.device("leaf01").startup_config()  # saved only once confirmed
    nvue_lab.advance(59)
    assert send_text(conn, "nv config apply --confirm-status") == "Confirm timeout remaining: 1s"
    nvue_lab.advance(2)
    assert nvue_lab.device("leaf01").running_config() == before
    assert "rollback" in send_text(conn, "nv config history")
    # Confirmed in time, it stays and is saved.
    send_text(conn, "nv set interface swp1 link mtu 9000")
    send_text(conn, "nv config apply --confirm 60s -y")
    nvue_lab.advance(30)
    assert send_text(conn, "nv config apply --confirm-yes").startswith("applied")
    nvue_lab.advance(60)
    assert "9000" in nvue_lab.device("leaf01").running_config()
    assert "9000" in nvue_lab.device("leaf01").startup_config()
    conn.disconnect()


def test_detach_drops_the_pending_changes(nvue_lab: LabFabric) -> None:
    conn = connect(nvue_lab, "leaf01")
    send_text(conn, "nv set interface swp2 link mtu 1500")
    assert "swp2" in send_text(conn, "nv config diff")
    send_text(conn, "nv config detach")
    assert send_text(conn, "nv config diff") == ""
    assert send_text(conn, "nv config apply -y") == "Warning: Nothing to apply."
    conn.disconnect()


EVPN = [
    "nv set nve vxlan source address {lo}",
    "nv set bridge domain br_default vlan 112 vni 10012",
    "nv set evpn state enabled",
    "nv set vrf default router bgp address-family l2vpn-evpn state enabled",
    "nv set vrf default router bgp neighbor {peer} address-family l2vpn-evpn state enabled",
]


def test_evpn_vnis_learn_the_remote_vtep_over_an_evpn_session(nvue_lab: LabFabric) -> None:
    leaf, spine = connect(nvue_lab, "leaf01"), connect(nvue_lab, "spine01")
    _push(leaf, LEAF + [line.format(lo="10.0.255.11", peer="10.0.0.1") for line in EVPN])
    _push(spine, [*SPINE, "nv set interface lo ipv4 address 10.0.255.1/32"])
    _push(spine, [line.format(lo="10.0.255.1", peer="10.0.0.0") for line in EVPN])
    send_text(leaf, "nv config apply -y")
    send_text(spine, "nv config apply -y")
    vnis = json.loads(send_text(leaf, "nv show evpn vni -o json"))
    assert vnis["10012"] == {
        "type": "L2",
        "vlan": 112,
        "local-vtep": "10.0.255.11",
        "remote-vtep": {"10.0.255.1": {}},
    }
    # Once the spine no longer carries the VNI, the leaf learns no VTEP for it.
    send_text(spine, "nv unset bridge domain br_default vlan 112")
    send_text(spine, "nv config apply -y")
    assert json.loads(send_text(leaf, "nv show evpn vni -o json"))["10012"]["remote-vtep"] == {}
    leaf.disconnect()
    spine.disconnect()


def test_the_views_the_health_and_counter_readers_ask_for(nvue_lab: LabFabric) -> None:
    from fabricctl.platforms.nvue import counters, health

    leaf, spine = connect(nvue_lab, "leaf01"), connect(nvue_lab, "spine01")
    _push(leaf, LEAF)
    _push(spine, SPINE)
    send_text(leaf, "nv config apply -y")
    send_text(spine, "nv config apply -y")
    nvue_lab.set_faults("leaf01", pfc_storm=["swp1"], congestion=["swp1"])
    rows = {}
    for probe in health.HEALTH.probes:
        assert probe.json_command is not None, probe  # every NVUE probe has a JSON form
        rows[probe.command] = json.loads(send_text(leaf, probe.json_command))
    seen = health.parse(rows)
    assert seen.lldp["swp1"] == ("spine01", "swp1") and seen.ports["swp1"] == (True, True)
    assert set(seen.bgp.values()) == {"Established"}
    clock = send_text(leaf, "date -u +%s")
    got = counters.parse(
        {counters.SHOW_CLOCK: clock, counters.ROCE: json.loads(send_text(leaf, f"{counters.ROCE} -o json"))}
    )
    assert got.clock == float(clock)
    port = got.ports["swp1"]
    assert port.pfc is not None and port.ecn_marked is not None
    assert port.pfc[3][0] > 0 and port.ecn_marked[3] > 0
    leaf.disconnect()
    spine.disconnect()
