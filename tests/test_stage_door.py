"""The stages have one front door, fabricctl/pipeline.py: the CLI, the exporter and the tests
call a stage through it, never through the stage's own entry point (docs/architecture.md).

Two rules, over every import (at module level or inside a function):
- Nothing in cli/, telemetry/ or tests/ imports a stage's entry point (STAGE_ENTRIES) but
  through `fabricctl.pipeline`.
- cli/ and telemetry/ import nothing else of compile/, render.py or verify/ than the data
  and helpers in ALLOWED, each with the reason it is not a stage.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO

#: The functions (and the renderer) a stage is run by; pipeline.py calls each of them.
STAGE_ENTRIES: dict[str, frozenset[str]] = {
    "fabricctl.compile.build": frozenset({"load_and_check", "compile_fabric"}),
    "fabricctl.render": frozenset({"Renderer"}),
    "fabricctl.verify.api": frozenset({"verify_fabric", "render_configs"}),
    "fabricctl.verify": frozenset({"verify_fabric", "render_configs"}),  # the package re-exports them
    "fabricctl.deploy.service": frozenset(
        {"plan_fabric", "build_plan", "compile_stage", "read_switch_health"}
    ),
    "fabricctl.deploy.apply_flow": frozenset({"run_apply"}),
    "fabricctl.deploy.health": frozenset({"check_health"}),
    "fabricctl.deploy.tenant_health": frozenset({"tenant_checks"}),
    "fabricctl.deploy.links": frozenset({"link_checks"}),
}

#: The stage packages cli/ and telemetry/ may not reach into beyond ALLOWED.
STAGE_PACKAGES = ("fabricctl.compile", "fabricctl.render", "fabricctl.verify")

#: (module, name) cli/ or telemetry/ may import from a stage package, and why it is no stage.
ALLOWED: dict[tuple[str, str], str] = {
    ("fabricctl.compile.build", "Compiled"): "the compiled fabric: the data compile returns",
    ("fabricctl.compile.intent", "DeviceIntent"): "one switch's intent: the data compile returns",
    ("fabricctl.verify.report", "VerifyReport"): "the proofs: the data verify returns",
    ("fabricctl.verify.report", "render_text"): "the verify report as text (output, like report/)",
    ("fabricctl.verify.report", "to_json"): "the verify report as JSON (output, like report/)",
    ("fabricctl.verify.proofs", "proof_record"): "the proofs a saved plan names, for its PR comment",
    ("fabricctl.verify.api", "Fetch"): "the type of a config reader `verify --lab` passes",
    ("fabricctl.verify.api", "read_configs"): "`verify --configs DIR`: <switch>.cfg files read",
    ("fabricctl.verify.api", "verify_maintenance"): "`drain`: proofs of a maintenance.yaml not yet written",
    ("fabricctl.compile.drain", "target_problem"): "`drain`: a drain target checked against the topology",
    ("fabricctl.compile.drain", "plan_name"): "`drain`: how a plan names a drained switch or link",
    ("fabricctl.compile.racks", "out_of_service"): "`show`: which servers wait for their rack's acceptance",
    ("fabricctl.compile.placement", "*"): "`tenant new`: free GPUs picked and a tenant file written "
    "(an editor of the inputs, which the stages then read)",
    ("fabricctl.compile.rack_add", "load_template"): "`rack add`: a rack file from a template",
    ("fabricctl.compile.rack_add", "new_rack"): "`rack add`: a rack file from a template",
    ("fabricctl.compile.rack_add", "read_serials"): "`rack add`: the factory's serial list",
}

#: What tests may still import past the door, and why: tests of the renderer itself, not of the
#: render stage (a test that renders a fabric, or one switch of it, calls pipeline.render).
TESTS_MAY: dict[tuple[str, str, str], str] = {
    ("tests/test_render.py", "fabricctl.render", "Renderer"): "render.py's own unit tests: one "
    "hand-made intent per template, its Jinja environment per search path, its sandbox",
    ("tests/test_one_line.py", "fabricctl.render", "Renderer"): "the renderer's own refusal of a value "
    "that would add a line, with no store between the template and the refusal",
    ("tests/test_store.py", "fabricctl.render", "Renderer"): "the renderer's use of the store: "
    "`render_all` answered from it with `Renderer.render` refused",
    ("tests/test_store.py", "fabricctl.render", "*"): "the built-in templates a store key covers",
    ("tests/test_artifacts.py", "fabricctl.render", "*"): "the built-in templates and fabricctl's "
    "version that the artifacts' re-render keys on (the version patched in the module)",
    ("tests/deploy/test_plan_claims.py", "fabricctl.compile.build", "*"): "caches the compile stage's "
    "own function for the many refusals of one plan file (the stages inside apply call it)",
}


CALLERS = ("fabricctl/cli", "fabricctl/telemetry", "tests")
PACKAGE = REPO / "fabricctl"


def imported_names(tree: ast.AST) -> list[tuple[str, str, int]]:
    """(module, name, line) of every fabricctl import; name "*" for a whole module."""
    found: list[tuple[str, str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, "*", node.lineno) for a in node.names if a.name.startswith("fabricctl")]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if not node.module.startswith("fabricctl"):
                continue
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                if (PACKAGE / Path(*submodule.split(".")[1:])).with_suffix(".py").is_file() or (
                    PACKAGE / Path(*submodule.split(".")[1:]) / "__init__.py"
                ).is_file():
                    found.append((submodule, "*", node.lineno))  # `from fabricctl import render`
                else:
                    found.append((node.module, alias.name, node.lineno))
    return found


def _in(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def door_violations(source: str, where: str, path: str = "") -> list[str]:
    """What `source` (the file `path` of `where`: cli, telemetry or tests) imports past the front door."""
    out = []
    for module, name, line in imported_names(ast.parse(source)):
        entries = STAGE_ENTRIES.get(module, frozenset())
        if (
            entries
            and (name == "*" or name in entries)
            and not {(where, module, name), (path, module, name)} & set(TESTS_MAY)
        ):
            shown = f"{module}.{name}" if name != "*" else module
            out.append(f"line {line}: {shown} is a stage's entry point: call it through fabricctl.pipeline")
        elif (
            where != "tests"
            and _in(module, STAGE_PACKAGES)
            and (module, name) not in ALLOWED
            and (module, "*") not in ALLOWED
        ):
            out.append(f"line {line}: {module}.{name} reaches into a stage past fabricctl.pipeline")
    return out


def _sources() -> dict[Path, str]:
    files = sorted(p for folder in CALLERS for p in (REPO / folder).rglob("*.py"))
    return {p: p.read_text(encoding="utf-8") for p in files if "golden" not in p.parts}


def test_callers_reach_the_stages_through_the_pipeline_only() -> None:
    found = []
    for path, source in _sources().items():
        rel = path.relative_to(REPO).parts
        where = rel[0] if rel[0] == "tests" else rel[1]
        found += [f"{'/'.join(rel)} {p}" for p in door_violations(source, where, "/".join(rel))]
    assert not found, "\n".join(found)


def test_every_entry_point_is_called_by_the_pipeline() -> None:
    """The list above is pipeline.py's own calls: an entry point it no longer calls is no door."""
    called = {(m, n) for m, n, _ in imported_names(ast.parse((PACKAGE / "pipeline.py").read_text()))}
    listed = {(m, n) for m, names in STAGE_ENTRIES.items() for n in names}
    helpers = {("fabricctl.deploy.service", "build_plan"), ("fabricctl.deploy.service", "compile_stage")}
    helpers |= {("fabricctl.verify.api", "render_configs")}  # called by the entries pipeline calls
    helpers |= {("fabricctl.verify", n) for n in STAGE_ENTRIES["fabricctl.verify"]}  # re-exports
    assert listed - helpers <= called, sorted(listed - helpers - called)


def test_a_planted_import_past_the_door_fails() -> None:
    """The checker above finds what it is for (a test of the test)."""
    planted = {
        "from fabricctl.compile.build import compile_fabric": "compile_fabric",
        "def f():\n    from fabricctl.deploy.apply_flow import run_apply": "run_apply",
        "import fabricctl.verify.api": "fabricctl.verify.api",
        "from fabricctl import render": "fabricctl.render",
        "from fabricctl.compile.topology import build_topology": "build_topology",
        "from fabricctl.deploy.links import link_checks": "link_checks",
        "def f():\n    from fabricctl.deploy.tenant_health import tenant_checks": "tenant_checks",
    }
    for source, named in planted.items():
        problems = door_violations(source, "cli")
        assert len(problems) == 1 and named in problems[0], (source, problems)
    assert door_violations("from fabricctl.compile.build import compile_fabric", "tests")
    assert not door_violations("from fabricctl.compile.topology import build_topology", "tests")
    assert door_violations("from fabricctl.render import Renderer", "tests", "tests/test_x.py")
    assert not door_violations("from fabricctl.render import Renderer", "tests", "tests/test_render.py")
    clean = "from fabricctl import pipeline\nfrom fabricctl.compile.build import Compiled\n"
    assert not door_violations(clean, "cli")


def test_every_allowance_is_still_used() -> None:
    """An entry of ALLOWED or TESTS_MAY that no import needs any more is stale: delete it."""
    used: set[tuple[str, str, str]] = set()
    for path, source in _sources().items():
        rel = "/".join(path.relative_to(REPO).parts)
        used |= {(rel, module, name) for module, name, _ in imported_names(ast.parse(source))}
    stale: list[tuple[str, ...]] = [k for k in TESTS_MAY if k not in used]
    stale += [
        k
        for k in ALLOWED
        if not any(u[1] == k[0] and k[1] in (u[2], "*") and not u[0].startswith("tests/") for u in used)
    ]
    assert not stale, stale
