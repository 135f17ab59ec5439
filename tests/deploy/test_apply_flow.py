"""apply's flow without the CLI (deploy/apply_flow.py): the caller's ApplyUi shows the plan and
approves; a refusal pushes nothing, an approval pushes and records."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator

import pytest

from fabricctl import pipeline
from fabricctl.cli.common import select_switches
from fabricctl.config.diff import DeviceDiff, diff_device
from fabricctl.config.rules import Dialect
from fabricctl.deploy.apply import ApplyOptions
from fabricctl.deploy.apply_flow import ApplyRequest, ApplyUi
from fabricctl.deploy.plan import Plan, Prepared
from fabricctl.deploy.service import ApplyHooks, PlanOptions
from fabricctl.deploy.stages import quiet
from fabricctl.platforms import PLATFORMS, get_platform
from fabricctl.platforms.push import normalize_running

from .conftest import LabRoot


class Refused(Exception):
    pass


def ui(shown: list[Plan], approve: bool, followed: list[str]) -> ApplyUi:
    def show_plan(plan: Plan, prepared: Prepared) -> None:
        shown.append(plan)

    def ask() -> None:
        if not approve:
            raise Refused

    @contextlib.contextmanager
    def watch(plan: Plan) -> Iterator[ApplyHooks]:
        yield ApplyHooks(finished=lambda outcome: followed.append(outcome.name))

    return ApplyUi(
        select=select_switches,
        stages=quiet(),
        notify=lambda _: None,
        show_plan=show_plan,
        approve=ask,
        watch=watch,
    )


def test_a_refused_approval_pushes_nothing_and_an_approved_one_pushes_and_records(eos_lab: LabRoot) -> None:
    request = ApplyRequest(
        root=eos_lab.root,
        lab=True,
        options=ApplyOptions(parallelism=6, timeout=30),
        plan=PlanOptions(limit=("leaf1",), timeout=30),
        reason="flow test",
    )
    before = eos_lab.running("leaf1")
    shown: list[Plan] = []
    followed: list[str] = []
    with pytest.raises(Refused):
        pipeline.apply(request, ui(shown, False, followed))
    assert [p.changed for p in shown] == [["leaf1"]], "the plan is shown before the question"
    assert eos_lab.running("leaf1") == before and not followed, "nothing pushed without approval"

    outcome = pipeline.apply(request, ui(shown, True, followed))
    assert outcome.report.switches["leaf1"].status == "changed" and followed == ["leaf1"]
    assert outcome.record.is_file() and outcome.report.context["reason"] == "flow test"
    assert eos_lab.running("leaf1") != before


LEFT_OVER = "! a line the NOS's own differ still finds"


def test_plan_and_the_pushs_convergence_check_compare_with_the_platforms_own_differ(
    eos_lab: LabRoot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A NOS that gives its own `Platform.differ` is compared with it everywhere: the plan reads
    the switch with it, and after the change the push asks it whether the switch converged. Here
    the NOS's differ finds a line left over once the switch changed, so the push must fail its
    verify and restore the switch, where the shared diff would call it converged."""
    before = normalize_running(eos_lab.running("leaf1"))
    compared: list[str] = []

    def own_differ(name: str, running: str, intended: str, dialect: Dialect, prune: bool) -> DeviceDiff:
        compared.append(normalize_running(running))
        found = diff_device(name, running, intended, dialect, prune)
        if name != "leaf1" or normalize_running(running) == before:
            return found
        return dataclasses.replace(
            found, commands=[*found.commands, LEFT_OVER], diff=found.diff + f"+{LEFT_OVER}\n"
        )

    monkeypatch.setitem(PLATFORMS, "eos", dataclasses.replace(get_platform("eos"), differ=own_differ))

    plan, _ = pipeline.plan(
        eos_lab.root, PlanOptions(limit=("leaf1",), timeout=30), select_switches, lab=True
    )
    assert plan.changed == ["leaf1"] and compared == [before], "the plan compared with the platform's differ"

    compared.clear()
    request = ApplyRequest(
        root=eos_lab.root,
        lab=True,
        options=ApplyOptions(parallelism=6, timeout=30),
        plan=PlanOptions(limit=("leaf1",), timeout=30),
        reason="own differ",
    )
    outcome = pipeline.apply(request, ui([], True, []))
    leaf1 = outcome.report.switches["leaf1"]
    assert leaf1.status in ("failed", "rolled back") and leaf1.stage == "verify", leaf1
    assert "still differ" in leaf1.message + leaf1.output and LEFT_OVER in leaf1.output, leaf1
    assert any(running != before for running in compared), "the push compared the changed switch"
    assert normalize_running(eos_lab.running("leaf1")) == before, "the switch is restored"
