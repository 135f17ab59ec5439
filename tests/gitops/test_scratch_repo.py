"""The pipeline's own commands, run as CI runs them, against the lab in a scratch git repository.

.github/workflows/plan.yml and apply.yml run exactly these `fabricctl` command lines (plus
`--lab` here); a change to their flags must keep this test green. The lab runs in this process
(so it can count SSH logins per switch) and `fabricctl` runs as a child process, like in CI.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fabricctl.lab import LabClock, LabFabric
from fabricctl.lab import server as lab_server
from fabricctl.lab.runtime import lab_json, write_lab_json
from fabricctl.report.markdown import MARKER
from tests.conftest import EOS_SMALL, REFERENCE

from .conftest import git, git_env, scratch_repo, write_tenant
from .test_markdown import NEWCO

pytestmark = pytest.mark.lab


class Lab:
    """An in-process lab for a scratch repo, counting SSH connections per switch."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.root = root
        self.logins: Counter[str] = Counter()
        original = lab_server._SshServer.connection_made
        logins = self.logins

        def counted(self: Any, conn: Any) -> None:
            logins[self.dev.name] += 1
            original(self, conn)

        monkeypatch.setattr(lab_server._SshServer, "connection_made", counted)
        monkeypatch.delenv("FABRICCTL_LAB_USERNAME", raising=False)
        monkeypatch.delenv("FABRICCTL_LAB_PASSWORD", raising=False)

    def fabricctl(self, *argv: str) -> subprocess.CompletedProcess[str]:
        """`fabricctl ARGV --root ROOT` in a child process, as a CI step runs it."""
        return subprocess.run(
            [sys.executable, "-m", "fabricctl", *argv, "--root", str(self.root)],
            env=git_env(),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )


@pytest.fixture
def eos_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Lab]:
    root = scratch_repo(EOS_SMALL, tmp_path / "fabric")
    lab = Lab(root, monkeypatch)
    with LabFabric.from_inventory(root, clock=LabClock.frozen()) as fabric:
        write_lab_json(root, fabric)  # child processes find this in-process lab
        yield lab
        lab_json(root).unlink(missing_ok=True)


def test_pr_plan_then_merge_apply_in_a_scratch_repo(eos_repo: Lab, tmp_path: Path) -> None:
    lab, root = eos_repo, eos_repo.root
    first = lab.fabricctl("apply", "--lab", "--auto-approve", "--json")  # main is in production
    assert first.returncode == 0, first.stderr
    # A pull request: intern-01's GPU moves from NIC 2 (leaf3) to NIC 3 (leaf4).
    git(root, "checkout", "-q", "-b", "move-intern")
    tenant = root / "tenants" / "intern-01.yaml"
    tenant.write_text(tenant.read_text().replace("nics: [2]", "nics: [3]"), encoding="utf-8")
    git(root, "commit", "-q", "-am", "intern-01: NIC 3")
    # plan.yml's steps.
    assert lab.fabricctl("validate", "--changed-since", "main").returncode == 0
    assert lab.fabricctl("verify").returncode == 0
    lab.logins.clear()
    status_before = git(root, "status", "--porcelain")
    plan_json, plan_html = tmp_path / "plan.json", tmp_path / "plan.html"
    pr = lab.fabricctl(
        "plan", "--changed-since", "main", "--lab", "-o", str(plan_json), "-o", str(plan_html),
        "--format", "markdown", "--detailed-exitcode",
    )  # fmt: skip
    assert pr.returncode == 2, pr.stderr  # changes
    assert set(lab.logins) == {"leaf3", "leaf4"}  # only the switches the PR touches were read
    assert git(root, "status", "--porcelain") == status_before  # the work tree was never touched
    assert pr.stdout.startswith(MARKER) and "`intern-01` | changed (gpus)" in pr.stdout
    saved = json.loads(plan_json.read_text())
    assert saved["changed_since"] == "main" and saved["selected"] == ["leaf3", "leaf4"]
    assert saved["summary"]["changed"] == 2
    assert "<svg" in plan_html.read_text()
    # Merge, then apply.yml's step: exactly the reviewed plan.
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--no-ff", "-m", "Merge pull request #1", "move-intern")
    lab.logins.clear()
    applied = lab.fabricctl("apply", str(plan_json), "--lab", "--auto-approve", "--json")
    assert applied.returncode == 0, applied.stderr
    report = json.loads(applied.stdout)
    assert report["counts"] == {"changed": 2}
    assert set(lab.logins) == {"leaf3", "leaf4"}
    after = lab.fabricctl("plan", "--lab", "--detailed-exitcode")
    assert after.returncode == 0, after.stdout + after.stderr  # no changes anywhere
    # Re-applying the same plan is refused now that the switches moved on.
    again = lab.fabricctl("apply", str(plan_json), "--lab", "--auto-approve", "--json")
    assert again.returncode == 1 and "stale plan" in again.stderr


def test_bad_ref_is_a_clear_error(eos_repo: Lab) -> None:
    got = eos_repo.fabricctl("plan", "--changed-since", "no-such-branch", "--lab")
    assert got.returncode == 1
    assert "--changed-since no-such-branch: no such commit" in got.stderr
    assert not eos_repo.logins  # nothing contacted


def test_nothing_changed_contacts_nothing(eos_repo: Lab) -> None:
    got = eos_repo.fabricctl(
        "plan", "--changed-since", "main", "--lab", "--format", "json", "--detailed-exitcode"
    )
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout)["selected"] == []
    assert not eos_repo.logins


def test_one_tenant_pr_on_the_reference_fabric_reads_only_its_leaves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = scratch_repo(REFERENCE, tmp_path / "fabric")
    git(root, "checkout", "-q", "-b", "add-newco")
    write_tenant(root, NEWCO)
    git(root, "add", "tenants")
    git(root, "commit", "-q", "-m", "tenant newco")
    lab = Lab(root, monkeypatch)
    with LabFabric.from_inventory(root, clock=LabClock.frozen()) as fabric:
        write_lab_json(root, fabric)
        got = lab.fabricctl("plan", "--changed-since", "main", "--lab", "--format", "json")
        lab_json(root).unlink(missing_ok=True)
    assert got.returncode == 0, got.stderr
    leaves = [f"leaf{n}" for n in range(25, 33)]  # gpu100's rail group
    assert json.loads(got.stdout)["selected"] == leaves
    assert sorted(lab.logins) == leaves and set(lab.logins.values()) == {1}
