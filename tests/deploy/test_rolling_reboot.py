"""`fabricctl reboot --rolling` on the lab: the switches that wait for a reboot are drained,
emptied of traffic, rebooted, checked and put back one at a time, every step recorded; a failure
stops the roll naming the state, and the next run resumes without rebooting a switch done.

The waits poll the switches' own clocks: the command runs in a thread and this one moves the
lab's clock once for each line the command prints to say it still waits (never on a timer)."""

from __future__ import annotations

import contextlib
import io
import json
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from fabricctl.cli import main
from tests.conftest import EOS_SMALL, NVUE_SMALL

from .conftest import LabRoot, _lab_root

WAITING = re.compile(r"^  waiting: ", re.M)
LEAVES = ["leaf1", "leaf2", "leaf3", "leaf4"]


def roll(c: LabRoot, *args: str, on_line: Callable[[str], None] = lambda text: None) -> tuple[int, str, str]:
    """`fabricctl reboot --rolling --lab ...` in a thread; (exit code, stdout, stderr). `on_line`
    hears stderr as it grows (a test's fault injected at a step)."""
    out, err = io.StringIO(), io.StringIO()
    code: list[int] = []

    def run() -> None:
        try:
            code.append(int(main(["reboot", "--rolling", "--lab", "--root", str(c.root), *args]) or 0))
        except SystemExit as exc:
            code.append(int(exc.code or 0))

    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        worker = threading.Thread(target=run)
        worker.start()
        seen = 0
        while worker.is_alive():  # a condition polled: each waiting line moves the clock once
            text = err.getvalue()
            on_line(text)
            waits = len(WAITING.findall(text))
            if waits > seen:
                c.lab.advance(5 * (waits - seen))
                seen = waits
            worker.join(0.05)
    c.outputs += [out.getvalue(), err.getvalue()]
    return code[0], out.getvalue(), err.getvalue()


def _check(c: LabRoot, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict]:  # type: ignore[type-arg]
    code, out, _ = c.run("check", "--lab", "--format", "json", capsys=capsys)
    return code, json.loads(out)


def _booted(c: LabRoot) -> dict[str, float]:
    def booted(n: str) -> Callable[[], float]:
        return lambda: c.lab.state().booted(n)

    return {n: c.lab.call(booted(n)) for n in c.lab.devices}


@pytest.fixture
def capped(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Iterator[LabRoot]:
    """eos-small on Comware whose leaves (`request.param`: how many, 4 unless given) booted with
    `max-ecmp-num 4`: the apply takes the line out (the default, 8, fits their 8 uplinks), and
    each of them keeps 4 paths until it reboots."""
    capped = LEAVES[: getattr(request, "param", len(LEAVES))]
    for c in _lab_root(EOS_SMALL, tmp_path, monkeypatch, "comware"):
        for name in capped:
            c.lab.device(name).configure(["max-ecmp-num 4"])
            c.lab.call(c.lab.device(name).raw.save)
        c.lab.reboot(capped)
        assert c.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
        code, report = _check(c, capsys)
        assert code == 2 and report["pending_reboot"] == capped
        yield c


def _full_width(report: dict) -> None:  # type: ignore[type-arg]
    """Every leaf's routes to every other VTEP over all 8 of its uplinks."""
    widths = {x["switch"]: x["seen"] for x in report["checks"] if x["name"] == "ecmp"}
    assert set(widths) == set(LEAVES) and all(w.startswith("8 path(s)") for w in widths.values()), widths


def test_a_rolling_reboot_brings_ecmp_to_full_width_everywhere(
    capped: LabRoot, capsys: pytest.CaptureFixture[str]
) -> None:
    c = capped
    before = _booted(c)
    code, out, err = roll(c, "--allow-disruptive", "--reason", "max-ecmp-num, CHG-7")
    assert code == 0, out + err
    assert "rolling reboot of 4 switch(es): leaf1, leaf2, leaf3, leaf4" in err
    order = [m for m in re.findall(r"^rebooting (\S+)$", err, re.M)]
    assert order == LEAVES  # one at a time, in fabric order
    assert err.index("traffic has left leaf1") < err.index("rebooting leaf1") < err.index("back: leaf1")
    assert err.index("back: leaf1") < err.index("rebooting leaf2")
    after = _booted(c)
    assert all(after[n] > before[n] for n in LEAVES) and all(
        after[n] == before[n] for n in ("spine1", "spine2")
    )
    assert not (c.root / "maintenance.yaml").exists()  # every drain it added is gone
    assert not (c.root / ".fabricctl" / "reboot-roll.json").exists()
    code, report = _check(c, capsys)
    assert code == 0 and report["pending_reboot"] == [], [x for x in report["checks"] if not x["ok"]]
    _full_width(report)
    records = [json.loads(p.read_text()) for p in sorted((c.root / ".fabricctl" / "runs").glob("*.json"))]
    rolls = [r for r in records if r.get("kind") == "rolling reboot"]
    assert len(rolls) == 1 and rolls[0]["state"] == "finished" and rolls[0]["reason"] == "max-ecmp-num, CHG-7"
    assert {n: s["status"] for n, s in rolls[0]["switches"].items()} == dict.fromkeys(LEAVES, "rebooted")
    assert rolls[0]["chain"]  # chained like apply's
    # each drain and undrain was an apply of its own, recorded
    applies = [r for r in records if r.get("kind") != "rolling reboot"]
    assert sum(1 for r in applies if "(drain)" in (r.get("reason") or "")) == 4
    code, out, err = roll(c, "--allow-disruptive")
    assert code == 0 and "nothing waits for a reboot" in err  # done: nothing rebooted again
    assert _booted(c) == after


@pytest.mark.parametrize("capped", [2], indirect=True)
def test_a_failure_mid_roll_stops_naming_the_state_and_the_next_run_resumes(
    capped: LabRoot, capsys: pytest.CaptureFixture[str]
) -> None:
    """leaf1 and leaf2 wait for a reboot. The tenants on leaf2 keep sending once it is drained
    (their GPUs have no other way): the roll stops at leaf2 with leaf1 done and leaf2 drained;
    once they stop, the next run resumes at leaf2's wait for traffic, never reboots leaf1 again,
    and leaves ECMP at full width everywhere."""
    c = capped
    started: list[bool] = []

    def tenants_at_work(text: str) -> None:
        if "wave: leaf2" in text and not started:
            started.append(True)
            c.lab.set_workload()

    code, out, err = roll(c, "--allow-disruptive", "--traffic-timeout", "30s", on_line=tenants_at_work)
    assert code == 1, out + err
    assert "rolling reboot stopped at leaf2, step quiet: traffic did not leave" in err
    assert "State: leaf2 is drained in maintenance.yaml; done: leaf1." in err
    assert "`fabricctl reboot --rolling` resumes at this step" in err
    assert "rebooting leaf2" not in err
    assert "leaf2" in (c.root / "maintenance.yaml").read_text()
    state = json.loads((c.root / ".fabricctl" / "reboot-roll.json").read_text())
    assert (state["done"], state["wave"], state["step"]) == (["leaf1"], ["leaf2"], "quiet")
    stopped = [json.loads(p.read_text()) for p in (c.root / ".fabricctl" / "runs").glob("*.json")]
    stopped = [r for r in stopped if r.get("kind") == "rolling reboot"]
    assert stopped[0]["state"] == "stopped" and stopped[0]["switches"]["leaf2"]["status"] == "failed"

    code, _, err = roll(c, "--limit", "leaf3")  # a roll in progress is resumed, never replaced
    assert code == 1 and "a rolling reboot is in progress" in err
    booted = _booted(c)
    c.lab.set_workload(None)  # the tenants paused their jobs
    code, out, err = roll(c, "--allow-disruptive")
    assert code == 0, out + err
    assert "resuming roll" in err and "rebooting leaf1" not in err
    assert re.findall(r"^rebooting (\S+)$", err, re.M) == ["leaf2"]
    after = _booted(c)
    assert after["leaf1"] == booted["leaf1"] and after["leaf2"] > booted["leaf2"]
    code, report = _check(c, capsys)
    assert code == 0 and report["pending_reboot"] == [], [x for x in report["checks"] if not x["ok"]]
    _full_width(report)
    assert not (c.root / "maintenance.yaml").exists()


@pytest.mark.parametrize("platform", ["eos", "nvue"])
def test_a_named_spine_is_rolled_for_an_upgrade(
    platform: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A switch named on the command line (an upgrade: nothing pending) is drained, rebooted with
    its NOS's own dialog and put back; a drain that was there before the roll stays."""
    src = NVUE_SMALL if platform == "nvue" else EOS_SMALL
    for c in _lab_root(src, tmp_path, monkeypatch, None):
        fabric = c.root / "inventory" / "fabric.yaml"
        fabric.write_text(fabric.read_text(encoding="utf-8") + "drain:\n  max_bandwidth_loss: 0.5\n")
        assert c.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
        configs = {n: c.running(n) for n in c.lab.devices}
        before = _booted(c)
        c.lab.set_workload()
        c.lab.advance(10)
        code, out, err = roll(c, "spine1")
        assert code == 0, out + err
        assert "traffic has left spine1" in err and "rebooting spine1" in err
        after = _booted(c)
        assert after["spine1"] > before["spine1"] and all(
            after[n] == before[n] for n in after if n != "spine1"
        )
        assert {n: c.running(n) for n in c.lab.devices} == configs  # back as it was, byte for byte
        code, report = _check(c, capsys)
        assert code == 0, [x for x in report["checks"] if not x["ok"]]
        if platform != "eos":
            continue
        # drained by the operator before the roll: rebooted, and left drained (not the roll's to undo)
        assert c.run("drain", "spine1", "--apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
        drained = {n: c.running(n) for n in c.lab.devices}
        code, out, err = roll(c, "spine1")
        assert code == 0, out + err
        assert "rebooting spine1" in err and "left drained (drained before the roll): spine1" in err
        assert "spine1" in (c.root / "maintenance.yaml").read_text()
        assert {n: c.running(n) for n in c.lab.devices} == drained


def test_bad_flags_are_refused_before_anything_is_contacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for c in _lab_root(EOS_SMALL, tmp_path, monkeypatch, None):
        for argv, said in (
            (["reboot", "--lab"], "reboot needs --rolling"),
            (
                ["reboot", "--rolling", "--lab", "spine9"],
                "SWITCH spine9: no such switch (allowed: spine1..leaf4)",
            ),
            (["reboot", "--rolling", "--lab", "--limit", "nope"], "--limit nope: no such switch or role"),
            (["reboot", "--rolling", "--lab", "--wave", "rack"], "Invalid value for '--wave'"),
            (["reboot", "--rolling", "--lab", "--traffic-timeout", "1s"], "is outside the range"),
            (["reboot", "--rolling", "--lab", "--abandon"], "no rolling reboot is in progress"),
        ):
            code, _, err = c.run(*argv, capsys=capsys)
            assert code == 1 and said in err and "Traceback" not in err, (argv, err)
        fabricctl = c.root / ".fabricctl"  # nothing read, planned or recorded
        assert not (fabricctl / "runs").exists() and not (fabricctl / "reboot-roll.json").exists()
        assert set(_booted(c).values()) == {0.0}


def test_a_switch_asking_to_save_a_change_not_ours_is_not_rebooted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A change made on the switch by hand while the roll drains it (running no longer the saved
    config): `reload` asks to save it; the roll declines, does not reboot, keeps the change in
    running and says so. Once someone saves it, the roll resumes and reboots."""
    for c in _lab_root(EOS_SMALL, tmp_path, monkeypatch, None):
        fabric = c.root / "inventory" / "fabric.yaml"
        fabric.write_text(fabric.read_text(encoding="utf-8") + "drain:\n  max_bandwidth_loss: 0.5\n")
        assert c.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
        before = _booted(c)

        def by_hand(text: str, c: LabRoot = c) -> None:
            if "traffic has left spine1" in text and "vlan 77" not in c.running("spine1"):
                c.lab.device("spine1").configure(["vlan 77"])

        code, out, err = roll(c, "spine1", on_line=by_hand)
        assert code == 1, out + err
        assert "stopped at spine1, step reboot: it asks to save its running configuration" in err
        assert "State: spine1 is drained in maintenance.yaml" in err
        assert _booted(c) == before and "vlan 77" in c.running("spine1")  # not rebooted, nothing lost
        c.lab.call(c.lab.device("spine1").raw.save)  # its owner saves it
        code, out, err = roll(c)
        assert code == 0, out + err
        assert _booted(c)["spine1"] > before["spine1"] and "vlan 77" in c.running("spine1")
        assert not (c.root / "maintenance.yaml").exists()
