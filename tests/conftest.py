"""Shared test helpers: fabric copies, golden files, in-process CLI runs, compiled fixtures."""

from __future__ import annotations

import difflib
import json
import os
import shutil
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import hypothesis  # noqa: F401  # loaded now: its plugin imports it lazily at the end of a run, and

# CPython 3.11.7 can fail that late ast.parse ("AST constructor recursion depth mismatch")
import pytest
import yaml

from fabricctl import pipeline
from fabricctl.cli import main
from fabricctl.compile.build import Compiled

if TYPE_CHECKING:
    from netmiko.base_connection import BaseConnection

    from fabricctl.compile.intent import DeviceIntent

REPO = Path(__file__).resolve().parent.parent
REFERENCE = REPO
EOS_SMALL = REPO / "examples" / "eos-small"
NVUE_SMALL = REPO / "examples" / "nvue-small"
SONIC_SMALL = REPO / "examples" / "sonic-small"
TESTS = Path(__file__).resolve().parent
GOLDEN = TESTS / "golden"
ERRORS = TESTS / "errors"

#: Files of an error case that are instructions to the runner, not fabric files.
CASE_CONTROL = {"expected.txt", "remove.txt", "argv.txt"}


def regen_enabled() -> bool:
    """True when goldens should be rewritten instead of compared (FABRICCTL_REGEN=1)."""
    return os.environ.get("FABRICCTL_REGEN", "") not in ("", "0")


def assert_golden(path: Path, text: str) -> None:
    """Compare `text` with the golden file at `path`; a mismatch fails with a unified diff.

    With FABRICCTL_REGEN=1 the golden is (re)written instead; `python tests/regen_goldens.py`
    does that for every golden in one go.
    """
    if regen_enabled():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        return
    if not path.is_file():
        pytest.fail(f"golden {path.relative_to(REPO)} is missing; run: python tests/regen_goldens.py")
    expected = path.read_text(encoding="utf-8")
    if expected != text:
        rel = path.relative_to(REPO).as_posix()
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                text.splitlines(keepends=True),
                fromfile=f"{rel} (golden)",
                tofile=f"{rel} (actual)",
            )
        )
        pytest.fail(f"golden mismatch (regenerate: python tests/regen_goldens.py)\n{diff}", pytrace=False)


def render_one(intent: DeviceIntent, root: Path | None = None) -> str:
    """One switch's config, rendered by the render stage (pipeline.render) with the templates of
    the fabric at `root` first."""
    return pipeline.render({intent.name: intent}, root)[intent.name]


def copy_fabric(src: Path, dst: Path) -> Path:
    """Copy a fabric repository's inputs (inventory/ + tenants/) into `dst` and return `dst`."""
    dst.mkdir(parents=True, exist_ok=True)
    for folder in ("inventory", "tenants"):
        if (src / folder).is_dir():
            shutil.copytree(src / folder, dst / folder)
    return dst


def comware_qos(text: str) -> str:
    """fabric.yaml text made fit for Comware switches: IP MTU 9000 (Comware takes at most 9008) and
    the PFC headroom figures H3C publishes none of (the reference fabric's, inventory/fabric.yaml)."""
    buffer = "qos:\n  buffer: {cell_bytes: 144, mac_phy_delay_bytes: 820, pipeline_latency_bytes: 18432}\n"
    return text.replace("mtu: 9214", "mtu: 9000").replace("qos:\n", buffer, 1)


def on_platform(root: Path, platform: str) -> Path:
    """The copied fabric at `root` with every switch in the `platform` group (eos-small's cabling
    on another NOS), with the QoS settings that NOS needs (comware_qos)."""
    hosts = root / "inventory" / "hosts.yaml"
    hosts.write_text(hosts.read_text(encoding="utf-8").replace(", eos]", f", {platform}]"), encoding="utf-8")
    if platform == "comware":
        fabric = root / "inventory" / "fabric.yaml"
        fabric.write_text(comware_qos(fabric.read_text(encoding="utf-8")), encoding="utf-8")
    return root


def build_case(case: Path, dst: Path, base: Path = EOS_SMALL) -> Path:
    """The base fabric with the case's files laid over it and its remove.txt paths deleted."""
    copy_fabric(base, dst)
    for item in sorted(case.rglob("*")):
        rel = item.relative_to(case)
        if item.is_dir() or rel.as_posix() in CASE_CONTROL:
            continue
        target = dst / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(item, target)
    remove = case / "remove.txt"
    if remove.is_file():
        for line in remove.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            target = dst / line
            if target.is_dir():
                shutil.rmtree(target)
            else:
                target.unlink()
    return dst


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run `fabricctl <argv>` in-process; returns (exit code, stdout, stderr)."""
    capsys.readouterr()
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


class NetworkContacted(AssertionError):
    """Raised when code under test tries to open a network connection."""


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[object]]:
    """Fail loudly if anything tries to connect anywhere; yields the list of attempts."""
    attempts: list[object] = []

    def refuse(self: socket.socket, address: object, *args: object) -> None:
        attempts.append(address)
        raise NetworkContacted(f"network contacted: {address!r}")

    def refuse_create(address: object, *args: object, **kwargs: object) -> socket.socket:
        attempts.append(address)
        raise NetworkContacted(f"network contacted: {address!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse_create)
    yield attempts


@pytest.fixture(scope="session", autouse=True)
def compile_cache_of_this_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The compile cache (compile/cache.py) in a folder of this run, never the user's: every
    command the suite runs, in process or as a child process, writes its snapshots there."""
    folder = tmp_path_factory.mktemp("compile-cache")
    before = os.environ.get("FABRICCTL_CACHE_DIR")
    os.environ["FABRICCTL_CACHE_DIR"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("FABRICCTL_CACHE_DIR", None)
    else:
        os.environ["FABRICCTL_CACHE_DIR"] = before


@pytest.fixture(scope="session")
def reference() -> Compiled:
    """The reference fabric (repo root), compiled once per session. Treat as read-only."""
    return pipeline.compile(REFERENCE)


@pytest.fixture(scope="session")
def eos_small() -> Compiled:
    """The eos-small example fabric, compiled once per session. Treat as read-only."""
    return pipeline.compile(EOS_SMALL)


@pytest.fixture(scope="session")
def nvue_small() -> Compiled:
    """The nvue-small example fabric, compiled once per session. Treat as read-only."""
    return pipeline.compile(NVUE_SMALL)


def json_object(text: str | bytes) -> dict[str, Any]:
    """`text` read as JSON, which must be an object (a report, an API answer)."""
    data = json.loads(text)
    assert isinstance(data, dict), data
    return data


def yaml_mapping(text: str) -> dict[str, Any]:
    """`text` read as YAML, which must be a mapping."""
    data = yaml.safe_load(text)
    assert isinstance(data, dict), data
    return data


def send_text(conn: BaseConnection, command: str, **kwargs: Any) -> str:
    """`conn.send_command` for a plain-text answer (netmiko types it as text or parsed rows)."""
    out = conn.send_command(command, **kwargs)
    assert isinstance(out, str), out
    return out


def send_rows(conn: BaseConnection, command: str, **kwargs: Any) -> list[dict[str, Any]]:
    """`conn.send_command` parsed by ntc-templates (TextFSM): one dict a row."""
    out = conn.send_command(command, use_textfsm=True, **kwargs)
    assert isinstance(out, list), out
    return out


def send_timing_text(conn: BaseConnection, command: str, **kwargs: Any) -> str:
    """`conn.send_command_timing` for a plain-text answer."""
    out = conn.send_command_timing(command, **kwargs)
    assert isinstance(out, str), out
    return out


def wait_until(predicate: Callable[[], object], what: str, timeout: float = 60.0) -> None:
    """Poll `predicate` until it holds; fail naming `what` after a generous `timeout` (wall seconds).

    For conditions another thread or process brings about: never a fixed sleep, which is either
    too short on a slow machine or wasted time on a fast one.
    """
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up after {timeout:.0f} s waiting for {what}")
        time.sleep(0.01)


#: The long lab scenarios, run with `pytest -n 4 -m slow` (README): the 48-switch reference apply
#: and expansion (the README's main job applies and re-plans the reference fabric too), the
#: 448-switch lab acceptance and first-plan PR comment of the 10k example, the Comware twin of a
#: fault, interrupt or tenant-health scenario whose EOS twin runs in the default tier, and the
#: variants of an operator's pending change beyond one per NOS. Measured at 12-180 s each.
SLOW = {
    "tests/deploy/test_rolling_reboot.py::test_a_rolling_reboot_brings_ecmp_to_full_width_everywhere",
    "tests/deploy/test_rolling_reboot.py::test_a_named_spine_is_rolled_for_an_upgrade[eos]",
    "tests/deploy/test_rolling_reboot.py::test_a_named_spine_is_rolled_for_an_upgrade[nvue]",
    "tests/deploy/test_rolling_reboot.py::test_a_switch_asking_to_save_a_change_not_ours_is_not_rebooted",
    "tests/deploy/test_expansion_lab.py::test_expanding_the_reference_fabric_keeps_every_gpu",
    "tests/deploy/test_reference.py::test_reference_first_apply_replan_and_comware_restore",
    "tests/test_multipod.py::test_example_10k_every_config_is_accepted_by_the_lab",
    # The PR comment of all 448 switches' first plan (600,000 diff lines): the cap itself is held
    # for any budget and on the 48-switch first plan in the default tier.
    "tests/gitops/test_markdown.py::test_first_plan_of_the_10k_example_stays_under_the_cap",
    "tests/deploy/test_failures_lab.py::test_plan_names_why_a_switch_cannot_be_read[timeout-comware]",
    "tests/deploy/test_faults.py::test_fault_leaves_switch_as_before[hang-comware]",
    "tests/deploy/test_faults.py::test_fault_leaves_switch_as_before[auth-comware]",
    "tests/deploy/test_faults.py::test_fault_leaves_switch_as_before[disconnect-comware]",
    "tests/health/test_alerts_lab.py::test_the_shipped_alerts_are_silent_on_a_healthy_fabric_and_fire_on_each_fault[comware]",
    "tests/deploy/test_faults.py::test_fault_leaves_switch_as_before[slow-comware]",
    "tests/deploy/test_faults.py::test_fault_leaves_switch_as_before[commit-comware]",
    "tests/deploy/test_interrupted.py::test_sigterm_finishes_the_switch_in_flight_and_starts_no_other[comware]",
    "tests/deploy/test_interrupted.py::test_a_second_interrupt_restores_the_switch_in_flight[comware]",
    "tests/health/test_check_tenant.py::test_text_and_markdown_name_the_hot_link[comware]",
    "tests/health/test_check_tenant.py::test_faults_are_named_with_the_tenant_and_the_tenants_sharing_a_hot_link[comware]",
    "tests/deploy/test_expansion_lab.py::test_expanding_the_small_fabric_keeps_every_gpu[comware]",
    "tests/deploy/test_multipod.py::test_apply_one_pod_at_a_time[comware]",
    "tests/deploy/test_disruptive.py::test_each_class_is_named_and_apply_needs_consent[comware]",
    "tests/deploy/test_disruptive.py::test_l3_to_l2_re_addresses_every_server_nic_and_names_the_one_whose_address_the_gateway_takes[comware]",
    "tests/deploy/test_provenance.py::test_only_what_fabricctl_made_is_removed[comware]",
    "tests/deploy/test_provenance.py::test_a_fabric_deployed_without_marks_is_adopted[comware]",
    *(
        f"tests/deploy/test_foreign_changes.py::test_apply_refuses_an_operators_pending_change_and_leaves_it_whole[{case}]"
        for case in (
            "eos-session-open",
            "eos-session-named-like-fabricctls",
            "nvue-apply-messaged-like-fabricctls",
            "nvue-staged-changes",
            "comware-commit-delay-abbreviated",
        )
    ),
    "tests/deploy/test_drain.py::test_a_spine_drained_while_tenants_run_and_put_back[comware]",
    "tests/deploy/test_drain.py::test_a_spine_drained_while_tenants_run_and_put_back[nvue]",
    "tests/health/test_check_links.py::test_marginal_links_are_ranked_and_a_proven_drain_proposed[comware]",
    "tests/health/test_check_links.py::test_a_drain_the_floor_refuses_is_held_in_service_and_named[comware]",
    "tests/deploy/test_drain.py::test_an_optic_replaced_under_a_drained_link[comware]",
    "tests/deploy/test_drain.py::test_an_optic_replaced_under_a_drained_link[nvue]",
    "tests/health/test_check_links.py::test_links_whose_switches_print_no_evidence_are_not_called_healthy",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid in SLOW:
            item.add_marker(pytest.mark.slow)
