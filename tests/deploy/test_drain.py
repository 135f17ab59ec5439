"""A spine drained and put back while the tenants run, on the lab, for each NOS: `fabricctl drain
--apply` pushes the graceful shutdown as a planned change (record written), no tenant port goes
down, the leaves' ECMP narrows to the other spine's uplinks, the workload's traffic leaves the
spine; `undrain --apply` restores every switch's config byte for byte. A leaf drain is refused,
naming its tenants."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from fabricctl import pipeline
from fabricctl.lab.routing import routing
from fabricctl.lab.traffic import port_traffic
from tests.conftest import EOS_SMALL, NVUE_SMALL

from .conftest import LabRoot, _lab_root


@pytest.fixture(params=["eos", "comware", "nvue"])
def running(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[LabRoot]:
    """A small fabric of each NOS, applied, its tenants at work. Two spines: a spine drain takes
    half of every leaf's uplinks, so the floor is set to allow it (the reference fabric's 16
    spines keep 30 of 32: tests/test_maintenance.py)."""
    platform = request.param
    src = NVUE_SMALL if platform == "nvue" else EOS_SMALL
    for lab_root in _lab_root(src, tmp_path, monkeypatch, "comware" if platform == "comware" else None):
        fabric = lab_root.root / "inventory" / "fabric.yaml"
        fabric.write_text(
            fabric.read_text(encoding="utf-8") + "drain:\n  max_bandwidth_loss: 0.5\n", encoding="utf-8"
        )
        yield lab_root


def _sent(c: LabRoot, switch: str) -> int:
    """Unicast packets the switch's fabric ports have sent, by the lab's counters."""
    state = c.lab.state()
    now = c.lab.call(c.lab.clock.now)
    return sum(port_traffic(state, switch, p, now).tx_packets for p in state.facts[switch].ports)


def _widths(c: LabRoot, leaf: str) -> set[int]:
    """The leaf's ECMP width towards every other leaf's VTEP, as its routes hold it."""
    state = c.lab.state()
    rib = routing(state).routes(leaf)["default"]
    vteps = [f.vtep for n, f in state.facts.items() if f.vtep is not None and n != leaf]
    return {len(r.hops) for p, r in rib.items() if p.prefixlen == 32 and p.network_address in vteps}


def test_a_spine_drained_while_tenants_run_and_put_back(
    running: LabRoot, capsys: pytest.CaptureFixture[str]
) -> None:
    c = running
    assert c.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
    compiled = pipeline.compile(c.root)
    uplinks = sum(1 for ln in compiled.topology.links if ln.leaf == "leaf1")
    to_spine1 = sum(1 for ln in compiled.topology.links if ln.leaf == "leaf1" and ln.spine == "spine1")
    before = {n: c.running(n) for n in c.lab.devices}
    assert _widths(c, "leaf1") == {uplinks}
    c.lab.set_workload()
    c.lab.advance(10)
    assert _sent(c, "spine1") > 0  # the tenants' traffic crosses both spines

    code, out, err = c.run(
        "drain", "spine1", "--reason", "OS upgrade", "--apply", "--lab", "--auto-approve", capsys=capsys
    )
    assert code == 0, out + err
    assert f"{uplinks} -> {uplinks - to_spine1}" in out  # the proof, before anything was pushed
    assert "spine1  changed" in out and "changed: spine1\n" in out  # the spine alone
    records = sorted((c.root / ".fabricctl" / "runs").glob("*.json"))
    record = json.loads(records[-1].read_text(encoding="utf-8"))
    assert record["switches"]["spine1"]["status"] == "changed"

    assert _widths(c, "leaf1") == {uplinks - to_spine1}  # every path through spine1 lost best-path
    sent = _sent(c, "spine1")
    c.lab.advance(10)
    assert _sent(c, "spine1") == sent  # traffic has left the drained spine
    code, out, _ = c.run("check", "--lab", "--format", "json", capsys=capsys)
    checks = json.loads(out)["checks"]
    assert code == 0, [x for x in checks if not x["ok"]]  # no tenant port down, nothing broken
    assert all(x["ok"] for x in checks if x["name"] == "gpu-port")
    for x in (x for x in checks if x["name"] == "ecmp"):  # where the NOS shows its routes
        assert x["expected"] == f"{uplinks - to_spine1} path(s) each ({to_spine1} uplink(s) drained)"
    assert c.run("plan", "--lab", "--detailed-exitcode", capsys=capsys)[0] == 0  # a later apply keeps it

    code, out, err = c.run("undrain", "spine1", "--apply", "--lab", "--auto-approve", capsys=capsys)
    assert code == 0, out + err
    assert not (c.root / "maintenance.yaml").exists()
    assert {n: c.running(n) for n in c.lab.devices} == before  # byte for byte
    assert _widths(c, "leaf1") == {uplinks}
    sent = _sent(c, "spine1")
    c.lab.advance(10)
    assert _sent(c, "spine1") > sent  # back in the forwarding path


def _port_sent(c: LabRoot, switch: str, port: str) -> int:
    state = c.lab.state()
    return port_traffic(state, switch, port, c.lab.call(c.lab.clock.now)).tx_packets


def test_an_optic_replaced_under_a_drained_link(running: LabRoot, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/maintenance.md "Replace an optic": the link drained at both ends while tenants run,
    its traffic gone, the optic pulled (the link down moves nothing), put back, undrained: every
    switch runs its configuration as before, byte for byte."""
    c = running
    assert c.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
    compiled = pipeline.compile(c.root)
    link = next(ln for ln in compiled.topology.links if ln.leaf == "leaf1")
    uplinks = sum(1 for ln in compiled.topology.links if ln.leaf == "leaf1")
    ends = [("leaf1", link.leaf_port), (link.spine, link.spine_port)]
    before = {n: c.running(n) for n in c.lab.devices}
    c.lab.set_workload()
    c.lab.advance(10)
    assert all(_port_sent(c, *end) > 0 for end in ends)  # the workload crosses the link both ways

    target = f"leaf1:{link.leaf_port}"
    code, out, err = c.run(
        "drain", target, "--reason", "optic replacement", "--apply", "--lab", "--auto-approve", capsys=capsys
    )
    assert code == 0, out + err
    assert f"{uplinks} -> {uplinks - 1}" in out
    assert re.search(r"\bleaf1 +changed", out) and re.search(rf"\b{link.spine} +changed", out)
    assert "2 changed," in out  # both ends, nothing else
    assert _widths(c, "leaf1") == {uplinks - 1}
    sent = [_port_sent(c, *end) for end in ends]
    c.lab.advance(10)
    assert [_port_sent(c, *end) for end in ends] == sent  # nothing crosses the drained link

    c.lab.set_faults("leaf1", links_down=[link.leaf_port])  # the optic pulled
    c.lab.advance(10)
    assert _widths(c, "leaf1") == {uplinks - 1}  # the link going down moved nothing
    c.lab.set_faults("leaf1", links_down=[])  # the new optic in
    c.lab.advance(10)
    code, out, _ = c.run("check", "--lab", "--format", "json", capsys=capsys)
    assert code == 0, [x for x in json.loads(out)["checks"] if not x["ok"]]

    code, out, err = c.run("undrain", target, "--apply", "--lab", "--auto-approve", capsys=capsys)
    assert code == 0, out + err
    assert {n: c.running(n) for n in c.lab.devices} == before
    assert _widths(c, "leaf1") == {uplinks}
    sent = [_port_sent(c, *end) for end in ends]
    c.lab.advance(10)
    assert all(_port_sent(c, *end) > n for end, n in zip(ends, sent, strict=True))


def test_a_leaf_drain_is_refused_naming_its_tenants(
    running: LabRoot, capsys: pytest.CaptureFixture[str]
) -> None:
    c = running
    code, out, err = c.run("drain", "leaf1", "--apply", "--lab", "--auto-approve", capsys=capsys)
    assert code == 1
    assert "a drained leaf takes its GPUs off the fabric" in err and "maintenance.yaml unchanged" in err
    compiled = pipeline.compile(c.root)
    on_leaf1 = sorted(a.tenant.name for a in compiled.allocation.by_leaf["leaf1"])
    assert on_leaf1 and all(f"{t} (" in err for t in on_leaf1)
    assert "cut off (drained leaf): tenant" in out
    assert not (c.root / "maintenance.yaml").exists()
    assert not (c.root / ".fabricctl" / "runs").exists()  # nothing was planned or pushed


def test_a_checkout_without_the_drain_never_undrains_silently(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A drained spine whose maintenance.yaml entry is missing (a checkout from before the drain,
    or a hand edit): the plan names it going back into service and apply refuses until the
    operator names it with --allow-undrain."""
    for c in _lab_root(EOS_SMALL, tmp_path, monkeypatch, None):
        fabric = c.root / "inventory" / "fabric.yaml"
        fabric.write_text(fabric.read_text(encoding="utf-8") + "drain:\n  max_bandwidth_loss: 0.5\n")
        assert c.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
        before = {n: c.running(n) for n in c.lab.devices}
        code, out, err = c.run("drain", "spine1", "--apply", "--lab", "--auto-approve", capsys=capsys)
        assert code == 0, out + err
        drained = {n: c.running(n) for n in c.lab.devices}
        (c.root / "maintenance.yaml").unlink()  # the stale checkout

        code, out, _ = c.run("plan", "--lab", capsys=capsys)
        assert "! back into the forwarding path: spine1 (the switches run drained" in out
        code, out, err = c.run(
            "apply", "--lab", "--auto-approve", "--allow-undrain", "leaf2:Ethernet5", capsys=capsys
        )
        assert code == 1 and "puts spine1 back into the forwarding path" in err, out + err
        assert "apply with --allow-undrain spine1;" in err and "nothing was pushed" in err
        assert {n: c.running(n) for n in c.lab.devices} == drained  # still drained

        code, out, err = c.run("apply", "--lab", "--auto-approve", "--allow-undrain", "spine1", capsys=capsys)
        assert code == 0, out + err
        assert {n: c.running(n) for n in c.lab.devices} == before
