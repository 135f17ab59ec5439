"""A rack added to a pod in service: the plan changes only the new links' ports and the BGP
sessions with the new switches on the switches in service, proves no tenant's config changes, and
applies to the new rack and those ports only (`--limit rack:r02`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.day0.helpers import BootedPod, grown_pod
from tests.day0.test_accept import accept

pytestmark = pytest.mark.lab
LONG = ("--confirm-timeout", "3000")


@pytest.fixture
def pod(tmp_path: Path, capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    with grown_pod(tmp_path / "pod") as grown:
        assert accept(grown, "r01").ok
        code, _, err = grown.run("tenant", "new", "t1", "--gpus", "8", capsys=capsys)
        assert code == 0, err
        limit = ("--limit", "leaf1,leaf2,leaf3,leaf4")
        code, out, err = grown.run("apply", "--lab", "--auto-approve", *limit, *LONG, capsys=capsys)
        assert code == 0, out + err
        yield grown


def plan(pod: BootedPod, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[str, dict]:  # type: ignore[type-arg]
    out_file = pod.root / "plan.json"
    code, out, err = pod.run("plan", "--lab", *argv, "-o", str(out_file), capsys=capsys)
    assert code == 0, out + err
    return out, json.loads(out_file.read_text(encoding="utf-8"))


def test_new_rack_changes_only_its_links_ports_on_switches_in_service(
    pod: BootedPod, capsys: pytest.CaptureFixture[str]
) -> None:
    out, saved = plan(pod, capsys, "--limit", "rack:r02")
    racks = saved["changes"]["racks"]
    assert racks["ok"], racks["violations"]
    assert racks["racks"] == ["r02"] and racks["existing"] == ["spine1", "spine2"]
    assert racks["ports"] == 32 and racks["port_lines"] > 0 and racks["session_lines"] > 0
    assert sorted(saved["selected"]) == ["leaf5", "leaf6", "leaf7", "leaf8", "spine1", "spine2"]
    assert (
        "✓ racks r02 (not accepted): on 2 switch(es) in service (spine1, spine2) only the new links' ports"
        in out
    )
    spine = saved["switches"]["spine1"]["diff"]
    assert "interface Ethernet17" in spine and "interface Ethernet1\n" not in spine
    code, out, err = pod.run("apply", "--lab", "--auto-approve", "--limit", "rack:r02", *LONG, capsys=capsys)
    assert code == 0, out + err
    result = accept(pod, "r02")
    assert result.ok, [c for c in result.failures if c.name != "optic"]
    code, out, _ = pod.run("show", "free", capsys=capsys)
    assert "Free GPU ports: 56 of 64" in out and "not accepted" not in out
    code, out, err = pod.run("tenant", "new", "t2", "--gpus", "32", capsys=capsys)
    assert code == 0, err  # the new rack's GPUs are placed


def test_a_change_beyond_the_new_links_is_named(pod: BootedPod, capsys: pytest.CaptureFixture[str]) -> None:
    fabric = pod.root / "inventory" / "fabric.yaml"
    text = fabric.read_text(encoding="utf-8")
    fabric.write_text(
        text.replace("ecn_max_mark_probability: 20", "ecn_max_mark_probability: 30"), encoding="utf-8"
    )
    out, saved = plan(pod, capsys, "--limit", "rack:r02")
    racks = saved["changes"]["racks"]
    assert not racks["ok"]
    assert any(
        v.startswith("spine1: -random-detect ecn")
        and v.endswith("is neither a new link's port nor a session with a new switch")
        for v in racks["violations"]
    ), racks["violations"]
    assert "✗ racks r02 (not accepted): on 2 switch(es) in service" in out


def test_a_tenant_change_while_racks_arrive_is_no_expansion(
    pod: BootedPod, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = pod.run("tenant", "new", "t3", "--gpus", "4", capsys=capsys)
    assert code == 0, err
    out, saved = plan(pod, capsys, "--limit", "leaf1,leaf2,leaf3,leaf4")
    assert (
        saved["switches"]["leaf1"]["status"] == "changed" or saved["switches"]["leaf2"]["status"] == "changed"
    )
    assert "racks" not in saved["changes"] and "Racks" not in out
