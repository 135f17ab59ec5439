"""Capacity: 1:1 before and after the 2 x 200G expansion, budgets from the text, GPUs per tenant."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from fabricctl import pipeline
from fabricctl.platforms import get_platform
from fabricctl.verify.report import CapacityRow, VerifyReport

from .conftest import REPO, Rendered


def rows(report: VerifyReport, metric: str) -> dict[str, CapacityRow]:
    return {r.scope: r for r in report.capacity if r.metric == metric}


def test_reference_fabric_is_one_to_one(rendered: dict[str, Rendered]) -> None:
    report = pipeline.verify(rendered["comware"].compiled, rendered["comware"].configs)
    over = rows(report, "oversubscription")
    assert len(over) == 32
    assert all(r.used == 1.0 and r.ok for r in over.values())
    assert over["leaf01"].detail == "12800G down / 12800G up"
    after = rows(report, "oversubscription after 2x200G")
    assert all(r.used == 1.0 and r.ok for r in after.values())
    gpus = rows(report, "tenant GPUs")
    assert gpus["llm-pretrain"].used == 512 and gpus["render-farm"].used == 1
    held = rows(report, "GPUs held")["fabric"]
    free = rows(report, "GPUs free")["fabric"]
    assert held.used + free.used == held.limit == 1024


def test_expanded_fabric_two_by_200g_verifies_clean_and_stays_one_to_one(tmp_path: Path) -> None:
    shutil.copytree(REPO / "inventory", tmp_path / "inventory")
    fabric = tmp_path / "inventory" / "fabric.yaml"
    fabric.write_text(fabric.read_text().replace("gpu_port_breakout: none", "gpu_port_breakout: 2x200G"))
    (tmp_path / "tenants").mkdir()
    (tmp_path / "tenants" / "lane-a.yaml").write_text(
        "name: lane-a\nid: 1\ndescription: a\nisolation: l3\naddress_block: 10.1.0.0/31\n"
        "gpus:\n  - leaf: leaf01\n    ports: ['33:1']\nshared_with: [lane-b]\n"
    )
    (tmp_path / "tenants" / "lane-b.yaml").write_text(
        "name: lane-b\nid: 2\ndescription: b\nisolation: l2\naddress_block: 10.2.0.0/28\n"
        "gpus:\n  - leaf: leaf01\n    ports: ['33:2']\n  - server: gpu200\n    nics: [0, 7]\nshared_with: [lane-a]\n"
    )
    compiled = pipeline.compile(tmp_path)
    configs = pipeline.render(compiled.intents, tmp_path)
    assert "TwoHundredGigE1/0/33:2" in configs["leaf01"]
    report = pipeline.verify(compiled, configs)
    assert report.violations == []
    over = rows(report, "oversubscription")["leaf01"]
    assert over.used == 1.0 and over.detail == "12800G down / 12800G up"
    assert rows(report, "GPUs held")["fabric"].limit == 2048
    assert {e.tenants for e in report.exceptions} == {("lane-a", "lane-b")}


def test_oversubscription_and_budgets_fail_when_exceeded(
    rendered: dict[str, Rendered], monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rendered["eos"]
    report = pipeline.verify(r.compiled, r.configs, max_oversubscription=0.5)
    assert {v.switch for v in report.violations if v.check == "oversubscription"} == {
        "leaf1",
        "leaf2",
        "leaf3",
        "leaf4",
    }
    eos = get_platform("eos")
    small = dataclasses.replace(
        eos.model(), limits=dataclasses.replace(eos.model().limits, max_vrfs=2, max_acl_entries=20)
    )
    tiny = dataclasses.replace(eos, models=(small,))
    monkeypatch.setattr("fabricctl.verify.capacity.get_platform", lambda name: tiny)
    report = pipeline.verify(r.compiled, r.configs)
    budget = {(v.switch, v.object) for v in report.violations if v.check == "budget"}
    assert ("leaf1", "VRFs") in budget and ("leaf4", "VRFs") not in budget  # leaf4 carries 2 VRFs
    assert ("leaf1", "ACL entries") in budget
