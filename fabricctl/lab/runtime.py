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


def write_lab_json(root: Path, fabric: Any, extra: dict[str, Any] | None = None) -> None:
    """Record the running lab `fabric` (a LabFabric; atomic, so readers never see half a file)."""
    from fabricctl.lab.tls import certificate_pem

    data = {
        "pid": os.getpid(),
        "root": str(Path(root).resolve()),
        "devices": [ep.as_dict() for ep in fabric.endpoints().values()],
        # The certificate its switches serve (eAPI, NVUE REST, gNMI): what a client trusts.
        "tls_certificate": certificate_pem().decode(),
        **(extra or {}),
    }
    write_file(lab_json(root), json.dumps(data, indent=2) + "\n", within=Path(root))


def running_lab(root: Path) -> dict[str, Any] | None:
    """The lab.json of a live detached lab for this root, else None."""
    path = lab_json(root)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not pid_alive(int(data.get("pid", 0))):
        return None
    return data


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
