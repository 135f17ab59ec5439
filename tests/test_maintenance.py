"""maintenance.yaml: drains compiled into intent, written as each NOS's graceful shutdown, read
back by verify, and proven per tenant before anything is pushed (offline: no switch contacted)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabricctl import pipeline
from fabricctl.compile import cache
from fabricctl.compile.build import Compiled
from fabricctl.compile.drain import plan_name
from fabricctl.lab.grammar import Rule
from fabricctl.model.maintenance import Drain, with_drain, without_drain
from fabricctl.verify.api import parse_configs
from fabricctl.verify.drain import undrained
from fabricctl.verify.report import VerifyReport
from tests.conftest import EOS_SMALL, NVUE_SMALL, REFERENCE, REPO, copy_fabric, on_platform, run_cli

MIXED = REPO / "examples" / "mixed-pods"


def drained(src: Path, tmp: Path, text: str, platform: str | None = None, floor: float | None = None) -> Path:
    root = copy_fabric(src, tmp / "fabric")
    if platform is not None:
        on_platform(root, platform)
    if floor is not None:
        fabric = root / "inventory" / "fabric.yaml"
        fabric.write_text(fabric.read_text(encoding="utf-8") + f"drain:\n  max_bandwidth_loss: {floor}\n")
    (root / "maintenance.yaml").write_text(text, encoding="utf-8")
    return root


def proven(root: Path) -> tuple[Compiled, VerifyReport]:
    compiled = pipeline.compile(root)
    return compiled, pipeline.verify(compiled, pipeline.render(compiled.intents, root))


SPINE = "drained:\n  - switch: spine1\n"
LINK = "drained:\n  - switch: leaf2\n    port: Ethernet5\n"


def test_a_drained_switch_shuts_down_every_underlay_session_and_nothing_else_changes(tmp_path: Path) -> None:
    before = pipeline.compile(EOS_SMALL)
    compiled = pipeline.compile(drained(EOS_SMALL, tmp_path, SPINE))
    spine = compiled.intents["spine1"].bgp
    assert spine.graceful_shutdown
    assert spine.graceful_shutdown_peers == sorted(
        (n.ip for n in spine.neighbors if n.kind == "underlay"), key=lambda ip: tuple(map(int, ip.split(".")))
    )
    # RFC 8326: only the initiator is configured; its neighbours receive the community.
    assert {n for n in compiled.intents if compiled.intents[n] != before.intents[n]} == {"spine1"}


def test_a_drained_link_is_shut_down_at_both_ends(tmp_path: Path) -> None:
    compiled = pipeline.compile(drained(EOS_SMALL, tmp_path, LINK))
    changed = {
        n: i.bgp.graceful_shutdown_peers for n, i in compiled.intents.items() if i.bgp.graceful_shutdown_peers
    }
    far = next(ln for ln in compiled.topology.links if (ln.leaf, ln.leaf_port) == ("leaf2", "Ethernet5"))
    assert changed == {"leaf2": [str(far.spine_ip)], far.spine: [str(far.leaf_ip)]}
    assert not any(i.bgp.graceful_shutdown for i in compiled.intents.values())


@pytest.mark.parametrize(
    ("platform", "src", "lines"),
    [
        (
            "eos",
            EOS_SMALL,
            ["group bgp FABRICCTL-DRAIN", "   unit FABRICCTL-DRAIN", "      quiesce", "send-community"],
        ),
        (
            "comware",
            EOS_SMALL,
            [
                "route-policy FABRICCTL-DRAIN-OUT permit node 10",
                " apply as-path 65200",
                " apply community 65535:0 additive",
                " apply local-preference 0",
                "route-policy FABRICCTL-DRAIN-OUT export",
                "advertise-community",
            ],
        ),
        ("nvue", NVUE_SMALL, ["        graceful-shutdown: enabled"]),
    ],
)
def test_each_nos_writes_its_graceful_shutdown(
    platform: str, src: Path, lines: list[str], tmp_path: Path
) -> None:
    root = drained(src, tmp_path, SPINE, platform if platform == "comware" else None)
    compiled = pipeline.compile(root)
    text = pipeline.render(compiled.intents, root)["spine1"]
    for line in lines:
        assert line in text, line
    # and verify reads it back: every underlay peer's routes are shaped (NVUE's switch-wide form
    # shapes every eBGP session, the EVPN ones too)
    policies = parse_configs(compiled, {"spine1": text})["spine1"].bgp.policies
    peers = compiled.intents["spine1"].bgp.graceful_shutdown_peers
    bgp = compiled.intents["spine1"].bgp
    assert sorted(policies) == sorted(n.ip for n in bgp.neighbors if platform == "nvue" or n.ip in peers)
    assert all(p.gshut and p.local_pref == 0 for p in policies.values())
    assert all(p.prepend == (1 if platform == "comware" else 0) for p in policies.values())


def test_nvue_drains_a_link_per_neighbor(tmp_path: Path) -> None:
    root = drained(NVUE_SMALL, tmp_path, "drained:\n  - switch: leaf1\n    port: swp1\n")
    compiled = pipeline.compile(root)
    text = pipeline.render(compiled.intents, root)["leaf1"]
    assert text.count("graceful-shutdown: enabled") == 1
    assert (
        list(parse_configs(compiled, {"leaf1": text})["leaf1"].bgp.policies)
        == compiled.intents["leaf1"].bgp.graceful_shutdown_peers
    )


#: The vendor documents each NOS's graceful shutdown is written from (the lab's reference ids).
DRAIN_SOURCES = {
    "eos": {"eos-um-maint", "avd-maint"},
    "comware": {"hpe10500-policy", "hpe10500-bgp-filter", "hpe5710-bgp-community"},
    "nvue": {"ref-bgp", "cl515-changed"},
}


def _lines(platform: str, text: str) -> dict[tuple[str, ...], Rule | None]:
    """Each line of a rendered config (with the lines that open its view) -> the lab's rule that
    takes it (None: none does)."""
    from fabricctl.config.tree import Node, parse_tree
    from fabricctl.lab.reference import reference

    grammar = reference(platform).grammar
    out: dict[tuple[str, ...], Rule | None] = {}
    if platform == "nvue":
        import shlex

        from fabricctl.lab.devices.nvue.cli import NvueError, commands, validate
        from fabricctl.lab.devices.nvue.tree import load_yaml

        for line in commands(load_yaml(text), {}):
            try:
                out[(line,)] = validate(grammar, shlex.split(line)[2:], negated=False)
            except NvueError:
                out[(line,)] = None
        return out

    def walk(nodes: list[Node], view: str | None, path: tuple[str, ...]) -> None:
        for node in nodes:
            words = node.text.split()
            if words[0] in ("!", "#", "end", "return") or node.text.startswith("version "):
                continue
            rule = grammar.find(view, words) if view is not None else None
            out[(*path, node.text)] = rule
            walk(node.children, rule.child if rule is not None else None, (*path, node.text))

    walk(parse_tree(text), grammar.root, ())
    return out


@pytest.mark.parametrize("platform", ["eos", "comware", "nvue"])
def test_every_drain_line_is_taken_by_the_lab_only_as_its_vendor_document_writes_it(
    platform: str, tmp_path: Path
) -> None:
    """Each line a drain adds (a spine whole, a link at both ends) is one the lab's reference takes
    in its view from a vendor document (confidence V), the one the template cites."""
    src = NVUE_SMALL if platform == "nvue" else EOS_SMALL
    plain = copy_fabric(src, tmp_path / "plain")
    if platform == "comware":
        on_platform(plain, "comware")
    before = pipeline.compile(plain)
    link = next(ln for ln in before.topology.links if ln.spine != "spine1")
    root = drained(
        src,
        tmp_path,
        f"drained:\n  - switch: spine1\n  - switch: {link.leaf}\n    port: {link.leaf_port}\n",
        platform if platform == "comware" else None,
    )
    compiled = pipeline.compile(root)
    was, now = pipeline.render(before.intents, plain), pipeline.render(compiled.intents, root)
    added = 0
    for name in sorted({"spine1", link.leaf, link.spine}):
        old = _lines(platform, was[name])
        for line, rule in _lines(platform, now[name]).items():
            if line in old:
                continue
            added += 1
            assert rule is not None, f"{name}: {line[-1]!r} is taken by no entry of the lab's reference"
            assert rule.confidence == "V" and set(rule.sources) & DRAIN_SOURCES[platform], (
                f"{name}: {line[-1]!r} is taken on {rule.sources} ({rule.confidence}), "
                f"not on a vendor document of its graceful shutdown"
            )
    assert added >= 3


def test_what_a_plan_puts_back_into_service_is_named_as_drain_names_it(tmp_path: Path) -> None:
    """From the switches' running configs (here: rendered drained), what maintenance.yaml no
    longer drains: a whole switch by name, a link by its leaf's port whichever end was named."""
    plain = pipeline.compile(EOS_SMALL)
    ln = next(ln for ln in plain.topology.links if (ln.leaf, ln.spine) == ("leaf2", "spine2"))
    entries = f"drained:\n  - switch: spine1\n  - switch: spine2\n    port: {ln.spine_port}\n"
    root = drained(EOS_SMALL, tmp_path, entries)
    compiled = pipeline.compile(root)
    running = parse_configs(compiled, pipeline.render(compiled.intents, root))
    assert undrained(compiled, running) == []  # what runs is what maintenance.yaml says
    assert undrained(plain, running) == ["leaf2:" + ln.leaf_port, "spine1"]
    assert plan_name(plain.topology, Drain(switch="spine2", port=ln.spine_port)) == f"leaf2:{ln.leaf_port}"
    link_only = drained(
        EOS_SMALL, tmp_path / "b", "drained:\n  - switch: spine2\n    port: " + ln.spine_port + "\n"
    )
    assert undrained(pipeline.compile(link_only), running) == ["spine1"]


def test_a_spine_drain_on_the_reference_fabric_keeps_30_of_32_paths(tmp_path: Path) -> None:
    _, report = proven(drained(REFERENCE, tmp_path, "drained:\n  - switch: spine03\n"))
    assert report.ok, report.violations
    proof = report.drain
    assert proof is not None and proof.links == 64  # 32 leaves, 2 uplinks each to spine03
    spread = [t for t in proof.tenants if t.pair]
    assert spread and {(t.paths_before, t.paths_after) for t in spread} == {(32, 30)}
    assert {(t.gbps_before, t.gbps_after) for t in spread} == {(12800.0, 12000.0)}


def test_a_drain_below_the_floor_is_refused_naming_each_tenant(tmp_path: Path) -> None:
    _, report = proven(drained(EOS_SMALL, tmp_path, SPINE))
    floor = [v for v in report.violations if v.check == "drain-floor"]
    assert {v.object for v in floor} == {"tenant storage", "tenant team-hpc", "tenant team-llm"}
    assert "keep 50%" in floor[0].counterexample and "4 of 8 paths" in floor[0].counterexample
    _, allowed = proven(drained(EOS_SMALL, tmp_path / "b", SPINE, floor=0.5))
    assert allowed.ok


def test_a_super_spine_drain_is_proven_on_the_spines_way_up(tmp_path: Path) -> None:
    """A super-spine drain leaves every leaf's uplinks as they were: the paths it takes are the
    spines' way up to the other pods, and those are what the proof shows and the floor judges."""
    _, report = proven(drained(MIXED, tmp_path, "drained:\n  - switch: ss01-01\n"))
    assert report.drain is not None
    across = [
        t
        for t in report.drain.tenants
        if t.pair and t.pair.split(" -> ")[0][:3] != t.pair.split(" -> ")[1][:3]
    ]
    assert across and all((t.paths_before, t.paths_after) == (8, 6) and t.kept == 0.75 for t in across)
    assert {v.object for v in report.violations if v.check == "drain-floor"} == {
        f"tenant {t.tenant}" for t in across
    }
    _, allowed = proven(drained(MIXED, tmp_path / "b", "drained:\n  - switch: ss01-01\n", floor=0.25))
    assert allowed.ok, allowed.violations


def test_a_drained_leaf_cuts_its_tenants_off(tmp_path: Path) -> None:
    _, report = proven(drained(EOS_SMALL, tmp_path, "drained:\n  - switch: leaf2\n"))
    assert report.ok  # the other leaves keep every path; the cut-off is the plan's disruption
    assert report.drain is not None
    assert set(report.drain.cut_off) == {"storage", "team-hpc", "team-llm"}
    assert all("(leaf2)" in gpu for gpus in report.drain.cut_off.values() for gpu in gpus)


def test_a_drain_whose_community_never_reaches_is_caught(tmp_path: Path) -> None:
    """Without `send-community` the EOS spine's GRACEFUL_SHUTDOWN never reaches the leaves: they
    keep spreading traffic over it, and the proof says so (the template line is what it checks)."""
    root = drained(EOS_SMALL, tmp_path, SPINE, floor=0.5)
    compiled = pipeline.compile(root)
    configs = pipeline.render(compiled.intents, root)
    configs["spine1"] = "\n".join(ln for ln in configs["spine1"].splitlines() if "send-community" not in ln)
    report = pipeline.verify(compiled, configs)
    assert report.drain is not None
    assert report.drain.still_crossing == ["leaf1", "leaf2", "leaf3", "leaf4"]


def test_a_mixed_fabric_names_the_switches_a_drain_does_not_steer(tmp_path: Path) -> None:
    """Comware honours no GRACEFUL_SHUTDOWN community without a policy (none documented), so the
    Comware pods keep sending over an NVIDIA spine drained with NVUE's graceful shutdown."""
    _, report = proven(drained(MIXED, tmp_path, "drained:\n  - switch: p03-spine01\n"))
    assert report.drain is not None
    assert report.drain.still_crossing and all(
        s.startswith(("p01-", "p02-")) for s in report.drain.still_crossing
    )


def test_maintenance_yaml_is_edited_in_place() -> None:
    text = "# ours\ndrained:\n  - switch: spine1  # upgrade\n    reason: CHG-1\n"
    added = with_drain(text, Drain(switch="leaf2", port="Ethernet5", reason="CRC"))
    assert added.startswith("# ours\n") and "# upgrade" in added
    assert "  - switch: leaf2\n    port: Ethernet5\n    reason: CRC\n" in added
    assert without_drain(added, "leaf2:Ethernet5") == text
    assert without_drain(text, "spine1") is None  # nothing left: the file goes
    assert with_drain(None, Drain(switch="spine1")).endswith("drained:\n  - switch: spine1\n")


def test_the_compile_cache_steps_aside_while_anything_is_drained(tmp_path: Path) -> None:
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    assert cache.scan(root) is not None
    (root / "maintenance.yaml").write_text(SPINE, encoding="utf-8")
    assert cache.scan(root) is None


def test_drain_and_undrain_edit_the_file_only_after_the_proof(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    code, out, err = run_cli(["drain", "spine1", "--root", str(root)], capsys)
    assert code == 1 and "below the floor" in out and "maintenance.yaml unchanged" in err
    assert not (root / "maintenance.yaml").exists()
    code, out, err = run_cli(["drain", "leaf2", "--root", str(root)], capsys)
    assert code == 1 and "storage (1 GPU(s)), team-hpc (2 GPU(s)), team-llm (4 GPU(s))" in err
    assert not (root / "maintenance.yaml").exists()
    code, out, _ = run_cli(
        ["drain", "leaf2:Ethernet5", "--reason", "CRC errors", "--root", str(root)], capsys
    )
    assert code == 0 and "8 -> 7" in out and "(88%)" in out
    assert "reason: CRC errors" in (root / "maintenance.yaml").read_text(encoding="utf-8")
    code, _, err = run_cli(["drain", "leaf2:Ethernet5", "--root", str(root)], capsys)
    assert code == 1 and "drained already" in err
    code, _, _ = run_cli(["undrain", "leaf2:Ethernet5", "--root", str(root)], capsys)
    assert code == 0 and not (root / "maintenance.yaml").exists()
