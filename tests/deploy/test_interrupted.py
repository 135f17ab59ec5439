"""Interrupted pushes are found and finished: kill -9 at each step of the push, SIGTERM mid-run.

The lab holds one switch's push at a chosen command (the `hold` fault); the apply process is
killed while it waits there. The next plan must not say "No changes" while anything is armed,
the next apply must settle it (confirm a complete change, restore an incomplete one), and after
every timer has run out nothing moves: the switch runs, and has saved, the intended config.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from fabricctl.lab.runtime import lab_credentials
from tests.conftest import wait_until

from .conftest import LabRoot

VICTIM = "leaf2"
#: platform -> step -> (command the push is held at, what the next apply does with the switch)
STEPS = {
    "comware": {
        "just armed": (r"^description run ", "rolled back"),
        "loading": (r"^rule 10 permit", "rolled back"),
        "before commit": (r"^configuration commit$", "changed"),
        "committed, not saved": (r"^save force$", "changed"),
        "saved, still marked": (r"^undo ip vpn-instance fabricctl-pending-", "changed"),
    },
    "eos": {
        "loading": (r"^ip access-list ", "changed"),  # abandoned session aborted, then the push
        "on its commit timer": (r"^configure session \S+ commit$", "changed"),
    },
}
CASES = [(platform, step) for platform, steps in STEPS.items() for step in steps]


@contextlib.contextmanager
def applying(lab: LabRoot, *extra: str) -> Iterator[subprocess.Popen[str]]:
    """`fabricctl apply` in its own process (so it can be killed), output to files (a full pipe
    blocks); killed on the way out if it still runs, so a failed test leaves no apply behind."""
    user, password = lab_credentials()
    env = {**os.environ, "FABRICCTL_LAB_USERNAME": user, "FABRICCTL_LAB_PASSWORD": password}
    argv = ["apply", "--lab", "--auto-approve", "--json", "--timeout", "60", "--root", str(lab.root), *extra]
    with (
        (lab.root.parent / "apply.out").open("w") as out,
        (lab.root.parent / "apply.err").open("w") as err,
        subprocess.Popen(
            [sys.executable, "-m", "fabricctl", *argv], stdout=out, stderr=err, text=True, env=env
        ) as proc,
    ):
        try:
            yield proc
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(60)


def outputs(lab: LabRoot) -> tuple[str, str]:
    return (lab.root.parent / "apply.out").read_text(), (lab.root.parent / "apply.err").read_text()


def settle(lab: LabRoot, capsys: pytest.CaptureFixture[str]) -> None:
    """Apply until the plan is empty, then run every timer out: nothing may move."""
    code, out, err = lab.run("apply", "--lab", "--auto-approve", capsys=capsys)
    assert code == 0, out[-3000:] + err[-1000:]
    code, out, err = lab.run("plan", "--lab", "--detailed-exitcode", capsys=capsys)
    assert code == 0, out[-3000:] + err[-1000:]
    lab.lab.advance(24 * 3600)
    assert lab.run("plan", "--lab", "--detailed-exitcode", capsys=capsys)[0] == 0
    for name in lab.lab.devices:
        assert lab.running(name) == lab.lab.device(name).startup_config(), f"{name} runs what it saved"


@pytest.mark.parametrize(
    ("small_lab", "step"), CASES, ids=[f"{p}-{s}" for p, s in CASES], indirect=["small_lab"]
)
def test_kill_9_at_each_step(small_lab: LabRoot, step: str, capsys: pytest.CaptureFixture[str]) -> None:
    lab = small_lab
    hold, settled = STEPS[lab.lab.devices[VICTIM].platform][step]
    lab.lab.set_faults(VICTIM, hold=hold)
    with applying(lab, "--parallelism", "6") as proc:
        wait_until(
            lambda: lab.lab.holding(VICTIM) is not None, f"{VICTIM}'s push to reach {hold}", timeout=120
        )
        proc.kill()
        proc.wait(60)
    lab.lab.clear_faults()  # the held command is never answered: the client died before it
    killed = _record(lab)  # opened when the push started, kept on disk as it went
    assert killed["state"] == "in progress" and killed["switches"][VICTIM]["status"] == "in flight", killed

    code, out, _ = lab.run("plan", "--lab", "--format", "json", "--detailed-exitcode", capsys=capsys)
    plan = json.loads(out)
    assert code == 2, "a plan never says 'No changes' while a push is unsettled"
    victim = plan["switches"][VICTIM]
    assert (victim["status"] == "pending") is (settled is not None), victim
    code, out, _ = lab.run("apply", "--lab", "--auto-approve", "--json", capsys=capsys)
    report = json.loads(out)
    if settled is not None:
        assert report["switches"][VICTIM]["status"] == settled, report["switches"][VICTIM]
    ended = _record(lab, killed["run_id"])  # the settling run wrote into the killed run's record
    assert ended["state"] == "ended" and report["run_id"] in ended["stopped_reason"], ended
    victim = ended["switches"][VICTIM]
    assert victim["status"] == "interrupted" and f"found it {settled}" in victim["message"], victim
    assert "in flight" not in {s["status"] for s in ended["switches"].values()}
    assert report["settled_runs"] == [killed["run_id"]]
    settle(lab, capsys)


def _record(lab: LabRoot, run_id: str | None = None) -> dict[str, Any]:
    """A run record (the newest without `run_id`)."""
    folder = lab.root / ".fabricctl" / "runs"
    path = folder / f"{run_id}.json" if run_id else sorted(folder.glob("*.json"))[-1]
    return dict(json.loads(path.read_text()))


def test_a_second_interrupt_restores_the_switch_in_flight(
    small_lab: LabRoot, capsys: pytest.CaptureFixture[str]
) -> None:
    """SIGINT twice: the switch in flight stops before its commit and is restored, none other
    starts, one summary, one record that lists every switch with what it ended as."""
    lab = small_lab
    platform = lab.lab.devices[VICTIM].platform
    before = lab.running(VICTIM)
    lab.lab.set_faults(VICTIM, hold=STEPS[platform]["loading"][0])
    with applying(lab, "--parallelism", "1") as proc:
        wait_until(lambda: lab.lab.holding(VICTIM) is not None, f"{VICTIM}'s push to be held", timeout=120)
        proc.send_signal(signal.SIGINT)
        wait_until(lambda: "SIGINT received" in outputs(lab)[1], "the first interrupt to be told")
        proc.send_signal(signal.SIGINT)
        wait_until(lambda: "second SIGINT" in outputs(lab)[1], "the second interrupt to be told")
        lab.lab.clear_faults()
        lab.lab.release(VICTIM)
        proc.wait(120)
    out, err = outputs(lab)
    assert proc.returncode == 130, err[-2000:]
    report = json.loads(out)
    victim = report["switches"][VICTIM]
    expected = "rolled back" if platform == "comware" else "skipped"  # EOS: staged in a session only
    assert (victim["status"], victim["cause"]) == (
        expected,
        "interrupted" if expected == "rolled back" else None,
    )
    assert lab.running(VICTIM) == before, "restored exactly"
    statuses = {n: s["status"] for n, s in report["switches"].items()}
    assert set(statuses) == set(lab.lab.devices), "every switch is in the record"
    assert set(statuses.values()) <= {"changed", "skipped", "rolled back"}, statuses
    assert report["state"] == "finished" and "interrupted twice" in report["stopped_reason"]
    assert err.count("Interrupted:") == 1 and "Stopped at once" not in err, err[-3000:]
    assert _record(lab)["switches"] == report["switches"]
    settle(lab, capsys)


def test_sigterm_finishes_the_switch_in_flight_and_starts_no_other(
    small_lab: LabRoot, capsys: pytest.CaptureFixture[str]
) -> None:
    lab = small_lab
    lab.lab.set_faults(VICTIM, hold=STEPS[lab.lab.devices[VICTIM].platform]["loading"][0])
    with applying(lab, "--parallelism", "1") as proc:  # one switch at a time: the others wait their turn
        wait_until(lambda: lab.lab.holding(VICTIM) is not None, f"{VICTIM}'s push to be held", timeout=120)
        proc.send_signal(signal.SIGTERM)
        lab.lab.clear_faults()
        lab.lab.release(VICTIM)  # the switch in flight goes on and finishes
        proc.wait(120)
    out, err = outputs(lab)
    assert proc.returncode == 130, err[-2000:]
    report = json.loads(out)
    statuses = {n: s["status"] for n, s in report["switches"].items()}
    assert statuses[VICTIM] == "changed"
    assert "skipped" in statuses.values() and "interrupted" in report["stopped_reason"]
    # said aloud on stderr, per switch: what changed, what never started, where the record is
    assert "SIGTERM received: finishing the 1 switch(es) in flight" in err, err[-2000:]
    told = err[err.index("Interrupted:") :]
    changed_line = next(ln for ln in told.splitlines() if "changed in this run:" in ln)
    assert VICTIM in changed_line, told
    skipped = sorted(n for n, s in statuses.items() if s == "skipped")
    skipped_line = next(ln for ln in told.splitlines() if "not started (skipped):" in ln)
    assert all(n in skipped_line for n in skipped) or ".." in skipped_line, told
    assert "record: " in told and ".fabricctl/runs/" in told
    assert not (lab.root / ".fabricctl" / "lock.json").exists(), "the lock is released"
    records = sorted((lab.root / ".fabricctl" / "runs").glob("*.json"))
    assert records and json.loads(records[-1].read_text())["switches"][VICTIM]["status"] == "changed"
    settle(lab, capsys)
