"""`fabricctl lab` sub-app: detached up / status --json / reset / down, and clean errors."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from fabricctl.cli.lab import lab_app
from fabricctl.lab import lab_endpoints
from tests.conftest import run_cli

FIXTURE_ROOT = Path(__file__).parent / "fixtures" / "small"
runner = CliRunner()


@pytest.fixture(autouse=True)
def _no_lab_left_up(tmp_path: Path) -> Iterator[None]:
    """A test that fails with a detached lab up (under tmp_path) leaves none running."""
    yield
    if (tmp_path / ".fabricctl" / "lab" / "lab.json").exists():
        runner.invoke(lab_app, ["down", "--root", str(tmp_path)])


@pytest.fixture
def root(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE_ROOT / "inventory", tmp_path / "inventory")
    return tmp_path


def test_bad_inputs_fail_with_one_line(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(["lab", "up", "--detach", "--root", str(tmp_path / "nowhere")], capsys)
    assert code == 1 and "error: --root " in err and "no inventory/ folder here" in err
    faults = tmp_path / "f.yaml"
    faults.write_text("leaf01: {bogus: 1}\n")
    code, out, err = run_cli(["lab", "up", "--detach", "--faults", str(faults), "--root", str(root)], capsys)
    assert code == 1 and err == "error: leaf01: unknown fault(s) bogus\n" and not out
    res = runner.invoke(lab_app, ["status", "--json", "--root", str(root)])
    assert res.exit_code == 0 and json.loads(res.output)["running"] is False


def test_detached_lifecycle(root: Path) -> None:
    res = runner.invoke(lab_app, ["up", "--detach", "--root", str(root)])
    assert res.exit_code == 0, res.output
    try:
        res = runner.invoke(lab_app, ["status", "--json", "--root", str(root)])
        data = json.loads(res.output)
        assert data["running"] is True
        by_name = {d["name"]: d for d in data["devices"]}
        assert by_name["leaf01"]["platform"] == "eos" and by_name["leaf01"]["eapi_port"]
        assert by_name["spine01"]["eapi_port"] is None and by_name["spine01"]["port"] > 0
        with lab_endpoints(root) as eps:  # reuses the detached lab
            assert eps["spine01"].ssh_port == by_name["spine01"]["port"]
        again = runner.invoke(lab_app, ["up", "--detach", "--root", str(root)])
        assert again.exit_code == 1 and "already running" in again.output
        assert runner.invoke(lab_app, ["reset", "--root", str(root)]).exit_code == 0
    finally:
        res = runner.invoke(lab_app, ["down", "--root", str(root)])
    assert res.exit_code == 0 and "lab down" in res.output
    assert not (root / ".fabricctl" / "lab" / "lab.json").exists()


def test_recable_a_detached_lab(tmp_path: Path) -> None:
    """After a breakout the racks are re-cabled as the inventory says: a breakout cable in each
    split port, a 200G leg per lane; the ports whose cable changed are named."""
    from tests.conftest import EOS_SMALL
    from tests.test_expansion import split

    shutil.copytree(EOS_SMALL / "inventory", tmp_path / "inventory")
    assert runner.invoke(lab_app, ["recable", "--root", str(tmp_path)]).exit_code == 1  # no lab yet
    assert runner.invoke(lab_app, ["up", "--detach", "--root", str(tmp_path)]).exit_code == 0
    try:
        res = runner.invoke(lab_app, ["recable", "--root", str(tmp_path)])
        assert res.exit_code == 0 and res.output.startswith("lab recabled: 0 port(s)"), res.output
        split(tmp_path)
        res = runner.invoke(lab_app, ["recable", "--limit", "leaf1", "--root", str(tmp_path)])
        # 8 GPU ports: each 400G cable out, two 200G lanes in
        assert res.exit_code == 0 and "24 port(s) changed cable on leaf1" in res.output, res.output
        res = runner.invoke(lab_app, ["recable", "--limit", "leaf9", "--root", str(tmp_path)])
        assert (
            res.exit_code == 1 and "no lab switch of that name (allowed: spine1, spine2, leaf1" in res.output
        )
    finally:
        assert runner.invoke(lab_app, ["down", "--root", str(tmp_path)]).exit_code == 0


def test_reboot_applies_what_a_switch_reads_at_boot(tmp_path: Path) -> None:
    """Comware applies max-ecmp-num at boot: a saved value changes the lab's ECMP cap only after
    `lab reboot` (offline on the stored state, or a detached lab); running becomes startup."""
    from fabricctl.lab import LabFabric
    from tests.conftest import EOS_SMALL, on_platform

    shutil.copytree(EOS_SMALL / "inventory", tmp_path / "inventory")
    on_platform(tmp_path, "comware")

    def cap() -> int | None:
        return LabFabric.from_inventory(tmp_path).devices["leaf1"].facts().ecmp_cap

    lab = LabFabric.from_inventory(tmp_path)
    dev = lab.devices["leaf1"]
    dev.running.replace_contents(dev.parse("#\nmax-ecmp-num 4\n#\n", base=dev.running))
    dev.persist_running()
    dev.save()
    assert cap() == 8, "the documented default until the switch reboots"
    res = runner.invoke(lab_app, ["reboot", "--limit", "leaf9", "--root", str(tmp_path)])
    assert res.exit_code == 1 and "no lab switch of that name" in res.output
    res = runner.invoke(lab_app, ["reboot", "--limit", "leaf1", "--root", str(tmp_path)])
    assert res.exit_code == 0 and res.output == "lab rebooted 1 switch(es) from their startup-config\n"
    assert cap() == 4

    dev = LabFabric.from_inventory(tmp_path).devices["leaf1"]
    dev.running.replace_contents(dev.parse("#\nmax-ecmp-num 16\n#\n", base=dev.running))
    dev.persist_running()
    dev.save()
    dev.running.replace_contents(dev.parse("#\nmax-ecmp-num 2\n#\n", base=dev.running))
    dev.persist_running()  # unsaved: a reboot loses it
    assert runner.invoke(lab_app, ["up", "--detach", "--root", str(tmp_path)]).exit_code == 0
    try:
        res = runner.invoke(lab_app, ["reboot", "--root", str(tmp_path)])
        assert res.exit_code == 0 and "rebooted 6 switch(es)" in res.output, res.output
    finally:
        assert runner.invoke(lab_app, ["down", "--root", str(tmp_path)]).exit_code == 0
    after = LabFabric.from_inventory(tmp_path).devices["leaf1"]
    assert after.facts().ecmp_cap == 16 and "max-ecmp-num 16" in after.running_text()
