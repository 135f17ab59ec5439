"""A SONiC fabric's tenant lifecycle through the CLI on the lab (examples/sonic-small, six SN5600
twins): planned from the factory config, applied (a checkpoint, the Generic Config Updater's
apply-patch, vtysh, read back, saved), planned again with nothing left, then a tenant removed
and applied: its CONFIG_DB rows and FRR blocks gone, every switch saved, nothing else changed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from fabricctl.platforms.sonic.document import split
from tests.conftest import SONIC_SMALL, copy_fabric, run_cli


@pytest.fixture
def root(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Iterator[Path]:
    """The example copied to a fresh root, its lab up detached (down however the test ends)."""
    root = copy_fabric(SONIC_SMALL, tmp_path / "fabric")
    code, out, err = run_cli(["lab", "up", "--detach", "--root", str(root)], capsys)
    assert code == 0, out + err
    try:
        yield root
    finally:
        run_cli(["lab", "down", "--root", str(root)], capsys)


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """`fabricctl <argv>` in-process, as the console script ends (`--detailed-exitcode` exits)."""
    try:
        code, out, err = run_cli(argv, capsys)
    except SystemExit as exc:
        captured = capsys.readouterr()
        return int(exc.code or 0), captured.out + captured.err
    return code, out + err


def _saved(root: Path, switch: str) -> str:
    """The switch's running config as the twin keeps it, checked to be its startup config too."""
    folder = root / ".fabricctl" / "lab" / "state" / switch
    running = (folder / "running-config").read_text(encoding="utf-8")
    assert (folder / "startup-config").read_text(encoding="utf-8") == running, switch
    return running


@pytest.mark.lab
def test_a_sonic_fabric_runs_a_tenants_life_on_the_lab(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    at = ["--lab", "--root", str(root)]
    code, out = _cli(["plan", "--detailed-exitcode", *at], capsys)
    assert code == 2 and "Plan: 6 to change" in out, out
    code, out = _cli(["apply", "--auto-approve", *at], capsys)
    assert code == 0 and "Result: 6 changed" in out and "rolled back" not in out, out
    code, out = _cli(["plan", "--detailed-exitcode", *at], capsys)
    assert code == 0 and "6 unchanged" in out, out
    db, frr, _ = split("leaf3", _saved(root, "leaf3"))
    assert "Vrf-intern-01" in db["VRF"] and "router bgp 65313 vrf Vrf-intern-01" in frr

    (root / "tenants" / "intern-01.yaml").unlink()
    code, out = _cli(["apply", "--auto-approve", "--diff", *at], capsys)
    assert code == 0 and "Result: 1 changed, 5 unchanged" in out, out
    assert "- remove /VRF/Vrf-intern-01" in out and "- router bgp 65313 vrf Vrf-intern-01" in out
    code, out = _cli(["plan", "--detailed-exitcode", *at], capsys)
    assert code == 0 and "6 unchanged" in out, out
    db, frr, _ = split("leaf3", _saved(root, "leaf3"))
    assert "Vrf-intern-01" not in json.dumps(db) and "Vrf-intern-01" not in frr
    assert {"Vrf-team-llm", "Vrf-team-hpc"} <= set(db["VRF"])  # the other tenants stay
