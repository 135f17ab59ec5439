"""`plan/apply --tenant NAME`: one tenant's change goes out while another tenant's change waits in
the working tree (neither pushed nor undone)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fabricctl.lab import LabClock, LabFabric
from fabricctl.lab.runtime import lab_json, write_lab_json
from tests.conftest import EOS_SMALL, run_cli

from .conftest import GIT_ENV, scratch_repo

pytestmark = pytest.mark.lab


@pytest.fixture
def applied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Iterator[Path]:
    """The eos-small fabric committed and applied to its lab."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("FABRICCTL_LAB_USERNAME", raising=False)
    monkeypatch.delenv("FABRICCTL_LAB_PASSWORD", raising=False)
    root = scratch_repo(EOS_SMALL, tmp_path / "fabric")
    lab = LabFabric.from_inventory(root, clock=LabClock.frozen())
    with lab:
        write_lab_json(root, lab)
        code, _, err = run_cli(["apply", "--lab", "--auto-approve", "--root", str(root)], capsys)
        assert code == 0, err
        yield root
        lab_json(root).unlink(missing_ok=True)


def _edit(root: Path, name: str, old: str, new: str) -> None:
    path = root / "tenants" / f"{name}.yaml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def _plan(
    root: Path, capsys: pytest.CaptureFixture[str], *argv: str
) -> tuple[int, dict[str, Any], str]:  # the plan JSON
    try:
        code, out, err = run_cli(["plan", "--lab", "--format", "json", "--root", str(root), *argv], capsys)
    except SystemExit as exc:  # --detailed-exitcode: 2 when there are changes
        captured = capsys.readouterr()
        code, out, err = int(exc.code or 0), captured.out, captured.err
    return code, json.loads(out) if out.strip() else {}, err


def test_one_tenants_change_while_another_waits(applied: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = applied
    _edit(root, "intern-01", "nics: [2]", "nics: [2, 3]")  # one more GPU, on leaf4
    _edit(root, "intern-01", "172.20.21.0/31", "172.20.21.0/30")
    _edit(root, "team-hpc", "servers: [node05, node06]", "servers: [node05]")  # waits for later
    code, whole, err = _plan(root, capsys)
    assert code == 0, err
    # team-hpc returns node06's GPUs: the switches' configs show it changes (its freed ports)
    assert {r["name"]: r["change"] for r in whole["changes"]["tenants"]} == {
        "intern-01": "changed",
        "team-hpc": "changed",
    }
    assert set(whole["changes"]["freed_ports"]) == {"leaf1", "leaf2", "leaf3", "leaf4"}, "node06's ports"

    plan_file = root.parent / "intern.json"
    code, scoped, err = _plan(root, capsys, "--tenant", "intern-01", "-o", str(plan_file))
    assert code == 0, err
    changed = {n for n, s in scoped["switches"].items() if s["status"] == "changed"}
    assert changed == {"leaf3", "leaf4"}, changed  # its port re-addressed, its new port; not leaf1-2
    assert {r["name"] for r in scoped["changes"]["tenants"]} == {"intern-01"}
    assert scoped["changes"]["scope"]["tenant"] == "intern-01"
    assert scoped["changes"]["freed_ports"] == [], "team-hpc's pending change is not in it"

    code, _, err = run_cli(
        [
            "apply",
            str(plan_file),
            "--lab",
            "--auto-approve",
            "--allow-dirty",
            "--reason",
            "intern GPU",
            "--root",
            str(root),
        ],
        capsys,
    )
    assert code == 0, err
    code, _, err = _plan(root, capsys, "--tenant", "intern-01", "--detailed-exitcode")
    assert code == 0, "intern-01's change is applied"
    code, rest, _ = _plan(root, capsys, "--detailed-exitcode")
    assert code == 2
    assert [r["name"] for r in rest["changes"]["tenants"]] == ["team-hpc"], "intern-01 is done"
    assert set(rest["changes"]["freed_ports"]) == {"leaf1", "leaf2", "leaf3", "leaf4"}, "team-hpc still waits"
    code, out, _ = run_cli(["history", "--root", str(root)], capsys)
    assert "reason: intern GPU; tenants intern-01" in out


def test_tenant_scope_errors(applied: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = applied
    code, _, err = _plan(root, capsys, "--tenant", "nobody")
    assert (
        code == 1
        and "--tenant nobody: no such tenant (allowed: intern-01, storage, team-hpc, team-llm)" in err
    )
    code, _, err = _plan(root, capsys, "--tenant", "storage", "--tenant-base", "no-such-ref")
    assert code == 1 and "--tenant-base no-such-ref:" in err and "Traceback" not in err
    code, _, err = _plan(root, capsys, "--tenant", "storage", "--changed-since", "HEAD")
    assert code == 1 and "give one of them" in err
    plan_file = root.parent / "all.json"
    assert _plan(root, capsys, "-o", str(plan_file))[0] == 0
    code, _, err = run_cli(
        ["apply", str(plan_file), "--lab", "--allow-dirty", "--tenant", "storage", "--root", str(root)],
        capsys,
    )
    assert code == 1 and "is not a plan of that tenant's change" in err
