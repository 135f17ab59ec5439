"""The shipped inventories work with plain Nornir, nornir_netmiko and nornir_napalm as they are.

Only what differs between a lab and real switches changes: each switch's address (the lab's
loopback address for it, as DNS would answer), the lab login, and the lab's SSH and eAPI ports,
which are one value for the whole fabric (set once in defaults and in the eos group).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from nornir import InitNornir
from nornir_napalm.plugins.tasks import napalm_get
from nornir_netmiko.tasks import netmiko_send_command

from fabricctl.lab import LabClock, LabFabric
from fabricctl.lab.runtime import lab_credentials
from tests.conftest import EOS_SMALL, REFERENCE, REPO


def read_through_nornir(job: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Plain Nornir on the shipped inventory, pointed at a lab: NAPALM's running config and
    netmiko's show output of every switch. Runs apart from the lab (see the test)."""
    inv = Path(job["root"]) / "inventory"
    nr = InitNornir(
        runner={"plugin": "threaded", "options": {"num_workers": 16}},
        inventory={
            "plugin": "SimpleInventory",
            "options": {
                "host_file": str(inv / "hosts.yaml"),
                "group_file": str(inv / "groups.yaml"),
                "defaults_file": str(inv / "defaults.yaml"),
            },
        },
        logging={"enabled": False},
    )
    nr.inventory.defaults.username, nr.inventory.defaults.password = lab_credentials()
    nr.inventory.defaults.port = job["ssh_port"]
    if "eos" in nr.inventory.groups:
        nr.inventory.groups["eos"].connection_options["napalm"].port = job["eapi_port"]
    for name, host in nr.inventory.hosts.items():
        host.hostname = job["hosts"][name]

    got = nr.run(task=napalm_get, getters=["config"])
    failed = {h: str(r.exception) for h, r in got.failed_hosts.items()}
    platforms = {h.name: str(h.platform) for h in nr.inventory.hosts.values()}
    show = {"eos": "show running-config", "comware": "display current-configuration"}
    read = nr.run(
        task=lambda task: task.run(netmiko_send_command, command_string=show[platforms[task.host.name]])
    )
    failed |= {h: str(r.exception) for h, r in read.failed_hosts.items()}
    return {
        "failed": failed,
        "napalm": {n: m[0].result["config"]["running"] for n, m in got.items() if not m.failed},
        "netmiko": {n: m[1].result for n, m in read.items() if not m.failed},
    }


@pytest.mark.parametrize("root", [EOS_SMALL, REFERENCE], ids=["eos-small", "reference"])
def test_napalm_get_config_and_netmiko_through_plain_nornir(root: Path, tmp_path: Path) -> None:
    """The lab runs in this process, Nornir's 16 client threads in one of their own: on a loaded
    machine, clients beside the lab took its turns at the interpreter lock, and NAPALM's own
    timeouts fired ('Failed to enter configuration mode') before the lab could answer."""
    with LabFabric.from_inventory(root, state_dir=tmp_path / "state", clock=LabClock.frozen()) as lab:
        endpoints = lab.endpoints()
        job = {
            "root": str(root),
            "ssh_port": lab.ssh_port,
            "eapi_port": lab.eapi_port,
            "hosts": {name: ep.host for name, ep in endpoints.items()},
        }
        done = subprocess.run(
            [sys.executable, "-c", "import json, sys; from tests.lab.test_nornir_inventory import read_through_nornir as r; "
             "print(json.dumps(r(json.load(sys.stdin))))"],
            input=json.dumps(job), capture_output=True, text=True, check=False, cwd=REPO,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        got = json.loads(done.stdout)
        assert not got["failed"], got["failed"]
        assert set(got["napalm"]) == set(got["netmiko"]) == set(endpoints)
        for name, running in got["napalm"].items():
            assert running.strip() == lab.device(name).running_config().strip(), name
            assert lab.device(name).running_config().strip().splitlines()[-1] in got["netmiko"][name]
