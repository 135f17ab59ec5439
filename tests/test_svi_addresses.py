"""An l2 tenant's SVI on Cumulus Linux: its own address on each leaf besides the VRR (anycast)
gateway, numbered from the top of the tenant's block in the order its GPU list first reaches each
leaf, so growing a tenant never moves an address; other NOSes' anycast gateways need none."""

from __future__ import annotations

import json
from ipaddress import IPv4Interface, IPv4Network
from pathlib import Path

import pytest
import yaml

from fabricctl import pipeline
from fabricctl.compile.build import Compiled
from fabricctl.compile.placement import place
from fabricctl.model.problems import InputError
from tests.conftest import NVUE_SMALL, copy_fabric, run_cli

TENANT = "team-hpc"  # nvue-small's l2 tenant: node05-node06, four GPUs each, one per rail leaf


def _alloc(c: Compiled, name: str = TENANT):  # type: ignore[no-untyped-def]
    return next(a for a in c.allocation.tenants if a.name == name)


def _tenant_file(root: Path, name: str = TENANT) -> Path:
    return root / "tenants" / f"{name}.yaml"


def _edit(root: Path, name: str, **changes: object) -> None:
    path = _tenant_file(root, name)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data.update(changes)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def test_each_leaf_svi_has_its_own_address_from_the_top_of_the_block(nvue_small: Compiled) -> None:
    a = _alloc(nvue_small)
    block = a.tenant.address_block
    leaves = list(dict.fromkeys(p.gpu.leaf for p in a.ports))  # first reached, first numbered
    assert list(a.svi_addresses) == leaves and len(leaves) == 4
    tops = [IPv4Interface(a.svi_addresses[leaf]) for leaf in leaves]
    assert [int(block.broadcast_address) - int(t.ip) for t in tops] == [1, 2, 3, 4]
    gateway = IPv4Interface(a.gateway)
    assert all(t.network == block == gateway.network and t.ip != gateway.ip for t in tops)
    for leaf in leaves:
        (vlan,) = nvue_small.intents[leaf].vlans
        assert (vlan.address, vlan.gateway) == (a.svi_addresses[leaf], a.gateway)
    assert all(not i.vlans for n, i in nvue_small.intents.items() if n not in leaves)


def test_growing_a_tenant_keeps_every_leafs_address_and_renumbers_no_other_tenant(tmp_path: Path) -> None:
    root = copy_fabric(NVUE_SMALL, tmp_path)
    before = pipeline.compile(root)
    _edit(root, TENANT, gpus=[{"servers": ["node05", "node06", "node09"]}])
    after = pipeline.compile(root)
    assert _alloc(after).svi_addresses == _alloc(before).svi_addresses
    for a in before.allocation.tenants:
        if a.name != TENANT:
            assert _alloc(after, a.name).svi_addresses == a.svi_addresses
            assert [p.leaf_ip for p in _alloc(after, a.name).ports] == [p.leaf_ip for p in a.ports]


def test_a_block_without_room_for_the_leaf_addresses_is_refused(tmp_path: Path) -> None:
    """12 GPUs on 4 NVUE leaves need 12 + network, gateway, broadcast + 4 SVI addresses = 19:
    more than a /28 holds, though the same tenant on EOS (15) fits."""
    root = copy_fabric(NVUE_SMALL, tmp_path)
    _edit(root, TENANT, address_block="172.21.12.0/28", gpus=[{"servers": ["node05", "node06", "node09"]}])
    with pytest.raises(InputError) as err:
        pipeline.compile(root)
    text = err.value.render()
    assert "172.21.12.0/28 has 16 addresses; 12 GPUs in isolation l2 and 4 leaf SVI addresses need 19" in text
    assert "a prefix of /27 or larger" in text


def test_anycast_gateways_of_eos_and_comware_take_no_address_of_their_own(eos_small: Compiled) -> None:
    """EOS `ip address virtual` and Comware's distributed gateway answer from the anycast address
    alone: no leaf address is taken from the block."""
    l2 = [a for a in eos_small.allocation.tenants if a.tenant.isolation == "l2"]
    assert l2 and all(a.svi_addresses == {} for a in l2)
    assert all(v.address is None for i in eos_small.intents.values() for v in i.vlans)


def test_tenant_new_sizes_an_l2_block_for_the_leaf_addresses(nvue_small: Compiled) -> None:
    c = nvue_small
    placed = place(c.fabric, c.topology, c.allocation, c.tenants, "new-l2", 13, isolation="l2")
    # 13 GPUs reach all 4 leaves: 13 + 3 + 4 = 20 addresses, a /27 (16 + 3 would fit a /27 too,
    # so the count is checked in the reason)
    assert placed.block.prefixlen == 27
    assert "(20 addresses needed, 4 of them leaf SVI addresses)" in placed.block_reason
    placed = place(c.fabric, c.topology, c.allocation, c.tenants, "new-l2", 9, isolation="l2")
    assert placed.block == IPv4Network(placed.block) and placed.block.prefixlen == 28  # 9 + 3 + 4 = 16


def test_show_allocations_lists_each_leaf_svi_address(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], nvue_small: Compiled
) -> None:
    root = copy_fabric(NVUE_SMALL, tmp_path)
    code, out, err = run_cli(["show", "allocations", "--root", str(root), "--format", "json"], capsys)
    assert code == 0, err
    row = next(r for r in json.loads(out) if r["tenant"] == TENANT)
    assert row["svi_addresses"] == [
        f"{leaf}={addr}" for leaf, addr in _alloc(nvue_small).svi_addresses.items()
    ]
    code, out, _ = run_cli(["show", "allocations", "--root", str(root), "--format", "csv"], capsys)
    assert code == 0 and "svi_addresses" in out.splitlines()[0]
