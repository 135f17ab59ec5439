"""Multi-pod fabrics: pods of leaves + spines joined by super-spine planes (issue #13).

The fabrics are written by bench/gen_100k.py (the same generator as examples/multipod-10k and the
100k benchmark), small: 2 pods x (2 spines + 2 leaves), 2 planes x 1 super-spine, 2 GPU ports of
2 x 200G per leaf, 2 NICs per server.
"""

from __future__ import annotations

import ipaddress
import re
import sys
from pathlib import Path

import pytest

from fabricctl import pipeline
from fabricctl.compile.build import Compiled
from fabricctl.compile.topology import pod_pool
from fabricctl.config.diff import diff_device
from fabricctl.config.tree import Node, parse_tree
from fabricctl.lab import LabFabric
from fabricctl.lab.clock import LabClock
from fabricctl.lab.inventory import specs_from_inventory
from fabricctl.lab.reference import Reference, reference
from fabricctl.lab.routing import routing
from fabricctl.platforms import get_platform
from tests.config.lab_apply import lab_device, push
from tests.conftest import REPO, run_cli

sys.path.insert(0, str(REPO / "bench"))
import gen_100k

#: servers gpu001-gpu004 sit in pod 1, gpu005-gpu008 in pod 2 (4 per pod: 2 ports x 2 lanes).
SPAN = """\
---
name: span
id: 7
description: Spans two pods
isolation: l3
address_block: 100.100.0.0/29
lossless: true
gpus:
  - servers: [gpu001, gpu005]
"""
LOCAL = """\
---
name: local
id: 8
description: One pod only
isolation: l3
address_block: 100.100.1.0/29
lossless: true
gpus:
  - servers: [gpu002]
"""


def make_fabric(root: Path, platform: str = "comware", pods: int = 2) -> Path:
    gen_100k.write_fabric(
        root,
        pods=pods,
        spines=2,
        leaves=2,
        gpu_ports="33-34",
        nics=2,
        platform=platform,
        leaf_uplinks=2,
        spine_uplinks=2,
        name="tiny",
    )
    (root / "tenants").mkdir(exist_ok=True)
    (root / "tenants" / "span.yaml").write_text(SPAN, encoding="utf-8")
    (root / "tenants" / "local.yaml").write_text(LOCAL, encoding="utf-8")
    return root


@pytest.fixture(scope="module", params=["comware", "eos"])
def fabric(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Compiled, dict[str, str]]:
    root = make_fabric(tmp_path_factory.mktemp(f"mp-{request.param}"), request.param)
    compiled = pipeline.compile(root)
    return compiled, pipeline.render(compiled.intents)


def test_cabling_rules_make_the_third_tier(fabric: tuple[Compiled, dict[str, str]]) -> None:
    compiled, _ = fabric
    topo = compiled.topology
    up = [ln for ln in topo.links if ln.tier == "spine-superspine"]
    # spine k of both pods reaches the one super-spine of plane k on both of its uplinks
    assert {(ln.leaf, ln.spine) for ln in up} == {
        ("p01-spine01", "ss01-01"),
        ("p02-spine01", "ss01-01"),
        ("p01-spine02", "ss02-01"),
        ("p02-spine02", "ss02-01"),
    }
    assert len(up) == 4 * 2
    ss_ports = [ln.spine_port for ln in up if ln.spine == "ss01-01"]
    assert len(ss_ports) == len(set(ss_ports)) == 4  # pod 1 on ports 1-2, pod 2 on 3-4
    addresses = [ln.leaf_ip for ln in topo.links] + [ln.spine_ip for ln in topo.links]
    assert len(addresses) == len(set(addresses))
    # no spine-spine or leaf-superspine cable, no leaf cabled to the other pod's spines
    pod = {sw.name: sw.pod for sw in compiled.fabric.switches}
    for ln in topo.links:
        if ln.tier == "leaf-spine":
            assert pod[ln.leaf] == pod[ln.spine]


def test_asns_and_pools_per_pod_and_plane(fabric: tuple[Compiled, dict[str, str]]) -> None:
    compiled, _ = fabric
    topo, und = compiled.topology, compiled.fabric.settings.underlay
    assert topo.asn["p01-spine01"] == topo.asn["p01-spine02"] == und.spine_asn
    assert topo.asn["p02-spine01"] == und.spine_asn + 1
    # RFC 7938 section 5.2.1: one ASN for the whole super-spine tier, every plane alike
    assert topo.asn["ss01-01"] == topo.asn["ss02-01"] == und.superspine_asn
    assert topo.asn["p02-leaf01"] == und.leaf_asn_base + 100 + 1
    leaf_asns = [topo.asn[s.name] for s in compiled.fabric.leaves]
    assert len(set(leaf_asns)) == len(leaf_asns)
    for sw in compiled.fabric.leaves:
        share = pod_pool(und.leaf_loopbacks, sw.pod, 2)
        assert share is not None and topo.loopback[sw.name] in share
    pod2_p2p = pod_pool(und.p2p_links, 2, 2)
    assert pod2_p2p is not None
    for ln in topo.links:
        if ln.tier == "leaf-spine" and ln.leaf.startswith("p02"):
            assert ln.leaf_ip in pod2_p2p


def test_evpn_route_servers_are_spines_and_superspines(fabric: tuple[Compiled, dict[str, str]]) -> None:
    compiled, _ = fabric
    intents, topo = compiled.intents, compiled.topology

    def overlay(name: str) -> set[str]:
        return {n.ip for n in intents[name].bgp.neighbors if n.kind == "overlay"}

    def lo(*names: str) -> set[str]:
        return {str(topo.loopback[n]) for n in names}

    assert overlay("p02-leaf01") == lo("p02-spine01", "p02-spine02")  # its own pod's spines only
    assert overlay("p01-spine02") == lo("p01-leaf01", "p01-leaf02", "ss02-01")
    assert overlay("ss01-01") == lo("p01-spine01", "p02-spine01")
    for name in ("p01-spine01", "ss01-01"):
        assert intents[name].bgp.evpn_next_hop_unchanged and intents[name].bgp.evpn_retain_all_routes
    assert not intents["p01-leaf01"].bgp.evpn_next_hop_unchanged
    ss = intents["ss01-01"]
    assert ss.role == "superspine" and ss.vtep is None
    assert not ss.vrfs and not ss.vlans and not ss.acls
    assert all(i.role in ("downlink", "unused") for i in ss.interfaces)
    spine = intents["p01-spine01"]
    assert {i.role for i in spine.interfaces if i.ipv4} == {"uplink", "downlink"}


def test_cross_pod_tenant_lands_only_on_its_leaves(fabric: tuple[Compiled, dict[str, str]]) -> None:
    compiled, configs = fabric
    span = next(a for a in compiled.allocation.tenants if a.name == "span")
    assert {compiled.fabric.switch(leaf).pod for leaf in span.leaves} == {1, 2}  # type: ignore[union-attr]
    for name, intent in compiled.intents.items():
        carries = any(v.name.endswith("span") for v in intent.vrfs)
        assert carries == (name in span.leaves), name
        if intent.role != "leaf":
            assert "tnt-" not in configs[name], f"{name} carries a tenant object"


def test_multipod_fabric_verifies_clean(fabric: tuple[Compiled, dict[str, str]]) -> None:
    compiled, configs = fabric
    report = pipeline.verify(compiled, configs)
    assert report.violations == [], report.violations[:3]
    assert report.switches == 10


def _unknown_lines(ref: Reference, nodes: list[Node], view: str) -> list[str]:
    """Lines matching no command of the view their indentation puts them in (as tests/lab/test_reference)."""
    out = []
    for node in nodes:
        words = node.text.split()
        if words[0] in ("!", "#", "end", "return") or node.text.startswith("version "):
            continue
        rule = ref.grammar.find(view, words)
        if rule is None or (node.children and rule.child is None):
            out.append(f"line {node.line}: {node.text} (view {view})")
        elif node.children:
            out += _unknown_lines(ref, node.children, rule.child)  # type: ignore[arg-type]
    return out


def test_every_tier_renders_lab_reference_commands(fabric: tuple[Compiled, dict[str, str]]) -> None:
    """Every line of a super-spine, a spine and a leaf is a command of the lab's reference."""
    compiled, configs = fabric
    ref = reference(compiled.intents["ss01-01"].platform)
    for name in ("ss01-01", "p01-spine01", "p02-leaf01"):
        unknown = _unknown_lines(ref, parse_tree(configs[name]), ref.grammar.root)
        assert unknown == [], (name, unknown[:3])


def _cli_error(root: Path, capsys: pytest.CaptureFixture[str]) -> str:
    code, out, err = run_cli(["validate", "--root", str(root)], capsys)
    assert code == 1, out
    assert "Traceback" not in err
    return err


def test_superspine_without_pods_is_one_located_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_fabric(tmp_path)
    fabric_yaml = root / "inventory" / "fabric.yaml"
    text = fabric_yaml.read_text(encoding="utf-8")
    text = text[: text.index("pods:\n")]
    text = "\n".join(line for line in text.splitlines() if "superspine_" not in line) + "\n"
    fabric_yaml.write_text(text, encoding="utf-8")
    err = _cli_error(root, capsys)
    assert "inventory/groups.yaml:" in err  # where the role is written
    assert "superspine.data.role: a super-spine needs a multi-pod fabric (fabric.yaml has no pods:)" in err
    assert "(given to ss01-01, " in err and "(allowed: spine or leaf)" in err


def test_leaf_without_pod_and_pod_above_max(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_fabric(tmp_path)
    hosts = root / "inventory" / "hosts.yaml"
    text = hosts.read_text(encoding="utf-8")
    text = text.replace("    pod: 2\n    index: 2\n", "    index: 2\n", 2)  # p02-spine02, p02-leaf02
    text = text.replace("    pod: 1\n    index: 1\n", "    pod: 9\n    index: 1\n", 1)  # p01-spine01
    hosts.write_text(text, encoding="utf-8")
    err = _cli_error(root, capsys)
    assert (
        "p02-spine02.data.pod: a spine of a multi-pod fabric needs its pod (allowed: a whole number, 1-2)"
        in err
    )
    assert "p01-spine01.data.pod: pod 9 is above pods.max_pods 2 (allowed: a whole number, 1-2)" in err
    assert "inventory/hosts.yaml:" in err


def test_pods_need_the_superspine_pools(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_fabric(tmp_path)
    fabric_yaml = root / "inventory" / "fabric.yaml"
    text = fabric_yaml.read_text(encoding="utf-8")
    text = "\n".join(line for line in text.splitlines() if "superspine_loopbacks" not in line) + "\n"
    fabric_yaml.write_text(text, encoding="utf-8")
    err = _cli_error(root, capsys)
    assert "inventory/fabric.yaml:" in err
    assert "pods needs underlay.superspine_loopbacks" in err


def test_too_few_superspine_ports_for_the_pods(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_fabric(tmp_path)
    fabric_yaml = root / "inventory" / "fabric.yaml"
    text = fabric_yaml.read_text(encoding="utf-8").replace(
        "superspine_downlink_ports: 1-4", "superspine_downlink_ports: 1-3"
    )
    fabric_yaml.write_text(text, encoding="utf-8")
    err = _cli_error(root, capsys)
    assert (
        "pods.superspine_downlink_ports: 3 ports cannot reach pod 2 x 2 links (allowed: at least 4 ports)"
        in err
    )


def test_spine_plane_without_superspine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_fabric(tmp_path)
    hosts = root / "inventory" / "hosts.yaml"
    text = hosts.read_text(encoding="utf-8")
    start = text.index("ss02-01:")
    end = text.index("p01-spine01:")
    hosts.write_text(text[:start] + text[end:], encoding="utf-8")
    err = _cli_error(root, capsys)
    assert "uplinks to plane 2, which has no super-spine" in err


def test_asn_runs_must_not_meet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_fabric(tmp_path)
    fabric_yaml = root / "inventory" / "fabric.yaml"
    text = fabric_yaml.read_text(encoding="utf-8").replace(
        "superspine_asn: 4220000000", "superspine_asn: 4210000050"
    )
    fabric_yaml.write_text(text, encoding="utf-8")
    err = _cli_error(root, capsys)
    assert "underlay.superspine_asn: the super-spine ASN 4210000050 meets the leaf ASNs" in err


def test_pod_pool_splits_evenly() -> None:
    pool = ipaddress.IPv4Network("10.0.0.0/16")
    shares = [pod_pool(pool, p, 4) for p in range(1, 5)]
    assert [str(s) for s in shares] == ["10.0.0.0/18", "10.0.64.0/18", "10.0.128.0/18", "10.0.192.0/18"]
    assert pod_pool(pool, None, 4) == pool
    assert pod_pool(ipaddress.IPv4Network("10.0.0.0/30"), 1, 8) is None


# --- proofs across pods (issue #13 step 2) -------------------------------------------------------

#: The line each platform's super-spine port needs for the lossless class (removing it breaks it).
LOSSLESS_PORT_LINE = {
    "comware": " priority-flow-control no-drop dot1p 3",
    "eos": "   service-profile ROCE-LOSSLESS",
}
CROSS_POD = re.compile(
    r"p0(\d)-leaf\d+ .* -> p0\1-spine\d+ .* -> ss01-01 .* -> p0(?!\1)\d-spine\d+ .* -> p0\d-leaf\d+"
)


def _block_edit(text: str, header: str, line: str) -> str:
    """`text` without `line` inside the block that starts at `header` (fails when absent)."""
    lines = text.split("\n")
    start = lines.index(header)
    end = next(i for i in range(start + 1, len(lines)) if not lines[i].startswith(" "))
    assert line in lines[start:end], (header, line)
    del lines[start + lines[start:end].index(line)]
    return "\n".join(lines)


def test_cross_pod_tenant_is_lossless_and_a_superspine_fault_is_named_on_its_path(
    fabric: tuple[Compiled, dict[str, str]],
) -> None:
    compiled, configs = fabric
    report = pipeline.verify(compiled, configs)
    assert report.violations == []
    platform = compiled.intents["ss01-01"].platform
    port = next(i for i in compiled.intents["ss01-01"].interfaces if (i.peer or "").startswith("p02-spine01"))
    header = f"interface {port.name}"
    broken = dict(
        configs, **{"ss01-01": _block_edit(configs["ss01-01"], header, LOSSLESS_PORT_LINE[platform])}
    )
    found = [v for v in pipeline.verify(compiled, broken).violations if v.switch == "ss01-01"]
    assert found, "a super-spine port without the lossless class went unnoticed"
    assert {v.object for v in found} == {port.name}
    assert any(v.check == "pfc" for v in found), [v.check for v in found]
    for v in found:
        assert CROSS_POD.search(v.counterexample), v.counterexample


def _vtep(compiled: Compiled, leaf: str) -> ipaddress.IPv4Address:
    """The VTEP address of `leaf`, which has one."""
    vtep = compiled.intents[leaf].vtep
    assert vtep is not None, leaf
    return ipaddress.IPv4Address(vtep.source_ip)


def _per_plane_asns(compiled: Compiled, configs: dict[str, str], relax_off: bool) -> dict[str, str]:
    """The configs with the super-spines of plane k in ASN superspine_asn + k (and the spines of
    plane k naming that ASN), the numbering RFC 7938 section 5.2.1 does not use; `relax_off` adds
    EOS's `no bgp bestpath as-path multipath-relax` to every leaf and spine."""
    base = compiled.fabric.settings.underlay.superspine_asn
    assert base is not None, "a 3-tier fabric names its super-spines' ASN"
    out = dict(configs)
    for sw in compiled.fabric.switches:
        plane = sw.plane if sw.role == "superspine" else sw.index if sw.role == "spine" else None
        text = out[sw.name]
        if plane is not None:
            new = base + plane
            for old_line, new_line in (
                (f"bgp {base}\n", f"bgp {new}\n"),
                (f" as-number {base}\n", f" as-number {new}\n"),
                (f" remote-as {base}\n", f" remote-as {new}\n"),
            ):
                text = text.replace(old_line, new_line)
        if relax_off and sw.role != "superspine":
            text = re.sub(
                r"^(router bgp \d+\n)", r"\1   no bgp bestpath as-path multipath-relax\n", text, flags=re.M
            )
        out[sw.name] = text
    return out


def test_one_superspine_asn_uses_every_uplink_and_per_plane_asns_do_not(
    fabric: tuple[Compiled, dict[str, str]],
) -> None:
    """ECMP width: a pod-1 leaf reaches pod 2's VTEPs over both uplinks, and pod 1's spines over
    both super-spine links. With an ASN per plane the two paths carry different AS paths: Comware
    then installs one (no `balance as-path-relax`), and EOS too once multipath-relax is off."""
    compiled, configs = fabric
    report = pipeline.verify(compiled, configs)
    rows = {(r.scope, r.towards): r for r in report.ecmp}
    assert (
        rows[("pod 1 leaves", "VTEPs of pod 2")].width,
        rows[("pod 1 leaves", "VTEPs of pod 2")].uplinks,
    ) == (2, 2)
    assert (
        rows[("pod 1 spines", "VTEPs of pod 2")].width,
        rows[("pod 1 spines", "VTEPs of pod 2")].uplinks,
    ) == (2, 2)
    platform = compiled.intents["p01-leaf01"].platform
    per_plane = _per_plane_asns(compiled, configs, relax_off=False)
    if platform == "eos":  # EOS relaxes the AS-path rule by default: still both uplinks
        assert pipeline.verify(compiled, per_plane).violations == []
        per_plane = _per_plane_asns(compiled, configs, relax_off=True)
    found = [v for v in pipeline.verify(compiled, per_plane).violations if v.check == "ecmp-width"]
    leaves = {(v.switch, v.object) for v in found if "leaf" in v.switch}
    assert ("p01-leaf01", "VTEPs of pod 2") in leaves and ("p02-leaf02", "VTEPs of pod 1") in leaves
    assert ("p01-leaf01", "VTEPs of pod 1") not in leaves  # inside a pod the spines share one ASN
    witness = next(v for v in found if (v.switch, v.object) == ("p01-leaf01", "VTEPs of pod 2"))
    assert "over 1 of its 2 uplinks" in witness.counterexample
    assert "different AS paths" in witness.counterexample, witness.counterexample
    short = {r.scope for r in pipeline.verify(compiled, per_plane).ecmp if not r.ok}
    assert short == {"pod 1 leaves", "pod 2 leaves"}  # a spine's two links go to one super-spine


def _vrf_block(text: str, name: str) -> str:
    lines = text.split("\n")
    start = next(i for i, ln in enumerate(lines) if ln.endswith(f" {name}") and not ln.startswith(" "))
    end = next(i for i in range(start + 1, len(lines)) if not lines[i].startswith(" "))
    return "\n".join(lines[start:end])


def test_a_tenant_vrf_on_a_superspine_breaks_isolation(fabric: tuple[Compiled, dict[str, str]]) -> None:
    """The super-spine tier is tenant-free: a tenant VRF there is a violation, named where it is."""
    compiled, configs = fabric
    leaf = next(a for a in compiled.allocation.tenants if a.name == "span").leaves[0]
    vrf = next(v.name for v in compiled.intents[leaf].vrfs if v.name.endswith("span"))
    block = _vrf_block(configs[leaf], vrf)
    text = configs["ss01-01"]
    at = text.index("\ninterface ")
    broken = dict(configs, **{"ss01-01": text[:at] + "\n" + block + text[at:]})
    found = [v for v in pipeline.verify(compiled, broken).violations if v.check == "transit-tenant"]
    assert [(v.switch, v.object) for v in found] == [("ss01-01", f"VRF {vrf}")], found
    assert "super-spine" in found[0].counterexample and "span" in found[0].counterexample


def test_capacity_per_tier(fabric: tuple[Compiled, dict[str, str]], tmp_path: Path) -> None:
    compiled, configs = fabric
    rows = {(r.scope, r.metric): r for r in pipeline.verify(compiled, configs).capacity}
    leaf = rows[("p01-leaf01", "oversubscription")]
    assert (leaf.used, leaf.ok) == (1.0, True)  # 2 x 2 x 200G down, 2 x 400G up
    spine = rows[("p02-spine01", "oversubscription to super-spines")]
    assert (spine.used, spine.limit, spine.ok) == (1.0, 1.0, True)  # 2 leaf links, 2 up
    assert not any(s == "ss01-01" and "oversubscription" in m for s, m in rows)


def test_declared_spine_oversubscription_is_enforced(tmp_path: Path) -> None:
    """Spines with 2 leaf links and 1 super-spine link are 2:1: above 1.0 a violation, at 2.0 fine."""
    root = tmp_path / "f"
    gen_100k.write_fabric(
        root,
        pods=2,
        spines=2,
        leaves=2,
        gpu_ports="33-33",
        nics=2,
        leaf_uplinks=2,
        spine_uplinks=1,
        name="osub",
    )
    compiled = pipeline.compile(root)
    report = pipeline.verify(compiled, pipeline.render(compiled.intents))
    over = [v for v in report.violations if v.check == "oversubscription"]
    assert sorted(v.switch for v in over) == ["p01-spine01", "p01-spine02", "p02-spine01", "p02-spine02"]
    assert "(2.00:1, design allows 1:1)" in over[0].counterexample
    fabric_yaml = root / "inventory" / "fabric.yaml"
    fabric_yaml.write_text(
        fabric_yaml.read_text(encoding="utf-8").replace(
            "  max_pods: 2\n", "  max_pods: 2\n  max_oversubscription: 2.0\n"
        ),
        encoding="utf-8",
    )
    compiled = pipeline.compile(root)
    assert pipeline.verify(compiled, pipeline.render(compiled.intents)).violations == []


# --- examples/multipod-10k (issue #13 step 3) ----------------------------------------------------

EXAMPLE = REPO / "examples" / "multipod-10k"


@pytest.fixture(scope="module")
def example() -> tuple[Compiled, dict[str, str]]:
    compiled = pipeline.compile(EXAMPLE)
    return compiled, pipeline.render(compiled.intents, EXAMPLE)


def test_example_10k_is_five_pods_of_2048_gpus(example: tuple[Compiled, dict[str, str]]) -> None:
    compiled, _ = example
    fabric = compiled.fabric
    assert fabric.pods == [1, 2, 3, 4, 5]
    assert (len(fabric.superspines), len(fabric.spines), len(fabric.leaves)) == (128, 160, 160)
    per_pod = {
        p: sum(len(compiled.topology.gpu_ports[s.name]) for s in fabric.in_pod("leaf", p))
        for p in fabric.pods
    }
    assert per_pod == {p: 2048 for p in range(1, 6)}
    llm = next(a for a in compiled.allocation.tenants if a.name == "llm-pretrain")
    assert {fabric.switch(leaf).pod for leaf in llm.leaves} == {1, 2}  # type: ignore[union-attr]


def test_example_10k_verifies_clean_and_is_lab_syntax(example: tuple[Compiled, dict[str, str]]) -> None:
    compiled, configs = example
    report = pipeline.verify(compiled, configs)
    assert report.violations == [], report.violations[:3]
    assert report.switches == 448
    ref = reference("comware")
    storage = next(a for a in compiled.allocation.tenants if a.name == "storage").leaves
    hpc = next(a for a in compiled.allocation.tenants if a.name == "hpc-l2").leaves
    for name in ("ss01-01", "ss32-04", "p03-spine07", "p01-leaf01", hpc[0], *storage):
        unknown = _unknown_lines(ref, parse_tree(configs[name]), ref.grammar.root)
        assert unknown == [], (name, unknown[:3])


def test_example_10k_every_config_is_accepted_by_the_lab(example: tuple[Compiled, dict[str, str]]) -> None:
    """All 448 switches, as a first apply does it: each lab device boots its factory config (the
    inventory's model and address), takes the plan's commands in its own CLI and device model
    (what the lab's SSH server runs) with no line rejected, and then runs exactly the intent."""
    compiled, configs = example
    specs = {s.name: s for s in specs_from_inventory(EXAMPLE)}
    rejected: dict[str, list[str]] = {}
    left: dict[str, str] = {}
    for name, text in configs.items():
        dialect = get_platform(compiled.intents[name].platform).dialect
        dev = lab_device(name, specs[name].platform, spec=specs[name])
        commands = diff_device(name, dev.running_text(), text, dialect).commands
        assert len(commands) > 100, name  # a first apply: the whole owned config
        if bad := push(dev, commands):
            rejected[name] = bad[:3]
        after = diff_device(name, dev.running_text(), text, dialect)
        if after.changed:
            left[name] = after.diff[:300]
    assert len(configs) == 448
    assert rejected == {}, dict(list(rejected.items())[:3])
    assert left == {}, dict(list(left.items())[:3])


def _lab_width(lab: LabFabric, compiled: Compiled, configs: dict[str, str], leaf: str, far: str) -> int:
    """Load `configs` into the lab (saved and rebooted), then the paths `leaf` installs to the VTEP of
    `far`, as the lab's routing derives them from the configs alone."""

    def load() -> int:
        for name, dev in lab.devices.items():
            dev.running.replace_contents(dev.parse(configs[name], base=dev.running))
            dev.persist_running()
            dev.save()
            dev.reboot()
        vtep = _vtep(compiled, far)
        route = routing(lab.devices[leaf].state()).lookup(leaf, "default", vtep)
        return len(route.hops) if route else 0

    return lab.call(load)


def test_the_lab_installs_the_width_the_proof_computes(fabric: tuple[Compiled, dict[str, str]]) -> None:
    """The lab's BGP takes the same attributes as the ECMP proof: one super-spine ASN gives both
    uplinks; an ASN per plane gives one on Comware (two with `balance as-path-relax`) and two on
    EOS (one with `no bgp bestpath as-path multipath-relax`); `max-ecmp-num` counts from the
    next reboot."""
    compiled, configs = fabric
    platform = compiled.intents["p01-leaf01"].platform
    per_plane = _per_plane_asns(compiled, configs, relax_off=False)
    cases = [("one ASN", configs, 2), ("ASN per plane", per_plane, 2 if platform == "eos" else 1)]
    if platform == "eos":
        cases.append(("relax off", _per_plane_asns(compiled, configs, relax_off=True), 1))
    else:
        relaxed = {
            n: re.sub(r"^(  balance \d+\n)", r"\1  balance as-path-relax\n", t, flags=re.M)
            for n, t in per_plane.items()
        }
        cases.append(("balance as-path-relax", relaxed, 2))
    lab = LabFabric.from_inventory(compiled.fabric.root, clock=LabClock.frozen()).start()
    try:
        for label, texts, want in cases:
            rows = {(r.scope, r.towards): r.width for r in pipeline.verify(compiled, texts).ecmp}
            assert rows[("pod 1 leaves", "VTEPs of pod 2")] == want, label
            assert _lab_width(lab, compiled, texts, "p01-leaf01", "p02-leaf01") == want, label
        if platform == "comware":
            capped = {n: re.sub(r"^max-ecmp-num \d+\n", "", t, flags=re.M) for n, t in configs.items()}
            capped = {n: "#\nmax-ecmp-num 1\n" + t for n, t in capped.items()}

            def saved_not_rebooted() -> int:
                dev = lab.devices["p01-leaf01"]
                dev.running.replace_contents(dev.parse(capped["p01-leaf01"], base=dev.running))
                dev.persist_running()
                dev.save()
                vtep = _vtep(compiled, "p02-leaf01")
                route = routing(dev.state()).lookup("p01-leaf01", "default", vtep)
                return len(route.hops) if route else 0

            assert lab.call(saved_not_rebooted) == 2, "max-ecmp-num applies at the next boot"
            assert _lab_width(lab, compiled, capped, "p01-leaf01", "p02-leaf01") == 1
    finally:
        lab.stop()
