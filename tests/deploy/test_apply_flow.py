"""apply's flow without the CLI (deploy/apply_flow.py): the caller's ApplyUi shows the plan and
approves; a refusal pushes nothing, an approval pushes and records."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from fabricctl import pipeline
from fabricctl.cli.common import select_switches
from fabricctl.deploy.apply import ApplyOptions
from fabricctl.deploy.apply_flow import ApplyRequest, ApplyUi
from fabricctl.deploy.plan import Plan, Prepared
from fabricctl.deploy.service import ApplyHooks, PlanOptions
from fabricctl.deploy.stages import quiet

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
