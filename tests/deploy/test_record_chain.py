"""Records that can be trusted: apply refuses uncommitted inputs unless --allow-dirty (which the
record says); the record names who ran it, who approved it, the tickets and the reason; each
finished record carries the digest of the one before it in its store, and `history --verify`
names the first removed, edited or moved record, here and on the remote's runs ref."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fabricctl.deploy.chain import LOCAL
from fabricctl.deploy.record import TIP, finish_record, record_path, runs_dir
from tests.conftest import run_cli

from .conftest import LabRoot


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def test_apply_refuses_uncommitted_inputs_and_records_who_approved_why_and_the_chain(
    eos_lab: LabRoot, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    lab, root = eos_lab, eos_lab.root
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fabric")
    monkeypatch.setenv("FABRICCTL_ACTOR", "merger")
    code, _, err = lab.run(
        "apply", "--lab", "--auto-approve", "--ticket", "NET-1", "--reason", "first tenants",
        "--approved-by", "alice,bob", capsys=capsys,
    )  # fmt: skip
    assert code == 0, err[-2000:]
    tenant = root / "tenants" / "storage.yaml"
    tenant.write_text(tenant.read_text() + "# not committed\n")
    before = {n: lab.running(n) for n in lab.lab.devices}
    code, out, err = lab.run("apply", "--lab", "--auto-approve", capsys=capsys)
    assert code == 1 and out == "" and "Traceback" not in err
    assert err.splitlines() == [
        "error: uncommitted changes under inventory/, tenants/ or templates/ (tenants/storage.yaml): "
        "nothing applied; commit them (the run record names the commit applied), or apply with "
        "--allow-dirty (the record then lists them)"
    ]
    assert {n: lab.running(n) for n in lab.lab.devices} == before
    monkeypatch.setenv("FABRICCTL_APPROVED_BY", "carol")
    code, _, err = lab.run("apply", "--lab", "--auto-approve", "--allow-dirty", capsys=capsys)
    assert code == 0, err[-2000:]
    first, second = (json.loads(p.read_text()) for p in sorted(runs_dir(root).glob("*.json")))
    assert (first["actor"], first["approved_by"], first["tickets"], first["reason"]) == (
        "merger",
        ["alice", "bob"],
        ["NET-1"],
        "first tenants",
    )
    assert (first["allow_dirty"], first["git"]["uncommitted"]) == (False, [])
    assert (second["allow_dirty"], second["git"]["uncommitted"]) == (True, ["tenants/storage.yaml"])
    assert second["approved_by"] == ["carol"]
    assert first["chain"] == {"store": LOCAL, "seq": 1, "previous": None, "previous_digest": None}
    assert second["chain"]["seq"] == 2 and second["chain"]["previous"] == first["run_id"]
    code, out, err = lab.run("history", "--verify", capsys=capsys)
    assert code == 0, err
    assert out == f"this checkout: 2 record(s) chained, every link intact, newest run {second['run_id']}\n"
    code, _, err = lab.run("apply", "--lab", "--auto-approve", "--approved-by", "x y", capsys=capsys)
    assert code == 1 and "--approved-by 'x y': not an account name" in err
    # An edited record is found, by the run that recorded its digest.
    path = record_path(root, first["run_id"])
    path.write_text(path.read_text().replace('"merger"', '"someone-else"'))
    code, out, err = lab.run("history", "--verify", capsys=capsys)
    assert code == 1 and out == ""
    assert err == (
        f"error: the run records were changed: this checkout: run {first['run_id']} (place 1) was edited "
        f"after run {second['run_id']} recorded its digest\n"
    )


def _record(n: int, **extra: Any) -> dict[str, Any]:
    return {"run_id": f"2026120{n}T000000.000000Z-{n}", "state": "finished", "user": "ops", **extra}


def _store(root: Path, count: int) -> list[str]:
    """`count` finished records appended to the local store, as apply appends them."""
    ids = []
    for n in range(1, count + 1):
        data = _record(n)

        def link(chain: dict[str, Any], data: dict[str, Any] = data) -> None:
            data["chain"] = chain

        finish_record(root, lambda data=data: data, {}, link)  # type: ignore[misc]
        ids.append(data["run_id"])
    return ids


def _verify(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code, _, err = run_cli(["history", "--verify", "--root", str(root)], capsys)
    assert "Traceback" not in err
    return code, err


def _move(root: Path, a: str, b: str) -> None:
    record_path(root, a).rename(record_path(root, b))


def _swap(root: Path, a: str, b: str) -> None:
    _move(root, a, "x")
    _move(root, b, a)
    _move(root, "x", b)


TAMPER: dict[str, tuple[Callable[[Path, list[str]], object], str]] = {
    "middle record removed": (
        lambda root, ids: record_path(root, ids[1]).unlink(),
        "place 2 of the chain is missing: run {2} follows run {0} (a record was removed)",
    ),
    "newest record removed": (
        lambda root, ids: record_path(root, ids[3]).unlink(),
        "the tip names run {3} at place 4, after the newest record left, run {2} (place 3): records were removed",
    ),
    "a record edited": (
        lambda root, ids: record_path(root, ids[0]).write_text(
            record_path(root, ids[0]).read_text().replace('"ops"', '"nobody"')
        ),
        "run {0} (place 1) was edited after run {1} recorded its digest",
    ),
    "the newest edited": (
        lambda root, ids: record_path(root, ids[3]).write_text(
            record_path(root, ids[3]).read_text().replace('"ops"', '"nobody"')
        ),
        "run {3}, the newest, was edited or the tip was changed",
    ),
    "two records swapped": (
        lambda root, ids: _swap(root, ids[1], ids[2]),
        "record {1} holds run {2} (moved or renamed)",
    ),
    "a record copied over another": (
        lambda root, ids: shutil.copy(record_path(root, ids[1]), record_path(root, ids[2])),
        "record {2} holds run {1} (moved or renamed)",
    ),
    "the chain field taken out": (
        lambda root, ids: record_path(root, ids[1]).write_text(
            json.dumps(
                {k: v for k, v in json.loads(record_path(root, ids[1]).read_text()).items() if k != "chain"}
            )
        ),
        "place 2 of the chain is missing: run {2} follows run {0} (a record was removed)",
    ),
    "the tip removed": (
        lambda root, ids: (root / TIP).unlink(),
        "the store's tip is missing or unreadable (the newest record is run {3})",
    ),
}


@pytest.mark.parametrize("case", list(TAMPER))
def test_history_verify_names_the_first_broken_link(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "fabric"
    (root / "inventory").mkdir(parents=True)
    ids = _store(root, 4)
    assert _verify(root, capsys) == (0, "")
    tamper, said = TAMPER[case]
    tamper(root, ids)
    code, err = _verify(root, capsys)
    assert code == 1
    assert err == f"error: the run records were changed: this checkout: {said.format(*ids)}\n", err


def test_the_chain_on_the_remote_runs_ref_is_verified_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Records shared on the remote are chained there (one chain for every runner), each local
    copy must be the remote's, and a record rewritten on the ref breaks the chain."""
    from fabricctl.deploy import gitstate
    from tests.gitops.conftest import GIT_ENV

    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    git(tmp_path, "init", "-q", "--bare", "-b", "main", "remote.git")
    root = tmp_path / "fabric"
    (root / "inventory").mkdir(parents=True)
    (root / "inventory" / "fabric.yaml").write_text("name: f\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fabric")
    git(root, "remote", "add", "origin", str(tmp_path / "remote.git"))
    remote = gitstate.shared_remote(root)
    assert remote is not None
    shared = {"shared": {"remote": "origin", "refs": remote.prefix}}
    ids = []
    for n in range(1, 4):
        data = _record(n, **shared)

        def link(chain: dict[str, Any], data: dict[str, Any] = data) -> None:
            data["chain"] = chain

        finish_record(root, lambda data=data: data, data, link)  # type: ignore[misc]
        ids.append(data["run_id"])
        assert data["chain"]["store"] == remote.runs_ref and data["chain"]["seq"] == n
    code, out, err = run_cli(["history", "--verify", "--root", str(root)], capsys)
    assert code == 0, err
    assert f"{remote.runs_ref}: 3 record(s) chained, every link intact, newest run {ids[2]}" in out
    # Someone with push rights rewrites the middle record on the ref.
    texts = gitstate.read_records(remote)
    tip = gitstate.remote_tip(remote, remote.runs_ref)
    edited = texts[ids[1]].replace('"ops"', '"nobody"')
    sha = gitstate._commit(remote, {f"runs/{ids[1]}.json": edited}, "rewrite", tip)
    gitstate._push(remote, remote.runs_ref, sha, tip)
    code, _, err = run_cli(["history", "--verify", "--root", str(root)], capsys)
    assert code == 1
    assert (
        f"{remote.runs_ref}: run {ids[1]} (place 2) was edited after run {ids[2]} recorded its digest" in err
    )
    assert f"run {ids[1]} differs between this checkout and remote origin" in err
