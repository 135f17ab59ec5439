"""PFC headroom by SONiC's formula from each switch model's figures, both ends of every fabric link
sized for the same link, and RoCE through VXLAN per switch model (a line, a documented default, or
an assumption listed): on one NOS and across NOSes (examples/mixed-pods: Comware and NVUE)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabricctl import pipeline
from fabricctl.compile.buffers import headroom, link_sizing, lossless_port
from fabricctl.compile.build import Compiled
from fabricctl.compile.topology import switch_model
from fabricctl.config.readback import TUNNEL_CLASS, TUNNEL_MARKING
from fabricctl.model.fabric import BufferModel
from fabricctl.platforms import get_platform
from fabricctl.platforms.base import BufferFigures
from fabricctl.platforms.nvue.parse import parse_nvue
from tests.conftest import REPO, copy_fabric, run_cli

from .mutate import Edit, apply

#: The reference fabric's `qos.buffer` (inventory/fabric.yaml): stand-ins, SONiC's buffer design example.
FABRIC_FIGURES = BufferFigures(
    cell_bytes=144, pipeline_latency_bytes=18432, mac_phy_delay_bytes=820, source=""
)
PORT_MTU = 9000 + 18  # IP MTU 9000 + Ethernet header and FCS
ROCE_FRAME = 4096 + 64 + 50 + 18  # RDMA payload + RoCEv2 headers + VXLAN + Ethernet


def test_an_eight_lane_400g_port_is_sized_as_sonic_sizes_it() -> None:
    """400G-8 on a 40 m cable, every step worked by hand from buffer_headroom_mellanox.lua:
    worst case factor ceil(144 / 64) = 3, and at 100% small packets the cell occupancy is 3;
    bytes on cable 2 * 40 * 400e9 / 198e6 / 8 = 20,202.02; peer response 905 quanta * 64 = 57,920;
    propagation 9,018 + 20,202.02 + 820 + 57,920 = 87,960.02;
    xoff ceil1024(4,228 + 3 * 87,960.02 = 268,108.06) = 268,288;
    xon ceil1024(2 * 18,432) = 36,864 (8 lanes: the pipeline twice);
    size ceil1024(268,288 + 36,864 + 9,018) = 314,368 (8 lanes: one more port MTU)."""
    h = headroom(FABRIC_FIGURES, 400, 8, 40, PORT_MTU, ROCE_FRAME, 100, 905)
    assert (h.xoff, h.xon, h.size) == (268_288, 36_864, 314_368)
    assert -(-h.size // 144) == 2184  # the cells `priority-flow-control dot1p 3 headroom` takes


def test_a_four_lane_breakout_port_has_no_eight_lane_terms() -> None:
    """200G-4 (a 400G port split in two): pipeline once, no extra port MTU; 453 quanta.
    cable 10,101.01; peer 28,992; propagation 48,931.01; xoff ceil1024(151,021.03) = 151,552;
    xon 18,432; size 169,984."""
    s9825 = get_platform("comware").model("S9825-64D")
    assert s9825.serdes(400) == 8 and s9825.serdes(200) == 4
    h = headroom(FABRIC_FIGURES, 200, s9825.serdes(200), 40, PORT_MTU, ROCE_FRAME, 100, 453)
    assert (h.xoff, h.xon, h.size) == (151_552, 18_432, 169_984)


def test_a_smaller_small_packet_share_is_compensated_as_sonic_does() -> None:
    """50% small packets: by byte 100 * 64 / ((50 * 64 + 50 * 4,228) / 100) = 2.98%, occupancy
    1.0596; xoff ceil1024(4,228 + 1.0596 * 87,960.02) = 98,304, more than 2 KB below the worst
    case's 268,288, so 2 KB more: 100,352; size ceil1024(100,352 + 36,864 + 9,018) = 146,432."""
    h = headroom(FABRIC_FIGURES, 400, 8, 40, PORT_MTU, ROCE_FRAME, 50, 905)
    assert (h.xoff, h.size) == (100_352, 146_432)


def test_spectrum4_figures_are_the_models_own() -> None:
    """SN5600 (Spectrum-4): cell 192, pipeline 19 KB, MAC/PHY 0.8 KB, 15 bytes on tile per Gb/s,
    905 quanta at 800G. 800G-8 on 40 m: cable 40,404.04, tile 12,000, propagation 120,161.24;
    xoff ceil1024(4,228 + 3 * 120,161.24) = 365,568; xon 38,912; size 413,696."""
    sn5600 = get_platform("nvue").model("SN5600")
    assert sn5600.buffer is not None and sn5600.buffer.cell_bytes == 192 and sn5600.pause_quanta[800] == 905
    assert lossless_port(sn5600, BufferModel(), 800, 40, 9000, 4096, vxlan=True) == 413_696
    s9825 = get_platform("comware").model("S9825-64D")
    assert s9825.buffer is None, "H3C publishes no S9825-64D buffer figures"
    assert lossless_port(s9825, BufferModel(), 400, 40, 9000, 4096, vxlan=True) is None


def test_a_comware_fabric_without_buffer_figures_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_fabric(REPO, tmp_path / "reference")
    fabric = root / "inventory" / "fabric.yaml"
    lines = fabric.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [
        ln
        for ln in lines
        if not ln.lstrip().startswith(
            (
                "buffer:",
                "cell_bytes:",
                "mac_phy_delay_bytes:",
                "pipeline_latency_bytes:",
                "small_packet_percent:",
            )
        )
    ]
    fabric.write_text("".join(kept), encoding="utf-8")
    code, _, err = run_cli(["validate", "--root", str(root)], capsys)
    assert code != 0
    assert "qos.buffer" in err and "S9825-64D" in err and "publishes no buffer figures" in err


# --- examples/mixed-pods: Comware and NVUE pods under Comware super-spines ----------------------

MIXED = REPO / "examples" / "mixed-pods"


@pytest.fixture(scope="module")
def mixed() -> tuple[Compiled, dict[str, str]]:
    compiled = pipeline.compile(MIXED)
    return compiled, pipeline.render(compiled.intents, MIXED)


def test_both_ends_of_every_link_are_sized_for_the_same_cable(mixed: tuple[Compiled, dict[str, str]]) -> None:
    """Comware ends carry cells for the link's cable, NVUE ends a PFC profile of that cable length:
    the NVUE spine's uplinks to the Comware super-spines are sized for 300 m at both ends."""
    compiled, configs = mixed
    fabric = compiled.fabric
    checked = 0
    for ln in compiled.topology.links:
        gbps, meters = link_sizing(fabric, ln)
        for name, port in ((ln.leaf, ln.leaf_port), (ln.spine, ln.spine_port)):
            sw = fabric.switch(name)
            assert sw is not None
            intf = next(i for i in compiled.intents[name].interfaces if i.name == port)
            assert intf.cable_m == meters, (name, port)
            if sw.platform == "nvue":
                cfg = parse_nvue(name, configs[name])
                cable = cfg.interfaces[port].qos.cable_m
                assert cable is not None and cable.value == meters
            else:
                need = lossless_port(
                    switch_model(sw), fabric.settings.qos.buffer, gbps, meters, 9000, 4096, True
                )
                assert need is not None and intf.headroom is not None and intf.headroom >= -(-need // 144)
            checked += 1
    assert checked == 2 * len(compiled.topology.links)
    assert {link_sizing(fabric, ln)[1] for ln in compiled.topology.links} == {40, 300}


def test_the_proof_names_the_link_ends_it_proved_across_nos(mixed: tuple[Compiled, dict[str, str]]) -> None:
    compiled, configs = mixed
    report = pipeline.verify(compiled, configs)
    assert report.ok, report.violations
    crossed = [n for n in report.notes if "between comware and nvue" in n]
    assert len(crossed) == 1
    assert "8 fabric link(s)" in crossed[0]
    assert "p03-spine01 swp5 <-> ss01-01 FourHundredGigE1/0/5" in crossed[0]
    assert "no-drop priority 3, DSCP 26 -> 3 at both ends, headroom for 300 m at 400G" in crossed[0]


def test_tunnel_qos_is_a_line_a_documented_default_or_an_assumption_per_model(
    mixed: tuple[Compiled, dict[str, str]],
) -> None:
    """SN5600: DSCP copied at encapsulation and preserved at decapsulation by lines, ECN per RFC
    6040 by NVIDIA's documented default (a note with its page). S9825-64D: the decapsulated class by
    `qos trust tunnel-dot1p`; the outer DSCP and ECN no H3C document states (assumptions)."""
    compiled, configs = mixed
    leaf = parse_nvue("p03-leaf01", configs["p03-leaf01"])
    assert {TUNNEL_MARKING, TUNNEL_CLASS} <= set(leaf.tunnel_qos)
    report = pipeline.verify(compiled, configs)
    rfc6040 = [n for n in report.notes if n.startswith("2 VTEPs (p03-leaf01, p03-leaf02): SN5600: ECN")]
    assert rfc6040 and "VXLAN-Tunnel-DSCP" in rfc6040[0]
    assert all("S9825-64D" in a for a in report.assumptions if "VTEP" in a)
    assert len([a for a in report.assumptions if "VTEP" in a]) == 2  # the outer DSCP and ECN
    assert "qos trust tunnel-dot1p" in configs["p01-leaf01"]


@pytest.mark.parametrize(
    ("edit", "check", "ports", "fragments"),
    [
        pytest.param(
            Edit("p03-leaf01", (), r"^( +action:) copy$", r"\1 derive"),
            "tunnel-encap",
            {"VXLAN"},
            ("SN5600 needs the line", "encapsulation dscp action copy"),
            id="nvue-encap-not-copied",
        ),
        pytest.param(
            Edit("p03-leaf01", (), r"^( +action:) preserve$", r"\1 derive"),
            "tunnel-trust",
            {"VXLAN"},
            ("decapsulation dscp action preserve",),
            id="nvue-decap-not-preserved",
        ),
        pytest.param(
            Edit("p03-spine01", (), r"^( +cable-length:) 300$", r"\1 100"),
            "headroom",
            {"swp5", "swp6", "swp7", "swp8"},
            ("for a 100 m cable", "p03-spine01 swp5 <-> ss01-01 FourHundredGigE1/0/5", "300 m at 400G"),
            id="nvue-profile-shorter-than-the-link",
        ),
        pytest.param(
            Edit("ss01-01", ("interface FourHundredGigE1/0/5",), r"headroom 4921$", "headroom 3000"),
            "headroom",
            {"FourHundredGigE1/0/5"},
            ("3000 cells x 144 bytes", "p03-spine01 swp5 <-> ss01-01 FourHundredGigE1/0/5", "300 m at 400G"),
            id="comware-end-short-toward-a-nvue-spine",
        ),
    ],
)
def test_a_fault_at_one_end_is_named_with_the_link(
    mixed: tuple[Compiled, dict[str, str]],
    edit: Edit,
    check: str,
    ports: set[str],
    fragments: tuple[str, ...],
) -> None:
    compiled, configs = mixed
    report = pipeline.verify(compiled, apply(configs, (edit,)))
    found = [v for v in report.violations if v.check == check and v.switch == edit.switch]
    assert found, report.violations
    assert {v.object for v in found} == ports
    text = " ".join(f"{v.counterexample} {v.text}" for v in found)
    for fragment in fragments:
        assert fragment in text, (fragment, text)


def test_eos_vteps_rely_on_aristas_documented_defaults() -> None:
    """No shipped EOS model takes `vxlan qos` (Arista lists the 7050X3 family): the outer DSCP is
    derived from the class (every switch must map 8n back to class n) and the outer header is
    Not-ECT, each a note with Arista's TOI as its source. The TOI speaks of bridged packets only:
    that routed RoCE is encapsulated the same way, and the class of decapsulated traffic without
    the decapsulation map, no Arista document states (assumptions)."""
    root = REPO / "examples" / "eos-small"
    compiled = pipeline.compile(root)
    configs = pipeline.render(compiled.intents, root)
    assert "vxlan qos" not in configs["leaf1"]
    report = pipeline.verify(compiled, configs)
    assert report.ok
    assert [a for a in report.assumptions if "VTEP" in a] == [
        "4 VTEPs (leaf1, leaf2, leaf3, ...): decapsulated RoCE keeps its inner DSCP and is classified "
        "into the lossless class, though no vendor document states it for the 7060X5-64",
        "4 VTEPs (leaf1, leaf2, leaf3, ...): routed RoCE (an l3 tenant's, through its L3VNI) is "
        "encapsulated as bridged RoCE is, though no vendor document states it for the 7060X5-64",
    ]
    notes = " ".join(report.notes)
    assert "7060X5-64: at encapsulation the outer DSCP is derived from the class" in notes
    assert "RFC 6040 section 4.1 compatibility mode" in notes and "TOI of 2023-08-31" in notes


@pytest.mark.parametrize(
    ("qos", "meters", "line"),
    [
        ("{roce: {mode: lossless}, pfc: {p: {cable-length: 40}}}", 40, "qos pfc p cable-length 40"),
        ("{roce: {mode: lossless, cable-length: 50}, pfc: {p: {}}}", 50, "qos roce cable-length 50"),
        ("{roce: {mode: lossless}}", 100, "(RoCE profile default cable-length 100)"),
    ],
)
def test_nvue_sizes_a_port_for_its_pfc_profiles_cable(qos: str, meters: int, line: str) -> None:
    """`qos pfc <profile> cable-length`, else `qos roce cable-length`, else NVUE's 100 m default
    (NVUE Command Reference 5.17, QoS)."""
    text = (
        f"- set:\n    qos: {qos}\n    interface:\n      swp1: {{type: swp, qos: {{pfc: {{profile: p}}}}}}\n"
    )
    cable = parse_nvue("leaf1", text).interfaces["swp1"].qos.cable_m
    assert cable is not None and (cable.value, cable.src.text) == (meters, line)


def test_headroom_is_counted_against_the_models_packet_buffer(mixed: tuple[Compiled, dict[str, str]]) -> None:
    """The SN5600's datasheet gives 160 MB: each NVUE switch's reserved headroom is a capacity row
    within it; the S9825-64D publishes no buffer, so its switches get no row. A PFC profile sized
    for a 100 km cable reserves more than the switch holds: a `budget` violation naming it."""
    compiled, configs = mixed
    report = pipeline.verify(compiled, configs)
    rows = {r.scope: r for r in report.capacity if r.metric == "PFC headroom MB"}
    assert set(rows) == {"p03-leaf01", "p03-leaf02", "p03-spine01", "p03-spine02"}
    assert all(r.ok and r.limit == 160 and 0 < r.used < 160 for r in rows.values())
    far = apply(configs, (Edit("p03-spine01", (), r"^( +cable-length:) 300$", r"\1 100000"),))
    report = pipeline.verify(compiled, far)
    found = [v for v in report.violations if v.check == "budget" and v.object == "PFC headroom"]
    assert [v.switch for v in found] == ["p03-spine01"]
    assert "more than the 160 MB packet buffer of the SN5600" in found[0].counterexample


def test_headroom_sized_from_the_fabrics_figures_is_listed_as_assumed(
    mixed: tuple[Compiled, dict[str, str]],
) -> None:
    """The S9825-64D's headroom rests on fabric.yaml `qos.buffer` (H3C publishes no figures): every
    report says so, with the figures, for the 12 Comware switches; the SN5600s, sized from their
    model's own figures, are not in it."""
    compiled, configs = mixed
    report = pipeline.verify(compiled, configs)
    figures = [a for a in report.assumptions if "qos.buffer" in a]
    assert figures == [
        "12 switches (p01-leaf01, p01-leaf02, p01-spine01, ...): the PFC headroom is sized from fabric.yaml "
        "qos.buffer (cell 144 bytes, pipeline latency 18432 bytes, MAC/PHY delay 820 bytes), figures no "
        "vendor document states for the S9825-64D"
    ]
