"""SONiC's fetch, plan and push (platforms/sonic: terminal.py, plan.py, push.py) against the lab's
SONiC twin: a leaf of the sonic-small golden fabric planned from the factory config, applied
(checkpoint, apply-patch, vtysh, read back, save), re-planned with nothing left, a tenant removed
(its rows and FRR blocks gone, every other row and the platform's own fields kept), and a push
the Generic Config Updater refuses rolled back to its checkpoint.

The push is driven here as deploy drives a NOS's `PUSHER` (tests/test_sonic_lifecycle.py runs it
through the CLI); the tenant's removal is the leaf's golden document with team-llm's rows and FRR blocks taken out."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fabricctl.lab import DeviceSpec, LabClock, LabFabric
from fabricctl.lab.devices.sonic import NOS
from fabricctl.lab.nos import known, register, unregister
from fabricctl.platforms.push import PushRequest, Target, running_hash
from fabricctl.platforms.sonic.document import split
from fabricctl.platforms.sonic.plan import frr_tree, sonic_diff
from fabricctl.platforms.sonic.push import PUSHER
from fabricctl.platforms.sonic.rules import DIALECT
from tests.conftest import GOLDEN
from tests.lab.conftest import PASSWORD, USER

FABRIC = "nvue-small"
DIALECT_FABRIC = DIALECT.for_fabric(FABRIC)
LEAF = (GOLDEN / "sonic-small" / "leaf1.cfg").read_text(encoding="utf-8")
LLM = "172.21.11.0/27"


def _without_llm(text: str) -> str:
    """leaf1's document with tenant team-llm removed: its ACL, VLAN, VRF and VNI map gone, its
    ports down and out of its VRF, the rules and route target that let others reach it gone."""
    db, frr, _ = split("leaf1", text)
    db = copy.deepcopy(db)
    for table in ("ACL_TABLE", "ACL_RULE"):
        db[table] = {
            k: r
            for k, r in db[table].items()
            if not k.startswith("tnt-team-llm-in") and LLM not in (r.get("SRC_IP"), r.get("DST_IP"))
        }
    for port in ("Ethernet64", "Ethernet72", "Ethernet80", "Ethernet88"):
        db["PORT"][port]["admin_status"] = "down"
        del db["PORT"][port]["description"]
        db["INTERFACE"] = {k: r for k, r in db["INTERFACE"].items() if k.partition("|")[0] != port}
    db["VLAN"].pop("Vlan3011")
    db["VLAN_INTERFACE"] = {k: r for k, r in db["VLAN_INTERFACE"].items() if not k.startswith("Vlan3011")}
    db["VRF"].pop("Vrf-team-llm")
    db["VXLAN_TUNNEL_MAP"].pop("vtep1|map_50011_Vlan3011")
    gone = ("vrf Vrf-team-llm", "router bgp 65311 vrf Vrf-team-llm")
    chunks = [c for c in frr.split("!\n") if c.split("\n", 1)[0] not in gone]
    out = "!\n".join(chunks).replace("  route-target import 65300:50011\n", "").splitlines()
    return json.dumps(db, indent=4, sort_keys=True) + "\n" + "\n".join(out) + "\n"


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[LabFabric]:
    ours = "sonic" not in known()  # its entry point registers it once installed
    if ours:
        register(NOS)
    try:
        specs = [DeviceSpec("leaf1", "sonic", mgmt_ip="192.0.2.11")]
        with LabFabric(specs, state_dir=tmp_path / "state", clock=LabClock.frozen()) as fabric:
            yield fabric
    finally:
        if ours:
            unregister("sonic")


def _target(lab: LabFabric) -> Target:
    ep = lab.endpoints()["leaf1"]
    return Target("leaf1", "sonic", ep.host, ep.ssh_port, USER, PASSWORD)


class FailingGate:
    """A health gate whose check fails after the change."""

    def __init__(self) -> None:
        self.read = False

    def before(self) -> None:
        self.read = True

    def after(self) -> str | None:
        return "bgp 10.65.8.0: Established before, Idle now"


def _push(target: Target, intended: str, gate: FailingGate | None = None) -> tuple[str, Any]:
    running = PUSHER.fetch(target)
    plan = sonic_diff("leaf1", running, intended, DIALECT_FABRIC)
    request = PushRequest(
        plan.commands,
        intended,
        DIALECT_FABRIC,
        running_hash(running),
        run_id="test",
        differ=sonic_diff,
        gate=gate,
    )
    return plan.diff, PUSHER.push(target, request)


def test_a_leaf_applied_replanned_clean_and_a_tenant_removed(lab: LabFabric) -> None:
    target = _target(lab)
    factory = PUSHER.fetch(target)
    diff, result = _push(target, LEAF)
    assert result.status == "changed", result.message
    assert "+ add /VXLAN_EVPN_NVO" in diff and "+ router bgp 65311" in diff
    running = PUSHER.fetch(target)
    assert not sonic_diff("leaf1", running, LEAF, DIALECT_FABRIC).changed
    db, frr, _ = split("leaf1", running)
    assert (
        db["PORT"]["Ethernet504"] == split("leaf1", factory)[0]["PORT"]["Ethernet504"]
    )  # a port not cabled: untouched
    assert db["PORT"]["Ethernet0"]["alias"] == "etp1"  # the platform's own field stays
    assert frr_tree(frr).children.keys() >= frr_tree(split("leaf1", LEAF)[1]).children.keys()
    # saved: the startup CONFIG_DB is the running one
    assert split("leaf1", lab.devices["leaf1"].startup)[0] == db

    removed = _without_llm(LEAF)
    diff, result = _push(target, removed)
    assert result.status == "changed", result.message
    assert "- remove /VRF/Vrf-team-llm" in diff and "- router bgp 65311 vrf Vrf-team-llm" in diff
    running = PUSHER.fetch(target)
    assert not sonic_diff("leaf1", running, removed, DIALECT_FABRIC).changed, sonic_diff(
        "leaf1", running, removed, DIALECT_FABRIC
    ).diff
    db, frr, _ = split("leaf1", running)
    assert "Vrf-team-llm" not in json.dumps(db) and "Vrf-team-llm" not in frr
    assert db["MGMT_INTERFACE"] == {"eth0|192.0.2.11/24": {}}  # a foreign row stays


def test_a_patch_the_models_refuse_is_rolled_back_to_its_checkpoint(lab: LabFabric) -> None:
    target = _target(lab)
    before = PUSHER.fetch(target)
    db, frr, _ = split("leaf1", LEAF)
    db["PORT"]["Ethernet0"]["mtu"] = "jumbo"
    bad = json.dumps(db, indent=4, sort_keys=True) + "\n" + frr
    _, result = _push(target, bad)
    assert result.status == "rolled back", result.message
    assert "Given patch will produce invalid config" in result.message
    assert PUSHER.fetch(target) == before


def test_a_switch_changed_since_the_plan_is_refused(lab: LabFabric) -> None:
    target = _target(lab)
    plan = sonic_diff("leaf1", PUSHER.fetch(target), LEAF, DIALECT_FABRIC)
    request = PushRequest(plan.commands, LEAF, DIALECT_FABRIC, "0" * 64, differ=sonic_diff)
    result = PUSHER.push(target, request)
    assert result.status == "failed" and "changed since the plan" in result.message


def test_a_change_the_health_gate_fails_goes_back_to_the_checkpoint_and_the_frr_before(
    lab: LabFabric,
) -> None:
    """CONFIG_DB back by `config rollback`, frr.conf back by the vtysh lines that undo the change."""
    target = _target(lab)
    _, result = _push(target, LEAF)
    assert result.status == "changed", result.message
    before = PUSHER.fetch(target)
    gate = FailingGate()
    _, result = _push(target, _without_llm(LEAF), gate)
    assert gate.read
    assert result.status == "rolled back" and result.stage == "health", result.message
    assert "rolled back to checkpoint fabricctl-test-" in result.message
    now = PUSHER.fetch(target)
    assert split("leaf1", now)[0] == split("leaf1", before)[0]
    # frr.conf holds the same lines (vtysh appends a block added back after the others)
    assert not sonic_diff("leaf1", now, before, DIALECT_FABRIC).changed
    assert sorted(split("leaf1", now)[1].splitlines()) == sorted(split("leaf1", before)[1].splitlines())
