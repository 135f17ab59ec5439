"""The client side of the lab: its login, `.fabricctl/lab/lab.json` (pid + endpoints), `lab_endpoints`."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fabricctl.lab.state import atomic_write, lab_dir
from fabricctl.procs import pid_alive

if TYPE_CHECKING:  # the SSH server (asyncssh) loads only when a lab is actually started
    from fabricctl.lab.server import Endpoint, LabFabric

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


def write_lab_json(root: Path, fabric: LabFabric, extra: dict[str, Any] | None = None) -> None:
    """Record the running lab (atomic, so readers never see half a file)."""
    data = {
        "pid": os.getpid(),
        "root": str(Path(root).resolve()),
        "devices": [ep.as_dict() for ep in fabric.endpoints().values()],
        **(extra or {}),
    }
    atomic_write(lab_json(root), json.dumps(data, indent=2) + "\n")


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
    from fabricctl.lab.server import Endpoint

    return {
        d["name"]: Endpoint(d["name"], d["platform"], d["host"], d["port"], d.get("eapi_port"))
        for d in data["devices"]
    }


@contextlib.contextmanager
def lab_endpoints(root: Path) -> Iterator[dict[str, Endpoint]]:
    """Endpoints of the detached lab for `root`, or of an in-process lab started on the
    persisted state for the duration of the block."""
    data = running_lab(root)
    if data is not None:
        yield endpoints_from_json(data)
        return
    from fabricctl.lab.server import LabFabric

    with LabFabric.from_inventory(Path(root)) as fabric:
        yield fabric.endpoints()
