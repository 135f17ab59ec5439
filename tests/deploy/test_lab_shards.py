"""A lab served by two processes' worth of shards: a multi-pod fabric pushed through both, and
every switch's LLDP neighbours and BGP sessions the same whichever shard derives them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from ipaddress import IPv4Address, IPv4Interface, IPv4Network
from pathlib import Path

import pytest

from fabricctl.lab import LabClock, LabFabric
from fabricctl.lab.runtime import running_lab, write_lab_json
from fabricctl.lab.server import free_block
from fabricctl.lab.shards import Shard, assign
from tests.test_multipod import make_fabric

from .conftest import LabRoot


@pytest.fixture
def sharded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[LabRoot, list[LabFabric]]]:
    monkeypatch.delenv("FABRICCTL_LAB_USERNAME", raising=False)
    monkeypatch.delenv("FABRICCTL_LAB_PASSWORD", raising=False)
    root = make_fabric(tmp_path / "fabric", "eos", pods=2)
    block: IPv4Network = free_block(str(root), 20022)
    clock = LabClock.frozen()
    shards = [LabFabric.from_inventory(root, shard=Shard(k, 2), block=block, clock=clock) for k in (1, 2)]
    with shards[0], shards[1]:
        for fabric in shards:
            write_lab_json(root, fabric)
        yield LabRoot(root, shards[0], []), shards


def test_two_shards_answer_alike(
    sharded: tuple[LabRoot, list[LabFabric]], capsys: pytest.CaptureFixture[str]
) -> None:
    lab, shards = sharded
    one, two = shards
    # each serves whole pods; together every switch once, at the addresses a single lab gives
    assert set(one.devices).isdisjoint(two.devices)
    assert set(one.devices) | set(two.devices) == set(one.order)
    assert {d.spec.domain for d in one.devices.values()}.isdisjoint(
        {d.spec.domain for d in two.devices.values()}
    )
    merged = running_lab(lab.root)
    assert merged is not None and merged["complete"] and len(merged["shards"]) == 2
    hosts = {d["name"]: d["host"] for d in merged["devices"]}
    assert len(set(hosts.values())) == len(one.order)
    block = one.block
    assert block is not None
    assert all(hosts[n] == str(block[i + 1]) for n, i in one.order.items())

    code, out, err = lab.run("apply", "--lab", "--auto-approve", "--json", capsys=capsys)
    assert code == 0, out + err
    pushed = json.loads(out)["switches"]
    assert set(pushed) == set(one.order) and {s["status"] for s in pushed.values()} == {"changed"}

    a, b = one.state(), two.state()
    crossing = 0
    for name in one.order:
        assert a.lldp(name) == b.lldp(name), name
        assert a.sessions[name] == b.sessions[name], name
        assert a.sessions[name] and all(s.state == "Established" for s in a.sessions[name].values()), name
        here = one if name in one.devices else two
        crossing += sum(1 for _, peer, _ in a.lldp(name) if not here.serves(peer))
    assert crossing > 0  # spines to super-spines: cables between the shards

    # what a client reads from each shard's switches says the same
    code, out, err = lab.run("check", "--lab", capsys=capsys)
    assert code == 0, out + err


def test_shards_split_pods_whole() -> None:
    from fabricctl.lab.factory import DeviceSpec
    from fabricctl.lab.shards import ShardError

    specs = [
        DeviceSpec(f"p{p}-s{i}", "eos", f"192.0.2.{p * 10 + i}", domain=f"pod:{p}")
        for p in (1, 2, 3)
        for i in (1, 2)
    ]
    assert assign(specs, 2) == [["p1-s1", "p1-s2", "p3-s1", "p3-s2"], ["p2-s1", "p2-s2"]]
    with pytest.raises(ShardError, match="only 3 pods and planes"):
        assign(specs, 4)
    with pytest.raises(ShardError, match="allowed K/N"):
        Shard.parse("3/2")


def test_published_facts_say_everything_a_switch_knows() -> None:
    """What a shard publishes of a switch covers every field of its facts: a field added to the
    facts and not to what is published would read differently on the other shards."""
    from dataclasses import fields

    from fabricctl.lab.facts import DeviceFacts, PeerFacts, PortFacts, facts_from_data, facts_to_data

    peer = PeerFacts(IPv4Address("10.0.0.1"), 65001, "to spine", {"evpn"}, True, True, True, 2, 0)
    port = PortFacts(
        "Ethernet1",
        True,
        "up",
        [IPv4Interface("10.0.0.0/31")],
        "red",
        True,
        True,
        (3,),
        ("l2", "a"),
        9000,
        400,
    )
    facts = DeviceFacts("leaf1", "eos", "7060", {"Ethernet1": port}, 65001, IPv4Address("10.1.0.1"),
                        {peer.ip: peer}, IPv4Address("10.2.0.1"), honors_gshut=True, ecmp_cap=8)  # fmt: skip
    data = facts_to_data(facts)
    assert set(data) == {f.name for f in fields(DeviceFacts) if not f.name.startswith("_")}
    assert len(data["ports"][0]) == len(fields(PortFacts))  # type: ignore[index]
    assert len(data["peers"][0]) == len(fields(PeerFacts))  # type: ignore[index]
    assert facts_to_data(facts_from_data(json.loads(json.dumps(data)))) == data
