"""Expansion keeps every server where it is cabled (design invariant 0: held GPUs never move).

A 2 x 200G breakout turns each GPU port P into lanes P:1 and P:2. The GPU cabled to P stays on
P's first lane of the same leaf; the new lanes are new servers, numbered after every existing
one; a tenant that names port P still names the same GPU. Any inventory change that would move
a held GPU is refused at validate (against git HEAD or --changed-since REF), naming each GPU,
unless --allow-gpu-moves.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fabricctl import pipeline
from fabricctl.compile.moves import described_gpus, gpu_moves, held_gpus
from tests.conftest import (
    EOS_SMALL,
    GOLDEN,
    REFERENCE,
    REPO,
    assert_golden,
    comware_qos,
    copy_fabric,
    render_one,
    run_cli,
)

sys.path.insert(0, str(REPO / "bench"))
import gen_100k

BREAKOUT = ("gpu_port_breakout: none", "gpu_port_breakout: 2x200G")


def split(root: Path) -> None:
    """The fabric's GPU ports split 2 x 200G: the one-line expansion."""
    fabric = root / "inventory" / "fabric.yaml"
    text = fabric.read_text(encoding="utf-8")
    if BREAKOUT[0] in text:
        text = text.replace(BREAKOUT[0], BREAKOUT[1])
    else:  # a fabric that leaves the field at its default
        text = re.sub(r"(?m)^cabling:\n", "cabling:\n  gpu_port_breakout: 2x200G\n", text)
    fabric.write_text(text, encoding="utf-8")


def where(root: Path) -> dict[tuple[str, str, int], tuple[str, int, int, str | None]]:
    """(tenant, server, NIC) -> (leaf, front-panel port, lane (a whole port is 1), GPU address)."""
    compiled = pipeline.compile(root)
    return {
        (a.name, pa.gpu.server, pa.gpu.nic): (
            pa.gpu.leaf,
            pa.gpu.port,
            pa.gpu.lane or 1,
            str(pa.gpu_ip) if pa.gpu_ip else None,
        )
        for a in compiled.allocation.tenants
        for pa in a.ports
    }


def git_repo(root: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)

    git("init", "-q")
    git("add", "-A")
    git("-c", "user.email=ops@example.net", "-c", "user.name=ops", "commit", "-q", "-m", "fabric")


def test_the_reference_expansion_keeps_every_held_gpu(tmp_path: Path) -> None:
    root = copy_fabric(REFERENCE, tmp_path / "fabric")
    before = where(root)
    old = pipeline.compile(root)
    split(root)
    new = pipeline.compile(root)
    assert where(root) == before  # every tenant's GPU on the same leaf, port and address
    assert gpu_moves(held_gpus(old.allocation), held_gpus(new.allocation)) == []
    # 1,024 GPUs become 2,048: the new servers are numbered after the existing ones
    assert len(old.topology.servers) == 128 and len(new.topology.servers) == 256
    assert new.topology.servers[:128] == old.topology.servers
    for server in old.topology.servers:
        for was, now in zip(old.topology.by_server[server], new.topology.by_server[server], strict=True):
            assert (now.leaf, now.port, now.lane) == (was.leaf, was.port, 1)
            assert now.name == f"TwoHundredGigE1/0/{was.port}:1"
    for server in new.topology.servers[128:]:
        assert {gp.lane for gp in new.topology.by_server[server]} == {2}
    # the example: uni-nlp's gpu079 NIC 0 stays on leaf17 port 47
    gpu079 = new.topology.by_server["gpu079"][0]
    assert (gpu079.leaf, gpu079.name) == ("leaf17", "TwoHundredGigE1/0/47:1")


def test_a_tenant_naming_port_p_keeps_its_gpu(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    (root / "tenants" / "by-port.yaml").write_text(
        "name: by-port\nid: 300\ndescription: Named by port\nisolation: l3\n"
        "address_block: 10.200.0.0/29\ngpus:\n  - leaf: leaf4\n    ports: [16]\n",
        encoding="utf-8",
    )
    before = where(root)[("by-port", "node08", 3)]
    split(root)
    assert where(root)[("by-port", "node08", 3)] == before
    # Port 16 and its lane 16:1 are one GPU: naming both is naming it twice.
    other = root / "tenants" / "by-lane.yaml"
    other.write_text(
        "name: by-lane\nid: 301\ndescription: Named by lane\nisolation: l3\n"
        "address_block: 10.200.1.0/29\ngpus:\n  - leaf: leaf4\n    ports: ['16:1']\n",
        encoding="utf-8",
    )
    code, _, err = run_cli(["validate", "--root", str(root)], capsys)
    assert code == 1
    assert "node08 nic3 (leaf4 Ethernet16/1) is already held by tenant by-port" in err


@st.composite
def fabrics(draw: st.DrawFn) -> dict[str, object]:
    """A random 2-tier or multi-pod fabric's shape (ports and switches a lab could carry)."""
    nics = draw(st.sampled_from([1, 2, 4]))
    return {
        "pods": draw(st.sampled_from([None, 2, 3])),
        "platform": draw(st.sampled_from(["comware", "eos"])),
        "nics": nics,
        "groups": draw(st.integers(1, 3)),
        "spines": draw(st.integers(1, 3)),
        "gpu_ports": draw(st.integers(1, 6)),
    }


def write_fabric(root: Path, shape: dict[str, object]) -> None:
    nics, groups, spines, ports = (int(shape[k]) for k in ("nics", "groups", "spines", "gpu_ports"))  # type: ignore[call-overload]
    leaves = nics * groups
    if shape["pods"] is not None:
        gen_100k.write_fabric(
            root,
            pods=int(shape["pods"]),  # type: ignore[call-overload]
            spines=spines,
            leaves=leaves,
            gpu_ports=f"33-{32 + ports}",
            breakout="none",
            nics=nics,
            platform=str(shape["platform"]),
            leaf_uplinks=spines,
            spine_uplinks=2,
            name="random",
        )
        return
    copy_fabric(EOS_SMALL, root)
    shutil.rmtree(root / "tenants")
    hosts = ["---"]
    for role, count in (("spine", spines), ("leaf", leaves)):
        for i in range(1, count + 1):
            hosts.append(
                f"{role}{i}:\n  hostname: 192.0.2.{len(hosts)}\n  groups: [{role}, {shape['platform']}]"
            )
            hosts.append(f"  data:\n    index: {i}")
    (root / "inventory" / "hosts.yaml").write_text("\n".join(hosts) + "\n", encoding="utf-8")
    fabric = root / "inventory" / "fabric.yaml"
    text = comware_qos(fabric.read_text(encoding="utf-8"))
    uplinks = '"1"' if spines == 1 else f"1-{spines}"  # one per spine: validate refuses an unused uplink
    text = text[: text.index("cabling:")] + (
        f"cabling:\n  leaf_uplinks_per_spine: 1\n  leaf_uplink_ports: {uplinks}\n"
        f"  leaf_gpu_ports: 9-{8 + ports}\n  spine_downlink_ports: 1-16\n  nics_per_server: {nics}\n"
    )
    fabric.write_text(text, encoding="utf-8")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=fabrics(), data=st.data())
def test_a_breakout_moves_no_held_gpu_of_any_fabric(
    tmp_path_factory: pytest.TempPathFactory, shape: dict[str, object], data: st.DataObject
) -> None:
    root = tmp_path_factory.mktemp("random")
    write_fabric(root, shape)
    (root / "tenants").mkdir(exist_ok=True)
    topo = pipeline.compile(root).topology
    gpus = [gp for leaf in sorted(topo.gpu_ports) for gp in topo.gpu_ports[leaf]]
    owners = data.draw(st.lists(st.integers(-1, 3), min_size=len(gpus), max_size=len(gpus)))
    for t in range(4):
        mine = [gp for gp, owner in zip(gpus, owners, strict=True) if owner == t]
        if not mine:
            continue
        form = data.draw(st.sampled_from(["servers", "server", "ports"]))
        lines = [f"name: t{t}", f"id: {t + 1}", "description: Generated", "isolation: l3"]
        lines += [f"address_block: 10.{100 + t}.0.0/20", "gpus:"]
        whole = {gp.server for gp in mine if all(p in mine for p in topo.by_server[gp.server])}
        for gp in mine:
            if form == "servers" and gp.server in whole:
                if gp.nic == 0:
                    lines.append(f"  - servers: [{gp.server}]")
            elif form == "ports":
                lines.append(f"  - leaf: {gp.leaf}\n    ports: [{gp.port}]")
            else:
                lines.append(f"  - server: {gp.server}\n    nics: [{gp.nic}]")
        (root / "tenants" / f"t{t}.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    before, old = where(root), pipeline.compile(root)
    split(root)
    new = pipeline.compile(root)
    assert where(root) == before
    assert gpu_moves(held_gpus(old.allocation), held_gpus(new.allocation)) == []
    # every server stays on the same ports (their first lanes); the new ones are the second lanes
    assert len(new.topology.servers) == 2 * len(old.topology.servers)
    for server in new.topology.servers:
        now = [(gp.leaf, gp.port, gp.lane) for gp in new.topology.by_server[server]]
        if server in old.topology.by_server:
            assert now == [(gp.leaf, gp.port, 1) for gp in old.topology.by_server[server]]
        else:
            assert {lane for _, _, lane in now} == {2}


def test_the_leaves_say_where_their_gpus_are(tmp_path: Path) -> None:
    """What a leaf runs names each held GPU: before a breakout on the whole port, after it on the
    first lane, at the same position; the two agree (no move)."""
    root = copy_fabric(REFERENCE, tmp_path / "fabric")
    old = pipeline.compile(root)
    running = render_one(old.intents["leaf17"], root)
    on_leaf = described_gpus("leaf17", "comware", running)
    assert {h for h in held_gpus(old.allocation) if h.leaf == "leaf17"} == set(on_leaf)
    split(root)
    new = [h for h in held_gpus(pipeline.compile(root).allocation) if h.leaf == "leaf17"]
    assert gpu_moves(on_leaf, new) == []
    assert {h.port for h in new} == {
        h.port.replace("FourHundredGigE", "TwoHundredGigE") + ":1" for h in on_leaf
    }


def swap_leaves(root: Path, a: str, b: str) -> None:
    """Swap the indexes of two leaves in hosts.yaml (the servers they carry trade places)."""
    hosts = root / "inventory" / "hosts.yaml"
    text = hosts.read_text(encoding="utf-8")
    index = {n: re.search(rf"(?ms)^{n}:.*?index: (\d+)", text)[1] for n in (a, b)}  # type: ignore[index]
    for name, other in ((a, b), (b, a)):
        text = re.sub(rf"(?ms)^({name}:.*?index: )\d+", rf"\g<1>X{index[other]}", text)
    hosts.write_text(text.replace("index: X", "index: "), encoding="utf-8")


def test_validate_refuses_an_inventory_change_that_moves_held_gpus(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_fabric(REFERENCE, tmp_path / "fabric")
    git_repo(root)
    split(root)  # the expansion moves nothing: ok against HEAD
    code, out, err = run_cli(["validate", "--root", str(root)], capsys)
    assert (code, err) == (0, "") and out.startswith("ok: 11 tenants")
    subprocess.run(["git", "-C", str(root), "checkout", "-q", "inventory"], check=True)
    swap_leaves(root, "leaf01", "leaf09")
    code, out, err = run_cli(["validate", "--root", str(root)], capsys)
    assert code == 1 and out == ""
    assert_golden(GOLDEN / "expansion" / "validate-moves.txt", err.replace(str(root), "<root>"))
    # Allowed on purpose: ok, and every move listed.
    code, out, err = run_cli(["validate", "--root", str(root), "--allow-gpu-moves"], capsys)
    assert code == 0 and out.startswith("ok:")
    assert err.count("would move from") == 64 and "llm-pretrain: gpu001 nic0 would move from leaf01" in err
    # Committed, the change is HEAD: a pull request compares with its base instead.
    subprocess.run(["git", "-C", str(root), "commit", "-qam", "swap"], check=True)
    assert run_cli(["validate", "--root", str(root)], capsys)[0] == 0
    code, _, err = run_cli(["validate", "--root", str(root), "--changed-since", "HEAD~1"], capsys)
    assert code == 1 and err.count("would move from") == 64
    code, _, err = run_cli(["validate", "--root", str(root), "--changed-since", "nope"], capsys)
    assert code == 1 and err.startswith("error: --changed-since nope: no such commit")


def test_a_fabric_at_ref_that_does_not_validate_is_said_not_compared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    tenant = root / "tenants" / "intern-01.yaml"
    tenant.write_text(tenant.read_text(encoding="utf-8").replace("node07", "node99"), encoding="utf-8")
    git_repo(root)  # HEAD names a server that does not exist
    tenant.write_text(tenant.read_text(encoding="utf-8").replace("node99", "node07"), encoding="utf-8")
    split(root)
    code, out, err = run_cli(["validate", "--root", str(root)], capsys)
    assert code == 0 and out.startswith("ok:")
    assert (
        err
        == "warning: the fabric at HEAD does not validate (1 input problem(s)): held GPUs not compared with it\n"
    )
