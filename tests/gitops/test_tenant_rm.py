"""`fabricctl tenant rm NAME`: the tenant's file removed the way its repository expects (`git
rm`, staged, when git tracks it), only when what remains still validates and git holds no
uncommitted change of it; the next plan shows the tenant removed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import EOS_SMALL, copy_fabric, run_cli

from .conftest import git, offline_plan, rendered_fetch, scratch_repo


def test_rm_stages_the_removal_and_the_plan_shows_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], git_identity: None
) -> None:
    root = scratch_repo(EOS_SMALL, tmp_path / "fabric")
    running = rendered_fetch(root)  # the switches run every tenant
    code, out, err = run_cli(["tenant", "rm", "intern-01", "--root", str(root), "--dry-run"], capsys)
    assert code == 0 and "would remove tenants/intern-01.yaml (git rm)" in out
    assert (root / "tenants" / "intern-01.yaml").is_file()
    code, out, err = run_cli(["tenant", "rm", "intern-01", "--root", str(root)], capsys)
    assert code == 0, err
    assert "removed tenants/intern-01.yaml (git rm: staged): 1 GPU port(s)" in out
    assert not (root / "tenants" / "intern-01.yaml").exists()
    assert git(root, "status", "--porcelain").strip() == "D  tenants/intern-01.yaml"
    plan, _ = offline_plan(root, running)
    assert [(t["name"], t["change"]) for t in plan.changes["tenants"]] == [("intern-01", "removed")]


def test_rm_refuses_what_would_break_the_inputs_or_lose_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], git_identity: None
) -> None:
    root = scratch_repo(EOS_SMALL, tmp_path / "fabric")
    code, _, err = run_cli(["tenant", "rm", "storage", "--root", str(root)], capsys)
    assert code == 1 and "would leave the inputs invalid" in err
    assert "tenants/team-llm.yaml:9: shared_with[0]: unknown tenant 'storage'" in err
    assert (root / "tenants" / "storage.yaml").is_file()
    team = root / "tenants" / "intern-01.yaml"
    team.write_text(team.read_text(encoding="utf-8").replace("Single GPU", "One GPU"), encoding="utf-8")
    code, _, err = run_cli(["tenant", "rm", "intern-01", "--root", str(root)], capsys)
    assert code == 1 and "changes git has not committed" in err and team.is_file()
    code, _, err = run_cli(["tenant", "rm", "nobody", "--root", str(root)], capsys)
    assert code == 1 and "no such tenant (allowed: intern-01, storage, team-hpc, team-llm)" in err
    code, _, _ = run_cli(["tenant", "rm", "intern-01", "--root", str(root), "--force"], capsys)
    assert code == 0 and not team.exists()


def test_rm_outside_git_deletes_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    code, out, _ = run_cli(["tenant", "rm", "intern-01", "--root", str(root)], capsys)
    assert code == 0 and "(deleted)" in out and not (root / "tenants" / "intern-01.yaml").exists()
