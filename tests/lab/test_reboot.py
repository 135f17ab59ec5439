"""A lab switch reboots when told over its CLI, with its vendor's questions, and comes back from
its startup configuration: Comware `reboot`, EOS `reload`, NVUE `nv action reboot system`."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import paramiko
import pytest

from fabricctl.lab import DeviceSpec, LabClock, LabFabric
from fabricctl.lab.devices.nvue import revisions

from .conftest import PASSWORD, PORTS, USER

#: A question, or any of the three prompts: what a line's answer ends with.
ENDS = re.compile(r"(\[Y/N\]:|\[yes/no/cancel/diff\]:|\[confirm\]|\[y/N\] |[#>\]\$] ?)\s*$")
#: A change the switch would lose in a reboot: in running, not saved (NVUE saves on every apply
#: since 5.9, so there it is a change staged in the pending revision).
UNSAVED = {
    "comware": ["system-view", "vlan 77", "return"],
    "eos": ["configure", "vlan 77", "end"],
    "nvue": ["nv set system hostname changed"],
}


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[LabFabric]:
    specs = [
        DeviceSpec("cw1", "comware", mgmt_ip="192.0.2.1", ports=PORTS),
        DeviceSpec("eos1", "eos", mgmt_ip="192.0.2.11", ports=PORTS),
        DeviceSpec("nv1", "nvue", mgmt_ip="192.0.2.21", ports=PORTS),
    ]
    fabric = LabFabric(specs, state_dir=tmp_path / "state", clock=LabClock.frozen())
    with fabric:
        yield fabric


class Shell:
    """An interactive SSH shell: what a person types and sees."""

    def __init__(self, lab: LabFabric, name: str) -> None:
        ep = lab.endpoints()[name]
        self.ssh = paramiko.SSHClient()
        self.ssh.set_missing_host_key_policy(paramiko.AutoAddPolicy())
        self.ssh.connect(ep.host, ep.ssh_port, USER, PASSWORD, look_for_keys=False, allow_agent=False)
        self.chan = self.ssh.invoke_shell(width=200)
        self.read()

    def read(self) -> str:
        """Everything until a question or a prompt ends the output (or the channel closes)."""
        seen = ""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.chan.recv_ready():
                chunk: str = self.chan.recv(65536).decode()
                seen += chunk
                if ENDS.search(seen):
                    return seen
            elif self.chan.exit_status_ready() or self.chan.closed:
                rest: str = self.chan.recv(65536).decode()
                return seen + rest
            else:
                time.sleep(0.01)
        raise AssertionError(f"no prompt after {seen!r}")

    def line(self, text: str) -> str:
        self.chan.send(text + "\n")
        return self.read()

    def closed(self) -> bool:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (self.chan.closed or self.chan.exit_status_ready()):
            time.sleep(0.01)
        return bool(self.chan.closed or self.chan.exit_status_ready())

    def close(self) -> None:
        self.ssh.close()


def _unsaved(lab: LabFabric, name: str, platform: str) -> str:
    shell = Shell(lab, name)
    for line in UNSAVED[platform]:
        shell.line(line)
    shell.close()
    dev = lab.device(name)
    running = dev.running_config()
    assert running != dev.startup_config() or _staged(lab, name)
    return running


def _staged(lab: LabFabric, name: str) -> bool:
    """An NVUE switch holds a pending revision (what `nv config diff` shows)."""
    raw = lab.device(name).raw
    return lab.call(lambda: revisions.cli_pending(raw, create=False)) is not None


@pytest.mark.parametrize(
    ("name", "platform", "command", "answers", "questions", "last"),
    [
        (
            "cw1",
            "comware",
            "reboot",
            ["N", "Y"],
            ["save current configuration? [Y/N]:", "This command will reboot the device. Continue? [Y/N]:"],
            "Now rebooting, please wait...",
        ),
        (
            "eos1",
            "eos",
            "reload",
            ["no", ""],
            [
                "System configuration has been modified. Save? [yes/no/cancel/diff]:",
                "Proceed with reload? [confirm]",
            ],
            "",
        ),
        (
            "nv1",
            "nvue",
            "nv action reboot system",
            ["y"],
            ["Do you want to continue? [y/N]"],
            "Action succeeded",
        ),
    ],
)
def test_a_switch_reboots_from_its_startup_config_when_told(
    lab: LabFabric,
    name: str,
    platform: str,
    command: str,
    answers: list[str],
    questions: list[str],
    last: str,
) -> None:
    dev = lab.device(name)
    startup = dev.startup_config()
    _unsaved(lab, name, platform)
    lab.advance(600)
    booted = lab.call(dev.raw.uptime)
    shell = Shell(lab, name)
    out = shell.line(command)
    for question, answer in zip(questions, answers, strict=True):
        assert question in out, out
        out = shell.line(answer)
    assert last in out
    assert shell.closed(), "the connection drops when the switch reloads"
    shell.close()
    assert dev.running_config() == startup  # the unsaved change is gone: it booted from startup
    assert platform != "nvue" or not _staged(lab, name)
    assert lab.call(dev.raw.uptime) < booted


@pytest.mark.parametrize(
    ("name", "platform", "command", "answers"),
    [
        ("cw1", "comware", "reboot", ["N", "N"]),
        ("eos1", "eos", "reload", ["cancel"]),
        ("nv1", "nvue", "nv action reboot system", ["n"]),
    ],
)
def test_a_declined_reboot_changes_nothing(
    lab: LabFabric, name: str, platform: str, command: str, answers: list[str]
) -> None:
    dev = lab.device(name)
    running = _unsaved(lab, name, platform)
    shell = Shell(lab, name)
    shell.line(command)
    for answer in answers:
        shell.line(answer)
    assert not shell.chan.closed  # still logged in: nothing rebooted
    shell.close()
    assert dev.running_config() == running
    assert platform != "nvue" or _staged(lab, name)  # the pending change is still there


@pytest.mark.parametrize(
    ("name", "platform", "command"),
    [
        ("cw1", "comware", "reboot force"),
        ("eos1", "eos", "reload now"),
        ("nv1", "nvue", "nv action reboot system force"),
    ],
)
def test_the_forced_forms_ask_nothing(lab: LabFabric, name: str, platform: str, command: str) -> None:
    dev = lab.device(name)
    startup = dev.startup_config()
    _unsaved(lab, name, platform)
    shell = Shell(lab, name)
    shell.chan.send(command + "\n")
    assert shell.closed()
    shell.close()
    assert dev.running_config() == startup


def test_a_saved_change_survives_the_reboot(lab: LabFabric) -> None:
    shell = Shell(lab, "cw1")
    for line in UNSAVED["comware"]:
        shell.line(line)
    out = shell.line("reboot")
    assert "save current configuration? [Y/N]:" in out
    assert "Continue? [Y/N]:" in shell.line("Y")  # saved, then asked to go on
    shell.line("Y")
    assert shell.closed()
    shell.close()
    assert "vlan 77" in lab.device("cw1").running_config()
