"""A multi-pod fabric in the lab: every tier accepted over SSH, changed one pod at a time."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from fabricctl.lab import LabClock, LabFabric
from fabricctl.lab.runtime import lab_json, write_lab_json
from tests.test_multipod import make_fabric

from .conftest import LabRoot

POD2_TENANT = """\
---
name: late
id: 9
description: Arrives in pod 2
isolation: l3
address_block: 100.100.2.0/29
lossless: true
gpus:
  - servers: [gpu007]
"""


@pytest.fixture(params=["comware", "eos"])
def multipod_lab(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[LabRoot]:
    monkeypatch.delenv("FABRICCTL_LAB_USERNAME", raising=False)
    monkeypatch.delenv("FABRICCTL_LAB_PASSWORD", raising=False)
    root = make_fabric(tmp_path / "fabric", request.param)
    lab = LabFabric.from_inventory(root, clock=LabClock.frozen())
    with lab:
        write_lab_json(root, lab)
        yield LabRoot(root, lab, [])
        lab_json(root).unlink(missing_ok=True)


def _plan(lab: LabRoot, capsys: pytest.CaptureFixture[str], *limit: str) -> dict[str, str]:
    args = [a for item in limit for a in ("--limit", item)]
    code, out, err = lab.run("plan", "--lab", "--format", "json", *args, capsys=capsys)
    assert code == 0, err
    return {name: s["status"] for name, s in json.loads(out)["switches"].items()}


def test_apply_one_pod_at_a_time(multipod_lab: LabRoot, capsys: pytest.CaptureFixture[str]) -> None:
    lab = multipod_lab
    pod1 = {"p01-spine01", "p01-spine02", "p01-leaf01", "p01-leaf02"}
    assert set(_plan(lab, capsys, "pod:1")) == pod1  # super-spines belong to no pod
    code, out, _ = lab.run("apply", "--lab", "--auto-approve", "--json", "--limit", "pod:1", capsys=capsys)
    assert code == 0, out
    assert set(json.loads(out)["switches"]) == pod1
    after = _plan(lab, capsys)
    assert {n for n, s in after.items() if s == "changed"} == set(after) - pod1
    # the rest, super-spines included: every line of every tier is accepted over SSH
    code, out, _ = lab.run("apply", "--lab", "--auto-approve", "--json", capsys=capsys)
    assert code == 0, {
        n: s["message"][:200] for n, s in json.loads(out)["switches"].items() if s["status"] != "changed"
    }
    assert lab.run("plan", "--lab", "--detailed-exitcode", capsys=capsys)[0] == 0
    # the fabric works across tiers: every leaf-spine and spine-super-spine link up with its
    # planned LLDP neighbor, every session (underlay and EVPN through the super-spines) Established
    code, out, _ = lab.run("check", "--lab", "--format", "json", capsys=capsys)
    health = json.loads(out)
    assert code == 0, [c for c in health["checks"] if not c["ok"]]
    assert any(c["switch"].startswith("ss") and c["name"] == "lldp" for c in health["checks"])  # super-spines
    # a tenant that lands in pod 2 changes pod 2's leaf and nothing in pod 1 or the super-spines
    (lab.root / "tenants" / "late.yaml").write_text(POD2_TENANT, encoding="utf-8")
    changed = {n for n, s in _plan(lab, capsys).items() if s == "changed"}
    assert changed == {"p02-leaf01", "p02-leaf02"}
    assert set(_plan(lab, capsys, "pod:1").values()) == {"unchanged"}


def test_limit_names_an_unknown_pod(multipod_lab: LabRoot, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = multipod_lab.run("plan", "--lab", "--limit", "pod:7", capsys=capsys)
    assert code == 1
    assert "--limit pod:7: no such pod (allowed: spine, leaf, superspine, pod:1..pod:2, " in err
    assert "Traceback" not in err


def test_apply_batches_never_mix_pods() -> None:
    """After the canary, batches follow the pods (super-spines, in no pod, last); a two-tier
    fabric (no pods) batches exactly as before."""
    from fabricctl.deploy.apply import ApplyOptions, waves

    names = ["p02-leaf01", "ss01-01", "p01-leaf01", "p01-leaf02", "p02-leaf02", "p01-spine01"]
    pod_of = {
        "p01-leaf01": 1,
        "p01-leaf02": 1,
        "p01-spine01": 1,
        "p02-leaf01": 2,
        "p02-leaf02": 2,
        "ss01-01": None,
    }
    opts = ApplyOptions(parallelism=2, canary=1)
    assert waves(names, opts, pod_of) == [
        ["p02-leaf01"],  # the canary, wherever it is
        ["p01-leaf01", "p01-leaf02"],
        ["p01-spine01"],
        ["p02-leaf02"],
        ["ss01-01"],
    ]
    assert waves(names, opts) == [["p02-leaf01"], names[1:3], names[3:5], names[5:]]
