"""Model loading: YAML with line numbers, typed fabric and tenants, located problems."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from fabricctl.compile.allocate import _expand_servers
from fabricctl.model.fabric import LIMIT_NAMES, expand_ports
from fabricctl.model.load import load_fabric, load_tenants, show, validate_doc
from fabricctl.model.problems import InputError, Problem, ProblemLog
from fabricctl.model.tenant import Tenant
from fabricctl.model.yamlsource import load_yaml
from fabricctl.platforms import get_platform
from fabricctl.platforms.base import Limits
from fabricctl.platforms.eos.qos import EosQosTuning
from tests.conftest import EOS_SMALL, REFERENCE, copy_fabric

TENANT = """\
---
# a comment line
name: alpha
id: 30
description: Alpha team
isolation: l3
address_block: 172.20.30.0/28
gpus:
  - servers: [node01, node02-node03]
  - server: node07
    nics:
      - 0
      - 3
"""


def _write(tmp_path: Path, text: str, name: str = "alpha.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_line_numbers_follow_the_source(tmp_path: Path) -> None:
    log = ProblemLog(tmp_path)
    doc = load_yaml(_write(tmp_path, TENANT), log)
    assert doc is not None and not log.problems
    assert doc.line_of(("name",)) == 3
    assert doc.line_of(("gpus",)) == 8
    assert doc.line_of(("gpus", 0)) == 9
    assert doc.line_of(("gpus", 0, "servers", 1)) == 9
    assert doc.line_of(("gpus", 1, "nics", 1)) == 13
    # An unknown deeper path falls back to the nearest known parent.
    assert doc.line_of(("gpus", 1, "nics", 7)) == 11
    assert doc.line_of(("nothing", "here")) == 1


def test_validation_error_points_at_the_nested_line(tmp_path: Path) -> None:
    log = ProblemLog(tmp_path)
    doc = load_yaml(_write(tmp_path, TENANT.replace("      - 3", "      - 99")), log)
    assert doc is not None
    assert validate_doc(doc, Tenant, log) is None
    assert [p.render() for p in log.problems] == [
        "alpha.yaml:13: gpus[1].nics[1]: 99 is out of range (allowed: less than or equal to 15)"
    ]


def test_duplicate_key_is_reported_at_the_second_occurrence(tmp_path: Path) -> None:
    log = ProblemLog(tmp_path)
    assert load_yaml(_write(tmp_path, TENANT + "name: beta\n"), log) is None
    assert [(p.line, p.path, p.message) for p in log.problems] == [
        (14, "name", "duplicate key (first written at line 3)")
    ]


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("!!python/object/apply:os.system [reboot]", "YAML tag !!python/object/apply:os.system"),
        ("!custom 5", "YAML tag !custom"),
        ("!!set {a, b}", "a YAML set"),
        ("!!binary aGVsbG8=", "binary data"),
    ],
)
def test_yaml_tags_and_exotic_types_are_rejected(tmp_path: Path, value: str, fragment: str) -> None:
    log = ProblemLog(tmp_path)
    assert load_yaml(_write(tmp_path, f"name: alpha\ndescription: {value}\n"), log) is None
    (problem,) = log.problems
    assert (problem.line, problem.path) == (2, "description")
    assert fragment in problem.message


def test_unreadable_file_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    log = ProblemLog(tmp_path)
    path = tmp_path / "bad.yaml"
    path.write_bytes(b"name: \xff\xfe\n")
    assert load_yaml(path, log) is None
    assert [(p.line, p.message) for p in log.problems] == [
        (1, "cannot read file: not UTF-8 text (an invalid byte at column 7)")
    ]


def test_eos_small_fabric_loads() -> None:
    log = ProblemLog(EOS_SMALL)
    fabric = load_fabric(EOS_SMALL, log)
    assert fabric is not None and not log.problems
    assert [s.name for s in fabric.switches] == ["spine1", "spine2", "leaf1", "leaf2", "leaf3", "leaf4"]
    assert {s.platform for s in fabric.switches} == {"eos"}
    assert [s.index for s in fabric.leaves] == [1, 2, 3, 4]
    assert fabric.switch("leaf3") is not None and fabric.switch("leaf3").line == 23  # type: ignore[union-attr]
    assert fabric.switch("leaf9") is None
    assert fabric.settings.cabling.server_name == "node{:02d}"
    assert fabric.settings_line("cabling", "leaf_gpu_ports") == 36
    tuning = fabric.settings.qos.tuning_for(get_platform("eos"))
    assert isinstance(tuning, EosQosTuning) and tuning.ecn_maximum == 10000


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ("watchdog_action: no-drop", "'no-drop' is not a valid choice (allowed: drop or notify-only)"),
        ("watchdog_timeout: 0.005", "0.005 has more than 2 decimals (the most EOS takes)"),
        ("watchdog_polling_interval: 0.0005", "0.0005 has more than 3 decimals (the most EOS takes)"),
    ],
)
def test_eos_watchdog_values_are_ones_eos_takes(tmp_path: Path, line: str, fragment: str) -> None:
    """AVD's schema: action drop | errdisable | notify-only (no `no-drop`), times to 0.01 s (poll 0.001 s)."""
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    path = root / "inventory" / "fabric.yaml"
    key = line.split(":")[0]
    text = path.read_text(encoding="utf-8")
    old = next(ln for ln in text.splitlines() if ln.strip().startswith(f"{key}:"))
    path.write_text(text.replace(old, f"    {line}"), encoding="utf-8")
    log = ProblemLog(root)
    assert load_fabric(root, log) is None
    assert any(fragment in p.render() for p in log.problems), [p.render() for p in log.problems]


def test_reference_fabric_loads_in_index_order() -> None:
    log = ProblemLog(REFERENCE)
    fabric = load_fabric(REFERENCE, log)
    assert fabric is not None and not log.problems
    assert len(fabric.spines) == 16 and len(fabric.leaves) == 32
    assert [s.index for s in fabric.leaves] == list(range(1, 33))
    assert {s.platform for s in fabric.switches} == {"comware"}
    assert {s.model for s in fabric.switches} == {"S9825-64D"}


def test_tenants_are_sorted_by_id_not_file_name() -> None:
    log = ProblemLog(EOS_SMALL)
    docs = load_tenants(EOS_SMALL, log)
    assert not log.problems
    assert [(d.tenant.id, d.file) for d in docs] == [
        (11, "tenants/team-llm.yaml"),
        (12, "tenants/team-hpc.yaml"),
        (21, "tenants/intern-01.yaml"),
        (90, "tenants/storage.yaml"),
    ]
    storage = docs[-1]
    assert storage.line("gpus", 1, "ports", 0) == 11
    assert storage.line("shared_with", 1) == 12


def test_missing_tenants_folder_means_no_tenants(tmp_path: Path) -> None:
    root = copy_fabric(EOS_SMALL, tmp_path / "f")
    for f in (root / "tenants").iterdir():
        f.unlink()
    (root / "tenants").rmdir()
    log = ProblemLog(root)
    assert load_tenants(root, log) == [] and not log.problems


@pytest.mark.parametrize(
    ("spec", "expanded"),
    [
        (["gpu001-gpu004"], ["gpu001", "gpu002", "gpu003", "gpu004"]),
        (["gpu009-011"], ["gpu009", "gpu010", "gpu011"]),
        (["node07"], ["node07"]),
        (["node01", "node03-node04"], ["node01", "node03", "node04"]),
        (["rack-a1-rack-a2"], ["rack-a1", "rack-a2"]),
    ],
)
def test_server_ranges(spec: list[str], expanded: list[str]) -> None:
    assert _expand_servers(spec) == expanded


def test_port_ranges() -> None:
    assert expand_ports("1-4,9,11-12") == [1, 2, 3, 4, 9, 11, 12]
    assert expand_ports("33-64") == list(range(33, 65))


def test_problems_sort_dedupe_and_render() -> None:
    a = Problem("tenants/b.yaml", 3, "id", "id 1 is already used", "a unique id")
    b = Problem("inventory/fabric.yaml", 0, "underlay", "too small")
    c = Problem("tenants/a.yaml", 12, "", "invalid YAML: x")
    err = InputError([a, b, c, a])
    assert err.problems == [b, c, a]
    assert err.render().splitlines() == [
        "inventory/fabric.yaml: underlay: too small",
        "tenants/a.yaml:12: invalid YAML: x",
        "tenants/b.yaml:3: id: id 1 is already used (allowed: a unique id)",
        "3 errors; nothing was contacted or pushed.",
    ]
    assert InputError([c]).render().endswith("\n1 error; nothing was contacted or pushed.")


def test_problem_log_paths_are_relative_to_root(tmp_path: Path) -> None:
    log = ProblemLog(tmp_path)
    log.add(tmp_path / "tenants" / "x.yaml", 4, "id", "bad")
    log.add("/elsewhere/y.yaml", 1, "", "outside")
    assert [p.file for p in log.problems] == ["tenants/x.yaml", "/elsewhere/y.yaml"]
    with pytest.raises(InputError):
        log.check()
    ProblemLog(tmp_path).check()  # nothing collected: no exception


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("a | b", "'a | b'"),
        ("x\n shutdown", "'x\\n shutdown'"),
        (None, "an empty value"),
        (True, "true"),
        (12, "12"),
        ({"a": 1}, "a mapping"),
        ([1], "a list"),
        (object(), "a value of type object"),
        ("A" * 100, "'" + "A" * 57 + "...'"),
    ],
)
def test_show_never_prints_an_internal_repr(value: object, shown: str) -> None:
    assert show(value) == shown


def test_limit_names_match_the_platform_limits() -> None:
    assert set(LIMIT_NAMES) == {f.name for f in dataclasses.fields(Limits)}


# --- the inventory, as Nornir reads it ------------------------------------------------------------


def _fabric_with(
    tmp_path: Path,
    groups: str | None = None,
    hosts_edit: tuple[str, str] | None = None,
    defaults: str | None = None,
) -> Path:
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    inv = root / "inventory"
    if groups is not None:
        (inv / "groups.yaml").write_text(
            (inv / "groups.yaml").read_text(encoding="utf-8") + groups, encoding="utf-8"
        )
    if hosts_edit is not None:
        text = (inv / "hosts.yaml").read_text(encoding="utf-8")
        assert hosts_edit[0] in text
        (inv / "hosts.yaml").write_text(text.replace(hosts_edit[0], hosts_edit[1]), encoding="utf-8")
    if defaults is not None:
        (inv / "defaults.yaml").write_text(defaults, encoding="utf-8")
    return root


def _problems(root: Path) -> list[str]:
    log = ProblemLog(root)
    load_fabric(root, log)
    return [p.render() for p in log.problems]


def test_nested_groups_resolve_as_nornir_resolves_them(tmp_path: Path) -> None:
    root = _fabric_with(
        tmp_path,
        groups="eos-spine:\n  groups: [spine, eos]\n",
        hosts_edit=(
            "  groups: [spine, eos]\n  data:\n    index: 1\n",
            "  groups: [eos-spine]\n  data:\n    index: 1\n",
        ),
    )
    log = ProblemLog(root)
    fabric = load_fabric(root, log)
    assert not log.problems and fabric is not None
    spine1 = fabric.switch("spine1")
    assert spine1 is not None and (spine1.role, spine1.platform, spine1.model) == (
        "spine",
        "eos",
        "7060X5-64",
    )


def test_defaults_reach_every_host(tmp_path: Path) -> None:
    root = _fabric_with(tmp_path, defaults="---\nport: 22\ndata:\n  model: 7060X5-64\n  role: leaf\n")
    groups = root / "inventory" / "groups.yaml"
    groups.write_text(
        groups.read_text(encoding="utf-8").replace("    model: 7060X5-64\n", ""), encoding="utf-8"
    )
    log = ProblemLog(root)
    fabric = load_fabric(root, log)
    assert not log.problems and fabric is not None
    assert {s.model for s in fabric.switches} == {"7060X5-64"} and len(fabric.switches) == 6


@pytest.mark.parametrize(
    ("groups", "defaults", "expected"),
    [
        (
            "loop-a:\n  groups: [loop-b]\nloop-b:\n  groups: [loop-a]\n",
            None,
            "groups loop: loop-a -> loop-b -> loop-a",
        ),
        ("bad:\n  data: [1, 2]\n", None, "bad.data: must be a mapping of keys"),
        ("bad:\n  groups: spine\n", None, "bad.groups: must be a list"),
        ("bad:\n  platfrom: eos\n", None, "bad.platfrom: unknown key; did you mean 'platform'?"),
        (None, "- just\n- a list\n", "defaults.yaml must be a mapping of keys"),
        (None, "---\nport: twenty-two\n", "port: 'twenty-two' must be a whole number"),
        (None, "---\ndata: [x]\n", "data: must be a mapping of keys"),
    ],
)
def test_what_nornir_cannot_load_is_a_located_error(
    tmp_path: Path, groups: str | None, defaults: str | None, expected: str
) -> None:
    problems = _problems(_fabric_with(tmp_path, groups=groups, defaults=defaults))
    assert any(expected in p for p in problems), problems
    assert all(p.startswith("inventory/") for p in problems)
