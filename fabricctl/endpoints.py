"""Where the lab's switches listen, read from the files a running lab publishes, as a real
fabric's inventory is read: the product never imports the lab (docs/architecture.md).

A lab process (`python -m fabricctl.lab`, one per shard of a sharded lab) writes, under
`<root>/.fabricctl/lab/`:

- `lab.json` (a shard: `shards/K.json`): its pid, every switch's address, SSH, API and gNMI
  ports and SSH host key, and the certificate its switches serve over TLS;
- `known_hosts` (a shard: `shards/K.known_hosts`): its switches' SSH host keys, as ssh-keyscan
  writes them.

Its login is the lab login (FABRICCTL_LAB_USERNAME / FABRICCTL_LAB_PASSWORD, documented lab-only
defaults) and its certificate is issued to `TLS_NAME`. Nothing here loads the lab: a lab this
process needs and nobody runs is started as a program (`started_lab`) and stopped after.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fabricctl.errors import StageError
from fabricctl.procs import pid_alive

LAB_DIR = Path(".fabricctl") / "lab"

#: The name the lab's certificate is issued to: a client checks the server's name against it.
TLS_NAME = "fabricctl-lab"

#: The lab's gNMI port on every switch (FABRICCTL_LAB_GNMI_PORT); a real switch's own port is
#: set in its platform's gNMI module (platforms/<nos>/gnmi.py).
GNMI_PORT = 20339

DEFAULT_USERNAME = "admin"
DEFAULT_PASSWORD = "fabricctl-lab"  # documented lab-only default, never a real credential

#: Seconds a lab started for one command may take to listen.
START_TIMEOUT = 60.0


class LabStartError(StageError):
    """A lab started for one command exited or did not listen in time."""


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


def lab_dir(root: Path) -> Path:
    """`<fabric root>/.fabricctl/lab` (git-ignored)."""
    return Path(root) / LAB_DIR


def lab_json(root: Path) -> Path:
    return lab_dir(root) / "lab.json"


def shards_dir(root: Path) -> Path:
    """Where the shards of a sharded lab say where they listen (`K.json`, `K.known_hosts`) and
    what changed on their switches (`K.state.json`)."""
    return lab_dir(root) / "shards"


def known_hosts_of(info: Path) -> Path:
    """The known_hosts file published beside a lab's (or a shard's) lab.json."""
    return info.parent / "known_hosts" if info.name == "lab.json" else info.with_suffix(".known_hosts")


def lab_credentials() -> tuple[str, str]:
    """Lab login from FABRICCTL_LAB_USERNAME / FABRICCTL_LAB_PASSWORD (lab defaults)."""
    return (
        os.environ.get("FABRICCTL_LAB_USERNAME", DEFAULT_USERNAME),
        os.environ.get("FABRICCTL_LAB_PASSWORD", DEFAULT_PASSWORD),
    )


#: What a sharded lab's merged lab.json adds up over its shards (the fewest: every shard did it).
COUNTERS = ("resets", "recables", "reboots")


def running_lab(root: Path) -> dict[str, Any] | None:
    """The lab.json of a live detached lab for this root, else None. A sharded lab's is the
    shards' merged: every switch any live shard serves (in inventory order), `pids` and
    `shards` ({"shard": "K/N", "pid", "devices"} each), `complete` when every shard runs,
    `known_hosts` the files its live shards published and `tls_certificate` every shard's."""
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
            data["known_hosts"] = str(known_hosts_of(path))
            found.append(data)
    if not found:
        return None
    found.sort(key=lambda d: int(d["shard"].split("/")[0]))
    count = int(found[0]["shard"].split("/")[1])
    devices = sorted((d for data in found for d in data["devices"]), key=lambda d: _address_key(d["host"]))
    certificates = dict.fromkeys(str(d["tls_certificate"]) for d in found if d.get("tls_certificate"))
    merged: dict[str, Any] = {
        "pid": found[0]["pid"],
        "pids": [d["pid"] for d in found],
        "root": found[0]["root"],
        "devices": devices,
        # each shard's own certificate: a client trusts them all
        "tls_certificate": "".join(certificates) or None,
        "known_hosts": [d["known_hosts"] for d in found],
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


def published_known_hosts(root: Path, data: dict[str, Any]) -> list[Path]:
    """The known_hosts files the running lab `data` (running_lab's) published: its own, or
    every live shard's."""
    named = data.get("known_hosts")
    if isinstance(named, list):
        return [Path(p) for p in named]
    return [known_hosts_of(lab_json(root))]


def lab_certificate(data: dict[str, Any]) -> bytes | None:
    """The certificate(s) the running lab `data`'s switches serve (PEM), None when not published."""
    pem = data.get("tls_certificate")
    return pem.encode() if isinstance(pem, str) and pem else None


@contextlib.contextmanager
def started_lab(root: Path) -> Iterator[dict[str, Any]]:
    """A lab for `root` started as a program (`python -m fabricctl.lab`) for the block, on the
    persisted state, and stopped after it: its lab.json once every port listens. Its output goes
    to `.fabricctl/lab/lab.log`, as a detached lab's does."""
    from fabricctl.outputs import open_append

    root = Path(root).resolve()
    log_path = lab_dir(root) / "lab.log"
    cmd = [sys.executable, "-m", "fabricctl.lab", "--root", str(root)]
    with open_append(log_path, within=root) as log:
        start = log.tell()
        proc = subprocess.Popen(cmd, stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while (data := running_lab(root)) is None or data.get("pid") != proc.pid:
            if proc.poll() is not None:
                raise LabStartError(_exit_reason(log_path, start, proc.returncode))
            if time.monotonic() > deadline:
                raise LabStartError(f"the lab did not listen within {START_TIMEOUT:.0f} s; see {log_path}")
            time.sleep(0.02)
        yield data
    finally:
        if proc.poll() is None:
            proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _exit_reason(log_path: Path, start: int, status: int) -> str:
    """The error the lab program printed last (`error: ...`), else its exit status and log."""
    try:
        with open(log_path, "rb") as log:
            log.seek(start)
            lines = log.read().decode("utf-8", "replace").splitlines()
    except OSError:
        lines = []
    said = [line.removeprefix("error: ") for line in lines if line.startswith("error: ")]
    return said[-1] if said else f"the lab exited with status {status}; see {log_path}"
