"""The NVUE push protocol against the NVUE twin over SSH (netmiko `cumulus_linux`): staged `nv set`
lines, `nv config apply --confirm`, read-back, health gate, confirm; every failure leaves the switch
as it was (detached or rolled back) and never reports a change it did not read back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fabricctl.config.diff import diff_device
from fabricctl.config.rules import Dialect
from fabricctl.config.syntax import ObjectTree
from fabricctl.lab import DeviceSpec, LabClock, LabFabric
from fabricctl.platforms.nvue.push import PUSHER, connect, push
from fabricctl.platforms.push import Pusher, PushRequest, Target, running_hash

USER, PASSWORD = "admin", "fabricctl-lab"
DIALECT = Dialect(
    syntax=ObjectTree(
        collections=("interface", "vrf", "acl"), set_command="nv set", unset_command="nv unset"
    ),
    owned=(r"qos$", r"router$"),
    ports=r"interface swp",
    single_value=(r"[^ ]+: ",),
)
INTENDED = """\
interface:
  swp1:
    ipv4:
      address:
        10.0.0.0/31: {}
    link:
      mtu: 9216
      state:
        up: {}
    type: swp
qos:
  roce:
    mode: lossless
"""


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[LabFabric]:
    specs = [DeviceSpec("leaf01", "nvue", mgmt_ip="192.0.2.11")]
    with LabFabric(specs, state_dir=tmp_path / "state", clock=LabClock.frozen()) as fabric:
        yield fabric


def _target(lab: LabFabric, password: str = PASSWORD) -> Target:
    ep = lab.endpoints()["leaf01"]
    return Target("leaf01", "nvue", ep.host, ep.ssh_port, USER, password, timeout=10)


def _request(lab: LabFabric, intended: str = INTENDED, **kwargs: object) -> PushRequest:
    running = PUSHER.fetch(_target(lab))
    plan = diff_device("leaf01", running, intended, DIALECT)
    return PushRequest(plan.commands, intended, DIALECT, running_hash(running), **kwargs)  # type: ignore[arg-type]


class Gate:
    def __init__(self, lab: LabFabric, fail: str | None = None, advance: float = 0.0) -> None:
        self.lab, self.fail, self.advance = lab, fail, advance

    def before(self) -> None:
        return None

    def after(self) -> str | None:
        self.lab.advance(self.advance)
        return self.fail


def _staged(lab: LabFabric) -> str:
    conn = connect(_target(lab))
    try:
        return str(conn.send_command("nv config diff"))
    finally:
        conn.disconnect()


def test_the_pusher_is_the_protocol() -> None:
    assert isinstance(PUSHER, Pusher)


def test_push_applies_confirms_reads_back_and_is_idempotent(lab: LabFabric) -> None:
    request = _request(lab, run_id="run-1", gate=Gate(lab))
    assert "nv set interface swp1 link mtu 9216" in request.commands
    result = push(_target(lab), request)
    assert result.status == "changed", result.message
    assert not diff_device("leaf01", PUSHER.fetch(_target(lab)), INTENDED, DIALECT).changed
    assert "mtu: 9216" in lab.device("leaf01").startup_config()  # confirmed, so saved
    assert "fabricctl run-1" in _history(lab)
    assert push(_target(lab), _request(lab)).status == "unchanged"


def _history(lab: LabFabric) -> str:
    conn = connect(_target(lab))
    try:
        return str(conn.send_command("nv config history"))
    finally:
        conn.disconnect()


def test_a_plan_made_before_the_switch_moved_is_refused(lab: LabFabric) -> None:
    request = _request(lab)
    conn = connect(_target(lab))
    conn.send_command("nv set interface swp9 link mtu 1500")
    conn.send_command("nv config apply -y")
    conn.disconnect()
    result = push(_target(lab), request)
    assert (result.status, result.stage) == ("failed", "load") and "changed since the plan" in result.message


def test_a_refused_line_applies_nothing_and_leaves_nothing_staged(lab: LabFabric) -> None:
    before = lab.device("leaf01").running_config()
    request = _request(lab)
    request.commands.append("nv set interface swp1 link mtu 100")
    result = push(_target(lab), request)
    assert (result.status, result.stage) == ("failed", "load")
    assert "mtu 100" in result.message and "nothing was applied" in result.message
    assert lab.device("leaf01").running_config() == before
    assert _staged(lab) == ""


def test_someone_elses_staged_changes_are_never_applied_along(lab: LabFabric) -> None:
    conn = connect(_target(lab))
    conn.send_command("nv set interface swp7 description 'not ours'")
    conn.disconnect()
    result = push(_target(lab), _request(lab))
    assert (result.status, result.stage) == ("failed", "load")
    assert "pending revision 1 holds changes staged by admin" in result.message
    assert "it is not fabricctl's" in result.message and "`nv config detach`" in result.message
    assert "not ours" not in lab.device("leaf01").running_config()
    assert "not ours" in _staged(lab)  # still staged: never detached


def test_a_failed_health_gate_rolls_the_switch_back(lab: LabFabric) -> None:
    before = PUSHER.fetch(_target(lab))
    result = push(_target(lab), _request(lab, gate=Gate(lab, fail="BGP 10.0.0.1 went down")))
    assert (result.status, result.stage) == ("failed", "health")
    assert "--confirm-no" in result.message
    assert PUSHER.fetch(_target(lab)) == before
    assert "9216" not in lab.device("leaf01").startup_config()


def test_a_timer_that_fires_before_the_confirm_is_reported_rolled_back(lab: LabFabric) -> None:
    before = PUSHER.fetch(_target(lab))
    result = push(_target(lab), _request(lab, confirm_timeout=60, gate=Gate(lab, advance=120)))
    assert (result.status, result.stage) == ("rolled back", "timer"), result.message
    assert PUSHER.fetch(_target(lab)) == before


def _interrupted_apply(lab: LabFabric, lines: list[str], message: str) -> None:
    """What a killed push leaves: its lines applied under `--confirm`, waiting."""
    conn = connect(_target(lab))
    for line in lines:
        conn.send_command(line)
    conn.send_command(f"nv config apply --confirm 600s -y -m '{message}'")
    conn.disconnect()


def test_recover_confirms_an_interrupted_apply_that_converged_else_rolls_it_back(lab: LabFabric) -> None:
    request = _request(lab, claimed=frozenset({"run-1-a1b2c3", "run-2-d4e5f6"}))
    _interrupted_apply(lab, request.commands, "fabricctl run-1-a1b2c3")
    settled = PUSHER.recover(_target(lab), request)
    assert settled.status == "changed" and "confirmed revision" in settled.message
    assert "mtu: 9216" in lab.device("leaf01").startup_config()
    _interrupted_apply(lab, ["nv set interface swp1 link mtu 9000"], "fabricctl run-2-d4e5f6")
    settled = PUSHER.recover(_target(lab), request)
    assert settled.status == "rolled back"
    assert not diff_device("leaf01", PUSHER.fetch(_target(lab)), INTENDED, DIALECT).changed


@pytest.mark.parametrize("message", ["maintenance by alice", "fabricctl run-9-ffffff"])
def test_recover_never_settles_an_apply_no_run_record_holds(lab: LabFabric, message: str) -> None:
    """An operator's apply waiting for its confirm, even one whose message looks like fabricctl's,
    is neither confirmed nor rolled back; the operator can still confirm it."""
    request = _request(lab, claimed=frozenset({"run-1-a1b2c3"}))
    _interrupted_apply(lab, ["nv set interface swp1 link mtu 9000"], message)
    applied = lab.device("leaf01").running_config()
    settled = PUSHER.recover(_target(lab), request)
    assert (settled.status, settled.stage) == ("failed", "load")
    assert "revision 1 (by admin, at " in settled.message and f"message {message!r}" in settled.message
    assert "waits for its confirm: it is not fabricctl's" in settled.message
    assert "`nv config apply --confirm-yes`" in settled.message
    assert lab.device("leaf01").running_config() == applied
    assert lab.device("leaf01").transactions() == {"1": "confirm"}
    result = push(_target(lab), _request(lab))  # a push refuses it the same way
    assert result.status == "failed" and "waits for its confirm: it is not fabricctl's" in result.message
    conn = connect(_target(lab))
    assert "applied [rev_id: 1]" in conn.send_command("nv config apply --confirm-yes")
    conn.disconnect()
    lab.advance(3600)
    assert "mtu: 9000" in lab.device("leaf01").running_config()


def test_unreachable_and_refused_login_fail_at_their_stage(lab: LabFabric) -> None:
    request = _request(lab)
    assert push(_target(lab, password="wrong"), request).stage == "auth"
    lab.set_faults("leaf01", auth_failure=True)
    assert push(_target(lab), request).stage == "auth"
    lab.clear_faults()
    target = _target(lab)
    target.port = 1  # nothing listens there
    assert push(target, request).stage == "connect"


@pytest.mark.parametrize(
    ("faults", "stage"),
    [
        ({"reject": r"link mtu"}, "load"),
        ({"commit_failure": True}, "commit"),
        ({"disconnect_after": 2}, "load"),
    ],
    ids=["rejected-line", "apply-fails", "session-dropped"],
)
def test_device_faults_leave_nothing_applied_or_staged(
    lab: LabFabric, faults: dict[str, Any], stage: str
) -> None:
    before = lab.device("leaf01").running_config()
    request = _request(lab)
    lab.set_faults("leaf01", **faults)
    result = push(_target(lab), request)
    assert (result.status, result.stage) == ("failed", stage), result.message
    assert "nothing was applied" in result.message
    lab.clear_faults()
    assert lab.device("leaf01").running_config() == before
    assert _staged(lab) == ""


def test_an_unreachable_switch_fails_at_connect(lab: LabFabric) -> None:
    request = _request(lab)
    lab.set_faults("leaf01", unreachable=True)
    assert push(_target(lab), request).stage == "connect"
