"""Sharded applies of one reviewed plan: pods on their own runners, then the super-spines; the
shards share the lock on the remote, history shows them as one run, and a shard does not start
after an earlier wave failed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fabricctl.deploy import gitstate
from fabricctl.lab import LabFabric
from tests.conftest import run_cli
from tests.gitops.conftest import shared_remote

pytestmark = pytest.mark.lab


@pytest.fixture
def fabric(remote_lab: tuple[Path, LabFabric]) -> Path:
    return remote_lab[0]


def _apply(root: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    plan = str(root.parent / "plan.json")
    return run_cli(["apply", plan, "--lab", "--auto-approve", "--root", str(root), *argv], capsys)


def test_pods_then_superspines_make_one_run(fabric: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = fabric
    code, _, err = run_cli(
        ["plan", "--lab", "--root", str(root), "-o", str(root.parent / "plan.json")], capsys
    )
    assert code == 0, err
    code, out, err = run_cli(["shards", str(root.parent / "plan.json"), "--root", str(root)], capsys)
    assert code == 0, err
    assert json.loads(out) == {"pods": ["pod:1", "pod:2"], "superspine": True}
    group = ["--run-group", "gh-1-1", "--reason", "pod rollout"]
    code, out, err = _apply(root, capsys, "--shard", "pod:2", *group, "--json")
    assert code == 0, err
    pod2 = set(json.loads(out)["switches"])
    assert pod2 and all(n.startswith("p02-") for n in pod2)
    for shard in ("pod:1", "superspine"):
        code, out, err = _apply(root, capsys, "--shard", shard, *group)
        assert code == 0, err
    code, out, err = run_cli(["plan", "--lab", "--root", str(root), "--detailed-exitcode"], capsys)
    assert code == 0, "every switch of the plan was applied by one shard or another"
    code, out, err = run_cli(["history", "--json", "--root", str(root)], capsys)
    runs = json.loads(out)
    assert len(runs) == 1, runs
    run = runs[0]
    assert (run["run_id"], run["shards"]) == ("gh-1-1", ["pod:2", "pod:1", "superspine"])
    assert run["counts"]["changed"] == len(run["changed"]) >= len(pod2) + 4
    assert run["tickets"] == ["NET-77"] and run["reason"] == "pod rollout"
    assert gitstate.read_lock(shared_remote(root, lab=True)) is None, "the last shard out deleted it"
    code, out, _ = run_cli(["history", "--root", str(root)], capsys)
    assert "shards pod:2, pod:1, superspine of run gh-1-1; tickets NET-77; reason: pod rollout" in out


def test_a_shard_does_not_start_after_a_failed_wave(fabric: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = fabric
    code, _, err = run_cli(
        ["plan", "--lab", "--root", str(root), "-o", str(root.parent / "plan.json")], capsys
    )
    assert code == 0, err
    remote = shared_remote(root, lab=True)
    failed = {
        "run_id": "20260101T000000.000000Z-1",
        "state": "finished",
        "run_group": "gh-2-1",
        "shard": "pod:1",
        "switches": {"p01-leaf01": {"status": "failed"}, "p01-leaf02": {"status": "changed"}},
    }
    gitstate.push_record(remote, lambda: failed)
    code, _, err = _apply(root, capsys, "--shard", "superspine", "--run-group", "gh-2-1")
    assert code == 1
    assert (
        "--shard superspine: not started, an earlier wave of run gh-2-1 failed: "
        "shard pod:1 (run 20260101T000000.000000Z-1) did not apply p01-leaf01"
    ) in err
    assert "Traceback" not in err
    code, _, err = _apply(root, capsys, "--shard", "pod:1", "--run-group", "gh-2-1", "--json")
    assert code == 0, err  # the failed shard itself may run again
    code, _, err = _apply(root, capsys, "--shard", "superspine", "--run-group", "gh-3-1")
    assert code == 0, err  # another run of the same plan is not held back


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--shard", "pod:9"],
            "--shard pod:9: no such failure domain in this fabric (allowed: pod:1, pod:2, superspine, all)",
        ),
        (["--shard", "leaf"], "--shard leaf: no such failure domain"),
        (["--shard", "pod:1", "--run-group", "a b"], "--run-group 'a b': not a run id"),
    ],
)
def test_bad_shards(fabric: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, _, err = run_cli(
        ["plan", "--lab", "--root", str(fabric), "-o", str(fabric.parent / "plan.json")], capsys
    )
    assert code == 0, err
    code, _, err = _apply(fabric, capsys, *argv)
    assert code == 1 and message in err and "Traceback" not in err
    code, _, err = run_cli(["apply", "--lab", "--shard", "pod:1", "--root", str(fabric)], capsys)
    assert code == 1 and "give the PLAN file" in err
