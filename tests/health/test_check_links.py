"""`fabricctl check --links`: silent on a healthy fabric; a marginal link (errors, flaps, a weak
optic) the lab's faults make is found, ranked by evidence, and a proven drain of it proposed. The
window passes on the lab's clock (tests/health/test_check_tenant.py runs the command the same way)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import NVUE_SMALL
from tests.deploy.conftest import _lab_root

from .conftest import Converged
from .test_check_tenant import run_check


def test_a_healthy_fabric_has_no_marginal_link(converged: Converged) -> None:
    code, out = run_check(converged, "--links", "--format", "json")
    report = json.loads(out)
    assert code == 0, out
    assert report["ok"] and report["marginal"] == [] and report["proposed"] == []
    assert report["links"] == 32 and report["window_seconds"] >= 30


def test_marginal_links_are_ranked_and_a_proven_drain_proposed(converged: Converged) -> None:
    c = converged
    c.lab.set_faults("leaf2", crc_errors=[c.port(5)])
    c.lab.set_faults("leaf3", flapping=[c.port(1)])
    c.lab.set_faults("leaf4", optic_low=[c.port(8)])
    code, out = run_check(c, "--links", "--window", "30s", "--format", "json")
    report = json.loads(out)
    assert code == 1, out
    ranked = [m["target"] for m in report["marginal"]]
    # a flap stalls every flow, errors some, a weak optic none yet: in that order. Comware's
    # transceiver diagnosis prints alarm thresholds only: light between warning and alarm is no
    # evidence there (platforms/comware/counters.py).
    weak = [f"leaf4:{c.port(8)}"] if c.platform == "eos" else []
    assert ranked == [f"leaf3:{c.port(1)}", f"leaf2:{c.port(5)}", *weak]
    reasons = {m["target"]: " ".join(m["reasons"]) for m in report["marginal"]}
    assert "flapped" in reasons[ranked[0]]
    assert "errored frames a minute" in reasons[ranked[1]]
    if weak:
        assert "dBm, below its optic's" in reasons[weak[0]]
    proposed = [f"{d['switch']}:{d['port']}" for d in report["proposed"]]
    # each leaf loses one of 8 uplinks: 1/8, the default floor; all of them hold together
    assert proposed == ranked
    proof = report["proof"]
    assert proof["ok"] and proof["links"] == len(ranked)


def test_a_drain_the_floor_refuses_is_held_in_service_and_named(converged: Converged) -> None:
    c = converged
    fabric = c.root / "inventory" / "fabric.yaml"
    fabric.write_text(
        fabric.read_text(encoding="utf-8") + "drain:\n  max_bandwidth_loss: 0.1\n", encoding="utf-8"
    )
    c.lab.set_faults("leaf2", crc_errors=[c.port(5)])
    code, out = run_check(c, "--links", "--window", "30s")
    assert code == 1
    assert f"leaf2:{c.port(5)}" in out and "stays in service" in out and "below the floor" in out
    assert "Proposed drain" not in out


def test_links_whose_switches_print_no_evidence_are_not_called_healthy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """NVUE's counter reader reads its RoCE counters only (platforms/nvue/counters.py): no errors,
    flaps or optics, so its links cannot be judged, and check --links says so and fails."""
    for lab_root in _lab_root(NVUE_SMALL, tmp_path, monkeypatch):
        assert lab_root.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
        c = Converged(lab_root.lab, lab_root.root, "nvue")
        code, out = run_check(c, "--links", "--format", "json")
        report = json.loads(out)
        assert code == 1 and not report["ok"], out
        assert report["links"] > 0 and len(report["unjudged"]) == report["links"]
        assert report["marginal"] == [] and report["proposed"] == []
        code, out = run_check(c, "--links")
        assert code == 1 and "link(s) not judged: neither end's switch prints errors, flaps or optics" in out
        assert "no marginal link" not in out
