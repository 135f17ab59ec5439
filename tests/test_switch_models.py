"""Switch models are data: a switch's `data.model` decides its port count, speeds, breakouts and
limits, so a 7808R3 chassis spine takes the downlinks a 64-port box cannot."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fabricctl import pipeline
from fabricctl.compile.topology import switch_model
from fabricctl.model.problems import InputError
from fabricctl.platforms import get_platform
from tests.conftest import EOS_SMALL, copy_fabric, render_one

SPINES, LEAVES, PER_SPINE = 16, 64, 2


def _fabric(tmp_path: Path, spine_model: str) -> Path:
    """16 spines x 64 leaves, two uplinks from every leaf to every spine: 128 downlinks per spine."""
    root = copy_fabric(EOS_SMALL, tmp_path / spine_model)
    shutil.rmtree(root / "tenants")
    (root / "tenants").mkdir()
    hosts = ["---"]
    for i in range(1, SPINES + 1):
        hosts += [f"spine{i}:", f"  hostname: 192.0.2.{i}", "  groups: [spine, eos]", "  data:"]
        hosts += [f"    index: {i}", f"    model: {spine_model}"]
    for i in range(1, LEAVES + 1):
        hosts += [f"leaf{i}:", f"  hostname: 192.0.2.{100 + i}", "  groups: [leaf, eos]", "  data:"]
        hosts += [f"    index: {i}"]
    (root / "inventory" / "hosts.yaml").write_text("\n".join(hosts) + "\n", encoding="utf-8")
    fabric = root / "inventory" / "fabric.yaml"
    text = fabric.read_text(encoding="utf-8")
    for old, new in (
        ("leaf_loopbacks: 10.64.0.64/26", "leaf_loopbacks: 10.64.1.0/24"),
        ("vtep_loopbacks: 10.64.0.128/26", "vtep_loopbacks: 10.64.2.0/24"),
        ("p2p_links: 10.64.8.0/24", "p2p_links: 10.64.32.0/19"),
        ("leaf_uplinks_per_spine: 4", f"leaf_uplinks_per_spine: {PER_SPINE}"),
        ("leaf_uplink_ports: 1-8", f"leaf_uplink_ports: 1-{SPINES * PER_SPINE}"),
        ("leaf_gpu_ports: 9-16", "leaf_gpu_ports: 33-36"),
        ("spine_downlink_ports: 1-16", f"spine_downlink_ports: 1-{LEAVES * PER_SPINE}"),
    ):
        assert old in text, old
        text = text.replace(old, new)
    fabric.write_text(text, encoding="utf-8")
    return root


def test_a_chassis_spine_takes_what_a_64_port_box_cannot(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        pipeline.compile(_fabric(tmp_path, "7060X5-64"))
    assert "port 128 is not on spine1, which has 64 ports (Arista EOS 7060X5-64)" in err.value.render()

    compiled = pipeline.compile(_fabric(tmp_path, "7808R3"))
    spine = compiled.fabric.switch("spine1")
    assert spine is not None and switch_model(spine).ports == 288
    downlinks = [ln.spine_port for ln in compiled.topology.links if ln.spine == "spine1"]
    assert len(downlinks) == LEAVES * PER_SPINE
    # Line cards of 36 ports from slot 3: port 1 is Ethernet3/1/1, port 128 the 20th of slot 6.
    assert downlinks[0] == "Ethernet3/1/1" and downlinks[-1] == "Ethernet6/20/1"
    assert len(compiled.topology.unused_ports["spine1"]) == 288 - 128
    config = render_one(compiled.intents["spine1"], compiled.fabric.root)
    assert "interface Ethernet6/20/1" in config
    parsed = get_platform("eos").parse("spine1", config)
    assert "Ethernet6/20/1" in parsed.interfaces


def test_a_switch_model_decides_its_limits(tmp_path: Path) -> None:
    eos = get_platform("eos")
    assert eos.limits_with({}, "7808R3") == eos.model("7808R3").limits
    assert eos.limits_with({"max_vrfs": 7}).max_vrfs == 7  # the fabric's override over the default model
    with pytest.raises(KeyError, match=r"known: 7060X5-64, 7808R3"):
        eos.model("7280R3-48")
