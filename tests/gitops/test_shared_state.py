"""The apply lock and the run records live on the fabric repository's git remote: a bare remote,
two clones of a repository `fabricctl init` made, one apply refused naming the holder, history
of one clone showing the other's apply, a race won by exactly one compare-and-swap push."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from fabricctl.cli import main
from fabricctl.deploy import gitstate, lock
from tests.conftest import run_cli

from .conftest import git, shared_remote

pytestmark = pytest.mark.lab


@pytest.fixture
def clones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[Path, Path]:
    from .conftest import GIT_ENV

    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv(gitstate.ENV, "origin")  # lab runs keep local state unless told
    monkeypatch.delenv("FABRICCTL_LAB_USERNAME", raising=False)
    monkeypatch.delenv("FABRICCTL_LAB_PASSWORD", raising=False)
    git(tmp_path, "init", "-q", "--bare", "-b", "main", "remote.git")
    first = tmp_path / "first"
    assert main(["init", str(first), "--install", "fabricctl==0.1.0"]) == 0
    git(first, "add", "-A")
    git(first, "commit", "-q", "-m", "fabric")
    git(first, "remote", "add", "origin", str(tmp_path / "remote.git"))
    git(first, "push", "-q", "origin", "main")
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), "second")
    capsys.readouterr()
    return first, tmp_path / "second"


def test_one_apply_refused_naming_the_holder(
    clones: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = clones
    remote = shared_remote(first, lab=True)
    assert remote is not None and remote.lock_ref == "refs/fabricctl/lock"
    with lock.fabric_lock(first, "first", remote=remote) as held:
        code, _out, err = run_cli(["apply", "--lab", "--auto-approve", "--root", str(second)], capsys)
        assert code == 1
        assert "another apply holds the fabric lock on remote origin (refs/fabricctl)" in err
        assert f"pid {held.pid}" in err and "plan first)" in err
        assert "Traceback" not in err
        assert not (second / ".fabricctl" / "runs").exists(), "refused before any record or push"
    assert gitstate.read_lock(remote) is None, "released on the remote"


def test_history_shows_the_other_clones_apply(
    clones: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = clones
    code, out, err = run_cli(["apply", "--lab", "--auto-approve", "--json", "--root", str(first)], capsys)
    assert code == 0, err
    run_id = json.loads(out)["run_id"]
    code, out, err = run_cli(["history", "--json", "--root", str(second)], capsys)
    assert code == 0, err
    runs = json.loads(out)
    assert [r["run_id"] for r in runs] == [run_id]
    assert runs[0]["path"] == "remote" and len(runs[0]["changed"]) == 6
    assert not (second / ".fabricctl" / "runs").exists(), "read from the remote, nothing copied"
    # The records are commits on a ref of their own: one for the start, one for the end.
    log = git(first.parent / "remote.git", "log", "--format=%s", "refs/fabricctl/runs")
    assert log.splitlines() == [f"fabricctl run {run_id}: finished", f"fabricctl run {run_id}: in progress"]
    assert gitstate.read_lock(shared_remote(first, lab=True)) is None
    # The other clone's view of a tenant names that run as its last change.
    code, out, err = run_cli(["show", "tenant", "storage", "--root", str(second), "--format", "json"], capsys)
    assert code == 0, err
    view = json.loads(out)
    assert (view["vrf"], view["leaves"], len(view["ports"])) == ("tnt-storage", ["leaf1", "leaf2"], 2)
    assert view["last_run"]["run_id"] == run_id and view["last_run"]["switches"] == ["leaf1", "leaf2"]
    code, out, err = run_cli(["show", "tenant", "storage", "--lab", "--root", str(first)], capsys)
    assert code == 0, err
    assert "live: 2 of 2 GPU ports up" in out and f"last change: run {run_id}" in out


def test_a_race_is_won_by_exactly_one(clones: tuple[Path, Path]) -> None:
    first, second = clones
    remotes = [shared_remote(root, lab=True) for root in (first, second)]
    won: list[str] = []
    refused: list[str] = []
    start = threading.Barrier(2)

    def take(remote: gitstate.Remote, name: str) -> None:
        start.wait()
        try:
            lock.acquire_remote(remote, name)
            won.append(name)
        except lock.LockHeld as exc:
            refused.append(str(exc))

    threads = [threading.Thread(target=take, args=(r, f"plan-{i}")) for i, r in enumerate(remotes)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(won) == 1 and len(refused) == 1, (won, refused)
    assert f"plan {won[0]}" in refused[0]


def test_a_stale_remote_lock_is_taken_over_aloud(
    clones: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = clones
    remote = shared_remote(first, lab=True)
    old = lock.LockInfo("ci", "runner-7", 4242, time.time() - lock.TTL_SECONDS - 60, "old-plan")
    gitstate.create_lock(remote, lock._lock_text(old))
    taken: list[lock.LockInfo] = []
    with lock.fabric_lock(second, "new", on_takeover=taken.append, remote=shared_remote(second, lab=True)):
        found = lock.read_remote_lock(remote)
        assert found is not None and found[1].plan_hash == "new"
    assert taken == [old]


def test_unreachable_remote_refuses(clones: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    first, _ = clones
    git(first, "remote", "set-url", "origin", str(first.parent / "gone.git"))
    code, _out, err = run_cli(["apply", "--lab", "--auto-approve", "--root", str(first)], capsys)
    assert code == 1
    assert "cannot take the fabric lock: git ls-remote (remote origin (refs/fabricctl))" in err
    assert "nothing applied" in err and "Traceback" not in err
    code, _out, err = run_cli(["history", "--root", str(first)], capsys)
    assert code == 0 and "warning: git ls-remote" in err and "this checkout only" in err


def test_force_unlock_removes_the_remote_lock(
    clones: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = clones
    remote = shared_remote(first, lab=True)
    lock.acquire_remote(remote, "stuck")
    code, out, err = run_cli(["force-unlock", "--yes", "--root", str(second)], capsys)
    assert code == 0, err
    assert "lock on remote origin (refs/fabricctl) held by" in out and "plan stuck" in out
    assert gitstate.read_lock(remote) is None


def test_without_a_remote_the_state_is_local(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(gitstate.ENV, raising=False)
    git(tmp_path, "init", "-q", "-b", "main")
    assert gitstate.shared_remote(tmp_path) is None
    git(tmp_path, "remote", "add", "origin", str(tmp_path / "x.git"))
    assert gitstate.shared_remote(tmp_path, lab=True) is None, "a lab run stays local by default"
    assert gitstate.shared_remote(tmp_path) is not None
    (tmp_path / "pod a").mkdir()
    assert shared_remote(tmp_path / "pod a", lab=False).prefix == "refs/fabricctl/fabrics/pod_a"
    monkeypatch.setenv(gitstate.ENV, "none")
    assert gitstate.shared_remote(tmp_path) is None
