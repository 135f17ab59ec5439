"""The plan file: format version, inputs hash, per-switch running hash, refusals, no secrets."""

from __future__ import annotations

import copy
import json
import re
import uuid
from pathlib import Path

import pytest

from fabricctl import pipeline
from fabricctl.deploy.fetch import Fetched
from fabricctl.deploy.plan import (
    FORMAT_VERSION,
    Plan,
    PlanError,
    Prepared,
    differences,
    inputs_hash,
    load_plan,
    make_plan,
    prepare,
    read_plan,
    save_plan,
    stale_reasons,
)
from fabricctl.lab.factory import DeviceSpec, factory_text
from fabricctl.platforms.push import running_hash
from fabricctl.secrets import register_secret
from tests.conftest import EOS_SMALL, copy_fabric

SHA256 = re.compile(r"[0-9a-f]{64}")
PASSWORD = f"pw-{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="module")
def fabric(tmp_path_factory: pytest.TempPathFactory) -> tuple[Prepared, dict[str, Fetched]]:
    """eos-small compiled and prepared; factory running configs (one switch unreachable)."""
    root = copy_fabric(EOS_SMALL, tmp_path_factory.mktemp("fabric"))
    compiled = pipeline.compile(root)
    prepared = prepare(root, compiled, list(compiled.intents))
    register_secret(PASSWORD)
    fetched: dict[str, Fetched] = {}
    for i, name in enumerate(prepared.names):
        text = factory_text(DeviceSpec(name, "eos", mgmt_ip=f"192.0.2.{10 + i}"))
        # a secret in a line fabricctl does not own must never reach the plan
        text = text.replace("snmp-server community fabricctl-ro ro", f"snmp-server community {PASSWORD} ro")
        fetched[name] = Fetched(name, text)
    fetched[prepared.names[-1]] = Fetched(prepared.names[-1], None, "TimeoutError: no answer", "connect")
    return prepared, fetched


@pytest.fixture
def plan(fabric: tuple[Prepared, dict[str, Fetched]]) -> Plan:
    prepared, fetched = fabric
    return make_plan(prepared, fetched)


def _saved(plan: Plan, tmp_path: Path, edit: object = None) -> Path:
    path = tmp_path / "plan.json"
    save_plan(plan, path)
    if edit is not None:
        data = json.loads(path.read_text(encoding="utf-8"))
        edit(data)  # type: ignore[operator]
        path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_plan_file_fields(plan: Plan, fabric: tuple[Prepared, dict[str, Fetched]], tmp_path: Path) -> None:
    prepared, fetched = fabric
    data = json.loads(_saved(plan, tmp_path).read_text(encoding="utf-8"))
    assert data["format_version"] == FORMAT_VERSION == 1
    assert data["inputs_hash"] == prepared.inputs_hash and SHA256.fullmatch(data["inputs_hash"])
    down = prepared.names[-1]
    for name, sw in data["switches"].items():
        if name == down:
            assert (sw["status"], sw["running_hash"]) == ("unreachable", None)
            assert "TimeoutError" in sw["error"]
            continue
        assert sw["running_hash"] == running_hash(fetched[name].text or "")
        assert sw["status"] == "changed" and sw["commands"] and SHA256.fullmatch(sw["intended_hash"])
    assert data["summary"]["unreachable"] == 1


def test_roundtrip(plan: Plan, tmp_path: Path) -> None:
    loaded = load_plan(_saved(plan, tmp_path))
    assert loaded.to_dict() == plan.to_dict()
    assert loaded.digest() == plan.digest()


def test_no_secret_in_the_plan(plan: Plan, tmp_path: Path) -> None:
    text = _saved(plan, tmp_path).read_text(encoding="utf-8")
    assert PASSWORD not in text
    assert "snmp-server community" not in text  # not owned: not in any diff or command


@pytest.mark.parametrize("version", [0, 2, "1", None])
def test_other_format_versions_refused(plan: Plan, tmp_path: Path, version: object) -> None:
    def edit(data: dict) -> None:  # type: ignore[type-arg]
        if version is None:
            del data["format_version"]
        else:
            data["format_version"] = version

    with pytest.raises(PlanError) as err:
        load_plan(_saved(plan, tmp_path, edit))
    assert f"plan format version {version!r}" in str(err.value)
    assert f"this fabricctl reads {FORMAT_VERSION}" in str(err.value)


def test_broken_files_refused(plan: Plan, tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(PlanError, match="cannot read plan"):
        load_plan(path)
    with pytest.raises(PlanError, match="cannot read plan"):
        load_plan(tmp_path / "missing.json")
    with pytest.raises(PlanError, match="not a fabricctl plan"):
        load_plan(_saved(plan, tmp_path, lambda d: d.pop("switches")))
    for edit, field in (
        (lambda d: d["switches"]["leaf1"].update(added="12"), "switches.leaf1.added"),
        (lambda d: d["switches"]["leaf1"].pop("status"), "switches.leaf1.status"),
        (lambda d: d.update(limit="leaf1"), "limit"),
        (lambda d: d.update(fabric=["x"]), "fabric"),
    ):
        with pytest.raises(PlanError) as err:
            load_plan(_saved(plan, tmp_path, edit))
        message = str(err.value)  # the field, never an internal class or its repr
        assert f"not a fabricctl plan: {field}: " in message and "SwitchPlan" not in message, message
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(PlanError, match="cannot read plan"):
        load_plan(deep)


def test_fresh_plan_has_no_stale_reasons(plan: Plan, fabric: tuple[Prepared, dict[str, Fetched]]) -> None:
    prepared, fetched = fabric
    assert stale_reasons(plan, prepared, fetched) == []


def test_tampered_hashes_are_refused(
    plan: Plan, fabric: tuple[Prepared, dict[str, Fetched]], tmp_path: Path
) -> None:
    prepared, fetched = fabric
    name = prepared.names[0]

    def edit(data: dict) -> None:  # type: ignore[type-arg]
        data["inputs_hash"] = "0" * 64
        data["switches"][name]["running_hash"] = "0" * 64

    reasons = stale_reasons(load_plan(_saved(plan, tmp_path, edit)), prepared, fetched)
    assert any("inputs changed" in r for r in reasons)
    assert any(f"running config changed on {name}" in r for r in reasons)


def test_switch_changed_since_plan_is_named(plan: Plan, fabric: tuple[Prepared, dict[str, Fetched]]) -> None:
    prepared, fetched = fabric
    name = prepared.names[1]
    moved = dict(fetched)
    moved[name] = Fetched(name, (fetched[name].text or "") + "vlan 999\n")
    assert stale_reasons(plan, prepared, moved) == [
        f"switches.{name}.running_hash: running config changed on {name} since the plan"
    ]


def test_every_difference_from_the_derived_plan_is_named_by_its_path(
    plan: Plan, fabric: tuple[Prepared, dict[str, Fetched]], tmp_path: Path
) -> None:
    """The file is compared whole with the plan derived again: edited, removed and added fields,
    and a value of another type, each named by its JSON path."""
    prepared, fetched = fabric
    name = prepared.names[0]
    derived = make_plan(prepared, fetched).to_dict()
    assert differences(read_plan(_saved(plan, tmp_path)).data, derived) == []

    def check(edit: object, expected: str) -> None:
        found = differences(read_plan(_saved(plan, tmp_path, edit)).data, derived)
        assert len(found) == 1 and found[0].startswith(expected), found

    check(lambda d: d["switches"][name]["commands"].append("username backdoor secret 0 x"),
          f"switches.{name}.commands: the file lists")  # fmt: skip
    check(lambda d: d["switches"][name]["commands"].__setitem__(0, "no ip routing"),
          f"switches.{name}.commands[0]: the file says")  # fmt: skip
    check(
        lambda d: d["switches"][name].update(extra=1),
        f"switches.{name}.extra: not something fabricctl derives",
    )
    check(lambda d: d.pop("changes"), "changes: missing from the file")
    check(lambda d: d.update(prune=True), "prune: the file says true, fabricctl derives false")
    check(lambda d: d["selected"].pop(), "selected: the file lists")
    made_later = lambda d: d.update(created_at="1999-01-01T00:00:00+00:00")  # noqa: E731
    assert differences(read_plan(_saved(plan, tmp_path, made_later)).data, derived) == []
    check(lambda d: d.update(changed_since="main"), 'changed_since: the file says "main"')
    assert differences({"a.b": {"x y": [1, True]}}, {"a.b": {"x y": [1, 1]}}) == [
        '["a.b"]["x y"][1]: the file says true, fabricctl derives 1'
    ]


def test_inputs_hash_covers_input_files_and_rendered_configs(
    fabric: tuple[Prepared, dict[str, Fetched]], tmp_path: Path
) -> None:
    prepared, _ = fabric
    root = copy_fabric(EOS_SMALL, tmp_path / "copy")
    configs = copy.deepcopy(prepared.configs)
    base = inputs_hash(root, configs)
    assert base == prepared.inputs_hash  # same files, same renders: same hash, wherever the root is
    tenant = sorted((root / "tenants").glob("*.yaml"))[0]
    tenant.write_text(tenant.read_text(encoding="utf-8") + "\n# reviewed\n", encoding="utf-8")
    edited = inputs_hash(root, configs)
    assert edited != base
    (root / "templates").mkdir()
    (root / "templates" / "extra.j2").write_text("x\n", encoding="utf-8")
    assert inputs_hash(root, configs) not in (base, edited)
    configs[prepared.names[0]] += "! one more rendered line\n"
    assert inputs_hash(root, configs) != inputs_hash(root, prepared.configs)


def test_apply_refuses_a_limit_the_plan_was_not_made_with(
    plan: Plan, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`apply PLAN --limit X` pushes the plan as reviewed or nothing: a different --limit is one
    line and exit 1, before any switch is contacted."""
    from tests.conftest import run_cli

    root = copy_fabric(EOS_SMALL, tmp_path / "root")
    path = _saved(plan, tmp_path)
    code, out, err = run_cli(["apply", str(path), "--root", str(root), "--limit", "leaf1"], capsys)
    assert code == 1 and not out
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "--limit leaf1" in lines[0] and "was made with no --limit" in lines[0], err
