"""A push slower than its confirm timer never ends in a false `changed`.

The lab holds leaf2's push at one step (the `hold` fault) while the test moves the lab clock: far
enough that too little of the timer is left for what comes next (fabricctl must stop and restore
the switch itself, and name a --confirm-timeout that fits), or past the timer (the switch rolls
itself back; fabricctl must say so, exit 1, and never save). Plain netmiko then reads running
and saved config: each is byte-identical to before, or the change is complete and saved.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tests.conftest import wait_until
from tests.lab.conftest import connect

from .conftest import LabRoot
from .test_faults import read_back
from .test_interrupted import applying, outputs

VICTIM = "leaf2"
TIMER = 120  # --confirm-timeout: two minutes on Comware, 120 s on EOS


def _comware_armed(lab: LabRoot) -> bool:
    return "ip vpn-instance fabricctl-pending" in lab.running(VICTIM)


def _eos_armed(lab: LabRoot) -> bool:
    return "pendingCommitTimer" in lab.lab.device(VICTIM).transactions().values()


def _pasted(lab: LabRoot) -> bool:
    """Comware: the whole change is in running (the paste is over)."""
    return _comware_armed(lab) and "tnt-" in lab.running(VICTIM)


#: (platform, step) -> (command held, held when, lab seconds the clock moves meanwhile,
#:  the switch's status, its cause)
CASES: dict[tuple[str, str], tuple[str, Callable[[LabRoot], bool], float, str, str | None]] = {
    ("comware", "paste, too little left"): (r"^rule 10 permit", _comware_armed, 100, "failed", "confirm-timer"),
    ("comware", "paste, timer fired"): (r"^rule 10 permit", _comware_armed, 130, "rolled back", "confirm-timer"),
    ("comware", "read-back, timer fired"): (r"^display current-configuration$", _pasted, 130, "rolled back", "confirm-timer"),
    ("comware", "gate, too little left"): (r"^display interface brief$", _pasted, 110, "failed", "confirm-timer"),
    ("comware", "commit, timer fired"): (r"^configuration commit$", _pasted, 130, "rolled back", "confirm-timer"),
    ("comware", "commit, in time"): (r"^configuration commit$", _pasted, 60, "changed", None),
    ("eos", "load, before the timer"): (r"^ip access-list ", lambda lab: True, 600, "changed", None),
    ("eos", "read-back, timer fired"): (r"^show running-config$", _eos_armed, 130, "rolled back", "confirm-timer"),
    ("eos", "gate, too little left"): (r"^show interfaces status$", _eos_armed, 110, "failed", "confirm-timer"),
    ("eos", "confirm, timer fired"): (r"^configure session \S+ commit$", _eos_armed, 130, "rolled back", "confirm-timer"),
}  # fmt: skip


def unsaved_operator_change(lab: LabRoot) -> None:
    """An operator's change, made by hand and not saved: a failed push must leave it so (running
    as it was, startup as it was), never write it to startup."""
    conn = connect(lab.lab, VICTIM)
    try:
        line = OPERATOR[lab.lab.devices[VICTIM].platform]
        conn.send_config_set([line], cmd_verify=False)
    finally:
        conn.disconnect()


OPERATOR = {"comware": "ntp-service unicast-server 192.0.2.99", "eos": "ntp server 192.0.2.99"}


def hold_at(lab: LabRoot, regex: str, when: Callable[[LabRoot], bool]) -> None:
    """Hold VICTIM at the first command matching `regex` sent once `when` holds (earlier matches,
    e.g. the read before the change, are let go)."""
    lab.lab.set_faults(VICTIM, hold=regex)
    while True:
        wait_until(lambda: lab.lab.holding(VICTIM) is not None, f"{VICTIM} to send {regex}", timeout=120)
        if when(lab):
            return
        lab.lab.release(VICTIM)
        wait_until(lambda: lab.lab.holding(VICTIM) is None, f"{VICTIM} to go on", timeout=120)


@pytest.mark.parametrize(
    ("small_lab", "step"),
    list(CASES),
    ids=[f"{p}-{s.replace(' ', '-').replace(',', '')}" for p, s in CASES],
    indirect=["small_lab"],
)
def test_a_push_slower_than_its_timer(
    small_lab: LabRoot, step: str, capsys: pytest.CaptureFixture[str]
) -> None:
    lab = small_lab
    platform = lab.lab.devices[VICTIM].platform
    regex, when, seconds, status, cause = CASES[(platform, step)]
    unsaved_operator_change(lab)
    before = read_back(lab, VICTIM)
    assert before[0] != before[1], "the operator's change runs, unsaved"
    with applying(lab, "--limit", VICTIM, "--confirm-timeout", str(TIMER)) as proc:
        hold_at(lab, regex, when)
        lab.lab.advance(seconds)
        lab.lab.clear_faults()
        lab.lab.release(VICTIM)
        proc.wait(120)
    out, err = outputs(lab)
    leaf = json.loads(out)["switches"][VICTIM]
    assert (leaf["status"], leaf["cause"]) == (status, cause), leaf
    after = read_back(lab, VICTIM)
    if status == "changed":
        assert proc.returncode == 0, err[-2000:]
        assert after[0] == after[1] != before[0], "the change is complete and saved"
        assert lab.run("plan", "--lab", "--limit", VICTIM, "--detailed-exitcode", capsys=capsys)[0] == 0
        return
    assert proc.returncode == 1, err[-2000:]
    assert f"1 switch(es) {status}: {VICTIM} (confirm-timer)" in err, err[-2000:]
    if status == "failed":  # stopped in time: the hint names a timer that would have fit
        fits = int(leaf["message"].split("--confirm-timeout ")[1].split()[0])
        assert fits > TIMER and fits % (60 if platform == "comware" else 1) == 0, leaf["message"]
    else:
        assert f"confirm timer expired after {TIMER} s" in leaf["message"], leaf
    assert after == before, "running and saved are byte-identical to before"
    lab.lab.advance(24 * 3600)  # nothing left armed may move it later
    assert read_back(lab, VICTIM) == before
    assert lab.run("plan", "--lab", "--limit", VICTIM, "--detailed-exitcode", capsys=capsys)[0] == 2
