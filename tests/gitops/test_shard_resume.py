"""A shard killed mid-push resumes without pushing again what landed, and two runners of one run
never push one switch: the shard's switches are leased in the run's lock on the remote."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fabricctl.deploy import gitstate
from fabricctl.lab import LabFabric
from fabricctl.lab.faults import Faults
from tests.conftest import run_cli
from tests.gitops.conftest import shared_remote

pytestmark = pytest.mark.lab

GATED = "p01-leaf02"  # its configuration waits on the lab clock, which stands still


@pytest.fixture
def fabric(remote_lab: tuple[Path, LabFabric]) -> tuple[Path, LabFabric]:
    return remote_lab


def _switches_of_runs(root: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for path in (root / ".fabricctl" / "runs").glob("*.json"):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            continue  # being written
        out.update({n: s.get("status", "") for n, s in data.get("switches", {}).items()})
    return out


def test_killed_shard_resumes_and_leases_hold(
    fabric: tuple[Path, LabFabric], capsys: pytest.CaptureFixture[str]
) -> None:
    root, lab = fabric
    plan = str(root.parent / "plan.json")
    code, _, err = run_cli(["plan", "--lab", "--root", str(root), "-o", plan], capsys)
    assert code == 0, err
    pod1 = sorted(n for n in lab.devices if n.startswith("p01-"))
    lab.set_faults(GATED, config_latency=1.0)  # blocks on the frozen lab clock: in flight for ever

    runner = subprocess.Popen(
        [sys.executable, "-m", "fabricctl", "apply", plan, "--lab", "--auto-approve", "--shard", "pod:1",
         "--run-group", "g1", "--parallelism", "4", "--root", str(root)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=dict(os.environ),
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 180
        landed: list[str] = []
        while time.monotonic() < deadline and runner.poll() is None:
            statuses = _switches_of_runs(root)
            landed = sorted(n for n in pod1 if statuses.get(n) == "changed")
            if len(landed) == len(pod1) - 1 and statuses.get(GATED) == "in flight":
                break
            time.sleep(0.1)
        assert runner.poll() is None and landed == [n for n in pod1 if n != GATED], runner.stdout

        # a second runner of the same run that would push pod 1's switches too is refused
        code, _, err = run_cli(
            [
                "apply",
                plan,
                "--lab",
                "--auto-approve",
                "--shard",
                "all",
                "--run-group",
                "g1",
                "--root",
                str(root),
            ],
            capsys,
        )
        assert code == 1 and f"switch {landed[0]} (and 3 more) is leased to shard pod:1 of run g1" in err, err
        assert "Traceback" not in err
        assert all(lab.devices[n].generation for n in landed)
    finally:
        runner.send_signal(signal.SIGKILL)  # the runner dies with its lease and its lock entry
        runner.wait(30)

    lab.set_faults(GATED, Faults())
    before = {n: lab.devices[n].generation for n in pod1}
    code, out, err = run_cli(
        ["apply", plan, "--lab", "--auto-approve", "--shard", "pod:1", "--run-group", "g1", "--json",
         "--root", str(root)],
        capsys,
    )  # fmt: skip
    assert code == 0, out + err
    assert "took over" in err  # the killed runner's lock entry and leases, aloud
    report = json.loads(out)["switches"]
    assert {n: report[n]["status"] for n in pod1} == {
        **{n: "unchanged" for n in landed},
        GATED: "changed",
    }
    assert all("not pushed again" in report[n]["message"] for n in landed)
    assert all(lab.devices[n].generation == before[n] for n in landed), "nothing pushed again"
    assert lab.devices[GATED].generation > before[GATED]

    # the rest of the run goes on: the killed try of pod 1 is superseded by its resumed one
    for shard in ("pod:2", "superspine"):
        code, out, err = run_cli(
            [
                "apply",
                plan,
                "--lab",
                "--auto-approve",
                "--shard",
                shard,
                "--run-group",
                "g1",
                "--root",
                str(root),
            ],
            capsys,
        )
        assert code == 0, out + err
    code, _, _ = run_cli(["plan", "--lab", "--root", str(root), "--detailed-exitcode"], capsys)
    assert code == 0, "the whole plan applied, each switch once"
    assert gitstate.read_lock(shared_remote(root, lab=True)) is None
