"""`fabricctl check --tenant`: faults injected on the lab are named with the tenant whose paths
they are on, and left out for a tenant whose paths they are not on. The window passes on the
lab's clock: the command waits on the switches' clocks, and the test moves the lab's forward only
while the command says it is waiting, so how fast this machine runs the reads never decides what
the window holds."""

from __future__ import annotations

import contextlib
import io
import json
import re
import threading
from typing import Any

import pytest

from fabricctl import pipeline
from fabricctl.cli import main
from fabricctl.deploy.tenant_health import UnknownTenant
from tests.conftest import EOS_SMALL

from .conftest import Converged

#: The progress line the command prints each time it has read the switch's clock inside the
#: window and is about to wait again (deploy/tenant_health.py `wait_switch_time`; `check --tenant`
#: and `check --links` alike).
WAITING = re.compile(r"^  \d+(?:m\d\ds|s) of \S+$", re.M)


def run_check_with_progress(c: Converged, *args: str) -> tuple[int, str, str]:
    """`check --lab --tenant ...` in a thread; (exit code, stdout, stderr). This thread moves
    the lab's clock only once the command has printed that it waits for its window: the clock
    the window starts from is read, and the first reading inside the window is taken, before the
    clock moves, however slow the reads are on a loaded machine."""
    out, err = io.StringIO(), io.StringIO()
    code: list[int] = []

    def run() -> None:
        with contextlib.redirect_stdout(out):
            code.append(exit_code(["check", "--lab", "--root", str(c.root), *args]))

    with contextlib.redirect_stderr(err):
        worker = threading.Thread(target=run)
        worker.start()
        while worker.is_alive():  # a condition polled, never a timed wait
            if WAITING.search(err.getvalue()):
                c.lab.advance(5)
            worker.join(0.2)
    return code[0], out.getvalue(), err.getvalue()


def run_check(c: Converged, *args: str) -> tuple[int, str]:
    code, out, _ = run_check_with_progress(c, *args)
    return code, out


def link_ends(c: Converged) -> set[tuple[str, str]]:
    """Both ends of the congested link spine1 port 1: EOS shows its ECN marks at spine1, Comware
    the CNPs its far end sends back (each platform prints one of them, platforms/*/counters.py)."""
    far = c.lab.state().far_end("spine1", c.port(1))
    assert far is not None
    return {("spine1", c.port(1)), far}


def exit_code(argv: list[str]) -> int:
    try:
        return int(main(argv) or 0)
    except SystemExit as exc:
        return int(exc.code or 0)


def _failed(report: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for check in report["checks"]:
        if not check["ok"]:
            out.setdefault(check["name"], []).append(check)
    return out


def test_a_healthy_tenant_passes_every_check_in_its_scope(converged: Converged) -> None:
    code, out = run_check(converged, "--tenant", "team-llm", "--window", "30s", "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["ok"], _failed(report)
    names = {c["name"] for c in report["checks"]}
    assert {
        "config",
        "gpu-port",
        "link",
        "lldp",
        "flap",
        "errors",
        "optic",
        "pfc-rate",
        "lossless-drops",
    } <= names
    # The scope: exactly team-llm's GPU ports as compiled, never another tenant's.
    compiled = pipeline.compile(converged.root)
    held = {key for key, (a, _) in compiled.allocation.port_owner.items() if a.tenant.name == "team-llm"}
    gpu = {(c["switch"], c["subject"]) for c in report["checks"] if c["name"] == "gpu-port"}
    assert gpu == held


def test_faults_are_named_with_the_tenant_and_the_tenants_sharing_a_hot_link(converged: Converged) -> None:
    c = converged
    gpu = c.port(9)  # team-llm's GPU port on every leaf
    c.lab.set_faults("leaf1", pfc_storm=[gpu])
    c.lab.set_faults("leaf2", lossless_drops=[gpu])
    c.lab.set_faults("leaf3", flapping=[gpu])
    c.lab.set_faults("leaf4", optic_degrading=[gpu])
    c.lab.set_faults("spine1", congestion=[c.port(1)])  # toward leaf1: team-llm, team-hpc, storage
    c.lab.advance(600)  # the optic is below its thresholds by now
    code, out = run_check(c, "--tenant", "team-llm", "--window", "1m", "--format", "json")
    report = json.loads(out)
    failed = _failed(report)
    assert code == 1
    where = {
        name: {(x["switch"], x["subject"].split()[0]) for x in checks} for name, checks in failed.items()
    }
    assert ("leaf1", gpu) in where["pfc-rate"]
    assert where["lossless-drops"] == {("leaf2", gpu)}
    assert ("leaf3", gpu) in where["flap"]
    assert ("leaf4", gpu) in where["optic"] and ("leaf4", gpu) in where["errors"]
    keys = {x["key"] for checks in failed.values() for x in checks if x["switch"].startswith("leaf")}
    assert keys and all(k.startswith("team-llm node") for k in keys), keys
    hot = [x for x in report["checks"] if x["name"] == "congestion"]
    assert hot and all(x["ok"] for x in hot)
    assert {(x["switch"], x["subject"]) for x in hot} & link_ends(c), hot
    assert all("shared with storage, team-hpc" in x["hint"] for x in hot), hot

    # The same faults are not intern-01's: its one GPU sits on leaf3 and its traffic never leaves it.
    code, out = run_check(c, "--tenant", "intern-01", "--window", "30s")
    assert code == 0, out
    assert "healthy" in out


def test_text_and_markdown_name_the_hot_link(converged: Converged) -> None:
    c = converged
    c.lab.set_faults("spine1", congestion=[c.port(1)])
    code, text = run_check(c, "--tenant", "team-hpc", "--window", "30s")
    assert code == 0 and "NOTE congestion" in text and "shared with storage, team-llm" in text
    code, md = run_check(c, "--tenant", "team-hpc", "--window", "30s", "--format", "markdown")
    assert code == 0 and "Informational" in md and "| congestion |" in md


def test_an_unknown_tenant_is_a_clear_error(converged: Converged, capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code(["check", "--lab", "--root", str(converged.root), "--tenant", "nobody"]) == 1
    assert (
        "no tenant named 'nobody' (tenants: intern-01, storage, team-hpc, team-llm)"
        in capsys.readouterr().err
    )


def test_the_check_stage_refuses_an_unknown_tenant_before_any_switch_is_read(
    no_network: list[object],
) -> None:
    """`pipeline.check_tenant`, the door `check --tenant` goes through: the tenant is looked up in
    the compiled fabric before any switch is contacted."""
    with pytest.raises(UnknownTenant, match="no tenant named 'nobody'"):
        pipeline.check_tenant(pipeline.compile(EOS_SMALL), EOS_SMALL, "nobody")
    assert not no_network


def test_a_bad_window_is_a_clear_error(converged: Converged, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["check", "--lab", "--root", str(converged.root), "--tenant", "team-llm", "--window", "5 minutes"]
    assert exit_code(argv) == 1
    assert "is not a duration" in capsys.readouterr().err


def test_a_running_config_that_breaks_a_proof_fails_the_tenants_check(converged: Converged) -> None:
    c = converged
    if c.platform != "eos":
        pytest.skip("one platform's CLI is enough to break a running config; the proofs are shared")
    c.lab.device("leaf1").configure(["interface Ethernet9", "no service-profile ROCE-LOSSLESS"])
    code, out = run_check(c, "--tenant", "team-llm", "--window", "10s", "--format", "json")
    broken = _failed(json.loads(out)).get("config", [])
    assert code == 1 and broken and {x["switch"] for x in broken} == {"leaf1"}, broken


def test_limit_narrows_the_tenant_to_those_switches_and_the_window_shows_progress(
    converged: Converged, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--tenant team-llm --limit leaf1`: only leaf1's GPUs and links are read and reported; the
    window says how far it is on stderr while it waits."""
    c = converged
    code, out, progress = run_check_with_progress(
        c, "--tenant", "team-llm", "--limit", "leaf1", "--window", "30s", "--format", "json"
    )
    report = json.loads(out)
    assert code == 0 and report["ok"], _failed(report)
    assert {ch["switch"] for ch in report["checks"]} == {"leaf1"}
    compiled = pipeline.compile(c.root)
    held = {
        k
        for k, (a, _) in compiled.allocation.port_owner.items()
        if a.tenant.name == "team-llm" and k[0] == "leaf1"
    }
    assert {(ch["switch"], ch["subject"]) for ch in report["checks"] if ch["name"] == "gpu-port"} == held
    assert "tenant team-llm: 4 GPU port(s)" in progress and "counting for 30s by leaf1's clock" in progress
    assert re.search(r"^  \d+s of 30s$", progress, flags=re.M), progress
    code, _ = run_check(c, "--tenant", "intern-01", "--limit", "leaf1", "--window", "10s")
    assert code == 1  # intern-01 holds nothing on leaf1: a clear error, nothing read
