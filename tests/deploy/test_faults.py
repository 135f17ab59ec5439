"""Each lab fault leaves its switch exactly as before, the report says so, a rerun converges."""

from __future__ import annotations

import difflib
import json

import pytest
from netmiko import ConnectHandler

from fabricctl.lab import Faults
from fabricctl.lab.runtime import lab_credentials

from .conftest import PASSWORD, LabRoot

CASES = {
    "unreachable": (Faults(unreachable=True), "failed", "connect"),
    "auth": (Faults(auth_failure=True), "failed", "auth"),
    "slow": (Faults(config_latency=60), "failed", "load"),  # a config line waits past --timeout 3
    "disconnect": (Faults(disconnect_after=5), "failed", "load"),
    "rejected": (Faults(reject=r"^(ip access-list|acl advanced)"), "failed", "load"),
    "commit": (Faults(commit_failure=True), "failed", "commit"),
    "hang": (Faults(hang_on_commit=True), "failed", "commit"),
}
#: The cause each fault is named by (deploy/failures.py): a dropped session is a disconnect on both
#: platforms (Comware's paste reads a closed channel as silence, so it asks the channel).
CAUSES = {
    "unreachable": "refused",
    "auth": "auth",
    "slow": "timeout",
    "disconnect": "disconnected",
    "rejected": "rejected",
    "commit": "commit",
    "hang": "timeout",
}
#: The switch's own words that must reach the report (the lab speaks each platform's error forms).
OWN_WORDS = {
    ("rejected", "comware"): ("acl advanced name tnt-", "% Unrecognized command"),
    ("rejected", "eos"): ("ip access-list tnt-", "Invalid input"),
    ("commit", "comware"): ("Failed to commit",),
    ("commit", "eos"): ("Failed to commit",),
}
SHOW = {
    "comware": ("display current-configuration", "display saved-configuration"),
    "eos": ("show running-config", "show startup-config"),
}


def read_back(lab: LabRoot, name: str) -> tuple[str, str]:
    """Running and saved config as plain netmiko reads them (not through fabricctl or the lab API)."""
    ep = lab.lab.endpoints()[name]
    user, password = lab_credentials()
    device_type = "arista_eos" if ep.platform == "eos" else "hp_comware"
    conn = ConnectHandler(
        device_type=device_type, host=ep.host, port=ep.ssh_port, username=user, password=password
    )
    try:
        return tuple(str(conn.send_command(c, read_timeout=60)).strip() for c in SHOW[ep.platform])  # type: ignore[return-value]
    finally:
        conn.disconnect()


@pytest.mark.parametrize("small_lab", ["comware", "eos"], indirect=True)
@pytest.mark.parametrize("case", list(CASES))
def test_fault_leaves_switch_as_before(
    small_lab: LabRoot, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    lab = small_lab
    faults, status, stage = CASES[case]
    plan_file = lab.root / "plan.json"
    assert lab.run("plan", "--lab", "-o", str(plan_file), capsys=capsys)[0] == 0
    before = read_back(lab, "leaf2")
    lab.lab.set_faults("leaf2", faults)
    # Apart from the lab (LabRoot.run_apart): the 3 s client timeout must fire at the faulted step,
    # never earlier because the lab waited for this process's interpreter lock.
    code, out, err = lab.run_apart(
        "apply", str(plan_file), "--lab", "--json", "--max-failures", "5", "--timeout", "3"
    )
    report = json.loads(out)
    leaf2 = report["switches"]["leaf2"]
    assert (leaf2["status"], leaf2["stage"]) == (status, stage), leaf2
    platform = lab.lab.devices["leaf2"].platform
    cause = CAUSES[case]
    assert leaf2["cause"] == cause, leaf2
    assert leaf2["hint"] and "\n" not in leaf2["message"], leaf2
    for words in OWN_WORDS.get((case, platform), ()):
        assert words in leaf2["message"], leaf2
    assert f"leaf2 ({cause})" in err, err
    assert code == 1
    others = {n: s["status"] for n, s in report["switches"].items() if n != "leaf2"}
    assert set(others.values()) == {"changed"}
    lab.lab.clear_faults()
    lab.lab.advance(24 * 3600)  # every commit timer the fault left runs out: nothing may move
    after = read_back(lab, "leaf2")
    for kind, old, new in zip(("running", "saved"), before, after, strict=True):
        diff = "\n".join(difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=1))
        assert old == new, f"{kind} config changed:\n{diff}"
    assert lab.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
    assert lab.run("plan", "--lab", "--detailed-exitcode", capsys=capsys)[0] == 0
    assert PASSWORD not in lab.all_text()


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
