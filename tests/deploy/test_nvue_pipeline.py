"""The NVUE example through every command, on the lab's NVUE twins: the same pipeline, proofs and
safety as on the other two NOSes (plan, apply under `nv config apply --confirm` with the health
gate, re-plan, check, drift, history, a hand change set back); and the mixed fabric, an NVUE pod
beside Comware pods under Comware super-spines, applied and healthy across vendors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from netmiko import ConnectHandler

from tests.conftest import NVUE_SMALL, REPO
from tests.lab.conftest import PASSWORD, USER

from .conftest import LabRoot, _lab_root

MIXED_PODS = REPO / "examples" / "mixed-pods"


@pytest.fixture
def mixed_lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LabRoot]:
    yield from _lab_root(MIXED_PODS, tmp_path, monkeypatch)


@pytest.fixture
def nvue_lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LabRoot]:
    yield from _lab_root(NVUE_SMALL, tmp_path, monkeypatch)


def test_nvue_small_through_every_command(nvue_lab: LabRoot, capsys: pytest.CaptureFixture[str]) -> None:
    lab = nvue_lab
    assert lab.run("validate", capsys=capsys)[0] == 0
    code, out, _ = lab.run("verify", capsys=capsys)
    assert code == 0, out
    code, out, _ = lab.run("plan", "--lab", "--detailed-exitcode", capsys=capsys)
    assert code == 2 and "6 to change" in out, out

    code, out, _ = lab.run("apply", "--lab", "--auto-approve", capsys=capsys)
    assert code == 0 and "6 changed" in out, out
    running = lab.running("leaf1")
    assert running.startswith("- header:") and "roce:" in running
    assert lab.run("plan", "--lab", "--detailed-exitcode", capsys=capsys)[0] == 0

    code, out, _ = lab.run("check", "--lab", "--format", "json", capsys=capsys)
    assert code == 0, out
    checks = json.loads(out)
    assert all(c["ok"] for c in checks["checks"]), [c for c in checks["checks"] if not c["ok"]][:3]
    assert lab.run("drift", "--lab", capsys=capsys)[0] == 0
    code, out, _ = lab.run("history", capsys=capsys)
    assert code == 0 and "6 changed" in out

    # Day 2: an operator changes an owned value by hand over SSH (applied, and saved: NVUE's
    # auto-save); drift sees it, apply sets it back.
    ep = lab.lab.endpoints()["leaf1"]
    with ConnectHandler(
        device_type="cumulus_linux", host=ep.host, port=ep.ssh_port, username=USER, password=PASSWORD
    ) as conn:
        assert conn.send_command("nv set interface swp1 link mtu 1500") == ""
        conn.send_command("nv config apply -y")
    code, out, _ = lab.run("drift", "--lab", capsys=capsys)
    assert code != 0 and "leaf1" in out, out
    code, out, _ = lab.run("apply", "--lab", "--auto-approve", capsys=capsys)
    assert code == 0 and "leaf1" in out, out
    code, out, _ = lab.run("plan", "--lab", "--detailed-exitcode", "--diff", capsys=capsys)
    assert code == 0, out


def test_the_mixed_fabric_is_applied_and_healthy_across_vendors(
    mixed_lab: LabRoot, capsys: pytest.CaptureFixture[str]
) -> None:
    """EVPN between an NVUE pod's spines and Comware super-spines runs between loopbacks (`lo`
    on one side, LoopBack0 on the other), ECMP spans the vendors' uplinks, GPU ports of both."""
    lab = mixed_lab
    code, out, _ = lab.run_apart("apply", "--lab", "--auto-approve")
    assert code == 0 and "16 changed" in out, out
    assert lab.run("plan", "--lab", "--detailed-exitcode", capsys=capsys)[0] == 0
    code, out, _ = lab.run("check", "--lab", "--format", "json", capsys=capsys)
    checks = json.loads(out)
    assert code == 0 and checks["ok"], [c for c in checks["checks"] if not c["ok"]][:3]
    names = {c["name"] for c in checks["checks"]}
    assert {"bgp-evpn", "ecmp", "gpu-port", "pfc"} <= names
    evpn = [c for c in checks["checks"] if c["name"] == "bgp-evpn" and c["switch"].startswith("p03-")]
    assert evpn and all(c["ok"] for c in evpn)  # the NVUE spines' sessions to the super-spines
