"""Plan, apply, re-plan over real SSH/eAPI against the lab (eos-small)."""

from __future__ import annotations

import json
import re

import pytest

from fabricctl.config.diff import owned_view, parse_config
from fabricctl.deploy.lock import acquire, lock_path
from fabricctl.platforms import get_platform

from .conftest import PASSWORD, LabRoot, report_of

EOS = get_platform("eos").dialect


def _not_owned(text: str) -> list[str]:
    """The running config minus fabricctl's owned top-level sections (factory lines etc.)."""
    tree = parse_config(text, EOS)
    owned = set(owned_view(tree, EOS).children)
    return [line for line in tree.children if line not in owned]


def test_first_plan_apply_replan(eos_lab: LabRoot, capsys: pytest.CaptureFixture[str]) -> None:
    factory = {n: _not_owned(eos_lab.running(n)) for n in ("leaf1", "spine1")}
    plan_file = eos_lab.root / "plan.json"
    code, out, _ = eos_lab.run(
        "plan", "--lab", "-o", str(plan_file), "--detailed-exitcode", "--diff", capsys=capsys
    )
    assert code == 2
    assert "+++ leaf1 intended" in out and "6 to change" in out
    data = json.loads(plan_file.read_text())
    assert data["format_version"] == 1 and len(data["inputs_hash"]) == 64
    assert all(len(s["running_hash"]) == 64 and s["commands"] for s in data["switches"].values())

    code, out, _ = eos_lab.run("apply", str(plan_file), "--lab", "--json", capsys=capsys)
    assert code == 0
    report = report_of(out)
    assert report["counts"] == {"changed": 6}
    assert "\x1b[" not in out
    assert list((eos_lab.root / ".fabricctl" / "runs").glob("*.json"))
    for name in ("leaf1", "spine2"):  # no session left open or pending (completed ones are history)
        assert set(eos_lab.lab.device(name).sessions().values()) <= {"completed"}
    assert eos_lab.lab.device("leaf1").startup_config() == eos_lab.running("leaf1")  # saved

    code, out, _ = eos_lab.run("plan", "--lab", "--detailed-exitcode", capsys=capsys)
    assert code == 0, out
    assert "No changes" in out
    for name, lines in factory.items():
        assert _not_owned(eos_lab.running(name)) == lines  # lines fabricctl does not own untouched
    for fmt in ("markdown", "json"):
        assert eos_lab.run("plan", "--lab", "--format", fmt, capsys=capsys)[0] == 0
    assert eos_lab.run("drift", "--lab", capsys=capsys)[0] == 0
    assert PASSWORD not in eos_lab.all_text()


def test_tenant_remove_and_add_touch_only_its_objects(
    eos_lab: LabRoot, capsys: pytest.CaptureFixture[str]
) -> None:
    assert eos_lab.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
    tenant = eos_lab.root / "tenants" / "intern-01.yaml"
    saved = tenant.read_text()
    tenant.unlink()
    _, out, _ = eos_lab.run("plan", "--lab", "--format", "json", capsys=capsys)
    plan = json.loads(out)
    touched = [n for n, s in plan["switches"].items() if s["status"] == "changed"]
    assert touched and all(n.startswith("leaf") for n in touched)
    for name in touched:
        diff = plan["switches"][name]["diff"]
        assert not [
            ln
            for ln in diff.splitlines()[2:]
            if ln.startswith("+") and not re.search(r"shutdown|description", ln)
        ]
        assert "intern" in diff.lower() or "21" in diff
    assert eos_lab.run("apply", "--lab", "--auto-approve", "--allow-disruptive", capsys=capsys)[0] == 0
    tenant.write_text(saved)
    _, out, _ = eos_lab.run("plan", "--lab", "--format", "json", capsys=capsys)
    plan = json.loads(out)
    assert sorted(n for n, s in plan["switches"].items() if s["status"] == "changed") == sorted(touched)
    for name in touched:
        body = plan["switches"][name]["diff"].splitlines()[2:]
        removed = [ln for ln in body if ln.startswith("-")]
        assert all(re.search(r"shutdown|description", ln) for ln in removed), removed
    assert eos_lab.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
    assert eos_lab.run("plan", "--lab", "--detailed-exitcode", capsys=capsys)[0] == 0


def test_drift_reports_changed_owned_config(eos_lab: LabRoot, capsys: pytest.CaptureFixture[str]) -> None:
    assert eos_lab.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
    # A line changed inside an object fabricctl made is drift; a VLAN only named like fabricctl's
    # objects is a look-alike (listed, not drift), the operator's own VLAN and NTP server are not
    # fabricctl's at all: never reported, never touched.
    eos_lab.lab.device("leaf2").configure(
        [
            "vlan 3999",
            "name tnt-rogue",
            "vlan 3998",
            "ntp server 192.0.2.77",
            "interface Ethernet1",
            "mtu 1500",
        ]
    )
    code, out, _ = eos_lab.run("drift", "--lab", "--json", capsys=capsys)
    assert code == 2
    data = json.loads(out)
    assert list(data["switches"]) == ["leaf2"] and "-   mtu 1500" in data["switches"]["leaf2"]
    assert data["lookalikes"] == {"leaf2": ["vlan 3999"]}
    assert "ntp" not in data["switches"]["leaf2"] and "3998" not in data["switches"]["leaf2"]


def test_stale_plan_is_refused(eos_lab: LabRoot, capsys: pytest.CaptureFixture[str]) -> None:
    plan_file = eos_lab.root / "plan.json"
    assert eos_lab.run("plan", "--lab", "-o", str(plan_file), capsys=capsys)[0] == 0
    before = eos_lab.running("leaf1")
    eos_lab.lab.device("leaf3").configure(["ntp server 192.0.2.99"])
    code, _, err = eos_lab.run("apply", str(plan_file), "--lab", capsys=capsys)
    assert code == 1 and "stale plan" in err and "leaf3" in err and "leaf1" not in err
    assert eos_lab.running("leaf1") == before  # nothing pushed anywhere
    assert eos_lab.run("plan", "--lab", "-o", str(plan_file), capsys=capsys)[0] == 0
    (eos_lab.root / "tenants" / "intern-01.yaml").unlink()
    code, _, err = eos_lab.run("apply", str(plan_file), "--lab", capsys=capsys)
    assert code == 1 and "inputs changed" in err


def test_a_plan_for_another_fabric_is_refused_by_name(
    eos_lab: LabRoot, capsys: pytest.CaptureFixture[str]
) -> None:
    """A plan file renamed, copied or mixed up in CI: refused before any switch is read, even
    when its switches and hashes would fit (the fabric's name is part of what was reviewed)."""
    plan_file = eos_lab.root / "plan.json"
    assert eos_lab.run("plan", "--lab", "-o", str(plan_file), capsys=capsys)[0] == 0
    data = json.loads(plan_file.read_text(encoding="utf-8"))
    data["fabric"] = "icc-roce-ref"
    plan_file.write_text(json.dumps(data), encoding="utf-8")
    before = {n: eos_lab.running(n) for n in ("leaf1", "spine1")}
    code, _, err = eos_lab.run("apply", str(plan_file), "--lab", "--auto-approve", capsys=capsys)
    assert code == 1 and "is a plan for fabric 'icc-roce-ref'" in err and "is 'eos-small'" in err
    assert "fetch" not in err and "recheck" not in err, "no switch was read"
    assert {n: eos_lab.running(n) for n in before} == before


def test_concurrent_apply_is_refused_by_the_lock(
    eos_lab: LabRoot, capsys: pytest.CaptureFixture[str]
) -> None:
    held = acquire(eos_lab.root, "f" * 64)  # this process: alive, so not stale
    code, _, err = eos_lab.run("apply", "--lab", "--auto-approve", capsys=capsys)
    assert code == 1 and "another apply holds the fabric lock" in err and f"pid {held.pid}" in err
    assert eos_lab.run("plan", "--lab", "--detailed-exitcode", capsys=capsys)[0] == 2  # nothing pushed
    assert eos_lab.run("force-unlock", "--yes", capsys=capsys)[0] == 0
    assert not lock_path(eos_lab.root).exists()
    assert eos_lab.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0


def test_no_tty_without_auto_approve_refuses(eos_lab: LabRoot, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = eos_lab.run("apply", "--lab", capsys=capsys)
    assert code == 1 and "--auto-approve" in err
    assert eos_lab.run("plan", "--lab", "--detailed-exitcode", capsys=capsys)[0] == 2
