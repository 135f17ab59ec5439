"""The PR comment: goldens for a one-tenant PR and a REF-less plan; the size cap at 48 switches;
per-pod rows of a multi-pod fabric (a golden for a one-pod change, the cap at 448 switches)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fabricctl import secrets
from fabricctl.cli.deploy import render_plan
from fabricctl.deploy.fetch import Fetched
from fabricctl.report.markdown import MARKER, MAX_CHARS, plan_markdown
from tests.conftest import EOS_SMALL, REFERENCE, REPO, assert_golden, copy_fabric
from tests.test_multipod import make_fabric

from .conftest import (
    GOLDEN_FILES,
    GOLDEN_GITOPS,
    breakout_fabric,
    factory_fetch,
    git,
    offline_plan,
    rendered_fetch,
    scratch_repo,
    write_tenant,
)

NEWCO = {
    "name": "newco",
    "id": 301,
    "description": "New customer, one whole server",
    "isolation": "l3",
    "address_block": "10.31.0.0/28",
    "gpus": [{"servers": ["gpu100"]}],
}


def test_one_tenant_pr_on_the_reference_fabric(tmp_path: Path, git_identity: None) -> None:
    root = scratch_repo(REFERENCE, tmp_path / "fabric")
    running = rendered_fetch(root)  # main is what the switches run
    git(root, "checkout", "-q", "-b", "add-newco")
    write_tenant(root, NEWCO)
    git(root, "add", "tenants")
    git(root, "commit", "-q", "-m", "tenant newco")
    plan, prepared = offline_plan(root, running, changed_since="main")
    leaves = sorted({gp.leaf for gp in prepared.compiled.topology.by_server["gpu100"]})
    assert plan.selected == leaves and plan.changed == leaves and len(leaves) == 8
    assert plan.changed_since == "main"
    assert plan.changed_since_commit == git(root, "rev-parse", "main").strip()
    tenants = plan.changes["tenants"]
    assert [(t["name"], t["change"], t["gpus"]) for t in tenants] == [("newco", "added", 8)]
    # the compiled fabric is passed as the CLI passes it: a 2-tier fabric has no pod rows
    text = plan_markdown(plan, artifact="https://ci.example.invalid/runs/1", fabric=prepared.compiled.fabric)
    assert text.startswith(MARKER + "\n")
    # Eight leaves, one shape of change: aggregated once, not eight times.
    bullet = next(
        ln for ln in text.splitlines() if ln.startswith("- **added** on 8 leaves (leaf25..leaf32): ")
    )
    assert "`ip vpn-instance tnt-newco`" in bullet and "`acl advanced name tnt-newco-in`" in bullet
    assert_golden(GOLDEN_GITOPS / GOLDEN_FILES[0], text)


def test_running_fabric_basis_derives_tenants_from_the_diff(tmp_path: Path) -> None:
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    running = rendered_fetch(root)
    (root / "tenants" / "intern-01.yaml").unlink()
    team = root / "tenants" / "team-llm.yaml"
    team.write_text(team.read_text() + "lossless: false\n", encoding="utf-8")  # its ports' QoS
    plan, prepared = offline_plan(root, running)
    got = {t["name"]: (t["change"], t["leaves"]) for t in plan.changes["tenants"]}
    assert got == {
        "intern-01": ("removed", ["leaf3"]),
        "team-llm": ("changed", ["leaf1", "leaf2", "leaf3", "leaf4"]),
    }
    assert plan.changes["fabric_wide"] == []  # nothing outside tenant objects changes
    text = plan_markdown(plan, fabric=prepared.compiled.fabric)
    assert "vs the running fabric" in text and "#### Pods" not in text
    assert_golden(GOLDEN_GITOPS / GOLDEN_FILES[1], text)


def _sections(text: str) -> list[str]:
    return re.findall(r"^#### (.+)$", text, flags=re.M)


def test_first_plan_of_all_48_switches_stays_under_the_cap(tmp_path: Path) -> None:
    root = copy_fabric(REFERENCE, tmp_path / "fabric")
    plan, _ = offline_plan(root, factory_fetch(root))
    assert len(plan.changed) == 48
    full = sum(len(sp.diff) for sp in plan.switches.values())
    assert full > 10 * MAX_CHARS  # the case the cap exists for
    text = plan_markdown(plan)
    assert len(text) < MAX_CHARS
    assert _sections(text)[:4] == [
        "Tenants (vs the running fabric)",
        "Proofs (verify, on the intended configs, before any switch was read)",
        "Switches",
        "Changes by object (aggregated across switches)",
    ]
    table = re.findall(r"^\| `((?:leaf|spine)\d+)` \| changed \|", text, flags=re.M)
    assert sorted(table) == sorted(plan.changed)  # the table is never cut at this size
    assert ":scissors:" in text and "Full plan: the `plan.json` / `plan.html` artifact" in text
    assert text.count("<details>") == text.count("</details>") >= 1


def test_hundreds_of_tenants_keep_summary_and_pointer_under_the_cap(tmp_path: Path) -> None:
    root = breakout_fabric(tmp_path / "fabric", singles=400)
    plan, _ = offline_plan(root, factory_fetch(root))
    text = plan_markdown(plan, artifact="https://ci.example.invalid/runs/2")
    assert len(text) < MAX_CHARS
    assert re.search(r"\| \.\.\. \| \d+ more tenants in the full plan \|", text)
    assert "#### Switches" in text
    assert "Full plan: [plan.json / plan.html artifact](https://ci.example.invalid/runs/2)." in text


def test_cap_holds_for_any_budget(tmp_path: Path) -> None:
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    plan, _ = offline_plan(root, factory_fetch(root))
    for cap in (4_000, 8_000, 20_000):
        text = plan_markdown(plan, max_chars=cap)
        assert len(text) <= cap, cap
        assert text.startswith(MARKER) and "Full plan:" in text


def test_no_secret_reaches_the_comment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(secrets, "_secrets", set())
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    rendered = rendered_fetch(root)

    def running(names: list[str]) -> dict[str, Fetched]:
        """leaf1 as an operator left it: a secret in the description of a port fabricctl owns."""
        got = rendered(names)
        text = got["leaf1"].text or ""
        got["leaf1"] = Fetched("leaf1", text.replace("node01 nic0 tenant", "key Sw0rdf1sh-42 tenant", 1))
        return got

    secrets.register_secret("Sw0rdf1sh-42")
    plan, _ = offline_plan(root, running)
    text = plan_markdown(plan)
    assert "Sw0rdf1sh-42" not in text and secrets.REDACTED in text


# --- multi-pod fabrics: one row per pod, the super-spine tier its own row ------------------------

POD2_TENANT = {
    "name": "late",
    "id": 9,
    "description": "Arrives in pod 2",
    "isolation": "l3",
    "address_block": "100.100.2.0/29",
    "gpus": [{"servers": ["gpu007"]}],
}


def _pod_rows(text: str) -> dict[str, list[str]]:
    """'pod 1' / 'super-spines' -> the row's other cells, from the Pods table."""
    section = text.split("#### Pods\n", 1)[1].split("\n\n", 1)[0]
    cells = [[c.strip() for c in ln.strip("|").split("|")] for ln in section.splitlines()[2:]]
    return {c[0]: c[1:] for c in cells}


def test_a_pod_2_tenant_shows_pod_2_only(tmp_path: Path) -> None:
    """Running the fabric as rendered, a tenant on a pod-2 server: pod 2 changes, pod 1 and the
    super-spines do not, and the tenant is counted in pod 2 only."""
    root = make_fabric(tmp_path / "fabric")
    running = rendered_fetch(root)
    write_tenant(root, POD2_TENANT)
    plan, prepared = offline_plan(root, running)
    assert plan.changed == ["p02-leaf01", "p02-leaf02"]
    text = render_plan(plan, "markdown", prepared)  # as `fabricctl plan --format markdown` does
    rows = _pod_rows(text)
    assert list(rows) == ["pod 1", "pod 2", "super-spines"]
    assert rows["pod 1"][:3] == ["0", "4", "0"] and rows["pod 1"][-1] == "0"
    assert rows["pod 2"][:3] == ["2", "2", "0"] and rows["pod 2"][-1] == "1: `late`"
    assert rows["super-spines"][:3] == ["0", "2", "0"] and rows["super-spines"][-1] == "0"
    assert _sections(text)[:2] == ["Pods", "Tenants (vs the running fabric)"]
    assert_golden(GOLDEN_GITOPS / GOLDEN_FILES[2], text)


def test_first_plan_of_the_10k_example_stays_under_the_cap(tmp_path: Path) -> None:
    """All 448 switches against factory configs (about 600,000 diff lines): every pod row and the
    super-spine row still fit, and their counts add up to the totals."""
    root = copy_fabric(REPO / "examples" / "multipod-10k", tmp_path / "fabric")
    plan, prepared = offline_plan(root, factory_fetch(root))
    assert len(plan.changed) == 448
    text = plan_markdown(plan, fabric=prepared.compiled.fabric)
    assert len(text) <= MAX_CHARS
    rows = _pod_rows(text)
    assert list(rows) == ["pod 1", "pod 2", "pod 3", "pod 4", "pod 5", "super-spines"]
    assert [r[0] for r in rows.values()] == ["64"] * 5 + ["128"]  # changed: spines + leaves of each pod
    s = plan.summary()
    assert sum(int(r[3]) for r in rows.values()) == s["added"]
    assert sum(int(r[4]) for r in rows.values()) == s["removed"]
    assert rows["pod 1"][-1] == rows["pod 2"][-1] == "1: `llm-pretrain`"  # the tenant spanning two pods
    assert rows["super-spines"][-1] == "0"  # the super-spine tier is tenant-free
    assert ":scissors:" in text and text.count("<details>") == text.count("</details>")


def test_no_stale_gitops_goldens() -> None:
    """Every file under tests/golden/gitops/ is written by a test here."""
    assert sorted(p.name for p in GOLDEN_GITOPS.iterdir()) == sorted(GOLDEN_FILES)


def test_a_failed_proof_is_the_first_thing_the_review_shows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_network: list[object]
) -> None:
    """A fabric's own template puts spine1's no-drop class on priority 4 (its links' leaf ends
    keep 3): verify refuses before any switch is read, and the PR comment (Markdown), the HTML and
    the JSON open with the failed proof, its witness and the link ends that disagree; exit 1."""
    from tests.conftest import run_cli

    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    (root / "templates" / "eos").mkdir(parents=True)
    qos = (REPO / "templates" / "eos" / "qos.j2").read_text(encoding="utf-8")
    wrong = "{{ 4 if intent.name == 'spine1' else qos.lossless_class }} no-drop"
    assert "{{ qos.lossless_class }} no-drop" in qos
    (root / "templates" / "eos" / "qos.j2").write_text(qos.replace("{{ qos.lossless_class }} no-drop", wrong))
    code, out, err = run_cli(["plan", "--root", str(root), "--format", "markdown"], capsys)
    assert code == 1 and "verify found" in err and not no_network
    lines = [ln for ln in out.splitlines() if ln.startswith("#### ")]
    assert lines[0] == "#### :x: Proofs: lossless failed; nothing was read or planned", lines
    assert "no-drop priorities differ" in out and "`leaf1 Ethernet1` - `spine1 Ethernet1`" in out
    assert_golden(GOLDEN_GITOPS / "eos-small-refused.md", out)
    code, page, _ = run_cli(["plan", "--root", str(root), "--format", "html"], capsys)
    assert code == 1 and page.index("lossless failed") < page.index("<h2>Proofs</h2>") + 200
    code, data, _ = run_cli(["plan", "--root", str(root), "--format", "json"], capsys)
    proofs = __import__("json").loads(data)["proofs"]
    assert code == 1 and proofs["failed"] == ["lossless"] and proofs["isolation"]["ok"]
    differ = [ln for ln in proofs["lossless"]["links"] if not ln["agree"]]
    assert len(differ) == 16 and {ln["ends"][1]["switch"] for ln in differ} == {"spine1"}


def test_the_pr_comment_carries_each_proof(tmp_path: Path) -> None:
    """A tenant change's comment: isolation (pairs, how), lossless per link end (priority,
    headroom, cable, both ends agree), ECMP per tier, capacity, placement of the tenant."""
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    running = rendered_fetch(root)
    team = root / "tenants" / "team-llm.yaml"
    team.write_text(
        team.read_text(encoding="utf-8").replace("node01-node04", "node01-node03"), encoding="utf-8"
    )
    plan, prepared = offline_plan(root, running)
    text = plan_markdown(plan, fabric=prepared.compiled.fabric)
    proofs = text[text.index("#### Proofs") :]
    for row in (
        "| isolation | :white_check_mark: | 4 tenants, 6 pairs",
        "| lossless | :white_check_mark:",
        "| ecmp |",
        "| capacity |",
        "| placement | :white_check_mark: | team-llm: 12 GPUs on 4 leaves, 3 whole servers, rails 0-3",
    ):
        assert row in proofs, row
    assert (
        # every link end agrees: one row for the 32 links (each end of each is in the plan file)
        "| 32: leaf1..leaf4 - spine1, spine2 | leaf-spine | 40 m | 400G | 3, NOS-sized | 3, NOS-sized | agree |"
        in proofs
    )
    assert text.index("#### Proofs") > text.index("#### Tenants")  # all held: after what changes
    assert plan.proofs["ok"] and len(plan.proofs["lossless"]["links"]) == 32
