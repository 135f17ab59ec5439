"""What an engineer reads: stage lines with timings, a plan that opens with tenants and proofs,
colour only on a terminal, an apply summary of what changed or failed, a counter that never
passes its total."""

from __future__ import annotations

import io
import re

import pytest

from fabricctl.cli.output import ApplyDisplay, color_enabled
from fabricctl.deploy.apply import SwitchOutcome
from fabricctl.deploy.plan import load_plan
from fabricctl.report.text import plan_text

from .conftest import LabRoot

ANSI = re.compile(r"\x1b\[[0-9;]*m")
STAGE = re.compile(r"^  (?P<name>[a-z ]+?) +(?P<seconds>\d+\.\d\d) s  (?P<detail>.+)$")


def stage_lines(err: str) -> list[str]:
    return [m.group("name") for m in map(STAGE.match, err.splitlines()) if m]


def test_plan_reads_top_down(eos_lab: LabRoot, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = eos_lab.run("plan", "--lab", "--diff", capsys=capsys)
    assert code == 0
    assert stage_lines(err) == ["compile", "verify", "lab up", "fetch", "diff"], err
    assert "6 of 6 switches read" in err and "6 to change, 0 unchanged" in err
    assert not ANSI.search(out + err), "no colour in a pipe"
    order = ["Plan for eos-small", "Tenants", "Proofs", "Switches", "--- spine1 running", "Plan: 6 to change"]
    at = [out.index(s) for s in order]
    assert at == sorted(at), at
    assert re.search(r"^  \+ team-llm +added, 16 GPUs on 4 leaves: leaf1\.\.leaf4$", out, re.M), out[:800]
    assert "  4 tenant(s): 4 added (27 GPUs)" in out
    for proof in ("isolation", "lossless", "ecmp", "capacity"):
        assert re.search(rf"^  ✓ {proof} ", out, re.M), proof
    assert re.search(r"^  leaf1 +changed +\+249 +-0$", out, re.M)

    code, compact, _ = eos_lab.run("plan", "--lab", "--compact", capsys=capsys)
    assert code == 0 and "--- spine1 running" not in compact and "\n+" not in compact
    assert compact.split("Switches")[0] == out.split("Switches")[0], "the same summary, no diffs"
    assert compact.rstrip().endswith(out.rstrip().splitlines()[-1])

    # By default a diff of thousands of lines is one line away, not on the screen.
    code, short, _ = eos_lab.run("plan", "--lab", capsys=capsys)
    assert code == 0 and "--- spine1 running" not in short
    assert "Diffs: 1,487 lines on 6 switch(es), not shown; --diff prints them" in short, short[-600:]
    assert len(short.splitlines()) < 40 and short.split("Diffs:")[0] == compact.split("changed:")[0]

    code, raw, _ = eos_lab.run("plan", "--lab", "--format", "json", capsys=capsys)
    path = eos_lab.root / "plan.json"
    path.write_text(raw)
    coloured = plan_text(load_plan(path), color=True, diff="full")
    assert "\x1b[32m+qos map dscp 26 to traffic-class 3\x1b[0m" in coloured
    assert ANSI.sub("", coloured) == plan_text(load_plan(path), diff="full"), (
        "colour adds codes, nothing else"
    )


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_terminal_without_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert color_enabled(FakeTTY()) is True
    assert color_enabled(io.StringIO()) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert color_enabled(FakeTTY()) is False
    monkeypatch.setenv("NO_COLOR", "")  # no-color.org: set *and non-empty*
    assert color_enabled(FakeTTY()) is True
    monkeypatch.setenv("TERM", "dumb")
    assert color_enabled(FakeTTY()) is False


def test_apply_says_what_changed_or_failed_and_nothing_else(
    eos_lab: LabRoot, capsys: pytest.CaptureFixture[str]
) -> None:
    assert eos_lab.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
    (eos_lab.root / "tenants" / "team-hpc.yaml").unlink()  # leaf1..leaf4 change, the spines do not
    storage = eos_lab.root / "tenants" / "storage.yaml"
    storage.write_text(storage.read_text().replace("[team-llm, team-hpc]", "[team-llm]"))
    eos_lab.lab.set_faults("leaf2", auth_failure=True)
    code, out, err = eos_lab.run(
        "apply",
        "--lab",
        "--auto-approve",
        "--max-failures",
        "5",
        "--compact",
        "--allow-disruptive",
        capsys=capsys,
    )
    assert code == 1, out + err
    assert "\n+" not in out, "--compact: no diffs before the apply either"
    assert re.search(r"^  - team-hpc +removed", out, re.M), out
    summary = out[out.index("Run ") :]
    for leaf in ("leaf1", "leaf3", "leaf4"):
        assert re.search(rf"^  {leaf} +changed \+\d+ -\d+ lines \(\d+\.\d s\)$", summary, re.M), summary
    assert re.search(r"^  leaf2 +failed at auth \(authentication failed\)", summary, re.M), summary
    assert re.search(r"^ +hint: check FABRICCTL_LAB_USERNAME", summary, re.M), summary
    assert "spine1" not in summary.replace("2 unchanged: spine1, spine2", ""), "unchanged: one line"
    assert "Result: 3 changed, 1 failed, 2 unchanged" in summary, summary
    assert re.search(r"^Record: .*\.fabricctl/runs/", summary, re.M)
    finished = re.findall(r"^\[(\d+)/(\d+)\] (\S+)", err, re.M)
    assert sorted(n for _, _, n in finished) == ["leaf1", "leaf2", "leaf3", "leaf4"], err
    assert [int(i) for i, _, _ in finished] == [1, 2, 3, 4] and {t for _, t, _ in finished} == {"4"}
    assert "leaf2 (auth)" in err.splitlines()[-1]


def test_the_counter_counts_each_switch_once(capsys: pytest.CaptureFixture[str]) -> None:
    from rich.console import Console

    class P:  # the two fields ApplyDisplay reads from a plan
        switches = dict.fromkeys(["a", "b", "c"])
        changed = ["a", "b"]
        unreachable = ["c"]

    buf = io.StringIO()
    display = ApplyDisplay(P(), Console(file=buf, force_terminal=False, width=200))  # type: ignore[arg-type]
    with display:
        display.started("a", "push")
        display.finished(SwitchOutcome("a", "changed", added=3, seconds=1.0))
        display.finished(SwitchOutcome("c", "failed", "connect", "unreachable at plan time"))
        display.finished(SwitchOutcome("zz", "unchanged"))  # not acted on: not counted
        display.finished(SwitchOutcome("b", "failed", "load", "refused"))
        display.finished(SwitchOutcome("a", "rolled back", message="reverted"))  # a second outcome
    lines = buf.getvalue().splitlines()
    assert [ln.split()[0] for ln in lines] == ["[1/3]", "[2/3]", "[3/3]", "[rollback]"], lines
    assert "zz" not in buf.getvalue()
    assert display.done == {"a", "b", "c"}
    assert display.total == 3


def test_drift_with_an_unreadable_switch_is_unknown_not_none(
    eos_lab: LabRoot, capsys: pytest.CaptureFixture[str]
) -> None:
    assert eos_lab.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
    eos_lab.lab.set_faults("leaf3", unreachable=True)
    code, out, err = eos_lab.run("drift", "--lab", capsys=capsys)
    assert code == 1
    assert "no drift" not in out
    assert "drift unknown: 1 of 6 switch(es) could not be read; none of the 5 read has drifted" in out
    assert "! leaf3: cannot read: connection refused by" in out and "hint: nothing listens there" in out
    assert err.rstrip().endswith("drift incomplete: 1 switch(es) could not be read: leaf3 (refused)")


def test_changed_since_that_selects_nothing_says_nothing_was_read(
    eos_lab: LabRoot, capsys: pytest.CaptureFixture[str]
) -> None:
    from .test_record import git

    git(eos_lab.root, "init", "-q")
    git(eos_lab.root, "add", "-A")
    git(eos_lab.root, "commit", "-q", "-m", "fabric")
    eos_lab.lab.set_faults("leaf1", unreachable=True)  # would fail the plan if it were contacted
    code, out, err = eos_lab.run("plan", "--lab", "--changed-since", "HEAD", capsys=capsys)
    assert code == 0, err
    assert out.startswith("Nothing to plan: no switch's intent or config differs from HEAD (")
    assert "no switch was contacted" in out and "No changes" not in out
    assert "fetch" not in stage_lines(err) and "lab up" not in stage_lines(err)


def test_the_live_display_on_a_terminal_prints_every_finished_switch() -> None:
    """On a terminal the finished lines go through the one painter thread (never into a half-drawn
    live area); whatever is queued when the push ends is printed before the display closes."""
    from rich.console import Console

    class P:
        switches = dict.fromkeys(["a", "b"])
        changed = ["a", "b"]
        unreachable: list[str] = []

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=100, color_system="standard")
    display = ApplyDisplay(P(), console)  # type: ignore[arg-type]
    with display:
        assert display._live is not None, "a live area on a terminal"
        display.started("a", "push")
        display.started("b", "push")
        display.line("✓ lab up    0.01 s  6 switches")  # a stage line while the display owns the screen
        display.finished(SwitchOutcome("a", "changed", added=3, seconds=1.0))
        display.finished(SwitchOutcome("b", "failed", "load", "refused", cause="rejected", hint="check it"))
    text = ANSI.sub("", buf.getvalue())
    for expected in (
        "✓ lab up",
        "[1/2] a  changed +3 -0 lines (1.0 s)",
        "[2/2] b  failed at load (line rejected)",
    ):
        assert expected in text, text
    assert "hint: check it" in text
    assert display._live is None and display.flight == {}
