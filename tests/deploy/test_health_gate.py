"""The apply health gate compares checks by what they are about, not by port names.

A change may rename ports (a 2 x 200G breakout turns FourHundredGigE1/0/47 into
TwoHundredGigE1/0/47:1; new cabling rules put the uplinks on other ports). The gate must still
fail a change that takes a held GPU port or a fabric link down: a GPU is its tenant's server and
NIC, read before at the same physical position; a fabric link is its two ends.
"""

from __future__ import annotations

from pathlib import Path

from fabricctl import pipeline
from fabricctl.compile.build import Compiled
from fabricctl.deploy.health import Check, regressions
from fabricctl.platforms.health import SwitchHealth
from tests.conftest import EOS_SMALL, REFERENCE, copy_fabric


def running(compiled: Compiled, name: str, gpus_up: bool = True) -> SwitchHealth:
    """`name` as it reads when it runs `compiled` and every cable of its plan is in: links up
    with the planned neighbor, sessions up, GPU ports up (or down: not re-cabled yet)."""
    intent = compiled.intents[name]
    state = SwitchHealth()
    for ln in compiled.topology.links:
        for here, port, far, far_port in (
            (ln.leaf, ln.leaf_port, ln.spine, ln.spine_port),
            (ln.spine, ln.spine_port, ln.leaf, ln.leaf_port),
        ):
            if here == name:
                state.ports[port] = (True, True)
                state.lldp[port] = (far, far_port)
    for gp in compiled.topology.gpu_ports.get(name, []):
        state.ports[gp.name] = (True, gpus_up)
    state.bgp = {n.ip: "Established" for n in intent.bgp.neighbors}
    state.vrfs = {v.name for v in intent.vrfs}
    return state


def checks(compiled: Compiled, leaf17: SwitchHealth) -> list[Check]:
    """`check` of leaf17 reading it as `leaf17`."""
    return pipeline.check(
        compiled, compiled.fabric.root, ["leaf17"], read=lambda _: {"leaf17": leaf17}
    ).checks


def fabric(tmp_path: Path, src: Path, old: str = "", new: str = "") -> Compiled:
    root = copy_fabric(src, tmp_path / f"f{len(list(tmp_path.iterdir()))}")
    path = root / "inventory" / "fabric.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    return pipeline.compile(root)


def test_a_breakout_that_leaves_every_gpu_down_fails_the_gate(tmp_path: Path) -> None:
    old = fabric(tmp_path, REFERENCE)
    new = fabric(tmp_path, REFERENCE, "gpu_port_breakout: none", "gpu_port_breakout: 2x200G")
    before = running(old, "leaf17")
    # Pushed, not re-cabled: the lanes exist and are down; by name nothing passed before.
    after = running(new, "leaf17", gpus_up=False)
    held = [c for c in checks(new, after) if c.name == "gpu-port"]
    assert held and not any(c.ok for c in held)
    assert not any(c.ok for c in checks(new, before) if c.name == "gpu-port")
    broken = regressions(new, "leaf17", before, after)
    assert {c.name for c in broken} == {"gpu-port"} and len(broken) == len(held)
    gpu079 = next(c for c in broken if c.subject == "TwoHundredGigE1/0/47:1")
    assert gpu079.key == "uni-nlp gpu079 nic0" and gpu079.seen == "down"
    # Re-cabled to the lanes: every GPU up again, nothing regressed.
    assert regressions(new, "leaf17", before, running(new, "leaf17")) == []
    # Either way round: a breakout taken back is judged the same.
    assert len(
        regressions(old, "leaf17", running(new, "leaf17"), running(old, "leaf17", gpus_up=False))
    ) == len(held)


def test_fabric_links_are_judged_by_their_two_ends(tmp_path: Path) -> None:
    old = fabric(tmp_path, EOS_SMALL)
    before = running(old, "leaf1")
    after = running(old, "leaf1")
    after.ports["Ethernet2"] = (True, False)
    del after.lldp["Ethernet2"]
    broken = regressions(old, "leaf1", before, after)
    assert [(c.name, c.subject, c.seen) for c in broken if c.name == "link"] == [
        ("link", "to spine1", "3 up")
    ]
    # New cabling rules move the uplinks to ports 17-24 the racks do not cable: by name they were
    # down before and are down after; by their ends, 8 links that were up are down.
    new = fabric(tmp_path, EOS_SMALL, "leaf_uplink_ports: 1-8", "leaf_uplink_ports: 17-24")
    moved = running(new, "leaf1")
    for port in list(moved.lldp):
        moved.ports[port] = (True, False)
        del moved.lldp[port]
    links = [c for c in regressions(new, "leaf1", before, moved) if c.name == "link"]
    assert [(c.subject, c.expected, c.seen) for c in links] == [
        ("to spine1", "4 up", "0 up"),
        ("to spine2", "4 up", "0 up"),
    ]
    assert "up before on Ethernet1, Ethernet2, Ethernet3, Ethernet4" in links[0].hint


def test_a_check_that_failed_before_does_not_block(tmp_path: Path) -> None:
    old = fabric(tmp_path, EOS_SMALL)
    down = running(old, "leaf1", gpus_up=False)
    assert regressions(old, "leaf1", down, down) == []
    assert regressions(old, "leaf1", "connection refused", down) == []
