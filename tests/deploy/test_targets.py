"""Where a push logs in: a switch's SSH port and its API's port come from their own inventory
options (the scaffold's: SSH 22 on the host, eAPI 443 under the API plugin's options)."""

from __future__ import annotations

import shutil
from pathlib import Path

from fabricctl.deploy.credentials import Credentials
from fabricctl.deploy.nornir_inv import build_nornir, target_of
from fabricctl.platforms import get_platform

SCAFFOLD = Path(__file__).resolve().parents[2] / "fabricctl" / "scaffold" / "files" / "inventory"


def test_a_push_over_an_api_uses_the_apis_port_not_the_ssh_port(tmp_path: Path) -> None:
    shutil.copytree(SCAFFOLD, tmp_path / "inventory")
    nr = build_nornir(tmp_path, Credentials("ops", "secret"))
    host = nr.inventory.hosts["leaf1"]
    fetch = get_platform(str(host.platform)).fetch
    assert fetch.api_plugin is not None
    target = target_of(host)
    assert target.port == 22, "the host's port is SSH's"
    assert target.napalm_extras["optional_args"]["port"] == 443, "the API's own port (groups.yaml)"
    ssh = host.connection_options[fetch.ssh_plugin]
    assert ssh.port == 22 and ssh.extras is not None and ssh.extras["conn_timeout"] == 5
