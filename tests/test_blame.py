"""A conflict between two tenants is blamed on the file that is new or modified relative to git
HEAD, and names the other file and line; without git (or with nothing changed) the higher id."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import EOS_SMALL, copy_fabric, run_cli

NEWCOMER = """\
name: alpha
id: 5
description: a newcomer with a lower id than the tenant it collides with
isolation: l3
address_block: 172.20.5.0/30
gpus:
  - server: node07
    nics: [2]
"""
HELD = "node07 nic2 (leaf3 Ethernet15) is already held by tenant"


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fabric")
    return root


def test_a_new_tenant_is_blamed_not_the_one_that_held_the_gpu(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "tenants" / "alpha.yaml").write_text(NEWCOMER)  # untracked: new
    code, out, err = run_cli(["validate", "--root", str(repo)], capsys)
    assert (code, out) == (1, "") and "Traceback" not in err
    assert f"tenants/alpha.yaml:6: gpus: {HELD} intern-01 (tenants/intern-01.yaml:8)" in err, err
    assert "tenants/intern-01.yaml:8: gpus:" not in err, "the tenant that held it is not blamed"

    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "alpha")  # both committed: nothing is new, the higher id is blamed
    code, _, err = run_cli(["validate", "--root", str(repo)], capsys)
    assert code == 1
    assert f"tenants/intern-01.yaml:8: gpus: {HELD} alpha (tenants/alpha.yaml:6)" in err, err


def test_a_modified_tenant_is_blamed(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """team-llm (id 11) is edited to take intern-01's (id 21) GPU: team-llm is blamed."""
    path = repo / "tenants" / "team-llm.yaml"
    text = path.read_text()
    assert "gpus:\n" in text
    path.write_text(text.replace("gpus:\n", "gpus:\n  - server: node07\n    nics: [2]\n", 1))
    code, _, err = run_cli(["validate", "--root", str(repo)], capsys)
    assert code == 1
    assert f": gpus: {HELD} intern-01 (tenants/intern-01.yaml:8)" in err, err
    assert err.count(HELD) == 1 and "tenants/team-llm.yaml:" in err.split(HELD)[0].splitlines()[-1]


def test_without_git_the_higher_id_is_blamed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    (root / "tenants" / "alpha.yaml").write_text(NEWCOMER)
    code, _, err = run_cli(["validate", "--root", str(root)], capsys)
    assert code == 1
    assert f"tenants/intern-01.yaml:8: gpus: {HELD} alpha (tenants/alpha.yaml:6)" in err, err
