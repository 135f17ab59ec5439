"""A plan file is a claim: `apply PLAN` derives the plan again from the inputs and the running
configs it reads, compares the whole file with it, and pushes only the plan it derived.

On eos-small in the lab, after a first apply: a change that re-addresses a tenant, removes
another and moves held GPUs (two leaves swap places), planned with --allow-gpu-moves. Every kind
of edit of that plan file (each field removed, edited, of another type, a field added, a plan
for another fabric, an older plan replayed, a digest that is not the reviewed one) ends in a
refusal that names the field, exit 1, every switch byte-identical. Flags in a file never stand in
for flags on the command line.
"""

from __future__ import annotations

import contextlib
import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fabricctl.deploy.plan import PlanError, json_path, read_plan
from tests.test_expansion import git_repo, swap_leaves

from .conftest import LabRoot

CONSENT = ("--allow-disruptive", "--allow-gpu-moves")


@pytest.fixture
def changed(eos_lab: LabRoot, capsys: pytest.CaptureFixture[str]) -> Iterator[tuple[LabRoot, Path, Path]]:
    """(lab, the reviewed plan, an older plan of the same fabric that was applied already)."""
    lab = eos_lab
    older = lab.root / "older.json"
    assert lab.run("plan", "--lab", "-o", str(older), capsys=capsys)[0] == 0
    assert lab.run("apply", str(older), "--lab", "--auto-approve", capsys=capsys)[0] == 0
    git_repo(lab.root)
    swap_leaves(lab.root, "leaf1", "leaf2")  # held GPUs move
    llm = lab.root / "tenants" / "team-llm.yaml"
    llm.write_text(llm.read_text().replace("172.20.11.0/27", "172.20.11.32/27"))  # re-addressed
    (lab.root / "tenants" / "intern-01.yaml").unlink()  # removed
    _commit(lab.root)
    plan = lab.root / "plan.json"
    code, _, err = lab.run("plan", "--lab", "--allow-gpu-moves", "-o", str(plan), capsys=capsys)
    assert code == 0, err[-2000:]
    data = json.loads(plan.read_text())
    assert data["changes"]["gpu_moves"] and data["changes"]["disruptive"]
    yield lab, plan, older


def _commit(root: Path) -> None:
    import subprocess

    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), "commit", "-qm", "change"], check=True)


def _running(lab: LabRoot) -> dict[str, str]:
    return {n: lab.running(n) for n in lab.lab.devices}


def _edited(plan: Path, edit: Any) -> Path:
    data = json.loads(plan.read_text())
    edit(data)
    out = plan.with_name("edited.json")
    out.write_text(json.dumps(data, indent=1))
    return out


def _refused(lab: LabRoot, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], *named: str) -> str:
    before = _running(lab)
    code, _, err = lab.run("apply", *argv, "--lab", "--auto-approve", capsys=capsys)
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert code == 1 and len(errors) == 1, err[-3000:]
    assert "Traceback" not in err
    for word in named:
        assert word in errors[0], (word, errors[0])
    assert _running(lab) == before, "every switch byte-identical"
    return errors[0]


def test_edited_plans_are_refused_by_the_field_and_the_reviewed_one_applies(
    changed: tuple[LabRoot, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    lab, plan, older = changed
    data = json.loads(plan.read_text())
    llm = next(i for i, r in enumerate(data["changes"]["tenants"]) if r["name"] == "team-llm")
    leaf = next(n for n, s in data["switches"].items() if s["status"] == "changed")

    def reclass(d: dict[str, Any]) -> None:  # say `changed` where the switches say re-addressed
        for row in d["changes"]["tenants"]:
            row["classes"] = ["changed"] if row["classes"] else []
        d["changes"]["disruptive"] = []

    cases: list[tuple[Any, tuple[str, ...], tuple[str, ...]]] = [
        (reclass, ("--allow-gpu-moves",), (f"changes.tenants[{llm - 1 if llm else 0}]", "changes")),
        (lambda d: d.pop("changes"), ("--allow-gpu-moves",), ("changes: missing from the file",)),
        (lambda d: d["changes"].pop("gpu_moves"), CONSENT[:1], ("changes.gpu_moves: missing from the file",)),
        (lambda d: d["switches"][leaf]["commands"].append("username x privilege 15 secret 0 x"), CONSENT,
         (f"switches.{leaf}.commands",)),
        (lambda d: d.update(approved=True), CONSENT, ("approved: not something fabricctl derives",)),
        (lambda d: d["changes"].update(tenants={}), CONSENT, ("changes.tenants: the file says {}",)),
        (lambda d: d["switches"][leaf].update(added=str(d["switches"][leaf]["added"])), CONSENT,
         (f"switches.{leaf}.added",)),
        (lambda d: d.update(fabric="other-fabric"), CONSENT, ("a plan for fabric 'other-fabric'",)),
        (lambda d: d.update(prune=True), CONSENT, ("prune:", "--prune")),
        (lambda d: d.pop("created_at"), CONSENT, ("created_at: missing from the file",)),
    ]  # fmt: skip
    for edit, flags, named in cases:
        _refused(lab, capsys, (str(_edited(plan, edit)), *flags), *named)
    # Consent is given on the command line, never by the file.
    _refused(lab, capsys, (str(plan), "--allow-disruptive"), "changes.gpu_moves", "--allow-gpu-moves")
    _refused(lab, capsys, (str(plan), "--allow-gpu-moves"), "changes.tenants", "--allow-disruptive")
    # A plan applied already, replayed: what it rests on moved.
    _refused(lab, capsys, (str(older), *CONSENT), "stale plan", "inputs_hash")
    # The reviewed digest: another file (even one that differs only in when it was made) is refused.
    reviewed = read_plan(plan).digest
    later = _edited(plan, lambda d: d.update(created_at="2099-01-01T00:00:00+00:00"))
    _refused(lab, capsys, (str(later), *CONSENT, "--digest", reviewed), "its digest is", reviewed)
    # The plan as fabricctl made it applies, with the consent on the command line (the lab's
    # cables stay where they were, so the swapped leaves' links would fail the health gate).
    code, out, err = lab.run(
        "apply", str(plan), "--lab", "--auto-approve", "--json", "--digest", reviewed, *CONSENT,
        "--no-health-gate", capsys=capsys,
    )  # fmt: skip
    assert code == 0, err[-3000:]
    record = json.loads(out)
    assert record["plan_hash"] == reviewed and "team-llm" in record["disruptive"]
    assert lab.run("plan", "--lab", "--detailed-exitcode", capsys=capsys)[0] == 0


def _walk(value: Any, at: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    """Every field of a plan file, once per shape: each key of each object; of a list its first
    item; of `switches`, one switch of each status."""
    if at:
        yield at, value
    if isinstance(value, dict):
        keys = list(value)
        if at == ("switches",):
            keys = list({s["status"]: k for k, s in reversed(value.items())}.values())
        for key in keys:
            yield from _walk(value[key], (*at, key))
    elif isinstance(value, list) and value:
        yield from _walk(value[0], (*at, 0))


def _other_type(value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return {"0": value[0]} if value else {}
    if isinstance(value, dict):
        return list(value.values())
    return "null"


def _same_type(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, list):
        return [*value, copy.deepcopy(value[-1])] if value else ["x"]
    if isinstance(value, dict):
        return {**value, "x-added": 1}
    return 0


def _set(data: Any, at: tuple[str | int, ...], how: str) -> Any:
    data = copy.deepcopy(data)
    *up, last = at
    parent = data
    for part in up:
        parent = parent[part]
    if how == "removed":
        del parent[last]
    else:
        parent[last] = _other_type(parent[last]) if how == "type" else _same_type(parent[last])
    return data


def test_every_field_of_the_plan_file_removed_edited_or_of_another_type_is_named(
    changed: tuple[LabRoot, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each field of the file, removed, given another value or a value of another type: a
    refusal naming it (or, for a file that is not even a plan, the field that makes it so).
    The whole file in process, the switches read once and the unchanged inputs compiled once:
    otherwise the same steps as `apply PLAN`."""
    import functools

    from fabricctl.compile import build

    monkeypatch.setattr(build, "compile_fabric", functools.lru_cache(maxsize=None)(build.compile_fabric))
    from fabricctl.cli.common import select_switches
    from fabricctl.deploy.apply import ApplyOptions
    from fabricctl.deploy.apply_flow import ApplyRequest, ApplyUi, _reviewed
    from fabricctl.deploy.fetch import Fetched
    from fabricctl.deploy.service import PlanOptions, read_running, recheck
    from fabricctl.deploy.stages import quiet

    lab, plan, _ = changed
    data = json.loads(plan.read_text())
    fetched = {n: Fetched(n, t) for n, t in read_running(lab.root, True, set(data["switches"])).items()}
    ui = ApplyUi(select=select_switches, stages=quiet(), notify=print, show_plan=print, approve=print,
                 watch=print)  # type: ignore[arg-type]  # fmt: skip
    request = ApplyRequest(
        root=lab.root,
        options=ApplyOptions(allow_disruptive=True),
        plan=PlanOptions(allow_gpu_moves=True),
        lab=True,
        plan_file=plan.with_name("edited.json"),
    )

    def verdict(doc: Any) -> str:
        request.plan_file.write_text(json.dumps(doc))  # type: ignore[union-attr]
        try:
            with contextlib.ExitStack() as scopes:
                _, prepared, claim = _reviewed(request, request.plan_file, ui, scopes)  # type: ignore[arg-type]
                recheck(claim, prepared, fetched)
        except PlanError as exc:
            return str(exc)
        except Exception as exc:  # a located refusal of another stage (the scope's git, a shard)
            from fabricctl.errors import StageError

            assert isinstance(exc, StageError), f"{type(exc).__name__}: {exc}"
            return str(exc)
        return ""

    assert verdict(data) == "", "the file as fabricctl made it is what it derives"
    tried = 0
    for at, _value in _walk(data):
        for how in ("removed", "type", "edited"):
            if how == "removed" and isinstance(at[-1], int):
                continue  # an item removed from a list is an edit of the list (its length)
            if at == ("created_at",) and how == "edited":
                continue  # when it was made is not derivable: the digest covers it
            said = verdict(_set(data, at, how))
            tried += 1
            path = json_path(at)
            parents = [json_path(at[:i]) for i in range(len(at), 0, -1)]
            assert said, f"{how} {path}: accepted"
            assert any(p in said for p in parents) or "format version" in said, f"{how} {path}: {said}"
    assert tried > 120
