"""Each lab fault leaves its switch exactly as before, the report says so, a rerun converges."""

from __future__ import annotations

import json

import pytest

from fabricctl.lab import Faults
from tests.conftest import wait_until

from .conftest import PASSWORD, LabRoot

CASES = {
    "unreachable": (Faults(unreachable=True), "failed", "connect"),
    "auth": (Faults(auth_failure=True), "failed", "auth"),
    "slow": (Faults(config_latency=60), "failed", "load"),  # a config line waits past --timeout 3
    "disconnect": (Faults(disconnect_after=5), "failed", "load"),
    "rejected": (Faults(reject=r"^ip access-list"), "failed", "load"),
    "commit": (Faults(commit_failure=True), "failed", "commit"),
    "hang": (Faults(hang_on_commit=True), "failed", "commit"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_fault_leaves_switch_as_before(
    eos_lab: LabRoot, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    faults, status, stage = CASES[case]
    plan_file = eos_lab.root / "plan.json"
    assert eos_lab.run("plan", "--lab", "-o", str(plan_file), capsys=capsys)[0] == 0
    before = eos_lab.running("leaf2")
    eos_lab.lab.set_faults("leaf2", faults)
    code, out, _ = eos_lab.run(
        "apply", str(plan_file), "--lab", "--json", "--max-failures", "5", "--timeout", "3", capsys=capsys
    )
    report = json.loads(out)
    leaf2 = report["switches"]["leaf2"]
    assert (leaf2["status"], leaf2["stage"]) == (status, stage), leaf2
    assert code == (1 if status == "failed" else 0)
    others = {n: s["status"] for n, s in report["switches"].items() if n != "leaf2"}
    assert set(others.values()) == {"changed"}
    eos_lab.lab.clear_faults()
    if status == "failed":
        assert eos_lab.running("leaf2") == before
        wait_until(
            lambda: set(eos_lab.lab.device("leaf2").sessions().values()) <= {"completed"},
            "leaf2's sessions to be committed or gone",
        )
    assert eos_lab.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
    assert eos_lab.run("plan", "--lab", "--detailed-exitcode", capsys=capsys)[0] == 0
    assert PASSWORD not in eos_lab.all_text()


def test_max_failures_stops_and_rollback_reverts(
    eos_lab: LabRoot, capsys: pytest.CaptureFixture[str]
) -> None:
    before = {n: eos_lab.running(n) for n in ("spine1", "spine2", "leaf1", "leaf4")}
    eos_lab.lab.set_faults("leaf1", reject=r"^ip access-list")
    code, out, _ = eos_lab.run(
        "apply",
        "--lab",
        "--auto-approve",
        "--json",
        "--canary",
        "2",
        "--batch-size",
        "2",
        "--rollback-on-failure",
        capsys=capsys,
    )
    assert code == 1
    report = json.loads(out)
    st = {n: s["status"] for n, s in report["switches"].items()}
    assert st["spine1"] == st["spine2"] == "rolled back"
    assert st["leaf1"] == "failed" and st["leaf3"] == st["leaf4"] == "skipped"
    assert "max-failures" in report["stopped_reason"]
    eos_lab.lab.clear_faults()
    for name, text in before.items():
        assert eos_lab.running(name) == text or name.startswith("spine")
    assert eos_lab.run("drift", "--lab", "--limit", "spine", capsys=capsys)[0] == 2  # spines back to factory
    assert eos_lab.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
