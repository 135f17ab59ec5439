"""`fabricctl rack accept`: a rack delivered to the lab from factory default is taken to accepted,
a miscabled rack and a rack with a flapping port are not (the record names the cable and the
port), and only an accepted rack's GPUs are placed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from fabricctl import pipeline
from fabricctl.deploy.acceptance import Acceptance, run_acceptance, write_record
from fabricctl.model.problems import ProblemLog
from fabricctl.model.rack import load_racks, read_acceptance
from tests.day0.helpers import BootedPod, booted_pod

pytestmark = pytest.mark.lab
SOAK = 600.0  # lab seconds: the clock moves only when the test says so


def accept(pod: BootedPod, rack: str, hook: str | None = None) -> Acceptance:
    compiled = pipeline.compile(pod.root)
    rd = next(r for r in load_racks(pod.root, ProblemLog(pod.root)) if r.rack.name == rack)
    result = run_acceptance(compiled, rd, True, SOAK, hook, wait=lambda _start, s: pod.lab.advance(s))
    write_record(compiled, result)
    return result


def failed(result: Acceptance) -> list[tuple[str, str, str]]:
    return [(c.name, c.switch, c.subject) for c in result.failures if c.name != "optic"]


@pytest.fixture
def pod(tmp_path: Path):  # type: ignore[no-untyped-def]
    with booted_pod(tmp_path / "pod") as booted:
        yield booted


def test_an_accepted_rack_frees_its_gpus_and_only_those(
    pod: BootedPod, capsys: pytest.CaptureFixture[str]
) -> None:
    result = accept(pod, "r02")
    assert result.ok, failed(result)
    assert result.soak_seconds == SOAK
    kinds = {c.name for c in result.checks}
    assert {
        "identity",
        "link",
        "lldp",
        "port",
        "speed",
        "bgp-underlay",
        "bgp-evpn",
        "flap",
        "errors",
        "proof",
    } <= kinds
    identity = {(c.switch, c.subject): (c.expected, c.seen) for c in result.checks if c.name == "identity"}
    assert identity[("leaf5", "serial")] == ("JPE2210LF01", "JPE2210LF01")  # read from the switch
    assert identity[("leaf5", "model")] == ("7060X5-64", "DCS-7060X5-64")
    lldp = [c for c in result.checks if c.name == "lldp"]
    assert {c.switch for c in lldp} == {"spine1", "spine2", "leaf5", "leaf6", "leaf7", "leaf8"}  # both ends
    record = read_acceptance(pod.root, "r02")
    assert record is not None and record["result"] == "pass" and record["failures"] == []
    code, out, _ = pod.run("show", "free", capsys=capsys)
    assert code == 0 and "Free GPU ports: 32 of 64 (32 more in racks not accepted: r01)" in out
    code, out, err = pod.run("tenant", "new", "first", "--gpus", "8", capsys=capsys)
    assert code == 0, err
    placed = (pod.root / "tenants" / "first.yaml").read_text(encoding="utf-8")
    assert "servers: [node09-node10]" in placed  # on the accepted rack's servers


def test_a_miscabled_rack_is_refused_naming_the_swapped_cables(
    pod: BootedPod, capsys: pytest.CaptureFixture[str]
) -> None:
    pod.lab.swap_cables(("leaf7", "Ethernet1"), ("leaf7", "Ethernet5"))  # spine1's cable in spine2's port
    result = accept(pod, "r02")
    assert not result.ok
    lldp = {(c.switch, c.subject): c.hint for c in result.failures if c.name == "lldp"}
    assert (
        "cable swapped: spine2 Ethernet25 is cabled here; the plan puts it at leaf7 Ethernet5"
        in lldp[("leaf7", "Ethernet1")]
    )
    assert ("spine1", "Ethernet25") in lldp and ("spine2", "Ethernet25") in lldp  # the far ends see it too
    record = read_acceptance(pod.root, "r02")
    assert record is not None and record["result"] == "fail"
    assert any("leaf7 Ethernet1" in f and "cable swapped" in f for f in record["failures"])
    code, _, err = pod.run("tenant", "new", "early", "--gpus", "4", capsys=capsys)
    assert code == 1 and "no GPU is free" in err


def test_a_flapping_port_fails_the_soak(pod: BootedPod) -> None:
    pod.lab.set_faults("leaf8", flapping=["Ethernet3"])
    result = accept(pod, "r02")
    assert failed(result) == [("flap", "leaf8", "Ethernet3")]
    assert "went down and up again" in result.failures[0].hint


def test_a_quiet_soak_is_needed_and_a_changed_rack_must_be_accepted_again(
    pod: BootedPod, capsys: pytest.CaptureFixture[str]
) -> None:
    assert accept(pod, "r02").ok
    rack = pod.root / "racks" / "r02.yaml"
    rack.write_text(rack.read_text(encoding="utf-8").replace("JPE2211LF02", "JPE2299LF02"), encoding="utf-8")
    code, out, _ = pod.run("show", "free", capsys=capsys)
    assert "Free GPU ports: 0 of 64" in out  # a swapped chassis: the record is for another rack
    code, _, err = pod.run("tenant", "new", "early", "--gpus", "4", capsys=capsys)
    assert code == 1 and "its acceptance was taken before the rack file changed" not in err
    assert "no GPU is free" in err


def test_hook_runs_per_server_pair_and_keeps_its_figures(pod: BootedPod, tmp_path: Path) -> None:
    script = tmp_path / "bw.py"
    script.write_text(
        "import sys\nprint(f'{sys.argv[1]}-{sys.argv[2]} 391.2 Gb/s')\nsys.exit(sys.argv[1] == 'node13')\n"
    )
    result = accept(pod, "r02", hook=f"{sys.executable} {script} {{a}} {{b}}")
    hooks = [(c.switch, c.subject, c.seen, c.ok) for c in result.checks if c.name == "hook"]
    assert hooks == [
        ("node09", "node10", "node09-node10 391.2 Gb/s", True),
        ("node11", "node12", "node11-node12 391.2 Gb/s", True),
        ("node13", "node14", "node13-node14 391.2 Gb/s", False),
        ("node15", "node16", "node15-node16 391.2 Gb/s", True),
    ]
    record = json.loads((pod.root / "racks" / "r02.acceptance.json").read_text(encoding="utf-8"))
    assert record["result"] == "fail" and any("node13" in f for f in record["failures"])


def test_accept_cli(pod: BootedPod, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = pod.run("rack", "accept", "r09", "--lab", capsys=capsys)
    assert code == 1 and "rack 'r09': no racks/r09.yaml (allowed: r01, r02)" in err
    code, _, err = pod.run("rack", "accept", "r02", "--lab", "--soak", "ten", capsys=capsys)
    assert code == 1 and "Invalid value for '--soak': 'ten' is not a duration" in err
    pod.lab.swap_cables(("leaf5", "Ethernet1"), ("leaf6", "Ethernet1"))
    code, out, _ = pod.run("rack", "accept", "r02", "--lab", "--soak", "0", capsys=capsys)
    assert code == 1 and "rack r02 NOT accepted" in out
    assert "FAIL lldp leaf5 Ethernet1: expected spine1 Ethernet17, saw spine1 Ethernet21" in out


def test_comware_rack_accepted_then_a_swapped_cable_named(tmp_path: Path) -> None:
    with booted_pod(tmp_path / "pod", "comware", how="json") as pod:
        result = accept(pod, "r02")
        assert result.ok, failed(result)
        assert {c.seen for c in result.checks if c.name == "speed"} == {"400G"}
        pod.lab.swap_cables(("leaf6", "FourHundredGigE1/0/1"), ("leaf6", "FourHundredGigE1/0/2"))
        result = accept(pod, "r02")
        lldp = {(c.switch, c.subject) for c in result.failures if c.name == "lldp"}
        assert ("leaf6", "FourHundredGigE1/0/1") in lldp and ("spine1", "FourHundredGigE1/0/21") in lldp
        assert read_acceptance(pod.root, "r02")["result"] == "fail"  # type: ignore[index]


def test_the_wrong_switch_in_a_slot_keeps_the_rack_out_of_service(
    pod: BootedPod, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each switch says who it is (`show version`): the serial the rack file names for its slot,
    or the rack is not accepted, the slot, the expected and the found serial named."""
    rack = pod.root / "racks" / "r02.yaml"
    delivered = rack.read_text(encoding="utf-8")
    rack.write_text(
        delivered.replace("JPE2210LF01", "JPE2290LF09"), encoding="utf-8"
    )  # not the unit in leaf5
    result = accept(pod, "r02")
    assert failed(result) == [("identity", "leaf5", "serial")]
    check = result.failures[0]
    assert (check.expected, check.seen) == ("JPE2290LF09", "JPE2210LF01")
    assert "slot leaf5 holds a switch racks/r02.yaml does not name" in check.hint
    record = read_acceptance(pod.root, "r02")
    assert record is not None and record["result"] == "fail"
    assert record["failures"][0].startswith("identity leaf5 serial: expected JPE2290LF09, saw JPE2210LF01")
    code, out, _ = pod.run("show", "free", capsys=capsys)
    assert code == 0 and "Free GPU ports: 0 of 64" in out  # nothing released
    swapped = (
        delivered.replace("JPE2210LF01", "SWAP")
        .replace("JPE2211LF02", "JPE2210LF01")
        .replace("SWAP", "JPE2211LF02")
    )
    rack.write_text(swapped, encoding="utf-8")  # leaf5's and leaf6's units in each other's slot
    result = accept(pod, "r02")
    hints = {c.switch: c.hint for c in result.failures if c.name == "identity"}
    assert set(hints) == {"leaf5", "leaf6"}
    assert (
        "slot leaf5 holds JPE2210LF01, which the rack files give leaf6 (racks/r02.yaml): are the two swapped?"
        in hints["leaf5"]
    )


def test_a_server_whose_serial_is_another_racks_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Refused when the racks are read, located, before any switch is contacted: nothing released."""
    from tests.conftest import run_cli
    from tests.day0.helpers import day0_pod

    root = day0_pod(tmp_path / "pod")
    rack = root / "racks" / "r02.yaml"
    rack.write_text(rack.read_text(encoding="utf-8").replace("SRV020000", "SRV010000"), encoding="utf-8")
    code, _, err = run_cli(["rack", "accept", "r02", "--lab", "--root", str(root)], capsys)
    assert code == 1 and "Traceback" not in err
    assert (
        "racks/r02.yaml:" in err and "servers[0].serial: SRV010000 is also in racks/r01.yaml (node01)" in err
    )
    assert read_acceptance(root, "r02") is None
