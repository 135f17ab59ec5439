"""Comware checkpoint + `configuration replace file` in the lab, and the push's exact restore."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from netmiko.base_connection import BaseConnection

from fabricctl.config.diff import diff_device
from fabricctl.lab import LabFabric
from fabricctl.platforms import get_platform
from fabricctl.platforms.comware import push as push_comware
from fabricctl.platforms.push import PushRequest, StageError, Target, normalize_running

from .conftest import PASSWORD, USER, connect

QUESTION_OR_PROMPT = r"\[Y/N\]:\s*$|[\]>]\s*$"
CW = get_platform("comware").dialect


def ask(conn: BaseConnection, *lines: str) -> str:
    """Send lines (commands and answers) one by one; the output of them all."""
    return "".join(
        str(conn.send_command(line, expect_string=QUESTION_OR_PROMPT, strip_prompt=False)) for line in lines
    )


def save_checkpoint(conn: BaseConnection, name: str = "flash:/cp.cfg") -> str:
    return ask(conn, f"save {name}", "Y")


def lines_of(text: str) -> list[str]:
    return normalize_running(text).splitlines()


def test_save_file_writes_running_and_keeps_startup(lab: LabFabric, state_dir: Path) -> None:
    dev = lab.device("spine01")
    conn = connect(lab, "spine01")
    conn.config_mode()
    conn.send_config_set(["vlan 10", "quit"], exit_config_mode=False)
    out = save_checkpoint(conn)
    assert "Continue? [Y/N]:" in out and "Configuration is saved to device successfully." in out
    assert conn.find_prompt() == "[spine01]"
    running = dev.running_config()
    assert lab.call(lambda: dev.raw.files["cp.cfg"]) == running
    assert (state_dir / "spine01" / "flash" / "cp.cfg").read_text(encoding="utf-8") == running
    assert "vlan 10" not in dev.startup_config()  # `save <file>` is not `save force`
    conn.send_config_set(["vlan 20", "quit"], exit_config_mode=False)
    out = ask(conn, "save flash:/cp.cfg", "Y", "N")  # exists -> overwrite? N keeps the old file
    assert "exists, overwrite? [Y/N]:" in out
    assert "vlan 20" not in lab.call(lambda: dev.raw.files["cp.cfg"])
    assert "vlan 20" in ask(conn, "display current-configuration")
    assert "must end with .cfg" in ask(conn, "save flash:/cp.txt")
    conn.disconnect()


def test_replace_undoes_removed_adds_new_in_file_order(lab: LabFabric) -> None:
    dev = lab.device("spine01")
    conn = connect(lab, "spine01")
    conn.config_mode()
    save_checkpoint(conn)
    checkpoint = dev.running_config()
    conn.send_config_set(
        [
            "undo ntp-service unicast-server 192.0.2.250",  # removed from running
            "clock timezone UTC add 01:00:00",  # a last-value-wins setting changed
            "interface FourHundredGigE1/0/2",
            "undo port link-mode",
            "description moved",
            "quit",
            "vlan 300",  # added
        ],
        exit_config_mode=False,
    )
    changed = dev.running_config()
    assert changed != checkpoint and "vlan 300" in changed
    out = ask(conn, "configuration replace file flash:/cp.cfg", "N")
    assert "save current configuration? [Y/N]:" in out
    assert "Succeeded in replacing current configuration with the file cp.cfg." in out
    assert conn.find_prompt() == "[spine01]"
    assert dev.running_config() == checkpoint  # byte-identical, same line order
    conn.disconnect()


def test_replace_with_an_edited_file(lab: LabFabric) -> None:
    """Lines only in running are undone, the file's lines added, order as in the file."""
    dev = lab.device("spine01")
    text = dev.running_config()
    edited = text.replace(" lldp global enable\n", "").replace(
        "vlan 1\n#\n", "vlan 1\n#\nvlan 42\n description from-file\n#\n"
    )
    # the file omits a physical port entirely: the device cannot delete it, it is emptied
    edited = edited.replace("interface FourHundredGigE1/0/3\n port link-mode bridge\n#\n", "")
    lab.call(lambda: dev.raw.write_file("edited.cfg", edited))
    conn = connect(lab, "spine01")
    conn.config_mode()
    ask(conn, "configuration replace file edited.cfg", "N")
    conn.disconnect()
    expected = edited.replace(
        "interface FourHundredGigE1/0/4\n",
        "interface FourHundredGigE1/0/3\n#\ninterface FourHundredGigE1/0/4\n",
    )
    got = dev.running_config()
    assert "lldp global enable" not in got
    assert lines_of(got) == lines_of(expected)


def test_replace_refusals_leave_running(lab: LabFabric) -> None:
    dev = lab.device("spine01")
    before = dev.running_config()
    lab.call(lambda: dev.raw.write_file("bad.cfg", before.replace("vlan 1\n", "vlan 1\n bogus line\n")))
    conn = connect(lab, "spine01")
    conn.config_mode()
    assert "does not exist" in ask(conn, "configuration replace file flash:/missing.cfg")
    assert "Failed to replace" in ask(conn, "configuration replace file flash:/bad.cfg", "N")
    assert "not modelled" in ask(conn, "configuration replace file flash:/bad.cfg", "Y")
    conn.disconnect()
    assert dev.running_config() == before


@pytest.mark.parametrize("commit_after_replace", [True, False])
def test_commit_delay_rolls_back_to_its_own_snapshot(lab: LabFabric, commit_after_replace: bool) -> None:
    """The timer returns to the config at `commit delay` time; `configuration commit` after the
    replace cancels it, so a later change survives (without it the later change is lost)."""
    dev = lab.device("spine01")
    conn = connect(lab, "spine01")
    conn.config_mode()
    save_checkpoint(conn)
    at_delay = dev.running_config()
    conn.send_config_set(["configuration commit delay 1", "vlan 500"], exit_config_mode=False)
    ask(conn, "configuration replace file flash:/cp.cfg", "N")
    assert dev.running_config() == at_delay
    if commit_after_replace:
        ask(conn, "configuration commit")
    conn.send_config_set(["vlan 600"], exit_config_mode=False)  # a later, wanted change
    conn.disconnect()
    lab.advance(60)  # the one-minute delay runs out
    assert ("vlan 600" in dev.running_config()) is commit_after_replace
    if not commit_after_replace:
        assert dev.running_config() == at_delay


# --- push_comware against the lab ----------------------------------------------------------------


def _target(lab: LabFabric, name: str) -> Target:
    ep = lab.endpoints()[name]
    return Target(name, "comware", ep.host, ep.ssh_port, USER, PASSWORD, timeout=3.0)


def _request(lab: LabFabric, name: str) -> PushRequest:
    running = normalize_running(lab.device(name).running_config())
    intended = running.replace(
        "return\n",
        "ip vpn-instance tnt-t1\n route-distinguisher 1.1.1.1:1\n#\n"
        "vsi tnt-t1\n description tenant-one\n vxlan 10001\n#\n"
        "interface FourHundredGigE1/0/2\n description uplink\n#\nreturn\n",
    )
    dd = diff_device(name, running, intended, CW)
    assert dd.changed
    return PushRequest(dd.commands, intended, CW, None, confirm_timeout=120)


def test_push_success_leaves_checkpoint_and_no_timer(lab: LabFabric) -> None:
    dev = lab.device("spine01")
    before = dev.running_config()
    res = push_comware.push(_target(lab, "spine01"), _request(lab, "spine01"))
    assert res.status == "changed", res.message
    assert lab.call(lambda: dev.raw.files["fabricctl-rollback.cfg"]) == before
    assert dev.transactions() == {}
    assert "vsi tnt-t1" in dev.startup_config()


@pytest.mark.parametrize("fault", [{"reject": r"^ *vxlan 10001"}, {"disconnect_after": 3}])
def test_push_failure_restores_byte_identical_at_once(lab: LabFabric, fault: dict[str, Any]) -> None:
    dev = lab.device("spine01")
    before = dev.running_config()
    startup = dev.startup_config()
    request = _request(lab, "spine01")
    lab.set_faults("spine01", **fault)
    res = push_comware.push(_target(lab, "spine01"), request)
    assert (res.status, res.stage) == ("failed", "load"), res.message
    assert "restored exactly" in res.message and "timer cancelled" in res.message
    assert dev.running_config() == before  # no waiting for the commit-delay timer
    assert dev.transactions() == {}
    assert dev.startup_config() == startup


def test_push_restore_falls_back_to_inverse_change(lab: LabFabric, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a usable replace the inverse change restores the owned scope; the timer stays armed."""
    real = push_comware._interactive

    def no_replace(conn: BaseConnection, line: str, target: Target, stage: str) -> str:
        if line.startswith("configuration replace"):
            raise StageError("load", "'configuration replace' rejected: % Unrecognized command (test)")
        return real(conn, line, target, stage)  # type: ignore[arg-type]

    monkeypatch.setattr(push_comware, "_interactive", no_replace)
    dev = lab.device("spine01")
    before = dev.running_config()
    request = _request(lab, "spine01")
    lab.set_faults("spine01", reject=r"^ *description uplink")
    res = push_comware.push(_target(lab, "spine01"), request)
    assert res.status == "failed"
    assert "replace failed" in res.message and "inverse change" in res.message, res.message
    assert not diff_device("spine01", dev.running_config(), before, CW).changed
    assert dev.transactions() != {}  # last resort still armed
    lab.advance(120)  # the push's two-minute delay runs out
    assert dev.running_config() == before  # the timer made it byte-exact
