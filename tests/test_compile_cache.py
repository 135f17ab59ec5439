"""The compile cache (compile/cache.py) answers only what a whole compile would answer.

Every change below is made to a fabric whose snapshot a whole render left. Then either the cache
compiles the touched leaves, and each intent, and each digest of the switches it skipped, equals
a whole compile's; or it declines, and the command's output is the whole compile's, error text
included.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from fabricctl import pipeline, stamps
from fabricctl.compile import cache
from fabricctl.compile.intent import intent_digest
from tests.conftest import EOS_SMALL, REFERENCE, copy_fabric, run_cli
from tests.test_multipod import make_fabric

Edit = Callable[[Path], object]  # what it returns is not used


@pytest.fixture(autouse=True)
def settled_stamps(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite writes each file moments before the run that reads it, so every stamp would be
    racy and every file read again. Racy stamps have tests of their own (they restore it)."""
    monkeypatch.setattr(stamps, "RACY_NS", 0)
    monkeypatch.setattr(cache, "RACY_NS", 0)


@pytest.fixture
def fabric(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The reference fabric (peers, l2 tenants, tenants over many leaves), rendered whole once."""
    root = copy_fabric(REFERENCE, tmp_path / "fabric")
    render(root, capsys)
    return root


def render(root: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    code, out, err = run_cli(["render", "--root", str(root), *extra], capsys)
    assert code == 0, err
    return out


def tenant(root: Path, name: str) -> Path:
    return root / "tenants" / f"{name}.yaml"


def rewrite(root: Path, name: str, old: str, new: str) -> None:
    path = tenant(root, name)
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path.name}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def same_as_whole(root: Path) -> cache.Changes:
    """The cache's answer, checked switch by switch against a whole compile."""
    found = cache.scan(root)
    assert found is not None
    changes = cache.changes(found)
    assert changes is not None, "the cache declined a change a whole compile accepts"
    whole = pipeline.compile(root)
    assert set(changes.intents) | set(changes.unchanged) == set(whole.intents)
    for name, intent in whole.intents.items():
        if name in changes.intents:
            assert changes.intents[name] == intent, name
        else:
            assert changes.unchanged[name] == (intent.platform, intent_digest(intent)), name
    return changes


def leaves_of(root: Path, *names: str) -> set[str]:
    alloc = pipeline.compile(root).allocation
    return {leaf for a in alloc.tenants if a.name in names for leaf in a.leaves}


def free_gpu(root: Path) -> tuple[str, int]:
    """A server and NIC no tenant holds."""
    compiled = pipeline.compile(root)
    held = {(pa.gpu.server, pa.gpu.nic) for a in compiled.allocation.tenants for pa in a.ports}
    for server, ports in compiled.topology.by_server.items():
        for gp in ports:
            if (server, gp.nic) not in held:
                return server, gp.nic
    raise AssertionError("the reference fabric has no free GPU")


NEW_TENANT = """\
---
name: newcomer
id: 777
description: Arrived after the snapshot
isolation: l3
address_block: 10.77.0.0/31
lossless: true
gpus:
  - server: {server}
    nics: [{nic}]
"""


def test_a_description_edit_compiles_only_its_leaf(fabric: Path) -> None:
    before = leaves_of(fabric, "dev-sandbox-03")
    rewrite(fabric, "dev-sandbox-03", "Internal developer sandbox", "Edited sandbox")
    changes = same_as_whole(fabric)
    assert set(changes.intents) == before
    assert changes.tenants == 11


def test_a_tenant_moved_to_another_gpu_compiles_both_leaves(fabric: Path) -> None:
    before = leaves_of(fabric, "dev-sandbox-03")
    server, nic = free_gpu(fabric)
    rewrite(fabric, "dev-sandbox-03", "server: gpu080\n    nics: [2]", f"server: {server}\n    nics: [{nic}]")
    after = leaves_of(fabric, "dev-sandbox-03")
    assert set(same_as_whole(fabric).intents) == before | after


def test_a_new_and_a_removed_tenant(fabric: Path) -> None:
    server, nic = free_gpu(fabric)
    tenant(fabric, "newcomer").write_text(NEW_TENANT.format(server=server, nic=nic), encoding="utf-8")
    gone = leaves_of(fabric, "kaggle-team7")
    tenant(fabric, "kaggle-team7").unlink()
    changes = same_as_whole(fabric)
    assert set(changes.intents) >= gone | leaves_of(fabric, "newcomer")
    assert changes.tenants == 11


def test_peering_two_tenants_and_ending_a_peering(fabric: Path) -> None:
    rewrite(fabric, "kaggle-team7", "nics: [1]\n", "nics: [1]\nshared_with: [dev-sandbox-03]\n")
    rewrite(fabric, "dev-sandbox-03", "nics: [2]\n", "nics: [2]\nshared_with: [kaggle-team7]\n")
    rewrite(
        fabric, "shared-storage", "shared_with: [llm-pretrain, genomics-lab]", "shared_with: [llm-pretrain]"
    )
    rewrite(fabric, "genomics-lab", "shared_with: [shared-storage]\n", "")
    changes = same_as_whole(fabric)
    assert set(changes.intents) >= leaves_of(fabric, "shared-storage", "genomics-lab", "kaggle-team7")


def test_a_new_block_reaches_the_acls_of_its_peers(fabric: Path) -> None:
    rewrite(fabric, "shared-storage", "10.90.0.0/27", "10.91.0.0/27")  # in its peers' permit rules
    changes = same_as_whole(fabric)
    assert set(changes.intents) == leaves_of(fabric, "shared-storage", "llm-pretrain", "genomics-lab")


def test_isolation_l3_to_l2(fabric: Path) -> None:
    rewrite(
        fabric,
        "kaggle-team7",
        "isolation: l3\naddress_block: 10.200.2.0/31",
        "isolation: l2\naddress_block: 10.200.2.0/29",
    )
    same_as_whole(fabric)


def test_render_writes_what_a_whole_render_writes(
    fabric: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rewrite(fabric, "dev-sandbox-03", "lossless: true", "lossless: false")  # its one port's QoS
    out = render(fabric, capsys)
    assert re.search(r"rendered 1 switches \(\d+ config lines\), 47 unchanged", out), out
    monkeypatch.setenv("FABRICCTL_CACHE_DIR", "off")
    render(fabric, capsys, "--out", str(tmp_path / "whole"))
    written = sorted(p for p in (tmp_path / "whole").iterdir() if not p.name.startswith("."))
    assert len(written) == 96
    for path in written:
        assert (fabric / "out" / path.name).read_bytes() == path.read_bytes(), path.name


def test_a_chain_of_changes_each_from_the_snapshot_the_last_left(
    fabric: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each render saves what it compiled into the snapshot; the next change starts from there
    (claims freed by a move or a removal must be gone, new ones there)."""
    newcomer = NEW_TENANT.format(server="gpu080", nic=2)

    def move(r: Path, name: str, old: str) -> None:
        where, on = free_gpu(r)
        rewrite(r, name, old, f"server: {where}\n    nics: [{on}]")

    def share(r: Path) -> None:
        rewrite(r, "newcomer", "lossless: true\n", "lossless: true\nshared_with: [kaggle-team7]\n")
        rewrite(r, "kaggle-team7", "nics: [1]\n", "nics: [1]\nshared_with: [newcomer]\n")

    def unshare(r: Path) -> None:
        tenant(r, "newcomer").unlink()
        rewrite(r, "kaggle-team7", "shared_with: [newcomer]\n", "")

    steps: list[Edit] = [
        lambda r: move(r, "dev-sandbox-03", "server: gpu080\n    nics: [2]"),
        lambda r: tenant(r, "newcomer").write_text(newcomer, encoding="utf-8"),  # the GPU just freed
        share,
        lambda r: move(r, "kaggle-team7", "server: gpu080\n    nics: [1]"),
        unshare,
        lambda r: tenant(r, "newcomer").write_text(newcomer.replace("id: 777", "id: 778"), encoding="utf-8"),
        lambda r: rewrite(r, "shared-storage", "10.90.0.0/27", "10.91.0.0/27"),
    ]
    for step in steps:
        step(fabric)
        same_as_whole(fabric)
        assert "rendered" in render(fabric, capsys)
    assert same_as_whole(fabric).intents == {}  # the last render left nothing to compile
    monkeypatch.setenv("FABRICCTL_CACHE_DIR", "off")
    render(fabric, capsys, "--out", str(tmp_path / "whole"))
    for path in (tmp_path / "whole").iterdir():
        if not path.name.startswith("."):
            assert (fabric / "out" / path.name).read_bytes() == path.read_bytes(), path.name


def test_a_tenant_across_two_pods(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_fabric(tmp_path / "tiny")
    render(root, capsys)
    rewrite(root, "span", "servers: [gpu001, gpu005]", "servers: [gpu001, gpu006]")
    changes = same_as_whole(root)
    assert {pipeline.compile(root).fabric.switch(n).pod for n in changes.intents} == {1, 2}  # type: ignore[union-attr]


def _claims_a_held_gpu(root: Path) -> None:
    rewrite(root, "dev-sandbox-03", "nics: [2]", "nics: [1]")  # kaggle-team7's


# Tenants on other leaves than dev-sandbox-03's (leaf19): only the snapshot's claims know them.
def _takes_a_far_id(root: Path) -> None:
    rewrite(root, "dev-sandbox-03", "id: 203", "id: 101")  # llm-pretrain's (leaf01-16)


def _inside_a_far_block(root: Path) -> None:
    rewrite(root, "dev-sandbox-03", "10.200.3.0/31", "10.101.0.8/31")  # in llm-pretrain's /22


def _around_a_far_block(root: Path) -> None:
    rewrite(root, "dev-sandbox-03", "10.200.3.0/31", "10.88.0.0/14")  # holds shared-storage's /27


def _takes_a_far_vni(root: Path) -> None:
    rewrite(root, "dev-sandbox-03", "lossless: true", "lossless: true\noverlay:\n  l3vni: 50101")


def _takes_a_far_vlan(root: Path) -> None:
    rewrite(root, "llm-pretrain", "isolation: l3", "isolation: l2\noverlay:\n  vlan: 204")  # fintech-risk's


def _takes_a_far_name(root: Path) -> None:
    server, nic = free_gpu(root)
    text = NEW_TENANT.format(server=server, nic=nic).replace("newcomer", "llm-pretrain")
    (root / "tenants" / "llm-pretrain.yml").write_text(text, encoding="utf-8")


def _one_sided_peer(root: Path) -> None:
    rewrite(root, "dev-sandbox-03", "nics: [2]\n", "nics: [2]\nshared_with: [kaggle-team7]\n")


def _removes_a_named_peer(root: Path) -> None:
    tenant(root, "genomics-lab").unlink()


def _duplicates_a_name(root: Path) -> None:
    (root / "tenants" / "kaggle-team7.yml").write_bytes(tenant(root, "kaggle-team7").read_bytes())


def _breaks_yaml(root: Path) -> None:
    rewrite(root, "dev-sandbox-03", "isolation: l3", "isolation: [l3")


def _unknown_server(root: Path) -> None:
    rewrite(root, "dev-sandbox-03", "server: gpu080", "server: gpu999")


@pytest.mark.parametrize(
    "edit",
    [
        _claims_a_held_gpu,
        _takes_a_far_id,
        _inside_a_far_block,
        _around_a_far_block,
        _takes_a_far_vni,
        _takes_a_far_vlan,
        _takes_a_far_name,
        _one_sided_peer,
        _removes_a_named_peer,
        _duplicates_a_name,
        _breaks_yaml,
        _unknown_server,
    ],
)
def test_a_conflict_is_reported_as_a_whole_compile_reports_it(
    fabric: Path, edit: Edit, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    edit(fabric)
    found = cache.scan(fabric)
    assert found is not None and cache.changes(found) is None
    cached = run_cli(["validate", "--root", str(fabric)], capsys)
    monkeypatch.setenv("FABRICCTL_CACHE_DIR", "off")
    whole = run_cli(["validate", "--root", str(fabric)], capsys)
    assert cached == whole and cached[0] == 1 and "nothing was contacted" in cached[2]


def test_validate_says_what_a_whole_validate_says(
    fabric: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    server, nic = free_gpu(fabric)
    tenant(fabric, "newcomer").write_text(NEW_TENANT.format(server=server, nic=nic), encoding="utf-8")
    found = cache.scan(fabric)
    assert found is not None and cache.changes(found, intents=False) is not None
    cached = run_cli(["validate", "--root", str(fabric)], capsys)
    monkeypatch.setenv("FABRICCTL_CACHE_DIR", "off")
    assert cached == run_cli(["validate", "--root", str(fabric)], capsys)
    assert cached[1].startswith("ok: 12 tenants, ")


def test_an_inventory_edit_or_new_code_drops_the_snapshot(
    fabric: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = cache.scan(fabric)
    assert found is not None and cache.changes(found) is not None
    with monkeypatch.context() as patch:
        patch.setattr(cache, "code_fingerprint", lambda: "another fabricctl")
        assert cache.changes(cache.scan(fabric)) is None  # type: ignore[arg-type]
    assert cache.changes(cache.scan(fabric)) is not None  # type: ignore[arg-type]
    fabric_yaml = fabric / "inventory" / "fabric.yaml"
    fabric_yaml.write_text(fabric_yaml.read_text(encoding="utf-8") + "# a comment\n", encoding="utf-8")
    assert cache.changes(cache.scan(fabric)) is None  # type: ignore[arg-type]


def test_an_unreadable_snapshot_is_compiled_whole_and_written_again(
    fabric: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db_file = cache.cache_file(fabric)
    assert db_file is not None
    db_file.write_bytes(b"not a database")
    rewrite(fabric, "dev-sandbox-03", "lossless: true", "lossless: false")
    assert "rendered 1 switches" in render(fabric, capsys)
    with sqlite3.connect(db_file) as db:  # and a snapshot whose pod rows went missing
        db.execute("DELETE FROM pod")
    rewrite(fabric, "dev-sandbox-03", "lossless: false", "lossless: true")
    assert cache.changes(cache.scan(fabric)) is None  # type: ignore[arg-type]
    assert "rendered 1 switches" in render(fabric, capsys)
    same_as_whole(fabric)


def test_a_changed_or_deleted_output_file_falls_back_to_a_whole_render(
    fabric: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (fabric / "out" / "spine01.cfg").unlink()
    rewrite(fabric, "dev-sandbox-03", "lossless: true", "lossless: false")
    assert "rendered 2 switches" in render(fabric, capsys)  # the edited leaf and the lost spine
    assert (fabric / "out" / "spine01.cfg").is_file()


def test_a_tenant_file_in_a_sub_folder_is_an_error_with_a_snapshot_too(
    fabric: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The snapshot never hides a file validate would refuse: a sub-folder makes the run whole."""
    (fabric / "tenants" / "archive").mkdir()
    tenant(fabric, "dev-sandbox-03").rename(fabric / "tenants" / "archive" / "dev-sandbox-03.yaml")
    assert cache.scan(fabric) is None
    code, _, err = run_cli(["validate", "--root", str(fabric)], capsys)
    assert code == 1 and "tenants/archive/dev-sandbox-03.yaml: a tenant file in a sub-folder" in err, err


def test_a_racy_stamp_is_read_again(
    fabric: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A stamp taken within RACY_NS of the file's last change proves nothing: that file is read
    again, and its new stamp recorded, until one settles it."""
    assert not stamps.trusted((1, 2, 5, 4), (1, 2, 5, 4), taken_ns=5 + stamps.RACY_NS)
    assert stamps.trusted((1, 2, 5, 4), (1, 2, 5, 4), taken_ns=6 + stamps.RACY_NS)
    assert not stamps.trusted((1, 2, 5, 4), (1, 2, 6, 4), taken_ns=10**20)  # ctime moved: an edit
    window = 10**15  # 11 days: every file of this test is "just written", however slow the machine
    monkeypatch.setattr(stamps, "RACY_NS", window)
    monkeypatch.setattr(cache, "RACY_NS", window)
    cache.cache_file(fabric).unlink()  # type: ignore[union-attr]
    render(fabric, capsys)  # a whole render, whose snapshot finds every stamp racy
    changes = cache.changes(cache.scan(fabric))  # type: ignore[arg-type]
    assert changes is not None and len(changes._new) == 11  # so every file is read again


def test_a_run_that_lost_the_race_leaves_the_snapshot_as_the_winner_wrote_it(fabric: Path) -> None:
    rewrite(fabric, "dev-sandbox-03", "Internal developer sandbox", "Edited")
    found = cache.scan(fabric)
    assert found is not None
    first, second = cache.changes(found), cache.changes(found)
    assert first is not None and second is not None
    digests = {n: intent_digest(i) for n, i in first.intents.items()}
    cache.save(found, first, digests)
    cache.save(found, second, {n: "0" * 64 for n in second.intents})  # skipped: the snapshot moved on
    assert same_as_whole(fabric).intents == {}


def test_a_cache_folder_that_cannot_be_written_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    monkeypatch.setenv("FABRICCTL_CACHE_DIR", str(tmp_path / "a-file" / "cache"))  # under a file
    assert run_cli(["validate", "--root", str(root)], capsys)[0] == 0
    assert "rendered 6 switches" in render(root, capsys, "--out", str(tmp_path / "out"))
    assert "rendered 0 switches" in render(root, capsys, "--out", str(tmp_path / "out"))


def test_the_snapshot_stays_out_of_the_repository(fabric: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FABRICCTL_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(fabric.parent / "xdg"))
    assert cache.cache_file(fabric) is not None
    assert cache.cache_file(fabric).parent == fabric.parent / "xdg" / "fabricctl"  # type: ignore[union-attr]
    monkeypatch.setenv("FABRICCTL_CACHE_DIR", "off")
    assert cache.cache_file(fabric) is None and cache.scan(fabric) is None


def test_a_symlinked_tenant_file_is_always_compiled_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    render(root, capsys)
    target = root / "tenants" / "storage.yaml"
    moved = root / "storage-real.yaml"
    target.rename(moved)
    os.symlink(moved, target)
    assert cache.scan(root) is None
    assert "rendered 0 switches" in render(root, capsys)


# --- held GPUs and breakouts (docs/expansion.md) ------------------------------------------------


def test_a_move_is_refused_on_the_cache_path_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A snapshot taken after an allowed move must not let the next validate skip the check:
    while inventory/ differs from git HEAD, validate compiles the whole fabric and compares."""
    from tests.test_expansion import git_repo, swap_leaves

    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    git_repo(root)
    swap_leaves(root, "leaf1", "leaf2")
    assert run_cli(["validate", "--root", str(root), "--allow-gpu-moves"], capsys)[0] == 0
    render(root, capsys)  # a whole snapshot of the moved fabric
    rewrite(root, "intern-01", "description: ", "description: Now ")
    found = cache.scan(root)
    assert found is not None and cache.changes(found, intents=False) is not None  # it could answer
    code, _, err = run_cli(["validate", "--root", str(root)], capsys)
    assert code == 1 and "would move from leaf1" in err


@pytest.fixture
def split_fabric(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """eos-small with its GPU ports split 2 x 200G, a tenant naming port 16 of leaf4 (its lane 1)."""
    from tests.test_expansion import split

    root = copy_fabric(EOS_SMALL, tmp_path / "split")
    split(root)
    (root / "tenants" / "by-port.yaml").write_text(
        "name: by-port\nid: 300\ndescription: Named by port\nisolation: l3\n"
        "address_block: 10.200.0.0/29\ngpus:\n  - leaf: leaf4\n    ports: [16]\n",
        encoding="utf-8",
    )
    render(root, capsys)
    return root


def test_a_port_and_its_first_lane_are_one_gpu_on_the_cache_path(
    split_fabric: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rewrite(split_fabric, "by-port", "ports: [16]", "ports: ['16:2', 16]")  # the cache compiles it
    assert set(same_as_whole(split_fabric).intents) == {"leaf4"}
    (split_fabric / "tenants" / "by-lane.yaml").write_text(
        "name: by-lane\nid: 301\ndescription: Named by lane\nisolation: l3\n"
        "address_block: 10.200.1.0/29\ngpus:\n  - leaf: leaf4\n    ports: ['16:1']\n",
        encoding="utf-8",
    )
    found = cache.scan(split_fabric)
    assert found is not None and cache.changes(found) is None  # a claim on a held GPU: whole compile
    cached = run_cli(["validate", "--root", str(split_fabric)], capsys)
    monkeypatch.setenv("FABRICCTL_CACHE_DIR", "off")
    assert cached == run_cli(["validate", "--root", str(split_fabric)], capsys)
    assert (
        cached[0] == 1 and "node08 nic3 (leaf4 Ethernet16/1) is already held by tenant by-port" in cached[2]
    )


@pytest.mark.parametrize("with_rule", [False, True])
def test_a_claim_rule_added_to_the_table_binds_both_paths(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, with_rule: bool
) -> None:
    """One table of cross-tenant claims (allocate.CLAIM_RULES): a rule added there is enforced by
    a whole compile and by the cache's check of a changed tenant against the snapshot alike."""
    from fabricctl.compile import allocate
    from fabricctl.model.problems import InputError

    if with_rule:
        rule = allocate.ClaimRule(
            "description", lambda a: [a.tenant.description], "description", "a description of its own"
        )
        monkeypatch.setattr(allocate, "CLAIM_RULES", [*allocate.CLAIM_RULES, rule])
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    render(root, capsys)  # the snapshot holds every claim the table names
    rewrite(root, "intern-01", "Single GPU for an intern project", "Shared NVMe-oF storage gateway")
    found = cache.scan(root)
    assert found is not None
    answered = cache.changes(found, intents=False)
    if not with_rule:  # the same edit is fine without the rule: both paths accept it
        assert answered is not None
        pipeline.compile(root)
        return
    assert answered is None  # the cache path refuses: the changed tenant claims what storage holds
    with pytest.raises(InputError) as err:
        pipeline.compile(root)
    assert "description Shared NVMe-oF storage gateway is already held by tenant" in err.value.render()
