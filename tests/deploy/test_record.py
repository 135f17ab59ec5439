"""Every apply is recorded (who, where, which commit, plan hash, per-switch outcome and timings),
`--report FILE` keeps a copy, `fabricctl history` lists the records, newest first."""

from __future__ import annotations

import getpass
import json
import socket
import subprocess
from pathlib import Path

import pytest

from fabricctl.deploy.plan import load_plan
from fabricctl.deploy.record import read_runs
from fabricctl.gitinfo import changed_files, repo_state

from .conftest import PASSWORD, LabRoot


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def records(root: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(p.read_text()) for p in sorted((root / ".fabricctl" / "runs").glob("*.json"))]


def test_every_apply_is_recorded_with_who_where_and_which_commit(
    eos_lab: LabRoot, capsys: pytest.CaptureFixture[str]
) -> None:
    root = eos_lab.root
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fabric")
    head = git(root, "rev-parse", "HEAD")
    assert repo_state(root).dirty is False
    plan_file = root / "plan.json"  # untracked: the tree is dirty from here on
    assert eos_lab.run("plan", "--lab", "-o", str(plan_file), capsys=capsys)[0] == 0
    eos_lab.lab.set_faults("leaf2", auth_failure=True)
    copy = root / "artifacts" / "run.json"
    code, out, err = eos_lab.run(
        "apply", str(plan_file), "--lab", "--report", str(copy), "--max-failures", "5", capsys=capsys
    )
    assert code == 1, err
    (first,) = records(root)
    assert json.loads(copy.read_text()) == first, "--report FILE is the same record"
    assert (first["user"], first["host"]) == (getpass.getuser(), socket.gethostname())
    assert first["git"]["commit"] == head and first["git"]["dirty"] is True
    assert first["plan_hash"] == load_plan(plan_file).digest(), "the record names the reviewed plan"
    assert first["command"].startswith("apply ") and "--report" in first["command"]
    assert first["switches"]["leaf2"]["status"] == "failed"
    assert first["switches"]["leaf2"]["cause"] == "auth"
    changed = [n for n, s in first["switches"].items() if s["status"] == "changed"]
    assert len(changed) == 5
    for name in changed:
        assert set(first["switches"][name]["timings"]) == {"read", "push"}, first["switches"][name]
    assert {"compile", "verify", "lab up", "recheck", "push"} <= set(first["stages"])
    assert first["verify"].startswith("isolation, lossless, ECMP width and capacity hold")
    assert "Record: " in out and ".fabricctl/runs/" in out, out

    eos_lab.lab.clear_faults()
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "plan")
    assert eos_lab.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
    assert eos_lab.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0  # nothing to do
    second, third = records(root)[1:]
    assert second["git"]["dirty"] is False, "the records under .fabricctl/ never make the tree dirty"
    assert second["switches"]["leaf2"]["status"] == "changed"
    assert third["stopped_reason"] == "nothing to change"
    assert set(s["status"] for s in third["switches"].values()) == {"unchanged"}

    code, out, _ = eos_lab.run("history", capsys=capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["STARTED", "(UTC)", "BY", "COMMIT", "RESULT"]
    user = f"{getpass.getuser()}@{socket.gethostname()}"[:23]
    newest, middle, oldest = [line for line in lines[1 : 4 + 3] if not line.startswith("    ")][:3]
    # Under each run that changed switches: the tenants its changes touched.
    assert lines[lines.index(oldest) + 1] == "    tenants intern-01, storage, team-hpc, team-llm"
    assert "nothing to do" in newest or "6 unchanged" in newest, newest
    assert "1 changed" in middle and git(root, "rev-parse", "HEAD")[:8] in middle, middle
    assert "5 changed, 1 failed (leaf2)" in oldest and f"{head[:8]}*" in oldest, oldest
    assert all(user in line for line in (newest, middle, oldest))
    assert all(len(line) <= 100 for line in lines)
    code, out, _ = eos_lab.run("history", "--json", "-n", "2", capsys=capsys)
    runs = json.loads(out)
    assert [r["run_id"] for r in runs] == [third["run_id"], second["run_id"]]
    assert runs[1]["changed"] == ["leaf2"] and runs[1]["commit"] == git(root, "rev-parse", "HEAD")
    assert PASSWORD not in eos_lab.all_text()


def test_history_reads_what_is_there(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.conftest import run_cli

    (tmp_path / "inventory").mkdir()  # a fabric repository: --root holds inventory/
    code, out, err = run_cli(["history", "--root", str(tmp_path)], capsys)
    assert (code, out) == (0, "") and "no runs recorded" in err
    runs = tmp_path / ".fabricctl" / "runs"
    runs.mkdir(parents=True)
    (runs / "20261201T000000.000000Z-1.json").write_text("{not json")
    (runs / "20261201T000001.000000Z-2.json").write_text(
        json.dumps({"run_id": "20261201T000001.000000Z-2", "started": "2026-12-01T00:00:01.000+00:00",
                    "user": "ops", "host": "jump1", "git": {"commit": None, "dirty": None},
                    "counts": {"changed": 2}, "switches": {"a": {"status": "changed"}},
                    "stopped_reason": "interrupted: switches in flight finished, no new one was started"})
    )  # fmt: skip
    newest, broken = read_runs(tmp_path)
    assert newest.user == "ops" and newest.changed == ["a"] and broken.problem == "JSONDecodeError"
    code, out, _ = run_cli(["history", "--root", str(tmp_path)], capsys)
    assert code == 0
    assert "ops@jump1" in out and "2 changed; interrupted" in out
    assert "unreadable record (JSONDecodeError)" in out
    code, out, err = run_cli(["history", "--root", str(tmp_path), "-n", "0"], capsys)
    assert code == 1 and "Traceback" not in err


HOSTILE_RECORDS = {
    "deep": "[" * 200_000 + "]" * 200_000,  # past the JSON reader's depth
    "deep-field": '{"run_id": ' + "[" * 900 + "]" * 900 + "}",  # readable, but no run id
    "a-list": "[1, 2, 3]",
    "a-number": "42",
    "user-a-mapping": '{"user": {"name": "ops"}}',
    "switches-a-list": '{"switches": ["leaf1"]}',
    "status-a-number": '{"switches": {"leaf1": {"status": 3}}}',
    "counts-text": '{"counts": {"changed": "2"}}',
    "git-commit-a-list": '{"git": {"commit": ["x"]}}',
    "not-utf8": b"\xff\xfe{}".decode("latin-1"),
}


def test_history_lists_a_record_of_any_shape_as_unreadable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.conftest import run_cli

    (tmp_path / "inventory").mkdir()
    runs = tmp_path / ".fabricctl" / "runs"
    runs.mkdir(parents=True)
    for i, (name, text) in enumerate(HOSTILE_RECORDS.items()):
        (runs / f"20261201T0000{i:02d}.000000Z-{name}.json").write_bytes(text.encode("latin-1"))
    listed = read_runs(tmp_path)
    assert len(listed) == len(HOSTILE_RECORDS) and all(r.problem for r in listed), listed
    code, out, err = run_cli(["history", "--root", str(tmp_path)], capsys)
    assert code == 0 and "Traceback" not in err
    assert out.count("unreadable record") == len(HOSTILE_RECORDS), out
    code, out, _ = run_cli(["history", "--root", str(tmp_path), "--json"], capsys)
    assert code == 0 and len(json.loads(out)) == len(HOSTILE_RECORDS)


def test_history_escapes_what_a_record_says(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """USER=$'\\e]0;x\\a' (or a record edited in a shared repository) cannot write to the terminal."""
    from tests.conftest import run_cli

    (tmp_path / "inventory").mkdir()
    runs = tmp_path / ".fabricctl" / "runs"
    runs.mkdir(parents=True)
    record = {
        "run_id": "20261201T000000.000000Z-1\x1b[2J",
        "started": "2026-12-01T00:00:00\x1b[31m",
        "user": "\x1b]0;x\x07",
        "host": "jump\u2028host",
        "git": {"commit": "abc\x1b[8m", "dirty": False},
        "counts": {"changed": 1, "\x1b[1mfailed": 1},
        "switches": {"leaf\x1b[5m1": {"status": "failed"}},
        "stopped_reason": "stopped\r\x9b2J",
    }
    (runs / "20261201T000000.000000Z-1.json").write_text(json.dumps(record), encoding="utf-8")
    code, out, _ = run_cli(["history", "--root", str(tmp_path)], capsys)
    assert code == 0
    assert not any(c in out for c in "\x1b\x07\r\x9b\u2028"), repr(out)
    assert "\\x1b]0;x\\x07@jump\\u2028" in out and "leaf\\x1b[5m1" in out, out


def test_git_state_without_a_repository(tmp_path: Path) -> None:
    state = repo_state(tmp_path)
    assert (state.commit, state.dirty, state.note) == (None, None, "not a git repository")
    assert changed_files(tmp_path, "tenants") is None
