"""The 48-switch Comware reference fabric: full first apply, re-plan, one Comware fault."""

from __future__ import annotations

import json

import pytest

from .conftest import PASSWORD, LabRoot


def test_reference_first_apply_replan_and_comware_restore(
    reference_lab: LabRoot, capsys: pytest.CaptureFixture[str]
) -> None:
    lab = reference_lab
    # 48 switches at once: the clients run apart from the lab (LabRoot.run_apart).
    code, out, err = lab.run_apart(
        "apply", "--lab", "--auto-approve", "--json", "--parallelism", "48", "--confirm-timeout", "3000"
    )
    assert out, err
    assert code == 0, {
        n: (s["status"], s["stage"], s["message"][:300])
        for n, s in json.loads(out)["switches"].items()
        if s["status"] != "changed"
    }
    assert json.loads(out)["counts"] == {"changed": 48}
    # The whole fabric read at once: nothing left to change.
    assert lab.run_apart("plan", "--lab", "--detailed-exitcode", "--parallelism", "48")[0] == 0
    # A tenant removal with a rejected line on one leaf: that leaf is restored exactly.
    tenants = sorted((lab.root / "tenants").glob("*.yaml"))
    tenants[0].unlink()
    code, out, _ = lab.run_apart("plan", "--lab", "--format", "json")
    plan = json.loads(out)
    victim = next(n for n, s in plan["switches"].items() if s["status"] == "changed")
    before = lab.running(victim)
    lab.lab.set_faults(victim, reject=r"^ *shutdown")
    code, out, _ = lab.run(
        "apply", "--lab", "--auto-approve", "--json", "--limit", victim, "--allow-disruptive", capsys=capsys
    )
    assert code == 1
    sw = json.loads(out)["switches"][victim]
    assert (sw["status"], sw["stage"]) == ("failed", "load") and "restored exactly" in sw["message"]
    assert lab.running(victim) == before  # byte-identical at once (configuration replace file)
    dev = lab.lab.device(victim)
    assert dev.transactions() == {}  # the commit delay was cancelled
    lab.lab.advance(3600)  # past every commit-delay deadline: nothing fires, still exactly as before
    assert lab.running(victim) == before
    lab.lab.clear_faults()
    assert (
        lab.run_apart("apply", "--lab", "--auto-approve", "--confirm-timeout", "3000", "--allow-disruptive")[
            0
        ]
        == 0
    )
    assert lab.run_apart("plan", "--lab", "--detailed-exitcode")[0] == 0
    assert PASSWORD not in lab.all_text()
