"""The plan file's published JSON Schema (`fabricctl schema plan`): a real plan passes
check-jsonschema (as a CI step would run it), a plan whose proofs are altered does not, and the
proofs survive a save and load."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fabricctl.deploy.plan import load_plan, save_plan
from tests.conftest import EOS_SMALL, copy_fabric, run_cli

from .conftest import offline_plan, rendered_fetch

CHECK = shutil.which("check-jsonschema") or str(Path(sys.executable).parent / "check-jsonschema")


def test_a_plan_matches_its_published_schema_and_an_altered_one_does_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    running = rendered_fetch(root)
    team = root / "tenants" / "team-llm.yaml"
    team.write_text(
        team.read_text(encoding="utf-8").replace("isolation: l3", "isolation: l2"), encoding="utf-8"
    )
    plan, _ = offline_plan(root, running)
    path = tmp_path / "plan.json"
    save_plan(plan, path)
    code, schema, _ = run_cli(["schema", "plan"], capsys)
    assert code == 0 and json.loads(schema)["title"] == "fabricctl plan file"
    (tmp_path / "plan.schema.json").write_text(schema, encoding="utf-8")

    def check(file: Path) -> subprocess.CompletedProcess[str]:
        argv = [CHECK, "--schemafile", str(tmp_path / "plan.schema.json"), str(file)]
        return subprocess.run(argv, capture_output=True, text=True, check=False)

    done = check(path)
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["proofs"]["ok"] and data["changes"]["readdressed"]  # l3 -> l2: every NIC listed
    data["proofs"]["isolation"]["pairs"] = "many"
    altered = tmp_path / "altered.json"
    altered.write_text(json.dumps(data), encoding="utf-8")
    done = check(altered)
    assert done.returncode != 0 and "pairs" in done.stdout + done.stderr
    assert load_plan(path).proofs == plan.proofs
