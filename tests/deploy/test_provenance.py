"""fabricctl removes only what it can prove it made, on both platforms (docs/plan-apply.md).

On a lab switch that fabricctl configured, an operator adds by hand: objects of their own (a
VRF, an ACL, a VSI or VLAN and its SVI, a VRF under BGP, a VXLAN mapping), look-alikes named
like fabricctl's (`tnt-ops-oob`, `tnt-snmp-in`, `tnt-team-llm-in-ops`, `tnt-legacy`, a VLAN
named `tnt-ops`), an object carrying another fabric's mark, and a description on a port the
cabling plan does not use. Apply and a tenant's removal leave all of it exactly as it was; the
plan lists the look-alikes; `plan --prune` removes them and nothing else.
"""

from __future__ import annotations

import json

import pytest

from fabricctl import pipeline
from fabricctl.config.diff import Node, diff_device, owned_view, ownership, parse_config
from fabricctl.platforms import get_platform
from tests.conftest import render_one

from .conftest import LabRoot

VICTIM = "leaf3"  # intern-01 lands here, alone
OUTSIDE = 40  # a front-panel port eos-small's cabling plan does not use


def operators_own(platform: str, asn: int) -> list[str]:
    """Objects shaped like tenant objects, named as the operator names things."""
    if platform == "comware":
        return [
            "ip vpn-instance oob",
            "route-distinguisher 192.0.2.1:1",
            "acl advanced name snmp-in",
            "rule 5 permit ip source 192.0.2.0 0.0.0.255 destination 192.0.2.0 0.0.0.255",
            "vsi legacy-ops",
            "vxlan 9000",
            "interface Vsi-interface50",
            "ip binding vpn-instance oob",
            "ip address 192.0.2.129 255.255.255.128",
            f"bgp {asn}",
            "ip vpn-instance oob",
            "address-family ipv4 unicast",
            "import-route direct",
        ]
    return [
        "vrf instance oob",
        "ip routing vrf oob",
        "ip access-list snmp-in",
        "10 permit ip 192.0.2.0/24 192.0.2.0/24",
        "vlan 3000",
        "name legacy",
        "interface Vlan3000",
        "vrf oob",
        "ip address 192.0.2.129/25",
        "interface Vxlan1",
        "vxlan vlan 3000 vni 3000",
        f"router bgp {asn}",
        "vrf oob",
        "rd 192.0.2.1:1",
    ]


def look_alikes(platform: str, asn: int) -> tuple[list[str], list[str]]:
    """(lines, the objects a plan lists): named like fabricctl's, without this fabric's mark."""
    port = get_platform(platform).port_name(OUTSIDE, None)
    if platform == "comware":
        lines = [
            "ip vpn-instance tnt-ops-oob",
            "route-distinguisher 192.0.2.2:1",
            "ip vpn-instance tnt-other",
            "description fabricctl other-fabric tenant other",
            "acl advanced name tnt-snmp-in",
            "rule 5 permit ip source 192.0.2.0 0.0.0.255 destination 192.0.2.0 0.0.0.255",
            "acl advanced name tnt-team-llm-in-ops",
            "rule 5 permit ip source 192.0.2.0 0.0.0.255 destination 192.0.2.0 0.0.0.255",
            "vsi tnt-legacy",
            "vxlan 9001",
            "vlan 3000",
            "name tnt-ops",  # a VLAN is no tenant object on Comware: the operator's, not listed
            f"interface {port}",
            "description rack 7 console",
        ]
        listed = [
            "ip vpn-instance tnt-ops-oob",
            "ip vpn-instance tnt-other",
            "acl advanced name tnt-snmp-in",
            "acl advanced name tnt-team-llm-in-ops",
            "vsi tnt-legacy",
        ]
        return lines, listed
    lines = [
        "vrf instance tnt-ops-oob",
        "ip routing vrf tnt-ops-oob",
        "vrf instance tnt-other",
        "description fabricctl other-fabric tenant other",
        "ip access-list tnt-snmp-in",
        "10 permit ip 192.0.2.0/24 192.0.2.0/24",
        "ip access-list tnt-team-llm-in-ops",
        "10 permit ip 192.0.2.0/24 192.0.2.0/24",
        "vlan 3001",
        "name tnt-ops",
        f"router bgp {asn}",
        "vrf tnt-ops-oob",
        "rd 192.0.2.2:1",
        f"interface {port}",
        "description rack 7 console",
    ]
    listed = [
        "ip access-list tnt-snmp-in",
        "ip access-list tnt-team-llm-in-ops",
        "vrf instance tnt-ops-oob",
        "vrf instance tnt-other",
        "vlan 3001",
        "ip routing vrf tnt-ops-oob",
    ]
    return lines, listed


def foreign(lab: LabRoot, text: str, prune: bool = False) -> list[str]:
    """Every line of a switch's config that fabricctl does not own next to its intended config
    (with `prune`: that a pruning plan leaves alone), with its parents, as paths."""
    compiled = pipeline.compile(lab.root)
    intent = compiled.intents[VICTIM]
    dialect = get_platform(intent.platform).dialect.for_fabric(compiled.fabric.settings.name)
    tree = parse_config(text, dialect)
    proof = ownership(tree, dialect, parse_config(render_one(intent, lab.root), dialect))
    owned = owned_view(tree, dialect, proof, prune)
    out: list[str] = []

    def walk(node: Node, mine: Node | None, path: str) -> None:
        for line, child in node.children.items():
            here = f"{path} > {line}" if path else line
            sub = mine.children.get(line) if mine is not None else None
            if sub is None:
                out.append(here)
            walk(child, sub, here)

    walk(tree, owned, "")
    return out


@pytest.mark.parametrize("small_lab", ["comware", "eos"], indirect=True)
def test_only_what_fabricctl_made_is_removed(small_lab: LabRoot, capsys: pytest.CaptureFixture[str]) -> None:
    lab = small_lab
    platform = lab.lab.devices[VICTIM].platform
    assert lab.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
    asn = pipeline.compile(lab.root).intents[VICTIM].bgp.asn
    alike_lines, listed = look_alikes(platform, asn)
    lab.lab.device(VICTIM).configure(alike_lines + operators_own(platform, asn))
    hand_made = foreign(lab, lab.running(VICTIM))
    for needle in ("oob", "snmp-in", "tnt-ops-oob", "tnt-other", "rack 7 console"):
        assert any(needle in line for line in hand_made), needle

    code, out, _ = lab.run("plan", "--lab", "--detailed-exitcode", capsys=capsys)
    assert code == 0, out
    assert f"? {VICTIM} holds " in out and "which no tenant declares: --prune to remove them" in out
    code, out, _ = lab.run("plan", "--lab", "--format", "json", capsys=capsys)
    assert sorted(json.loads(out)["switches"][VICTIM]["lookalikes"]) == sorted(listed)

    (lab.root / "tenants" / "intern-01.yaml").unlink()  # a tenant on leaf3 goes: its objects go
    assert lab.run("apply", "--lab", "--auto-approve", "--allow-disruptive", capsys=capsys)[0] == 0
    after = lab.running(VICTIM)
    assert "tnt-intern-01" not in after
    assert foreign(lab, after) == hand_made, "every hand-made line exactly as it was"
    assert lab.run("plan", "--lab", "--detailed-exitcode", capsys=capsys)[0] == 0

    plan_file = lab.root / "prune.json"
    code, out, _ = lab.run("plan", "--lab", "--prune", "-o", str(plan_file), capsys=capsys)
    assert code == 0 and "removed (--prune)" in out
    assert (
        lab.run(
            "apply", str(plan_file), "--lab", "--prune", "--auto-approve", "--allow-disruptive", capsys=capsys
        )[0]
        == 0
    )
    pruned = lab.running(VICTIM)
    assert foreign(lab, pruned) == foreign(lab, after, prune=True), "only the look-alikes went"
    assert not any(line in pruned.splitlines() for line in listed)
    assert "rack 7 console" in pruned and ("vrf instance oob" in pruned or "ip vpn-instance oob" in pruned)
    code, out, _ = lab.run("plan", "--lab", "--detailed-exitcode", capsys=capsys)
    assert code == 0 and "--prune" not in out


@pytest.mark.parametrize("small_lab", ["comware", "eos"], indirect=True)
def test_a_free_gpu_port_returns_to_the_secure_default(
    small_lab: LabRoot, capsys: pytest.CaptureFixture[str]
) -> None:
    """A port the cabling plan gives a GPU is fabricctl's even when no tenant holds it: shut down,
    described by its server and NIC, whatever was typed on it by hand."""
    lab = small_lab
    assert lab.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
    intent = pipeline.compile(lab.root).intents[VICTIM]
    free = next(i for i in intent.interfaces if i.role == "gpu" and not i.tenant)
    no_shutdown = get_platform(intent.platform).dialect.negate("shutdown")
    assert no_shutdown is not None
    lab.lab.device(VICTIM).configure([f"interface {free.name}", "description spare, borrowed", no_shutdown])
    code, out, _ = lab.run("plan", "--lab", "--detailed-exitcode", "--limit", VICTIM, capsys=capsys)
    assert code == 2 and f"description {free.description}" in out and "shutdown" in out
    assert lab.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
    assert lab.run("plan", "--lab", "--detailed-exitcode", capsys=capsys)[0] == 0


@pytest.mark.parametrize("small_lab", ["comware", "eos"], indirect=True)
def test_a_fabric_deployed_without_marks_is_adopted(
    small_lab: LabRoot, capsys: pytest.CaptureFixture[str]
) -> None:
    """The migration of docs/plan-apply.md: switches configured (and saved) by a release that did
    not mark its objects, and a tenant removed before the upgrade's first apply."""
    lab = small_lab
    assert lab.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
    compiled = pipeline.compile(lab.root)
    configs = pipeline.render(compiled.intents, lab.root)
    mark = f"fabricctl {compiled.fabric.settings.name} tenant"
    for name, intent in compiled.intents.items():  # every switch as an older release left it
        dialect = get_platform(intent.platform).dialect.for_fabric(compiled.fabric.settings.name)
        unmarked = "".join(ln for ln in configs[name].splitlines(keepends=True) if mark not in ln)
        device = lab.lab.device(name)
        commands = diff_device(name, lab.running(name), unmarked, dialect).commands
        device.configure(c for c in commands if c.strip() not in ("exit", "quit"))
        lab.lab.call(device.raw.save)
        assert mark not in lab.running(name)
    (lab.root / "tenants" / "intern-01.yaml").unlink()

    code, out, _ = lab.run("plan", "--lab", "--format", "json", capsys=capsys)
    plan = json.loads(out)
    for name, sp in plan["switches"].items():
        changed = [ln for ln in sp["diff"].splitlines()[2:] if ln[:1] in "+-"]
        if name != VICTIM:  # adopted: the mark is the only change
            assert all(ln.startswith("+") and mark in ln for ln in changed), (name, changed)
    gone = plan["switches"][VICTIM]["lookalikes"]
    assert gone and all("tnt-intern-01" in obj or obj.startswith(("vlan ", "interface V")) for obj in gone), (
        gone
    )
    assert lab.run("apply", "--lab", "--auto-approve", "--allow-disruptive", capsys=capsys)[0] == 0
    assert "tnt-intern-01" in lab.running(VICTIM), "unproven: kept until pruned"

    plan_file = lab.root / "prune.json"
    assert lab.run("plan", "--lab", "--prune", "-o", str(plan_file), capsys=capsys)[0] == 0
    assert (
        lab.run(
            "apply", str(plan_file), "--lab", "--prune", "--auto-approve", "--allow-disruptive", capsys=capsys
        )[0]
        == 0
    )
    assert "tnt-intern-01" not in lab.running(VICTIM)
    code, out, _ = lab.run("plan", "--lab", "--detailed-exitcode", capsys=capsys)
    assert code == 0 and "which no tenant declares" not in out
