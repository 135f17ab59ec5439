"""The 2 x 200G expansion end to end on the lab, as docs/expansion.md does it.

Every held GPU keeps its server, NIC, leaf, port (now its first lane) and addresses (`show gpus`
before and after); a leaf pushed before its rack is re-cabled takes every GPU down and the health
gate undoes it; re-cabled first, it comes back up as lanes; `check` then passes with every held
GPU port up. Moving held GPUs on the switches is refused by plan unless --allow-gpu-moves.
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from fabricctl.lab import LabClock, LabFabric
from fabricctl.lab.fabric_state import Cabling
from fabricctl.lab.runtime import lab_json, write_lab_json
from fabricctl.platforms import get_platform
from tests.conftest import EOS_SMALL, REFERENCE, copy_fabric, on_platform
from tests.test_expansion import git_repo, split, swap_leaves

from .conftest import LabRoot

pytestmark = pytest.mark.lab
LONG = ("--confirm-timeout", "3000", "--allow-disruptive")


def lab_root(
    src: Path, tmp: Path, monkeypatch: pytest.MonkeyPatch, platform: str | None
) -> Iterator[LabRoot]:
    monkeypatch.delenv("FABRICCTL_LAB_USERNAME", raising=False)
    monkeypatch.delenv("FABRICCTL_LAB_PASSWORD", raising=False)
    root = copy_fabric(src, tmp / "fabric")
    if platform is not None:
        on_platform(root, platform)
    git_repo(root)  # validate compares held GPUs with HEAD
    lab = LabFabric.from_inventory(root, clock=LabClock.frozen())
    with lab:
        write_lab_json(root, lab)
        yield LabRoot(root, lab, [])
        lab_json(root).unlink(missing_ok=True)


def gpus(lab: LabRoot, capsys: pytest.CaptureFixture[str]) -> list[dict[str, str]]:
    code, out, _ = lab.run("show", "gpus", "--format", "csv", capsys=capsys)
    assert code == 0
    return list(csv.DictReader(io.StringIO(out)))


def expand(lab: LabRoot, capsys: pytest.CaptureFixture[str], first: str) -> None:
    """Split the GPU ports: validate and plan agree that nothing moves; `first` is pushed before
    its rack is re-cabled (the gate undoes it), then re-cabled and pushed; then the rest."""
    split(lab.root)
    code, out, err = lab.run("validate", capsys=capsys)
    assert (code, err) == (0, ""), err
    subprocess.run(
        ["git", "-C", str(lab.root), "commit", "-qam", "split"], check=True
    )  # applied as committed
    code, out, err = lab.run("plan", "--lab", "--format", "json", capsys=capsys)
    assert code == 0, err
    plan = json.loads(out)
    assert "gpu_moves" not in plan["changes"]
    leaves = [n for n, s in plan["switches"].items() if s["role"] == "leaf"]
    assert {n for n, s in plan["switches"].items() if s["status"] == "changed"} == set(leaves)
    # Every held GPU port goes down while its cable is swapped: each tenant is told so, and apply
    # pushes it only when told to.
    held = {t["name"] for t in plan["changes"]["tenants"] if t["gpus"]}
    assert set(plan["changes"]["disruptive"]) == held, plan["changes"]["disruptive"]
    assert all("ports flapped" in t["classes"] for t in plan["changes"]["tenants"] if t["name"] in held)
    code, _, err = lab.run("apply", "--lab", "--auto-approve", "--limit", first, *LONG[:2], capsys=capsys)
    assert code == 1 and "--allow-disruptive" in err

    before = lab.running(first)
    code, out, _ = lab.run(
        "apply", "--lab", "--auto-approve", "--json", "--limit", first, *LONG, capsys=capsys
    )
    outcome = json.loads(out)["switches"][first]
    assert code == 1 and (outcome["status"], outcome["stage"]) == ("failed", "health"), outcome
    assert "gpu-port" in outcome["message"] and "passed before the change" in outcome["message"]
    assert lab.running(first) == before  # undone: the GPUs run on their 400G cables again

    plan_cabling = Cabling.from_inventory(lab.root)
    servers = lab.lab.state().facts  # switches; any other far end is a GPU server's NIC

    def gpu_cables(cabling: Cabling) -> set[str]:
        return {p for (sw, p), far in cabling.peer.items() if sw == first and far[0] not in servers}

    # Each 400G cable out, a breakout cable in: the ports flap, the lanes come up as they link.
    expected = gpu_cables(lab.lab.cabling) | gpu_cables(plan_cabling)
    assert {p for _, p in lab.lab.recable(plan_cabling, [first])} == expected
    code, out, _ = lab.run(
        "apply", "--lab", "--auto-approve", "--json", "--limit", first, *LONG, capsys=capsys
    )
    assert code == 0 and json.loads(out)["switches"][first]["status"] == "changed", out

    lab.lab.recable(plan_cabling)  # the other racks, then the rest of the fabric
    code, out, _ = lab.run(
        "apply", "--lab", "--auto-approve", "--json", "--parallelism", "48", *LONG, capsys=capsys
    )
    assert code == 0, out
    assert lab.run("plan", "--lab", "--detailed-exitcode", "--parallelism", "48", capsys=capsys)[0] == 0


def check_all_up(lab: LabRoot, capsys: pytest.CaptureFixture[str], held: int) -> None:
    code, out, _ = lab.run("check", "--lab", "--format", "json", capsys=capsys)
    checks = json.loads(out)["checks"]
    assert code == 0, [c for c in checks if not c["ok"]][:5]
    ports = [c for c in checks if c["name"] == "gpu-port"]
    assert len(ports) == held and all(c["ok"] for c in ports)


def same_gpus(before: list[dict[str, str]], after: list[dict[str, str]], platform: str) -> None:
    """Every held GPU on the same leaf and port (now its first lane), with the same addresses."""
    plat = get_platform(platform)
    assert len(after) == len(before)
    for was, now in zip(before, after, strict=True):
        port, lane = plat.port_position(was["port"])  # type: ignore[misc]
        assert lane is None and now["port"] == plat.port_name(port, 1)
        assert {k: v for k, v in now.items() if k != "port"} == {k: v for k, v in was.items() if k != "port"}


@pytest.mark.parametrize("platform", ["comware", "eos"])
def test_expanding_the_small_fabric_keeps_every_gpu(
    platform: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for lab in lab_root(EOS_SMALL, tmp_path, monkeypatch, platform):
        assert lab.run("apply", "--lab", "--auto-approve", *LONG, capsys=capsys)[0] == 0
        before = gpus(lab, capsys)
        expand(lab, capsys, "leaf2")
        same_gpus(before, gpus(lab, capsys), platform)
        check_all_up(lab, capsys, len(before))
        # The new lanes are new servers on 200G legs, numbered after the existing ones, shut
        # down until a tenant takes them.
        lane2 = ("leaf1", get_platform(platform).port_name(9, 2))
        assert lab.lab.cabling.peer[lane2] == ("node09", "nic0") and lab.lab.cabling.speed[lane2] == 200
        assert (
            not lab.lab.state().link_up(*lane2)
            and not lab.lab.state().facts["leaf1"].ports[lane2[1]].admin_up
        )


def test_plan_refuses_to_move_held_gpus_off_where_the_leaves_say(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for lab in lab_root(EOS_SMALL, tmp_path, monkeypatch, None):
        assert lab.run("apply", "--lab", "--auto-approve", *LONG, capsys=capsys)[0] == 0
        swap_leaves(lab.root, "leaf1", "leaf2")
        subprocess.run(["git", "-C", str(lab.root), "commit", "-qam", "swap"], check=True)  # HEAD agrees
        assert lab.run("validate", capsys=capsys)[0] == 0  # validate compares with git: it cannot see
        code, out, err = lab.run("plan", "--lab", capsys=capsys)
        assert code == 1 and out == ""
        assert "would move from where their leaves say they are cabled" in err
        assert "team-llm: node01 nic0 would move from leaf1 Ethernet9 to leaf2 Ethernet9" in err
        saved = lab.root / "moves.json"
        code, out, err = lab.run("plan", "--lab", "--allow-gpu-moves", "-o", str(saved), capsys=capsys)
        assert code == 0 and "held GPU(s) move to another leaf or port" in out
        assert "team-llm node01 nic0: leaf1 Ethernet9 -> leaf2 Ethernet9" in out
        moves = json.loads((lab.root / "moves.json").read_text())["changes"]["gpu_moves"]
        assert len(moves) == err.count("\n") or len(moves) > 10
        code, _, err = lab.run(
            "apply", str(lab.root / "moves.json"), "--lab", "--auto-approve", capsys=capsys
        )
        assert code == 1 and "--allow-gpu-moves" in err


def test_expanding_the_reference_fabric_keeps_every_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The 1,024 -> 2,048 GPU expansion of the 48-switch Comware reference fabric."""
    for lab in lab_root(REFERENCE, tmp_path, monkeypatch, None):
        code, out, _ = lab.run(
            "apply", "--lab", "--auto-approve", "--parallelism", "48", *LONG, capsys=capsys
        )
        assert code == 0, out
        # The day-0 reboot: max-ecmp-num (32 paths, above the documented default 8) counts from boot.
        lab.lab.reboot()
        before = gpus(lab, capsys)
        expand(lab, capsys, "leaf17")
        same_gpus(before, gpus(lab, capsys), "comware")
        check_all_up(lab, capsys, len(before))
