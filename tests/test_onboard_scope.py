"""One tenant onboarded touches the same number of switches whatever the fabric's size: the
switches `plan --changed-since` selects (fetched, then pushed by apply) are the tenant's leaves,
and `check --tenant` reads its leaves and their spines, on a 2-pod and on a 4-pod fabric alike."""

from __future__ import annotations

from pathlib import Path

from fabricctl import pipeline
from fabricctl.deploy.changed import RefFabric, fingerprints, select_changed
from fabricctl.deploy.tenant_health import tenant_scope
from tests.test_multipod import make_fabric

#: two more whole servers of pod 1 (each server's NICs spread over both leaves of the pod)
NEW = """\
---
name: newcomer
id: 9
description: Onboarded while the fabric is in service
isolation: l3
address_block: 100.100.2.0/28
lossless: true
gpus:
  - servers: [gpu003-gpu004]
"""


def _touched(root: Path, pods: int) -> tuple[list[str], list[str]]:
    make_fabric(root, pods=pods)  # two tenants in service already, one of them across pods
    before = pipeline.compile(root)
    in_service = RefFabric("applied", "0" * 40, before, fingerprints(before, pipeline.render(before.intents)))
    (root / "tenants" / "newcomer.yaml").write_text(NEW, encoding="utf-8")
    after = pipeline.compile(root)
    changed = select_changed(
        in_service, fingerprints(after, pipeline.render(after.intents)), sorted(after.intents)
    )
    return changed, tenant_scope(after, "newcomer").switches


def test_one_onboarding_touches_as_many_switches_on_a_larger_fabric(tmp_path: Path) -> None:
    small_changed, small_checked = _touched(tmp_path / "two-pods", 2)
    large_changed, large_checked = _touched(tmp_path / "four-pods", 4)
    assert small_changed == large_changed == ["p01-leaf01", "p01-leaf02"]
    assert small_checked == large_checked
    assert set(small_checked) == {"p01-leaf01", "p01-leaf02", "p01-spine01", "p01-spine02"}
