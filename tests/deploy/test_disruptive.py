"""A plan names what it does to each running tenant, and apply pushes service-affecting changes
only when told to.

Each case edits eos-small's tenants after a first apply, on both platforms, and reads the plan's
classes (deploy/disruption.py) from the switches' running configs: re-addressed, isolation
changed (l2 -> l3, a peer dropped), ports flapped (Comware resets a port that changes mode),
removed. A new tenant on a factory fabric is `added` even though its ports were configured as
free ones.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from .conftest import LabRoot


def _edit(lab: LabRoot, tenant: str, old: str, new: str) -> None:
    path = lab.root / "tenants" / f"{tenant}.yaml"
    text = path.read_text()
    assert re.search(old, text), f"{old!r} not in {tenant}"
    path.write_text(re.sub(old, new, text))


def _plan(lab: LabRoot, capsys: pytest.CaptureFixture[str]) -> dict[str, dict[str, Any]]:  # plan JSON
    code, out, err = lab.run("plan", "--lab", "--format", "json", capsys=capsys)
    assert code == 0, err[-2000:]
    return {t["name"]: t for t in json.loads(out)["changes"]["tenants"]}


def test_a_factory_fabric_plans_every_tenant_as_added(
    small_lab: LabRoot, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _plan(small_lab, capsys)
    assert {n: (r["change"], r["classes"]) for n, r in rows.items()} == {
        n: ("added", ["added"]) for n in ("intern-01", "storage", "team-hpc", "team-llm")
    }


def test_each_class_is_named_and_apply_needs_consent(
    small_lab: LabRoot, capsys: pytest.CaptureFixture[str]
) -> None:
    lab = small_lab
    assert lab.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
    _edit(lab, "team-llm", r"172\.20\.11\.0/27", "172.20.11.32/27")  # re-addressed
    _edit(lab, "team-hpc", r"isolation: l2", "isolation: l3")  # l2 -> l3
    _edit(lab, "storage", r"shared_with: \[team-llm, team-hpc\]", "shared_with: [team-llm]")
    _edit(lab, "team-hpc", r"shared_with: \[storage\]", "shared_with: []")
    (lab.root / "tenants" / "intern-01.yaml").unlink()  # removed
    rows = _plan(lab, capsys)
    classes = {n: r["classes"] for n, r in rows.items()}
    platform = lab.lab.devices["leaf1"].platform
    hpc = ["isolation changed", "ports flapped"] if platform == "comware" else ["isolation changed"]
    # (Comware resets a port that changes mode: its link flaps)
    assert classes == {
        "intern-01": ["removed"],
        "storage": ["isolation changed"],  # no longer lets team-hpc in, nor team-llm's old block
        "team-hpc": ["re-addressed", *hpc],  # its servers get /31s; its ports go routed
        "team-llm": ["re-addressed"],  # storage, its peer, still lets its new block in
    }, classes
    assert any("->" in e for e in rows["team-llm"]["evidence"]["re-addressed"])

    code, out, err = lab.run("apply", "--lab", "--auto-approve", capsys=capsys)
    assert code == 1
    assert "Service-affecting: 4 running tenant(s)" in out
    assert out.index("Service-affecting") < out.index("Tenants")
    assert "nothing was pushed" in err and "--allow-disruptive" in err
    assert lab.run("plan", "--lab", "--detailed-exitcode", capsys=capsys)[0] == 2, "nothing moved"

    code, out, err = lab.run("apply", "--lab", "--auto-approve", "--canary", "1", "--json", capsys=capsys)
    assert code == 0, err[-2000:]
    record = json.loads(out)
    assert sorted(record["disruptive"]) == ["intern-01", "storage", "team-hpc", "team-llm"]
    assert record["disruptive"]["intern-01"] == ["removed"]
    assert lab.run("plan", "--lab", "--detailed-exitcode", capsys=capsys)[0] == 0
    assert lab.run("check", "--lab", capsys=capsys)[0] == 0, "every GPU port up, PFC on every lossless port"


def test_l3_to_l2_re_addresses_every_server_nic_and_names_the_one_whose_address_the_gateway_takes(
    small_lab: LabRoot, capsys: pytest.CaptureFixture[str]
) -> None:
    """team-llm goes l3 -> l2: its anycast gateway takes the first address of its block, the
    address its first server NIC held as the far end of its /31. Every NIC is listed old -> new
    in every format, and apply refuses without the explicit flag."""
    lab = small_lab
    assert lab.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
    _edit(lab, "team-llm", r"isolation: l3", "isolation: l2")
    code, out, err = lab.run("plan", "--lab", "--format", "json", capsys=capsys)
    assert code == 0, err[-2000:]
    plan = json.loads(out)
    row = next(t for t in plan["changes"]["tenants"] if t["name"] == "team-llm")
    assert row["classes"][:2] == ["re-addressed", "isolation changed"], row["classes"]
    nics = [r for r in plan["changes"]["readdressed"] if r["tenant"] == "team-llm"]
    gpus = sum(1 for t in plan["changes"]["tenants"] if t["name"] == "team-llm" for _ in range(t["gpus"]))
    assert len(nics) == gpus == 16, nics
    assert all(re.fullmatch(r"172\.20\.11\.\d+/31 via 172\.20\.11\.\d+", r["old"]) for r in nics), nics
    assert {r["new"] for r in nics} == {"a host of 172.20.11.0/27 via 172.20.11.1"}
    first = next(r for r in nics if r["old"].startswith("172.20.11.1/31 "))
    assert first["old"] == "172.20.11.1/31 via 172.20.11.0"
    assert first["new"] == "a host of 172.20.11.0/27 via 172.20.11.1"
    assert first["note"].endswith("takes its address") and "gateway" in first["note"], first
    assert sum(1 for r in nics if r["note"]) == 1
    for fmt in ("text", "markdown", "html"):
        code, shown, _ = lab.run("plan", "--lab", "--format", fmt, capsys=capsys)
        assert code == 0
        for r in nics:
            assert r["nic"] in shown and r["new"] in shown, (fmt, r)
    code, shown, err = lab.run("apply", "--lab", "--auto-approve", capsys=capsys)
    assert code == 1 and "--allow-disruptive" in err and "nothing was pushed" in err, err
    assert "16 server NIC(s) to re-address" in shown
    assert lab.run("plan", "--lab", "--detailed-exitcode", capsys=capsys)[0] == 2, "nothing pushed"
