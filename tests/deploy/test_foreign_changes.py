"""fabricctl never confirms, rolls back or discards a change it did not start, on any NOS.

An operator logs in to a lab switch (an SSH login of their own) and leaves a change pending the
way their NOS lets them: an EOS configuration session (committed on its timer, or open), an NVUE
apply waiting for its confirm (or `nv set`s staged), a Comware `configuration commit delay`. The
next `fabricctl apply` refuses that switch with a message that names the change and how its owner
clears it, pushes the others, and leaves the operator's change exactly as it was: still pending,
the switch's config byte for byte the same, and the operator can still confirm it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from netmiko import ConnectHandler
from netmiko.base_connection import BaseConnection

from fabricctl.lab.runtime import lab_credentials
from tests.conftest import EOS_SMALL, NVUE_SMALL

from .conftest import LabRoot, _lab_root

pytestmark = pytest.mark.lab
VICTIM, OTHER = "leaf1", "leaf2"


@dataclass(frozen=True)
class Case:
    platform: str
    device_type: str
    #: The operator's own change, left pending (lines sent one by one on their login).
    arm: tuple[str, ...]
    #: What the refusal must say: the change's name and how its owner clears it.
    said: tuple[str, ...]
    #: How the operator confirms it afterwards, and what then stays in running.
    confirm: tuple[str, ...]
    kept: str


CASES = {
    "eos-session-on-its-timer": Case(
        "eos",
        "arista_eos",
        (
            "configure session ops-mtu",
            "interface Ethernet31",
            "description ops maintenance",
            "commit timer 00:30:00",
        ),
        (
            "session ops-mtu is committed on its timer: it is not fabricctl's",
            "`configure session ops-mtu commit`",
            "`configure session ops-mtu abort`",
        ),
        ("configure session ops-mtu commit",),
        "description ops maintenance",
    ),
    "eos-session-open": Case(
        "eos",
        "arista_eos",
        ("configure session ops-open", "interface Ethernet31", "description ops draft", "end"),
        ("session ops-open holds changes not committed: it is not fabricctl's",),
        ("configure session ops-open commit",),
        "description ops draft",
    ),
    "eos-session-named-like-fabricctls": Case(
        "eos",
        "arista_eos",
        (
            "configure session fabricctl-20250101T000000.000000Z-1-a1b2c3",
            "interface Ethernet31",
            "description look-alike",
            "commit timer 00:30:00",
        ),
        (
            "session fabricctl-20250101T000000.000000Z-1-a1b2c3 is committed on its timer: it is not fabricctl's",
        ),
        ("configure session fabricctl-20250101T000000.000000Z-1-a1b2c3 commit",),
        "description look-alike",
    ),
    "nvue-apply-waiting-for-its-confirm": Case(
        "nvue",
        "cumulus_linux",
        (
            "nv set interface swp31 description 'ops maintenance'",
            "nv config apply --confirm 30m -y -m 'ops mtu'",
        ),
        (
            "(by admin, at ",
            "message 'ops mtu') waits for its confirm: it is not fabricctl's",
            "`nv config apply --confirm-yes`",
            "`nv config apply --confirm-no`",
        ),
        ("nv config apply --confirm-yes",),
        "ops maintenance",
    ),
    "nvue-apply-messaged-like-fabricctls": Case(
        "nvue",
        "cumulus_linux",
        (
            "nv set interface swp31 description 'look-alike'",
            "nv config apply --confirm 30m -y -m 'fabricctl 20250101T000000.000000Z-1-a1b2c3'",
        ),
        (
            "message 'fabricctl 20250101T000000.000000Z-1-a1b2c3') waits for its confirm: it is not fabricctl's",
        ),
        ("nv config apply --confirm-yes",),
        "look-alike",
    ),
    "nvue-staged-changes": Case(
        "nvue",
        "cumulus_linux",
        ("nv set interface swp31 description 'ops draft'",),
        ("holds changes staged by admin and not applied", "`nv config detach`"),
        ("nv config apply -y",),
        "ops draft",
    ),
    "comware-commit-delay": Case(
        "comware",
        "hp_comware",
        (
            "system-view",
            "configuration commit delay 30",
            "interface FourHundredGigE1/0/31",
            "description ops maintenance",
            "return",
        ),
        (
            "a configuration commit delay of 30 minute(s) armed by admin from 127.0.0.1",
            "is still armed: it is not fabricctl's",
            "`configuration commit`",
        ),
        ("system-view", "configuration commit", "return"),
        "description ops maintenance",
    ),
    "comware-commit-delay-abbreviated": Case(
        "comware",
        "hp_comware",
        ("sys", "con com del 30", "interface FourHundredGigE1/0/31", "description ops maintenance", "return"),
        (
            "a configuration commit delay of 30 minute(s) armed by admin",
            "is still armed: it is not fabricctl's",
        ),
        ("system-view", "con com", "return"),
        "description ops maintenance",
    ),
}


@pytest.fixture
def case_lab(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Case, LabRoot]]:
    case = CASES[request.param]
    if case.platform == "nvue":
        yield from ((case, lab) for lab in _lab_root(NVUE_SMALL, tmp_path, monkeypatch))
    else:
        yield from ((case, lab) for lab in _lab_root(EOS_SMALL, tmp_path, monkeypatch, case.platform))


def operator(lab: LabRoot, case: Case) -> BaseConnection:
    """Another login on the switch: the operator's own SSH session."""
    ep = lab.lab.endpoints()[VICTIM]
    user, password = lab_credentials()
    return ConnectHandler(
        device_type=case.device_type, host=ep.host, port=ep.ssh_port, username=user, password=password
    )


def run_lines(conn: BaseConnection, lines: tuple[str, ...]) -> str:
    return "\n".join(
        str(conn.send_command_timing(line, strip_prompt=False, strip_command=False)) for line in lines
    )


def pending_change(lab: LabRoot) -> str:
    """The operator's change itself, as the switch keeps it: an EOS session's config, state and
    deadline; an NVUE revision's trees, state, user and message; a Comware delay's rollback point
    and deadline (not the log buffer: every command anyone runs is logged there)."""
    from fabricctl.lab.devices.comware.commit import ComwareState
    from fabricctl.lab.devices.eos.sessions import EosSessions
    from fabricctl.lab.devices.nvue.revisions import NvueState

    def read() -> str:
        st = lab.lab.device(VICTIM).raw.nos_state
        if isinstance(st, EosSessions):
            return repr({n: (s.state, s.tree, s.commit_by) for n, s in st.sessions.items()})
        if isinstance(st, NvueState):
            deadline = st.confirm.deadline if st.confirm is not None else None
            return repr((st.revisions, st.cli_pending, deadline))
        assert isinstance(st, ComwareState) and st.delay is not None
        return repr((st.delay.snapshot, st.delay.deadline))

    return lab.lab.call(read)


def state(lab: LabRoot) -> tuple[str, str, dict[str, str], str]:
    device = lab.lab.device(VICTIM)
    return device.running_config(), device.startup_config(), device.transactions(), pending_change(lab)


@pytest.mark.parametrize("case_lab", list(CASES), indirect=True)
def test_apply_refuses_an_operators_pending_change_and_leaves_it_whole(
    case_lab: tuple[Case, LabRoot], capsys: pytest.CaptureFixture[str]
) -> None:
    case, lab = case_lab
    conn = operator(lab, case)
    try:
        run_lines(conn, case.arm)
        before = state(lab)
        assert before[2], f"the operator's change is pending on {VICTIM}: {before[2]}"
        code, out, _ = lab.run(
            "apply", "--lab", "--auto-approve", "--json", "--limit", VICTIM, "--limit", OTHER,
            "--max-failures", "1", capsys=capsys,
        )  # fmt: skip
        report = json.loads(out)
        victim = report["switches"][VICTIM]
        assert code == 1 and victim["status"] == "failed", victim
        assert victim["cause"] == "foreign", victim
        said = victim["message"] + victim.get("output", "")
        for words in case.said:
            assert words in said, said
        assert "fabricctl left it untouched" in said
        assert report["switches"][OTHER]["status"] == "changed", report["switches"][OTHER]
        assert state(lab) == before, "the operator's change is exactly as it was"
        run_lines(conn, case.confirm)
    finally:
        conn.disconnect()
    lab.lab.advance(3 * 3600)  # every timer runs out: the confirmed change stays
    assert case.kept in lab.running(VICTIM)
    assert set(lab.lab.device(VICTIM).transactions().values()) <= {"completed"}  # nothing waits
    code, out, _ = lab.run("apply", "--lab", "--auto-approve", "--json", "--limit", VICTIM, capsys=capsys)
    assert code == 0 and json.loads(out)["switches"][VICTIM]["status"] == "changed"  # now it is free
    assert case.kept in lab.running(VICTIM)  # not fabricctl's to remove: outside what it owns
