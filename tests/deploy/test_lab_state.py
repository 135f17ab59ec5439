"""The lab derives fabric state from what its switches hold, and real clients read it.

eos-small is applied with `fabricctl apply --lab`; then NAPALM's eos driver (eAPI), plain netmiko
with ntc-templates, and napalm-h3c-comware read links, LLDP and BGP as they would on a switch.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from napalm import get_network_driver

from fabricctl.lab.runtime import lab_credentials
from tests.conftest import EOS_SMALL, send_rows, send_text
from tests.lab.conftest import connect, napalm_eos

from .conftest import LabRoot


@pytest.fixture
def applied(eos_lab: LabRoot, capsys: pytest.CaptureFixture[str]) -> LabRoot:
    assert eos_lab.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
    return eos_lab


def test_napalm_eos_getters_see_the_fabric(applied: LabRoot) -> None:
    dev = napalm_eos(applied.lab, "leaf1", timeout=30)
    try:
        facts = dev.get_facts()
        assert facts["hostname"] == "leaf1" and facts["vendor"] == "Arista"
        assert "Ethernet1" in facts["interface_list"]
        interfaces = dev.get_interfaces()
        assert interfaces["Ethernet1"]["is_up"] and interfaces["Ethernet1"]["mtu"] == 9214
        assert not interfaces["Ethernet15"]["is_enabled"]  # an unassigned GPU port is shut
        lldp = dev.get_lldp_neighbors()
        assert lldp["Ethernet1"] == [{"hostname": "spine1", "port": "Ethernet1"}]
        detail = dev.get_lldp_neighbors_detail()["Ethernet1"][0]
        assert (detail["remote_system_name"], detail["remote_port"]) == ("spine1", "Ethernet1"), detail
        assert detail["remote_system_enable_capab"] == ["bridge", "router"], detail
        bgp = dev.get_bgp_neighbors()["global"]
        assert bgp["peers"] and all(p["is_up"] for p in bgp["peers"].values()), bgp
        ips = dev.get_interfaces_ip()
        assert ips["Loopback0"]["ipv4"]
    finally:
        dev.close()


def test_a_pulled_cable_and_a_held_peer_show_as_down(applied: LabRoot) -> None:
    applied.lab.set_faults("spine1", links_down=["Ethernet1"])
    dev = napalm_eos(applied.lab, "leaf1", timeout=30)
    try:
        assert not dev.get_interfaces()["Ethernet1"]["is_up"]  # the far end's fault takes this end down
        assert "Ethernet1" not in dev.get_lldp_neighbors()
        peers = dev.get_bgp_neighbors()["global"]["peers"]
        down = [ip for ip, p in peers.items() if not p["is_up"]]
        assert len(down) == 1, peers  # the underlay session on that link, nothing else
    finally:
        dev.close()


def test_a_swapped_cable_shows_in_lldp(applied: LabRoot) -> None:
    applied.lab.swap_cables(("leaf1", "Ethernet1"), ("leaf1", "Ethernet2"))
    conn = connect(applied.lab, "leaf1")
    try:
        rows = send_rows(conn, "show lldp neighbors")
    finally:
        conn.disconnect()
    seen = {r["local_interface"]: (r["neighbor_name"], r["neighbor_interface"]) for r in rows}
    assert seen["Et1"] == ("spine1", "Ethernet2") and seen["Et2"] == ("spine1", "Ethernet1")


def test_ntc_templates_parse_eos_state(applied: LabRoot) -> None:
    conn = connect(applied.lab, "spine1")
    try:
        status = send_rows(conn, "show interfaces status")
        bgp = send_rows(conn, "show ip bgp summary")
        evpn = send_rows(conn, "show bgp evpn summary")
        pfc = send_text(conn, "show priority-flow-control counters")
        detail = send_rows(conn, "show lldp neighbors detail")
    finally:
        conn.disconnect()
    assert isinstance(detail, list) and {r["neighbor_name"] for r in detail} >= {"leaf1", "leaf4"}, detail
    header, *rows = pfc.splitlines()
    assert (
        header.split() == ["Port", "RxPfc", "TxPfc"]
        and rows
        and all(r.split()[1:] == ["0", "0"] for r in rows)
    )
    assert isinstance(status, list) and {r["status"] for r in status} >= {"connected"}
    assert isinstance(bgp, list) and bgp and all(r["state"] == "Estab" for r in bgp), bgp
    assert isinstance(evpn, list) and len(evpn) == 4 and all(r["state"] == "Estab" for r in evpn), evpn


@pytest.fixture
def comware_applied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Iterator[LabRoot]:
    from .conftest import _lab_root

    for lab in _lab_root(EOS_SMALL, tmp_path, monkeypatch, "comware"):
        assert lab.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
        yield lab


def _napalm_comware(lab: LabRoot, name: str) -> Any:
    ep = lab.lab.endpoints()[name]
    user, password = lab_credentials()
    dev = get_network_driver("h3c_comware")(
        ep.host, user, password, timeout=30, optional_args={"port": ep.ssh_port, "global_cmd_verify": True}
    )
    dev.open()
    return dev


def test_napalm_h3c_comware_getters_see_the_fabric(comware_applied: LabRoot) -> None:
    dev = _napalm_comware(comware_applied, "leaf1")
    try:
        facts = dev.get_facts()
        assert facts["hostname"] == "leaf1" and facts["model"] == "S9825-64D"
        assert facts["serial_number"].startswith("LAB") and facts["uptime"] >= 0
        assert "FourHundredGigE1/0/1" in facts["interface_list"]
        interfaces = dev.get_interfaces()
        up = interfaces["FourHundredGigE1/0/1"]
        assert up["is_up"] and up["is_enabled"] and up["mtu"] == 9000
        assert not interfaces["FourHundredGigE1/0/15"]["is_enabled"]
        lldp = dev.get_lldp_neighbors()
        assert lldp["FourHundredGigE1/0/1"] == [{"hostname": "spine1", "port": "FourHundredGigE1/0/1"}]
        vlans = dev.get_vlans()  # tenant segments are VSIs: VLAN 1 holds the bridged ports
        assert list(vlans) == [1] and vlans[1]["interfaces"], vlans
        assert set(vlans[1]["interfaces"]) <= {p for p in interfaces if p.startswith("FourHundredGigE")}
    finally:
        dev.close()


def test_ntc_templates_parse_comware_state(comware_applied: LabRoot) -> None:
    comware_applied.lab.set_faults("leaf1", bgp_down=["10.64.8.0"])
    conn = connect(comware_applied.lab, "leaf1")
    try:
        brief = send_rows(conn, "display interface brief")
        lldp = send_rows(conn, "display lldp neighbor-information list")
        bgp = send_rows(conn, "display bgp peer ipv4")
        vrfs = send_rows(conn, "display ip vpn-instance")
        vlans = send_rows(conn, "display vlan all")
        pfc = send_text(conn, "display priority-flow-control interface FourHundredGigE 1/0/1")
    finally:
        conn.disconnect()
    # (the template reads only ASN:nn route distinguishers; these are IP:nn, so `rd` stays empty)
    assert isinstance(vrfs, list) and vrfs and all(r["name"].startswith("tnt-") for r in vrfs), vrfs
    assert isinstance(vlans, list) and [r["vlan_id"] for r in vlans] == ["1"], vlans
    # Tables name ports as an S9825 prints them: abbreviated.
    assert pfc.splitlines()[2].split()[:5] == ["400GE1/0/1", "Enabled", "Enabled", "3", "3"], pfc
    ports = {r["interface"]: r for r in brief}
    assert ports["400GE1/0/1"]["link"] == "UP" and ports["400GE1/0/15"]["link"] == "ADM"
    assert {r["local_interface"] for r in lldp} >= {"400GE1/0/1", "400GE1/0/2"}
    states = {r["peer"]: r["state"] for r in bgp}
    assert states["10.64.8.0"] == "Idle" and states["10.64.8.2"] == "Established", states


# --- fabricctl check -------------------------------------------------------------------------------


def _check(lab: LabRoot, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    import json

    code, out, _ = lab.run("check", "--lab", "--format", "json", *args, capsys=capsys)
    return code, json.loads(out)


def _failed(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in report["checks"] if not c["ok"]]


@pytest.mark.parametrize("platform", ["eos", "comware"])
def test_check_names_each_fault(
    platform: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from .conftest import _lab_root

    for lab in _lab_root(EOS_SMALL, tmp_path, monkeypatch, platform):
        code, before = _check(lab, capsys)
        # Factory switches: cabled and up, but no BGP, no PFC and no tenant VRF yet.
        # No BGP, so no route to any other VTEP: the ecmp check fails too.
        factory = {"bgp-underlay", "bgp-evpn", "ecmp", "pfc"} | ({"vrf"} if platform == "comware" else set())
        assert code == 1 and {c["name"] for c in _failed(before)} == factory

        assert lab.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
        code, healthy = _check(lab, capsys)
        assert code == 0 and healthy["ok"], _failed(healthy)
        names = {c["name"] for c in healthy["checks"]}
        # VNIs and VTEPs are read from EOS's JSON; VRFs from Comware's `display ip vpn-instance`.
        vxlan = {"vni", "vtep"} if platform == "eos" else {"vrf"}
        # `boot`: the setting each NOS applies at boot (EOS routing model, Comware max-ecmp-num).
        expected = {"link", "lldp", "bgp-underlay", "bgp-evpn", "ecmp", "gpu-port", "pfc", "boot"}
        assert names == expected | vxlan

        # BGP installs one path where the leaf has more uplinks: the ecmp check names the width.
        want = next(c["expected"] for c in healthy["checks"] if (c["name"], c["switch"]) == ("ecmp", "leaf1"))
        running = lab.running("leaf1").splitlines()
        asn = next(ln.split()[-1] for ln in running if ln.startswith(("router bgp", "bgp ")))
        width = next(ln.strip() for ln in running if ln.strip().startswith(("maximum-paths", "balance ")))
        view = [f"router bgp {asn}"] if platform == "eos" else [f"bgp {asn}", "address-family ipv4 unicast"]
        lab.lab.device("leaf1").configure(
            [*view, "maximum-paths 1 ecmp 1" if platform == "eos" else "balance 1"]
        )
        code, capped = _check(lab, capsys, "--limit", "leaf1")
        failed = _failed(capped)
        assert code == 1 and [(c["name"], c["expected"]) for c in failed] == [("ecmp", want)], failed
        assert failed[0]["seen"].startswith("1 path(s) to leaf"), failed[0]
        lab.lab.device("leaf1").configure([*view, width])

        p = "Ethernet" if platform == "eos" else "FourHundredGigE1/0/"
        lab.lab.swap_cables(("leaf1", f"{p}1"), ("leaf1", f"{p}2"))
        code, swapped = _check(lab, capsys, "--limit", "leaf1")
        lldp = [c for c in _failed(swapped) if c["name"] == "lldp"]
        assert code == 1 and len(lldp) == 2, _failed(swapped)
        assert f"the plan puts it at leaf1 {p}2" in {c["subject"]: c["hint"] for c in lldp}[f"{p}1"]
        lab.lab.swap_cables(("leaf1", f"{p}1"), ("leaf1", f"{p}2"))

        lab.lab.set_faults("spine2", links_down=[f"{p}1"])
        code, down = _check(lab, capsys, "--limit", "leaf1")
        down_failed = {(c["name"], c["subject"]) for c in _failed(down)}
        assert ("link", f"{p}5") in down_failed and ("lldp", f"{p}5") in down_failed, (
            down_failed
        )  # leaf1's port to spine2
        assert any(name == "bgp-underlay" for name, _ in down_failed)

        lab.lab.clear_faults()
        if platform == "eos":  # leaf3's EVPN sessions held down: leaf1 learns no routes from its VTEP
            lab.lab.set_faults("leaf3", bgp_down=["10.64.0.1", "10.64.0.2"])
            code, evpn = _check(lab, capsys, "--limit", "leaf1")
            vtep = [c for c in _failed(evpn) if c["name"] == "vtep"]
            assert code == 1 and [c["subject"] for c in vtep] == ["10.64.0.131"], _failed(evpn)
            lab.lab.clear_faults()
            # Sessions up, but leaf3 exports no route target: its routes are installed nowhere.
            drop, restore = _exports(lab.running("leaf3"))
            lab.lab.device("leaf3").configure(drop)
            code, rts = _check(lab, capsys, "--limit", "leaf1")
            rts_failed = [(c["name"], c["subject"]) for c in _failed(rts)]
            assert code == 1 and rts_failed == [("vtep", "10.64.0.131")], rts_failed
            lab.lab.device("leaf3").configure(restore)
        lab.lab.set_faults("leaf1", links_down=[f"{p}9"])  # a GPU NIC's link
        code, gpu = _check(lab, capsys, "--limit", "leaf1")
        assert code == 1 and [(c["name"], c["subject"]) for c in _failed(gpu)] == [("gpu-port", f"{p}9")]
        lab.lab.clear_faults()

        # A GPU NIC storms pauses into leaf1 for 10 s: the pfc check names the port and its tenant.
        lab.lab.set_faults("leaf1", pfc_storm=[f"{p}9"])
        lab.lab.advance(10)
        code, storm = _check(lab, capsys, "--limit", "leaf1")
        failed = _failed(storm)
        assert code == 1 and [(c["name"], c["subject"]) for c in failed] == [("pfc", f"{p}9")], failed
        assert "pause storm from the tenant" in failed[0]["hint"], failed[0]
        # spine1's port to leaf1 receives a storm: leaf1 is the one sending the pauses.
        lab.lab.set_faults("leaf1", pfc_storm=[])
        lab.lab.set_faults("spine1", pfc_storm=[f"{p}1"])
        lab.lab.advance(10)
        code, fabric_storm = _check(lab, capsys, "--limit", "leaf1,spine1")
        storms = sorted((c["switch"], c["subject"], c["hint"]) for c in _failed(fabric_storm))
        assert code == 1 and [f[:2] for f in storms] == [("leaf1", f"{p}1"), ("spine1", f"{p}1")], storms
        assert "this switch keeps pausing the fabric link to spine1" in storms[0][2]
        assert "pause storm from the fabric link to leaf1" in storms[1][2]
        lab.lab.clear_faults()
        if platform == "comware":  # a tenant VRF deleted by hand on leaf1
            vrf = next(
                c["subject"] for c in healthy["checks"] if c["name"] == "vrf" and c["switch"] == "leaf1"
            )
            lab.lab.device("leaf1").configure([f"undo ip vpn-instance {vrf}"])
            code, gone = _check(lab, capsys, "--limit", "leaf1")
            assert code == 1 and ("vrf", vrf) in {(c["name"], c["subject"]) for c in _failed(gone)}


def test_a_cap_the_switch_applies_at_boot_is_pending_reboot_in_plan_apply_and_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Comware applies max-ecmp-num at its next boot: leaves booted with a cap of 4 keep it after
    an apply that removes it. The plan marks the line `pending reboot`, apply names the switches
    that need one, `check` reports them `pending reboot` (exit 2, nothing failed: 4 paths is what
    the cap in use allows), and after a reboot every uplink carries traffic and check exits 0."""
    from .conftest import _lab_root

    for lab in _lab_root(EOS_SMALL, tmp_path, monkeypatch, "comware"):
        leaves = ["leaf1", "leaf2", "leaf3", "leaf4"]
        for name in leaves:
            lab.lab.device(name).configure(["max-ecmp-num 4"])
            lab.lab.call(lab.lab.device(name).raw.save)
        lab.lab.reboot(leaves)
        code, out, _ = lab.run("plan", "--lab", capsys=capsys)
        assert code == 0
        assert (
            "? pending reboot: undo max-ecmp-num on 4 switch(es) (leaf1..leaf4) takes effect at their "
            "next reboot; until then they keep the value they booted with"
        ) in out, out[-1500:]
        code, out, _ = lab.run("apply", "--lab", "--auto-approve", capsys=capsys)
        assert code == 0
        assert "Reboot needed: 4 switch(es): leaf1..leaf4" in out, out
        assert "undo max-ecmp-num takes effect at the next boot of leaf1..leaf4" in out
        code, report = _check(lab, capsys)
        assert code == 2 and not _failed(report), _failed(report)
        assert report["state"] == "pending reboot" and report["pending_reboot"] == leaves
        waiting = {(c["name"], c["switch"]) for c in report["checks"] if c["pending"]}
        assert waiting == {(kind, n) for n in leaves for kind in ("ecmp", "boot")}, waiting
        ecmp = next(c for c in report["checks"] if c["name"] == "ecmp" and c["switch"] == "leaf1")
        assert ecmp["expected"] == "8 path(s) each (4 until the reboot)" and ecmp["seen"].startswith("4 path")
        boot = next(c for c in report["checks"] if c["name"] == "boot" and c["switch"] == "leaf1")
        assert (boot["subject"], boot["seen"]) == ("max-ecmp-num", "4 in use, 8 at the next reboot")
        code, out, _ = lab.run("check", "--lab", capsys=capsys)
        assert code == 2 and "WAIT ecmp" in out and "pending reboot: 4 switch(es) (leaf1..leaf4)" in out
        lab.lab.reboot(leaves)
        code, report = _check(lab, capsys)
        assert code == 0 and report["state"] == "healthy", _failed(report)


def _exports(running: str) -> tuple[list[str], list[str]]:
    """EOS lines that drop every EVPN route target a switch exports (a VLAN's `both` goes whole),
    and the lines that put them back."""
    drop, restore, in_bgp = [], [], False
    for line in running.splitlines():
        words = line.split()
        if line.startswith("router bgp "):
            in_bgp = True
            drop.append(line)
            restore.append(line)
        elif in_bgp and not line.startswith(" "):
            in_bgp = False
        elif in_bgp and words[0] in ("vlan", "vrf") and len(words) == 2:
            drop.append(line.strip())
            restore.append(line.strip())
        elif in_bgp and words[:2] in (["route-target", "export"], ["route-target", "both"]):
            drop.append("no " + line.strip())
            restore.append(line.strip())
    return drop, restore


# --- the apply health gate ---------------------------------------------------------------------------


@pytest.mark.parametrize("platform", ["eos", "comware"])
def test_a_change_that_breaks_bgp_is_undone_by_the_health_gate(
    platform: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from .conftest import _lab_root

    for lab in _lab_root(EOS_SMALL, tmp_path, monkeypatch, platform):
        assert lab.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
        before = lab.running("leaf1")
        fabric = lab.root / "inventory" / "fabric.yaml"
        fabric.write_text(fabric.read_text().replace("leaf_asn_base: 65210", "leaf_asn_base: 65310"))
        # leaf1 alone takes its new AS: the spines still expect the old one, so its sessions drop.
        code, out, _ = lab.run(
            "apply", "--lab", "--auto-approve", "--limit", "leaf1", "--json", capsys=capsys
        )
        leaf1 = json.loads(out)["switches"]["leaf1"]
        assert code == 1 and (leaf1["status"], leaf1["stage"]) == ("failed", "health"), leaf1
        assert "bgp-underlay" in leaf1["message"] and "passed before the change" in leaf1["message"]
        assert lab.running("leaf1") == before  # undone: the old AS, every session back up
        fabric.write_text(fabric.read_text().replace("leaf_asn_base: 65310", "leaf_asn_base: 65210"))
        assert lab.run("check", "--lab", capsys=capsys)[0] == 0

        fabric.write_text(fabric.read_text().replace("leaf_asn_base: 65210", "leaf_asn_base: 65310"))
        code, out, _ = lab.run(
            "apply",
            "--lab",
            "--auto-approve",
            "--limit",
            "leaf1",
            "--no-health-gate",
            "--json",
            capsys=capsys,
        )
        assert code == 0 and json.loads(out)["switches"]["leaf1"]["status"] == "changed"
        fabric.write_text(fabric.read_text().replace("leaf_asn_base: 65310", "leaf_asn_base: 65210"))
        code, out, _ = lab.run("check", "--lab", "--limit", "leaf1", capsys=capsys)
        assert code == 1 and "bgp-underlay" in out


def test_lab_ssh_logs_in_with_the_lab_login(eos_lab: LabRoot) -> None:
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "fabricctl", "lab", "ssh", "leaf2", "--root", str(eos_lab.root)],
        input=b"show hostname\nexit\n",
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert b"Hostname: leaf2" in proc.stdout and b"leaf2#" in proc.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "fabricctl", "lab", "ssh", "leaf9", "--root", str(eos_lab.root)],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert bad.returncode == 1 and b"no lab switch named 'leaf9' (allowed: spine1" in bad.stderr
    assert b"Traceback" not in bad.stderr


def test_the_first_apply_on_a_factory_fabric_names_the_switches_that_wait_for_a_reboot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Comware fabric set for 16 paths (max-ecmp-num 16, above the default 8): apply names every
    switch that needs a reboot, check reports exactly those `pending reboot` (exit 2), and after
    the reboot exits 0."""
    from .conftest import _lab_root

    for lab in _lab_root(EOS_SMALL, tmp_path, monkeypatch, "comware"):
        fabric = lab.root / "inventory" / "fabric.yaml"
        text = fabric.read_text(encoding="utf-8")
        assert "max_paths: 8" in text
        fabric.write_text(text.replace("max_paths: 8", "max_paths: 16"), encoding="utf-8")
        code, out, _ = lab.run("apply", "--lab", "--auto-approve", capsys=capsys)
        assert code == 0 and "Reboot needed: 6 switch(es): spine1, spine2, leaf1..leaf4" in out, out
        code, report = _check(lab, capsys)
        assert code == 2 and report["state"] == "pending reboot" and not _failed(report)
        assert sorted(report["pending_reboot"]) == sorted(lab.lab.devices)
        lab.lab.reboot()
        code, report = _check(lab, capsys)
        assert code == 0 and report["pending_reboot"] == []
