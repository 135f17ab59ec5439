"""Remediation per platform, both directions, as table fixtures; and a property test on random fabrics.

Each folder under fixtures/<platform>/<case>/ holds a switch's `running.cfg` (with lines fabricctl
does not own), the `intended.cfg` fabricctl renders, and the reviewed `remediation.txt` (running ->
intended) and `rollback.txt` (the pushed switch -> running): `python tests/regen_goldens.py`
rewrites the last two. Both are pushed to a lab device (its own CLI and device model, offline)
and must converge: nothing rejected, nothing left to change, every foreign line untouched.
The fixtures' objects carry the mark of fabric FABRIC (`fabricctl pod1 ...`).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given

from fabricctl import pipeline
from fabricctl.config.diff import Node, diff_device, owned_view, ownership, parse_config
from fabricctl.config.rules import Dialect
from fabricctl.platforms import get_platform
from tests.config.lab_apply import lab_device, push
from tests.conftest import EOS_SMALL, assert_golden, copy_fabric, on_platform
from tests.test_properties import PROPERTY_SETTINGS, TenantSpec, changes

FIXTURES = Path(__file__).parent / "fixtures"
CASES = sorted(f"{p.parent.name}/{p.name}" for p in FIXTURES.glob("*/*") if p.is_dir())
FABRIC = "pod1"


def dialect_of(platform: str) -> Dialect:
    return get_platform(platform).dialect.for_fabric(FABRIC)


def foreign(text: str, platform: str, intended: str, prune: bool = False) -> dict[str, object]:
    """Everything fabricctl does not own next to `intended` (the operator's look-alikes and ports
    outside the cabling plan included; with `prune`, what a pruning plan leaves), with its blocks."""
    dialect = dialect_of(platform)
    tree = parse_config(text, dialect)
    owned = owned_view(
        tree, dialect, ownership(tree, dialect, parse_config(intended, dialect)), prune
    ).children
    return {line: _lines(node) for line, node in tree.children.items() if line not in owned}


def _lines(node: Node) -> list[object]:
    return [(line, _lines(child)) for line, child in node.children.items()]


def test_every_platform_has_fixtures() -> None:
    assert {c.split("/")[0] for c in CASES} == {"comware", "eos"}
    assert len(CASES) >= 8


@pytest.mark.parametrize("case", CASES)
def test_remediation_both_ways(case: str) -> None:
    platform = case.split("/")[0]
    dialect = dialect_of(platform)
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
    assert foreign(after, platform, intended) == foreign(as_loaded, platform, intended), (
        "foreign lines untouched"
    )

    back = diff_device("leaf", after, running, dialect)
    assert_golden(folder / "rollback.txt", "\n".join(back.commands) + "\n")
    assert push(dev, back.commands) == []
    restored = dev.running_text()
    assert not diff_device("leaf", restored, running, dialect).changed, "the rollback converges"
    assert foreign(restored, platform, running) == foreign(as_loaded, platform, running)


LOOKALIKES = {
    "eos": [
        "ip access-list tnt-snmp-in",
        "ip access-list tnt-acme-in-ops",
        "vlan 3000",
        "vrf instance tnt-ops-oob",
        "vrf instance tnt-twin",
        "ip routing vrf tnt-ops-oob",
    ],
    "comware": [
        "ip vpn-instance tnt-ops-oob",
        "ip vpn-instance tnt-twin",
        "vsi tnt-legacy",
        "acl advanced name tnt-snmp-in",
        "acl advanced name tnt-acme-in-ops",
    ],
}


@pytest.mark.parametrize("platform", ["comware", "eos"])
def test_lookalikes_are_listed_and_only_a_prune_removes_them(platform: str) -> None:
    """Named like fabricctl's objects (or marked by another fabric), not proven: the diff lists
    them and leaves them; `prune` removes exactly them, with what follows them."""
    folder = FIXTURES / platform / "lookalikes-kept"
    running = (folder / "running.cfg").read_text(encoding="utf-8")
    intended = (folder / "intended.cfg").read_text(encoding="utf-8")
    dialect = dialect_of(platform)
    kept = diff_device("leaf", running, intended, dialect)
    pruned = diff_device("leaf", running, intended, dialect, prune=True)
    assert kept.lookalikes == pruned.lookalikes == LOOKALIKES[platform]
    assert not any(c.strip().endswith(("tnt-ops-oob", "tnt-twin", "tnt-snmp-in")) for c in kept.commands)
    dev = lab_device("leaf", platform, running)
    as_loaded = dev.running_text()
    assert push(dev, pruned.commands) == []
    after = dev.running_text()
    assert not set(after.splitlines()) & set(LOOKALIKES[platform])
    assert foreign(after, platform, intended) == foreign(as_loaded, platform, intended, prune=True)
    assert "rack 7 console" in after, "a port outside the cabling plan is never touched"
    assert not diff_device("leaf", after, intended, dialect, prune=True).changed


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
        compiled = pipeline.compile(root)
        return {n: i.platform for n, i in compiled.intents.items()}, pipeline.render(compiled.intents, root)


@pytest.mark.parametrize("platform", ["comware", "eos"])
@PROPERTY_SETTINGS
@given(change=changes())
def test_remediation_between_any_two_tenant_sets_converges(platform: str, change) -> None:  # type: ignore[no-untyped-def]
    """Render tenant set A onto factory lab devices, then push diff(A -> B): B's owned scope, exactly."""
    scenario, _, after = change
    platforms, before = _configs(scenario.tenants, platform)
    _, wanted = _configs(after, platform)
    for name, text in wanted.items():
        dialect = get_platform(platforms[name]).dialect.for_fabric("eos-small")
        dev = lab_device(name, platforms[name])
        assert push(dev, diff_device(name, dev.running_text(), before[name], dialect).commands) == []
        step = diff_device(name, dev.running_text(), text, dialect)
        assert push(dev, step.commands) == [], name
        assert not diff_device(name, dev.running_text(), text, dialect).changed, name
