"""Topology (cabling rules -> ports, links, addresses) and allocation (numbers from ids)."""

from __future__ import annotations

from ipaddress import IPv4Address, IPv4Network
from pathlib import Path

import pytest

from fabricctl import pipeline
from fabricctl.compile.allocate import DENY_SEQ, INTRA_SEQ, PEER_SEQ_BASE
from fabricctl.compile.build import Compiled
from fabricctl.compile.topology import Topology, build_topology
from fabricctl.model.load import load_fabric
from fabricctl.model.problems import InputError, ProblemLog
from tests.conftest import EOS_SMALL, REFERENCE, copy_fabric


def _topology(root: Path) -> Topology:
    log = ProblemLog(root)
    fabric = load_fabric(root, log)
    assert fabric is not None, log.problems
    topo = build_topology(fabric, log)
    assert topo is not None, log.problems
    return topo


@pytest.fixture(scope="session")
def breakout_topology(tmp_path_factory: pytest.TempPathFactory) -> Topology:
    root = copy_fabric(REFERENCE, tmp_path_factory.mktemp("breakout"))
    fabric_yaml = root / "inventory" / "fabric.yaml"
    text = fabric_yaml.read_text(encoding="utf-8")
    assert "gpu_port_breakout: none" in text
    fabric_yaml.write_text(text.replace("gpu_port_breakout: none", "gpu_port_breakout: 2x200G"), "utf-8")
    return _topology(root)


# --- topology -------------------------------------------------------------------------------


def test_reference_gpu_ports_and_links(reference: Compiled) -> None:
    topo = reference.topology
    assert sum(len(p) for p in topo.gpu_ports.values()) == 1024
    assert {len(p) for p in topo.gpu_ports.values()} == {32}
    assert len(topo.links) == 1024
    assert len(topo.servers) == 128 and topo.servers[0] == "gpu001" and topo.servers[-1] == "gpu128"
    assert [p.name for p in topo.gpu_ports["leaf01"]][:2] == [
        "FourHundredGigE1/0/33",
        "FourHundredGigE1/0/34",
    ]


def test_leaf01_uplink_to_spine_k_on_ports_2k_minus_1_and_2k(reference: Compiled) -> None:
    links = reference.topology.links_of("leaf01")
    assert len(links) == 32
    for k in range(1, 17):
        to_k = [ln for ln in links if ln.spine == f"spine{k:02d}"]
        assert [ln.leaf_port for ln in to_k] == [
            f"FourHundredGigE1/0/{2 * k - 1}",
            f"FourHundredGigE1/0/{2 * k}",
        ]
        # leaf n lands on spine ports 2n-1 and 2n: leaf01 -> 1, 2
        assert [ln.spine_port for ln in to_k] == ["FourHundredGigE1/0/1", "FourHundredGigE1/0/2"]


def test_spine_downlinks_follow_leaf_index(reference: Compiled) -> None:
    leaf20 = [ln for ln in reference.topology.links if ln.leaf == "leaf20" and ln.spine == "spine05"]
    assert [ln.spine_port for ln in leaf20] == ["FourHundredGigE1/0/39", "FourHundredGigE1/0/40"]
    assert reference.topology.unused_ports["spine01"] == []


def test_p2p_links_are_unique_31s_spine_even_leaf_odd(reference: Compiled) -> None:
    pool = IPv4Network("10.250.0.0/16")
    seen: set[IPv4Address] = set()
    for ln in reference.topology.links:
        assert int(ln.spine_ip) % 2 == 0 and ln.leaf_ip == ln.spine_ip + 1
        assert ln.spine_ip in pool and ln.leaf_ip in pool
        seen |= {ln.spine_ip, ln.leaf_ip}
    assert len(seen) == 2 * 1024
    first = reference.topology.links_of("leaf01")[0]
    assert (str(first.spine_ip), str(first.leaf_ip)) == ("10.250.0.0", "10.250.0.1")


def test_loopbacks_and_asns(reference: Compiled) -> None:
    topo = reference.topology
    assert str(topo.loopback["spine03"]) == "10.254.0.3"
    assert str(topo.loopback["leaf17"]) == "10.254.1.17"
    assert str(topo.vtep["leaf17"]) == "10.254.2.17"
    assert topo.asn["spine16"] == 65000 and topo.asn["leaf17"] == 65117


def test_rail_optimized_cabling(reference: Compiled) -> None:
    """NIC r of every server in a pod lands on the pod's leaf r (8 leaves per pod)."""
    topo = reference.topology
    nics = topo.by_server["gpu001"]
    assert [(p.leaf, p.name) for p in nics] == [
        (f"leaf{r + 1:02d}", "FourHundredGigE1/0/33") for r in range(8)
    ]
    last = topo.by_server["gpu128"]
    assert [p.leaf for p in last] == [f"leaf{r:02d}" for r in range(25, 33)]
    assert {p.name for p in last} == {"FourHundredGigE1/0/64"}
    assert all(p.nic == r for r, p in enumerate(last))


def test_breakout_doubles_gpu_ports(breakout_topology: Topology) -> None:
    topo = breakout_topology
    assert sum(len(p) for p in topo.gpu_ports.values()) == 2048
    assert {len(p) for p in topo.gpu_ports.values()} == {64}
    assert len(topo.servers) == 256
    leaf01 = topo.gpu_ports["leaf01"]
    assert [p.name for p in leaf01[:3]] == [
        "TwoHundredGigE1/0/33:1",
        "TwoHundredGigE1/0/33:2",
        "TwoHundredGigE1/0/34:1",
    ]
    assert [p.key for p in leaf01[:2]] == ["33:1", "33:2"]
    assert topo.breakout_parents["leaf01"][0] == "FourHundredGigE1/0/33"
    assert len(topo.links) == 1024  # uplinks unchanged, still 1:1 (32 x 400G up, 64 x 200G down)


def test_eos_port_names(eos_small: Compiled, tmp_path: Path) -> None:
    topo = eos_small.topology
    assert [p.name for p in topo.gpu_ports["leaf1"]] == [f"Ethernet{n}" for n in range(9, 17)]
    assert [ln.leaf_port for ln in topo.links_of("leaf1") if ln.spine == "spine2"] == [
        "Ethernet5",
        "Ethernet6",
        "Ethernet7",
        "Ethernet8",
    ]
    assert topo.unused_ports["leaf1"][0] == "Ethernet17" and len(topo.unused_ports["leaf1"]) == 48
    root = copy_fabric(EOS_SMALL, tmp_path / "f")
    fabric_yaml = root / "inventory" / "fabric.yaml"
    text = fabric_yaml.read_text(encoding="utf-8").replace(
        "nics_per_server: 4", "gpu_port_breakout: 2x200G\n  nics_per_server: 4"
    )
    fabric_yaml.write_text(text, encoding="utf-8")
    split = _topology(root)
    assert [p.name for p in split.gpu_ports["leaf1"][:2]] == ["Ethernet9/1", "Ethernet9/5"]


# --- allocation -----------------------------------------------------------------------------


def _alloc(compiled: Compiled, name: str):  # type: ignore[no-untyped-def]
    return next(a for a in compiled.allocation.tenants if a.name == name)


def test_numbers_follow_the_tenant_id(eos_small: Compiled) -> None:
    llm = _alloc(eos_small, "team-llm")
    assert (llm.l3vni, llm.route_target, llm.l2vni, llm.vlan) == (50011, "65200:50011", None, None)
    hpc = _alloc(eos_small, "team-hpc")
    assert (hpc.l3vni, hpc.l2vni, hpc.vlan) == (50012, 10012, 112)
    assert (hpc.route_target, hpc.l2_route_target) == ("65200:50012", "65200:10012")
    assert hpc.gateway == "172.20.12.1/27"


def test_acl_sequence_numbers_follow_ids(eos_small: Compiled) -> None:
    storage = _alloc(eos_small, "storage")
    assert [(r.seq, r.action) for r in storage.acl] == [
        (INTRA_SEQ, "permit"),
        (PEER_SEQ_BASE + 11, "permit"),
        (PEER_SEQ_BASE + 12, "permit"),
        (DENY_SEQ, "deny"),
    ]
    assert [str(r.destination) for r in storage.acl[:3]] == [
        "172.20.90.0/29",
        "172.20.11.0/27",
        "172.20.12.0/27",
    ]
    assert storage.acl[-1].source is None and storage.acl[-1].destination is None
    intern = _alloc(eos_small, "intern-01")
    assert [r.seq for r in intern.acl] == [INTRA_SEQ, DENY_SEQ]


def test_point_to_point_31s_in_declared_order(eos_small: Compiled) -> None:
    llm = _alloc(eos_small, "team-llm")
    assert [(p.gpu.server, p.gpu.nic) for p in llm.ports[:5]] == [
        ("node01", 0),
        ("node01", 1),
        ("node01", 2),
        ("node01", 3),
        ("node02", 0),
    ]
    assert [(str(p.leaf_ip), str(p.gpu_ip)) for p in llm.ports[:2]] == [
        ("172.20.11.0", "172.20.11.1"),
        ("172.20.11.2", "172.20.11.3"),
    ]
    assert str(llm.ports[-1].gpu_ip) == "172.20.11.31"
    hpc = _alloc(eos_small, "team-hpc")
    assert all(p.leaf_ip is None and p.gpu_ip is None for p in hpc.ports)


def test_declared_order_wins_over_port_order(tmp_path: Path) -> None:
    root = copy_fabric(EOS_SMALL, tmp_path / "f")
    intern = root / "tenants" / "intern-01.yaml"
    text = intern.read_text(encoding="utf-8").replace("nics: [2]", "nics: [3, 1]").replace("/31", "/30")
    intern.write_text(text, encoding="utf-8")
    a = _alloc(pipeline.compile(root), "intern-01")
    assert [(p.gpu.nic, str(p.leaf_ip)) for p in a.ports] == [(3, "172.20.21.0"), (1, "172.20.21.2")]


def test_overrides_replace_derived_numbers(tmp_path: Path) -> None:
    root = copy_fabric(EOS_SMALL, tmp_path / "f")
    hpc = root / "tenants" / "team-hpc.yaml"
    hpc.write_text(
        hpc.read_text(encoding="utf-8") + "overlay:\n  l3vni: 70000\n  l2vni: 20000\n  vlan: 900\n", "utf-8"
    )
    a = _alloc(pipeline.compile(root), "team-hpc")
    assert (a.l3vni, a.l2vni, a.vlan, a.route_target) == (70000, 20000, 900, "65200:70000")


def test_exceptions_are_two_sided_only(eos_small: Compiled, tmp_path: Path) -> None:
    peers = {a.name: [p.name for p in a.peers] for a in eos_small.allocation.tenants}
    assert peers == {
        "team-llm": ["storage"],
        "team-hpc": ["storage"],
        "intern-01": [],
        "storage": ["team-llm", "team-hpc"],
    }
    # Take one side away: the other side's exception is an error, never a silent one-way permit.
    root = copy_fabric(EOS_SMALL, tmp_path / "f")
    hpc = root / "tenants" / "team-hpc.yaml"
    hpc.write_text(hpc.read_text(encoding="utf-8").replace("shared_with: [storage]\n", ""), "utf-8")
    with pytest.raises(InputError) as exc:
        pipeline.compile(root)
    assert [(p.file, p.path) for p in exc.value.problems] == [("tenants/storage.yaml", "shared_with[1]")]


def test_intent_carries_the_allocation(eos_small: Compiled) -> None:
    leaf1 = eos_small.intents["leaf1"]
    assert [v.name for v in leaf1.vrfs] == ["tnt-team-llm", "tnt-team-hpc", "tnt-storage"]  # provenance
    assert [v.tenant for v in leaf1.vrfs] == ["team-llm", "team-hpc", "storage"]
    llm = leaf1.vrfs[0]
    assert (llm.l3vni, llm.route_targets_export) == (50011, ["65200:50011"])
    assert llm.route_targets_import == ["65200:50011", "65200:50090"]
    gpu = next(i for i in leaf1.interfaces if i.name == "Ethernet9")
    assert (gpu.role, gpu.vrf, gpu.ipv4, gpu.acl_in, gpu.tenant) == (
        "gpu",
        "tnt-team-llm",
        "172.20.11.0/31",
        "tnt-team-llm-in",
        "team-llm",
    )
    spare = next(i for i in eos_small.intents["leaf3"].interfaces if i.name == "Ethernet16")
    assert spare.tenant is None and spare.enabled is False  # unassigned GPU port: shut down


def test_route_distinguishers_fit_their_format(eos_small: Compiled, tmp_path: Path) -> None:
    """router-id RDs (the default): `<router-id>:<tenant id>` per VRF, `<router-id>:<32767 + VLAN>`
    per l2 segment, so no two objects on a switch share one and every number fits 16 bits (RFC 4364
    section 4.2); `rd_format: asn`: `<route_target_asn>:<VNI>`, a 32-bit number."""
    leaf1 = eos_small.intents["leaf1"]
    assert [v.rd for v in leaf1.vrfs] == ["10.64.0.65:11", "10.64.0.65:12", "10.64.0.65:90"]
    assert [v.rd for v in leaf1.vlans] == ["10.64.0.65:32879"]  # VLAN 112
    for intent in eos_small.intents.values():
        rds = [v.rd for v in intent.vrfs] + [v.rd for v in intent.vlans]
        assert len(rds) == len(set(rds)) and all(int(rd.split(":")[1]) <= 0xFFFF for rd in rds)
    root = copy_fabric(EOS_SMALL, tmp_path / "asn")
    fabric_yaml = root / "inventory" / "fabric.yaml"
    text = fabric_yaml.read_text(encoding="utf-8").replace(
        "  route_target_asn: 65200\n", "  route_target_asn: 65200\n  rd_format: asn\n"
    )
    fabric_yaml.write_text(text, encoding="utf-8")
    leaf1 = pipeline.compile(root).intents["leaf1"]
    assert [v.rd for v in leaf1.vrfs] == ["65200:50011", "65200:50012", "65200:50090"]
    assert [v.rd for v in leaf1.vlans] == ["65200:10012"]


def test_tenant_objects_only_on_the_leaves_it_lands_on(reference: Compiled) -> None:
    by_leaf = reference.allocation.by_leaf
    llm = _alloc(reference, "llm-pretrain")
    assert llm.leaves == [f"leaf{n:02d}" for n in range(1, 17)]
    assert all(llm not in by_leaf[f"leaf{n:02d}"] for n in range(17, 33))
    assert reference.intents["spine01"].vrfs == []
