"""What a running lab publishes for its clients (`.fabricctl/lab/lab.json`: pid + endpoints;
`known_hosts`: its switches' SSH host keys), and the requests its CLI leaves for it.

The files' layout and the readers are fabricctl/endpoints.py's: the product reads them there,
without importing the lab. Nothing here starts a lab, so writing them never loads the SSH server.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from fabricctl.endpoints import (
    COUNTERS,
    DEFAULT_PASSWORD,
    DEFAULT_USERNAME,
    GNMI_PORT,
    Endpoint,
    endpoints_from_json,
    known_hosts_of,
    lab_credentials,
    lab_dir,
    lab_json,
    running_lab,
    shards_dir,
)
from fabricctl.outputs import write_file

#: What the lab's clients read (fabricctl/endpoints.py), named here for the lab's own modules.
__all__ = [
    "COUNTERS",
    "DEFAULT_PASSWORD",
    "DEFAULT_USERNAME",
    "GNMI_PORT",
    "Endpoint",
    "endpoints_from_json",
    "known_hosts",
    "lab_credentials",
    "lab_dir",
    "lab_json",
    "reboot_request",
    "recable_request",
    "running_lab",
    "shards_dir",
    "write_lab_json",
]


def recable_request(root: Path) -> Path:
    """Which racks `fabricctl lab recable` asks a detached lab to re-cable ({"switches": [...]}
    or null for all)."""
    return lab_dir(root) / "recable.json"


def reboot_request(root: Path) -> Path:
    """Which switches `fabricctl lab reboot` asks a detached lab to reload ({"switches": [...]} or
    null for all), read on SIGUSR2."""
    return lab_dir(root) / "reboot.json"


def write_lab_json(root: Path, fabric: Any, extra: dict[str, Any] | None = None) -> None:
    """Record the running lab `fabric` (a LabFabric; atomic, so readers never see half a file):
    `lab.json`, or a shard's `shards/K.json`, and beside it, first, its switches' host keys."""
    from fabricctl.lab.tls import certificate_pem

    endpoints = fabric.endpoints()
    data = {
        "pid": os.getpid(),
        "root": str(Path(root).resolve()),
        "devices": [ep.as_dict() for ep in endpoints.values()],
        # The certificate its switches serve (eAPI, NVUE REST, gNMI): what a client trusts.
        "tls_certificate": certificate_pem().decode(),
        **(extra or {}),
    }
    shard = getattr(fabric, "shard", None)
    if shard is not None and shard.count > 1:
        data.update(shard=shard.label(), switches=len(fabric.order))
        path = shards_dir(root) / f"{shard.index}.json"
    else:
        path = lab_json(root)
    write_file(known_hosts_of(path), known_hosts(endpoints.values()), within=Path(root))
    write_file(path, json.dumps(data, indent=2) + "\n", within=Path(root))


def known_hosts(endpoints: Iterable[Endpoint]) -> str:
    """A known_hosts file of the switches' own keys (`[address]:port key` per switch)."""
    lines = [
        f"[{ep.host}]:{ep.ssh_port} {ep.host_key}" if ep.ssh_port != 22 else f"{ep.host} {ep.host_key}"
        for ep in endpoints
        if ep.host_key
    ]
    return "".join(f"{line}\n" for line in lines)
