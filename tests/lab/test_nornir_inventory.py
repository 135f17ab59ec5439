"""The shipped inventories work with plain Nornir, nornir_netmiko and nornir_napalm as they are.

Only what differs between a lab and real switches changes: each switch's address (the lab's
loopback address for it, as DNS would answer), the lab login, and the lab's SSH and eAPI ports,
which are one value for the whole fabric (set once in defaults and in the eos group).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from nornir import InitNornir
from nornir_napalm.plugins.tasks import napalm_get
from nornir_netmiko.tasks import netmiko_send_command

from fabricctl.lab import LabClock, LabFabric
from fabricctl.lab.runtime import lab_credentials
from tests.conftest import EOS_SMALL, REFERENCE


@pytest.mark.parametrize("root", [EOS_SMALL, REFERENCE], ids=["eos-small", "reference"])
def test_napalm_get_config_and_netmiko_through_plain_nornir(root: Path, tmp_path: Path) -> None:
    inv = root / "inventory"
    with LabFabric.from_inventory(root, state_dir=tmp_path / "state", clock=LabClock.frozen()) as lab:
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
        endpoints = lab.endpoints()
        nr.inventory.defaults.username, nr.inventory.defaults.password = lab_credentials()
        nr.inventory.defaults.port = lab.ssh_port
        if "eos" in nr.inventory.groups:
            nr.inventory.groups["eos"].connection_options["napalm"].port = lab.eapi_port
        for name, host in nr.inventory.hosts.items():
            host.hostname = endpoints[name].host

        got = nr.run(task=napalm_get, getters=["config"])
        assert not got.failed, {h: str(r.exception) for h, r in got.failed_hosts.items()}
        for name, multi in got.items():
            running = multi[0].result["config"]["running"]
            assert running.strip() == lab.device(name).running_config().strip(), name

        platforms = {h.name: h.platform for h in nr.inventory.hosts.values()}
        show = {"eos": "show running-config", "comware": "display current-configuration"}
        read = nr.run(
            task=lambda task: task.run(netmiko_send_command, command_string=show[platforms[task.host.name]])
        )
        assert not read.failed
        for name, multi in read.items():
            assert lab.device(name).running_config().strip().splitlines()[-1] in multi[1].result
