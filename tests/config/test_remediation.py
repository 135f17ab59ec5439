"""Remediation per platform, both directions, as table fixtures; and a property test on random fabrics.

Each folder under fixtures/<platform>/<case>/ holds a switch's `running.cfg` (with lines fabricctl
does not own), the `intended.cfg` fabricctl renders, and the reviewed `remediation.txt` (running ->
intended) and `rollback.txt` (the pushed switch -> running): `python tests/regen_goldens.py`
rewrites the last two. Both are pushed to a lab device (its own CLI and device model, offline)
and must converge: nothing rejected, nothing left to change, every foreign line untouched.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given

from fabricctl.compile.build import compile_fabric
from fabricctl.config.diff import Node, diff_device, owned_view, parse_config
from fabricctl.platforms import get_platform
from fabricctl.render import Renderer
from tests.config.lab_apply import lab_device, push
from tests.conftest import EOS_SMALL, assert_golden, copy_fabric, on_platform
from tests.test_properties import PROPERTY_SETTINGS, TenantSpec, changes

FIXTURES = Path(__file__).parent / "fixtures"
CASES = sorted(f"{p.parent.name}/{p.name}" for p in FIXTURES.glob("*/*") if p.is_dir())


def foreign(text: str, platform: str) -> dict[str, object]:
    """Everything fabricctl does not own (the operator's look-alikes included), with its blocks."""
    dialect = get_platform(platform).dialect
    tree = parse_config(text)
    owned = owned_view(tree, dialect).children
    return {line: _lines(node) for line, node in tree.children.items() if line not in owned}


def _lines(node: Node) -> list[object]:
    return [(line, _lines(child)) for line, child in node.children.items()]


def test_every_platform_has_fixtures() -> None:
    assert {c.split("/")[0] for c in CASES} == {"comware", "eos"}
    assert len(CASES) >= 8


@pytest.mark.parametrize("case", CASES)
def test_remediation_both_ways(case: str) -> None:
    platform = case.split("/")[0]
    dialect = get_platform(platform).dialect
    folder = FIXTURES / case
    running = (folder / "running.cfg").read_text(encoding="utf-8")
    intended = (folder / "intended.cfg").read_text(encoding="utf-8")

    forward = diff_device("leaf", running, intended, dialect)
    assert_golden(folder / "remediation.txt", "\n".join(forward.commands) + "\n")
    dev = lab_device("leaf", platform, running)
    as_loaded = dev.running_text()  # the fixture as the switch prints it
    assert push(dev, forward.commands) == []
    after = dev.running_text()
    assert not diff_device("leaf", after, intended, dialect).changed, "the remediation converges"
    assert foreign(after, platform) == foreign(as_loaded, platform), "foreign lines are untouched"

    back = diff_device("leaf", after, running, dialect)
    assert_golden(folder / "rollback.txt", "\n".join(back.commands) + "\n")
    assert push(dev, back.commands) == []
    restored = dev.running_text()
    assert not diff_device("leaf", restored, running, dialect).changed, "the rollback converges"
    assert foreign(restored, platform) == foreign(as_loaded, platform)


# --- property: any change between two valid tenant sets converges on the device model -------------


def _configs(tenants: list[TenantSpec], platform: str) -> tuple[dict[str, str], dict[str, str]]:
    """(switch -> platform, switch -> rendered config) of eos-small's cabling on `platform`."""
    with tempfile.TemporaryDirectory(prefix="fabricctl-remediate-") as tmp:
        root = copy_fabric(EOS_SMALL, Path(tmp) / "fabric")
        on_platform(root, platform)
        for f in (root / "tenants").iterdir():
            f.unlink()
        for t in tenants:
            (root / "tenants" / f"{t.name}.yaml").write_text(t.yaml(), encoding="utf-8")
        compiled = compile_fabric(root)
        renderer = Renderer(root)
        return (
            {n: i.platform for n, i in compiled.intents.items()},
            {n: renderer.render(i) for n, i in compiled.intents.items()},
        )


@pytest.mark.parametrize("platform", ["comware", "eos"])
@PROPERTY_SETTINGS
@given(change=changes())
def test_remediation_between_any_two_tenant_sets_converges(platform: str, change) -> None:  # type: ignore[no-untyped-def]
    """Render tenant set A onto factory lab devices, then push diff(A -> B): B's owned scope, exactly."""
    scenario, _, after = change
    platforms, before = _configs(scenario.tenants, platform)
    _, wanted = _configs(after, platform)
    for name, text in wanted.items():
        dialect = get_platform(platforms[name]).dialect
        dev = lab_device(name, platforms[name])
        assert push(dev, diff_device(name, dev.running_text(), before[name], dialect).commands) == []
        step = diff_device(name, dev.running_text(), text, dialect)
        assert push(dev, step.commands) == [], name
        assert not diff_device(name, dev.running_text(), text, dialect).changed, name
