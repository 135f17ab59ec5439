"""The client side of the lab: its login, its endpoints, `.fabricctl/lab/lab.json` (pid + endpoints).

Nothing here starts a lab, so reading where one listens never loads the SSH server.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fabricctl.lab.state import lab_dir
from fabricctl.outputs import write_file
from fabricctl.procs import pid_alive


@dataclass(frozen=True)
class Endpoint:
    """Where a lab device listens."""

    name: str
    platform: str
    host: str
    ssh_port: int
    eapi_port: int | None
    host_key: str | None = None  # the SSH host key, OpenSSH public format ("ssh-ed25519 AAAA...")
    gnmi_port: int | None = None  # gNMI over TLS (None: not served)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "platform": self.platform,
            "host": self.host,
            "port": self.ssh_port,
            "eapi_port": self.eapi_port,
            "host_key": self.host_key,
            "gnmi_port": self.gnmi_port,
        }


#: The lab's gNMI port on every switch (FABRICCTL_LAB_GNMI_PORT; a switch's own: EOS 6030,
#: Cumulus Linux 9339).
GNMI_PORT = 20339

DEFAULT_USERNAME = "admin"
DEFAULT_PASSWORD = "fabricctl-lab"  # documented lab-only default, never a real credential


def lab_credentials() -> tuple[str, str]:
    """Lab login from FABRICCTL_LAB_USERNAME / FABRICCTL_LAB_PASSWORD (lab defaults)."""
    return (
        os.environ.get("FABRICCTL_LAB_USERNAME", DEFAULT_USERNAME),
        os.environ.get("FABRICCTL_LAB_PASSWORD", DEFAULT_PASSWORD),
    )


def lab_json(root: Path) -> Path:
    return lab_dir(root) / "lab.json"


def recable_request(root: Path) -> Path:
    """Which racks `fabricctl lab recable` asks a detached lab to re-cable ({"switches": [...]}
    or null for all)."""
    return lab_dir(root) / "recable.json"


def reboot_request(root: Path) -> Path:
    """Which switches `fabricctl lab reboot` asks a detached lab to reload ({"switches": [...]} or
    null for all), read on SIGUSR2."""
    return lab_dir(root) / "reboot.json"


def shards_dir(root: Path) -> Path:
    """Where the shards of a sharded lab say where they listen (`K.json`) and what changed on
    their switches (`K.state.json`)."""
    return lab_dir(root) / "shards"


def write_lab_json(root: Path, fabric: Any, extra: dict[str, Any] | None = None) -> None:
    """Record the running lab `fabric` (a LabFabric; atomic, so readers never see half a file):
    `lab.json`, or a shard's `shards/K.json`."""
    from fabricctl.lab.tls import certificate_pem

    data = {
        "pid": os.getpid(),
        "root": str(Path(root).resolve()),
        "devices": [ep.as_dict() for ep in fabric.endpoints().values()],
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
    write_file(path, json.dumps(data, indent=2) + "\n", within=Path(root))


#: What a sharded lab's merged lab.json adds up over its shards (the fewest: every shard did it).
COUNTERS = ("resets", "recables", "reboots")


def running_lab(root: Path) -> dict[str, Any] | None:
    """The lab.json of a live detached lab for this root, else None. A sharded lab's is the
    shards' merged: every switch any live shard serves (in inventory order), `pids` and
    `shards` ({"shard": "K/N", "pid", "devices"} each), `complete` when every shard runs."""
    path = lab_json(root)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return _running_shards(root)
    if not isinstance(data, dict) or not pid_alive(int(data.get("pid", 0))):
        return _running_shards(root)
    return data


def _running_shards(root: Path) -> dict[str, Any] | None:
    folder = shards_dir(root)
    found = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        if not path.stem.isdigit():
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if (
            isinstance(data, dict)
            and isinstance(data.get("shard"), str)
            and pid_alive(int(data.get("pid", 0)))
        ):
            found.append(data)
    if not found:
        return None
    found.sort(key=lambda d: int(d["shard"].split("/")[0]))
    count = int(found[0]["shard"].split("/")[1])
    devices = sorted((d for data in found for d in data["devices"]), key=lambda d: _address_key(d["host"]))
    merged: dict[str, Any] = {
        "pid": found[0]["pid"],
        "pids": [d["pid"] for d in found],
        "root": found[0]["root"],
        "devices": devices,
        "tls_certificate": found[0].get("tls_certificate"),
        "shards": [{"shard": d["shard"], "pid": d["pid"], "devices": len(d["devices"])} for d in found],
        "complete": len(found) == count and all(d["shard"].endswith(f"/{count}") for d in found),
        "ztp_waiting": sorted({n for d in found for n in d.get("ztp_waiting", [])}),
        "recabled": sorted({tuple(e) for d in found for e in d.get("recabled", [])}),
    }
    for counter in COUNTERS:
        merged[counter] = min(int(d.get(counter, 0)) for d in found)
    merged["recabled"] = [list(e) for e in merged["recabled"]]
    return merged


def _address_key(host: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in host.split("."))
    except ValueError:
        return (1 << 16,)


def endpoints_from_json(data: dict[str, Any]) -> dict[str, Endpoint]:
    return {
        d["name"]: Endpoint(
            d["name"],
            d["platform"],
            d["host"],
            d["port"],
            d.get("eapi_port"),
            d.get("host_key"),
            d.get("gnmi_port"),
        )
        for d in data["devices"]
    }
