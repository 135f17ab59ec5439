"""scrapli drives the NVUE twin as it drives a Cumulus Linux switch: the 2026 release's
`cumulus_linux` definition, and the 2025 releases with scrapli-community's `cumulus_linux`
(whose configuration privilege is a root shell from `sudo su`)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from scrapli import AuthOptions, Cli
from scrapli.auth import LookupKeyValue

from fabricctl.lab import DeviceSpec, LabClock, LabFabric
from tests.lab.test_scrapli_legacy import _DRIVE, legacy_python  # noqa: F401  (a fixture)

from .conftest import PASSWORD, USER

#: The legacy drive script, with the sudo password as scrapli's secondary password.
DRIVE_SUDO = _DRIVE.replace("auth_password=password,", "auth_password=password, auth_secondary=password,")

TIMEOUT_NS = 30_000_000_000


@pytest.fixture
def nvue_lab(tmp_path: Path) -> Iterator[LabFabric]:
    specs = [DeviceSpec("leaf01", "nvue", mgmt_ip="192.0.2.11")]
    with LabFabric(specs, state_dir=tmp_path / "state", clock=LabClock.frozen()) as lab:
        yield lab


def test_scrapli_cumulus_linux_reads_and_configures(nvue_lab: LabFabric) -> None:
    ep = nvue_lab.endpoints()["leaf01"]
    conn = Cli(
        ep.host,
        port=ep.ssh_port,
        definition_file_or_name="cumulus_linux",
        auth_options=AuthOptions(  # the sudo password, for the root shell the definition closes from
            username=USER, password=PASSWORD, lookups=[LookupKeyValue(key="enable", value=PASSWORD)]
        ),
    )
    conn.open()
    try:
        shown = conn.send_input("nv show system -o json", operation_timeout_ns=TIMEOUT_NS).result
        assert json.loads(shown)["hostname"] == "leaf01"
        done = conn.send_inputs(
            ["nv set interface swp1 description set-by-scrapli", "nv config apply -y"],
            operation_timeout_ns=TIMEOUT_NS,
        )
        assert "applied [rev_id:" in done.result
    finally:
        conn.close()
    assert "set-by-scrapli" in nvue_lab.device("leaf01").running_config()


def test_legacy_scrapli_community_reads_and_configures_from_a_root_shell(
    nvue_lab: LabFabric,
    legacy_python: Path,  # noqa: F811  (the fixture imported above)
) -> None:
    ep = nvue_lab.endpoints()["leaf01"]
    config = ["nv set interface swp1 description legacy-scrapli", "nv config apply -y"]
    done = subprocess.run(
        [
            str(legacy_python),
            "-c",
            DRIVE_SUDO,
            ep.host,
            str(ep.ssh_port),
            USER,
            PASSWORD,
            "cumulus_linux",
            "nv show system",
            *config,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert "leaf01" in out["shown"] and not out["failed"], out
    assert "legacy-scrapli" in nvue_lab.device("leaf01").running_config()


def test_a_wrong_sudo_password_keeps_the_login_shell(nvue_lab: LabFabric) -> None:
    from netmiko import ConnectHandler

    ep = nvue_lab.endpoints()["leaf01"]
    conn = ConnectHandler(
        device_type="cumulus_linux",
        host=ep.host,
        port=ep.ssh_port,
        username=USER,
        password=PASSWORD,
        secret="nope",
    )
    with pytest.raises(ValueError, match="elevate"):
        conn.enable()  # netmiko's `sudo -s`
    assert conn.find_prompt().endswith("$")
    conn.secret = PASSWORD
    conn.enable()
    assert conn.find_prompt() == f"root@leaf01:mgmt:/home/{USER}#"
    conn.disconnect()
