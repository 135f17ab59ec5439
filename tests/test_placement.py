"""`fabricctl tenant new`: the chooser on the reference fabric (whole servers, rail alignment,
fewest leaves, least fragmentation, budgets), a property test that it never takes a held GPU nor
goes over a per-leaf budget, and the command (a file that validates; errors that write nothing)."""

from __future__ import annotations

import dataclasses
from ipaddress import IPv4Network
from pathlib import Path
from typing import Literal, TypedDict

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from fabricctl.compile.allocate import Allocation, allocate, leaf_budget, leaf_use
from fabricctl.compile.build import Compiled
from fabricctl.compile.placement import (
    Placement,
    PlacementError,
    block_prefix,
    check_placed,
    next_id,
    place,
    tenant_model,
    tenant_yaml,
)
from fabricctl.compile.topology import GpuPort, Topology
from fabricctl.model.fabric import FabricSettings
from fabricctl.model.load import Fabric, TenantDoc
from fabricctl.model.problems import ProblemLog
from fabricctl.model.tenant import Tenant
from fabricctl.model.yamlsource import YamlDoc
from tests.conftest import REFERENCE, copy_fabric, run_cli


def _place(c: Compiled, gpus: int, *, whole_servers: bool = False) -> Placement:
    return place(c.fabric, c.topology, c.allocation, c.tenants, "new-team", gpus, whole_servers=whole_servers)


def _held(c: Compiled) -> set[GpuPort]:
    return {pa.gpu for a in c.allocation.tenants for pa in a.ports}


def test_whole_servers_from_one_rail_group(reference: Compiled) -> None:
    p = _place(reference, 64)
    # pod 3 (gpu065-gpu096) has 15 whole servers free, pod 4 has 30: the best fit is pod 3
    assert p.whole == [f"gpu{i:03d}" for i in range(81, 89)] and p.partial == []
    assert p.leaves == [f"leaf{i}" for i in range(17, 25)] and p.rails == list(range(8))
    assert not set(p.ports) & _held(reference)
    p = _place(reference, 128)  # more than pod 3 holds whole: pod 4 alone, still 8 leaves
    assert p.whole == [f"gpu{i:03d}" for i in range(97, 113)] and len(p.leaves) == 8


def test_fewest_leaves_across_groups(reference: Compiled) -> None:
    p = _place(reference, 256)  # 32 servers: pod 4's 30 and 2 of pod 3, not 3 groups
    assert len(p.whole) == 32 and len(p.leaves) == 16
    assert sum(1 for s in p.whole if s >= "gpu097") == 30


def test_rail_aligned_rest_on_the_same_leaves(reference: Compiled) -> None:
    topo = reference.topology
    p = _place(reference, 12)
    assert p.whole == ["gpu081"]
    assert p.partial == [("gpu080", [4, 5, 6, 7])], "fills the partly used server of the same rail group"
    assert len(p.leaves) == 8, "the other 4 GPUs add no leaf"
    for gpu in p.ports:  # NIC r of every chosen server on the rail group's leaf r
        assert gpu.leaf == topo.by_server["gpu081"][gpu.nic].leaf


def test_partial_requests_fill_partly_used_servers(reference: Compiled) -> None:
    assert _place(reference, 4).partial == [("gpu080", [4, 5, 6, 7])]  # exactly what is left
    assert _place(reference, 1).partial == [("gpu080", [4])]  # the server with the fewest free NICs
    assert _place(reference, 6).partial == [("gpu090", [0, 1, 2, 4, 5, 6])]  # gpu080 has only 4
    everything = _place(reference, 371)
    assert len(everything.whole) == 45 and dict(everything.partial) == {
        "gpu080": [4, 5, 6, 7],
        "gpu090": [0, 1, 2, 4, 5, 6, 7],
    }


def test_whole_servers_only(reference: Compiled) -> None:
    assert len(_place(reference, 360, whole_servers=True).whole) == 45
    with pytest.raises(PlacementError, match=r"a multiple of 8"):
        _place(reference, 12, whole_servers=True)
    with pytest.raises(PlacementError, match=r"only 45 whole servers"):
        _place(reference, 368, whole_servers=True)


def test_id_and_block(reference: Compiled) -> None:
    p = _place(reference, 12)
    assert p.tenant_id == 901  # after shared-storage's 900
    assert p.block == IPv4Network("10.96.0.0/27")  # 24 addresses in the pool's first /27
    assert block_prefix(64, "l2") == 25 and block_prefix(1, "l3") == 31 and block_prefix(512, "l3") == 22


def test_block_skips_taken_and_reserved_space(reference: Compiled) -> None:
    settings = reference.fabric.settings
    overlay = settings.overlay.model_copy(update={"tenant_pool": IPv4Network("10.101.0.0/16")})
    fabric = dataclasses.replace(reference.fabric, settings=settings.model_copy(update={"overlay": overlay}))
    p = place(fabric, reference.topology, reference.allocation, reference.tenants, "x1", 8)
    assert p.block == IPv4Network("10.101.4.0/28"), "after llm-pretrain's 10.101.0.0/22"
    overlay = settings.overlay.model_copy(update={"tenant_pool": IPv4Network("10.254.0.0/16")})
    fabric = dataclasses.replace(reference.fabric, settings=settings.model_copy(update={"overlay": overlay}))
    p = place(fabric, reference.topology, reference.allocation, reference.tenants, "x1", 8)
    assert p.block == IPv4Network("10.254.3.0/28"), "after the loopback pools 10.254.0-2.0/24"


def test_budgets_steer_the_choice(reference: Compiled) -> None:
    # leaf20 carries 6 tenant VRFs (pod 3's tenants, two single GPUs): at max_vrfs 6 it is full,
    # so pod 3 cannot take whole servers and 64 GPUs go to pod 4
    fabric = _with_limits(reference, {"max_vrfs": 6})
    p = place(fabric, reference.topology, _realloc(reference, fabric), reference.tenants, "x1", 64)
    assert p.whole == [f"gpu{i:03d}" for i in range(97, 105)]
    assert "leaf20" not in p.leaves and any("leaf20" in r for r in p.reasons)
    assert check_placed(fabric, reference.topology, reference.tenants, tenant_model(p, "x")) == []
    alloc = _realloc(reference, fabric)  # leaf20's 15 free GPUs cannot take it: 356 of 371 can
    assert len(place(fabric, reference.topology, alloc, reference.tenants, "x1", 356).ports) == 356
    with pytest.raises(PlacementError) as refused:
        place(fabric, reference.topology, alloc, reference.tenants, "x1", 357)
    assert str(refused.value) == (
        "--gpus 357: only 356 of the 371 free GPUs can take a new tenant; "
        "leaf20 is at its budget of 6 VRFs (allowed: 1-356)"
    )


def _with_limits(c: Compiled, limits: dict[str, int]) -> Fabric:
    return dataclasses.replace(c.fabric, settings=c.fabric.settings.model_copy(update={"limits": limits}))


def _realloc(c: Compiled, fabric: Fabric) -> Allocation:
    log = ProblemLog(c.fabric.root)
    alloc = allocate(fabric, c.topology, c.tenants, log)
    assert not log.problems, log.problems
    return alloc


def test_the_file_reads_back_as_the_placement(reference: Compiled) -> None:
    p = _place(reference, 371)
    tenant = Tenant.model_validate(yaml.safe_load(tenant_yaml(p, "Leasing desk test")))
    assert tenant == tenant_model(p, "Leasing desk test")
    for text in ("2026", "yes", "Contract: ICC-2026-201", "a, b & c"):  # YAML would not read these as text
        assert Tenant.model_validate(yaml.safe_load(tenant_yaml(p, text))).description == text
    assert tenant.gpus[0].servers == ["gpu081-gpu089", "gpu091-gpu126"]
    assert check_placed(reference.fabric, reference.topology, reference.tenants, tenant) == []


def test_tenant_pool_setting_is_checked() -> None:
    base = yaml.safe_load((REFERENCE / "inventory" / "fabric.yaml").read_text(encoding="utf-8"))
    assert FabricSettings.model_validate(base).overlay.tenant_pool == IPv4Network("10.96.0.0/11")
    del base["overlay"]["tenant_pool"]
    assert FabricSettings.model_validate(base).overlay.tenant_pool == IPv4Network("10.0.0.0/8")
    for pool, what in (
        ("10.96.0.0/28", "a tenant pool is a /8 to a /24"),
        ("10.250.0.0/20", "lies inside underlay.p2p_links"),
        ("224.0.0.0/8", "multicast"),
    ):
        base["overlay"]["tenant_pool"] = pool
        with pytest.raises(ValidationError, match=what):
            FabricSettings.model_validate(base)


# ---- property: never a held GPU, never over a budget ------------------------------------------

SLACK = ("max_vrfs", "max_vlans", "max_vnis", "max_acl_entries")
KIND = {"max_vrfs": "VRFs", "max_vlans": "VLANs", "max_vnis": "VNIs", "max_acl_entries": "ACL entries"}


Isolation = Literal["l3", "l2"]  # Tenant.isolation
ISOLATIONS: tuple[Isolation, ...] = ("l3", "l2")


class Scenario(TypedDict):
    extra: list[list[tuple[str, int]]]  # the GPUs of each extra tenant
    isolation: list[Isolation]  # of the two extra tenants and of the request
    slack: dict[str, int]  # per limit: how far above what is used
    gpus: int  # the request


@st.composite
def scenarios(draw: st.DrawFn, free: list[tuple[str, int]]) -> Scenario:
    """Extra tenants on random free GPUs of the reference fabric, per-leaf limits a little above
    what is used, and a request."""
    picks = draw(st.lists(st.sampled_from(free), unique=True, max_size=120))
    split = draw(st.integers(0, len(picks)))
    return {
        "extra": [picks[:split], picks[split:]],
        "isolation": [draw(st.sampled_from(ISOLATIONS)) for _ in range(3)],
        "slack": {k: draw(st.integers(0, {"max_vnis": 8, "max_acl_entries": 40}.get(k, 3))) for k in SLACK},
        "gpus": draw(st.integers(1, 700)),
    }


def _doc(name: str, tid: int, isolation: Isolation, gpus: list[tuple[str, int]], net: str) -> TenantDoc:
    by_server: dict[str, list[int]] = {}
    for server, nic in gpus:
        by_server.setdefault(server, []).append(nic)
    tenant = Tenant(
        name=name,
        id=tid,
        description="generated",
        isolation=isolation,
        address_block=IPv4Network(net),
        gpus=[{"server": s, "nics": sorted(n)} for s, n in sorted(by_server.items())],  # type: ignore[misc]
    )
    return TenantDoc(tenant, YamlDoc(Path(f"tenants/{name}.yaml"), {}, {}), f"tenants/{name}.yaml")


@pytest.fixture(scope="module")
def free_slots(reference: Compiled) -> list[tuple[str, int]]:
    held = _held(reference)
    return [(s, p.nic) for s, ports in reference.topology.by_server.items() for p in ports if p not in held]


def test_never_a_held_gpu_never_over_a_budget(reference: Compiled, free_slots: list[tuple[str, int]]) -> None:
    peers = {"llm-pretrain", "genomics-lab", "shared-storage"}
    base = [td for td in reference.tenants if td.tenant.name not in peers]
    gone = {pa.gpu for a in reference.allocation.tenants if a.name in peers for pa in a.ports}
    free_slots = free_slots + sorted((g.server, g.nic) for g in gone)

    @settings(
        max_examples=25,
        deadline=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    @given(scenarios(free_slots))
    def check(case: Scenario) -> None:
        # without the 512-GPU tenant (96 ACL entries per leaf) and its peers, budgets a little
        # above what is used are tight where GPUs are free
        extra = [g for g in case["extra"] if g]
        iso = case["isolation"]
        docs = sorted(
            [
                *base,
                *(_doc(f"extra-{i}", 500 + i, iso[i], g, f"10.{60 + i}.0.0/16") for i, g in enumerate(extra)),
            ],
            key=lambda d: d.tenant.id,
        )
        log = ProblemLog(reference.fabric.root)
        alloc = allocate(reference.fabric, reference.topology, docs, log)
        assert not log.problems
        used = {leaf: leaf_use(leaf, t) for leaf, t in alloc.by_leaf.items()}
        limits = {k: max(u[KIND[k]] for u in used.values()) + case["slack"][k] for k in SLACK}
        fabric = dataclasses.replace(
            reference.fabric, settings=reference.fabric.settings.model_copy(update={"limits": limits})
        )
        alloc = allocate(fabric, reference.topology, docs, ProblemLog(fabric.root))
        held = {pa.gpu for a in alloc.tenants for pa in a.ports}
        gpus, isolation = case["gpus"], iso[2]
        try:
            p = place(fabric, reference.topology, alloc, docs, "new-team", gpus, isolation)
        except PlacementError as exc:
            # refused only when fewer GPUs can take the tenant than asked, counted here on its own
            assert gpus > _usable(fabric, alloc, held, isolation, reference.topology), str(exc)
            return
        assert len(p.ports) == gpus == len(set(p.ports))
        assert not set(p.ports) & held, "a held GPU"
        mine: dict[str, int] = {}
        for gpu in p.ports:
            mine[gpu.leaf] = mine.get(gpu.leaf, 0) + 1
        for leaf, count in mine.items():
            budget, use = leaf_budget(fabric, leaf), used_now(alloc, leaf)
            assert use["VRFs"] + 1 <= budget["VRFs"]
            assert use["VLANs"] + (isolation == "l2") <= budget["VLANs"]
            assert use["VNIs"] + 1 + (isolation == "l2") <= budget["VNIs"]
            assert use["ACL entries"] + 2 * count <= budget["ACL entries"]
        assert check_placed(fabric, reference.topology, docs, tenant_model(p, "generated")) == []

    check()


def used_now(alloc: Allocation, leaf: str) -> dict[str, int]:
    return leaf_use(leaf, alloc.by_leaf[leaf])


def _usable(fabric: Fabric, alloc: Allocation, held: set[GpuPort], isolation: str, topo: Topology) -> int:
    """Free GPUs a new tenant may take, leaf by leaf: none where a VRF/VLAN/VNI would not fit,
    else as many as the ACL entries left allow (two per port)."""
    total = 0
    for leaf, ports in topo.gpu_ports.items():
        budget, use = leaf_budget(fabric, leaf), used_now(alloc, leaf)
        if (
            use["VRFs"] + 1 > budget["VRFs"]
            or use["VLANs"] + (isolation == "l2") > budget["VLANs"]
            or use["VNIs"] + 1 + (isolation == "l2") > budget["VNIs"]
        ):
            continue
        free_here = sum(1 for g in ports if g not in held)
        total += min(free_here, (budget["ACL entries"] - use["ACL entries"]) // 2)
    return total


# ---- the command ----------------------------------------------------------------------------


def test_new_writes_a_file_that_validates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = copy_fabric(REFERENCE, tmp_path / "fabric")
    code, out, err = run_cli(["tenant", "new", "acme-llm", "--gpus", "12", "--root", str(root)], capsys)
    assert (code, err) == (0, ""), err
    assert "servers  gpu081 (1 whole server)" in out and "gpu080 nics 4-7" in out
    assert "id       901:" in out and "block    10.96.0.0/27:" in out
    assert "wrote tenants/acme-llm.yaml" in out
    written = yaml.safe_load((root / "tenants" / "acme-llm.yaml").read_text(encoding="utf-8"))
    assert written["gpus"] == [{"servers": ["gpu081"]}, {"server": "gpu080", "nics": [4, 5, 6, 7]}]
    code, out, err = run_cli(["validate", "--root", str(root)], capsys)
    assert code == 0 and out.startswith("ok: 12 tenants, 665 GPUs assigned"), err
    code, out, _ = run_cli(["tenant", "new", "acme-two", "--gpus", "8", "--isolation", "l2", "--root", str(root)], capsys)  # fmt: skip
    assert code == 0 and "id       902:" in out and "gpu082" in out and "10.96.0.32/28:" in out
    assert run_cli(["validate", "--root", str(root)], capsys)[0] == 0


def test_dry_run_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = copy_fabric(REFERENCE, tmp_path / "fabric")
    before = sorted(p.name for p in (root / "tenants").iterdir())
    code, out, _ = run_cli(["tenant", "new", "acme", "--gpus", "1", "--dry-run", "--root", str(root)], capsys)
    assert code == 0 and "dry run: tenants/acme.yaml would be" in out and "nics: [4]" in out
    assert sorted(p.name for p in (root / "tenants").iterdir()) == before


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["Acme", "--gpus", "1"], "tenant name 'Acme' is not allowed (allowed: 2-24 characters"),
        (["a" * 25, "--gpus", "1"], "is not allowed (allowed: 2-24 characters"),
        (["llm-pretrain", "--gpus", "1"], "already used by tenants/llm-pretrain.yaml"),
        (["default", "--gpus", "1"], "tenant name 'default' is reserved: "),
        (["fabricctl-x", "--gpus", "1"], "tenant name 'fabricctl-x' is reserved: names starting"),
        (["acme", "--gpus", "0"], "--gpus 0 is out of range (allowed: 1-371, the free GPUs)"),
        (["acme", "--gpus", "5000"], "--gpus 5000 is out of range (allowed: 1-371"),
        (["acme", "--gpus", "372"], "--gpus 372: only 371 of 1024 GPUs are free (allowed: 1-371)"),
        (["acme", "--gpus", "12", "--whole-servers"], "(allowed: a multiple of 8, the NICs per server)"),
        (["acme", "--gpus", "1", "--description", "bad\ttext"], "--description"),
        (["acme", "--gpus", "1", "--isolation", "l4"], "'l4' is not one of 'l3', 'l2'"),
        (["acme", "--gpus", "x"], "'x' is not a valid integer"),
    ],
)
def test_errors_write_nothing(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_fabric(REFERENCE, tmp_path / "fabric")
    before = sorted(p.name for p in (root / "tenants").iterdir())
    code, out, err = run_cli(["tenant", "new", *argv, "--root", str(root)], capsys)
    assert (code, out) == (1, "") and message in err and err.startswith("error: "), err
    assert "Traceback" not in err and err.count("\n") == 1
    assert sorted(p.name for p in (root / "tenants").iterdir()) == before


def test_a_broken_fabric_stops_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = copy_fabric(REFERENCE, tmp_path / "fabric")
    (root / "tenants" / "acme.YML").write_text("")  # an empty tenant file: validate's error, first
    code, _, err = run_cli(["tenant", "new", "acme", "--gpus", "1", "--root", str(root)], capsys)
    assert code == 1 and "tenants/acme.YML" in err and "Traceback" not in err
    assert not (root / "tenants" / "acme.yaml").exists()


def test_next_id_wraps_to_the_lowest_free_one(reference: Compiled) -> None:
    settings = reference.fabric.settings
    overlay = settings.overlay.model_copy(update={"tenant_id_max": 900})
    fabric = dataclasses.replace(reference.fabric, settings=settings.model_copy(update={"overlay": overlay}))
    assert next_id(fabric, reference.allocation) == (
        1,
        "the lowest free id (ids above 900 reach overlay.tenant_id_max 900)",
    )
    overlay = settings.overlay.model_copy(update={"vlan_base": 3994})  # ids above 100: VLAN > 4094
    fabric = dataclasses.replace(reference.fabric, settings=settings.model_copy(update={"overlay": overlay}))
    assert next_id(fabric, reference.allocation, "l3")[0] == 901
    assert next_id(fabric, reference.allocation, "l2")[0] == 1


def test_it_completes_the_command() -> None:
    from tests.test_completion import complete

    assert "tenant" in complete("fabricctl te", 1)
    assert complete("fabricctl tenant new acme --isolation ", 5) == ["l3", "l2"]
