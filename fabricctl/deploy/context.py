"""Where the switches are for one command: the lab (the endpoints, host keys and login it
publishes, fabricctl/endpoints.py) or real switches."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from nornir.core import Nornir

from fabricctl.deploy.credentials import Access, login
from fabricctl.deploy.hostkeys import checking, known_hosts_file, lab_known_hosts
from fabricctl.deploy.nornir_inv import build_nornir
from fabricctl.deploy.stages import Stages, quiet
from fabricctl.endpoints import endpoints_from_json, published_known_hosts, running_lab, started_lab


@contextlib.contextmanager
def open_fabric(
    root: Path,
    lab: bool,
    names: set[str] | None,
    workers: int = 20,
    stages: Stages | None = None,
    access: Access = "read",
) -> Iterator[Nornir]:
    """A prepared Nornir for `names` with the `access` login; with `lab`, the lab stays up for
    the whole block. SSH host keys are checked (hostkeys.py) unless --insecure-host-keys."""
    creds = login(lab, access)
    if not lab:
        known = known_hosts_file() if checking() else None
        yield build_nornir(root, creds, None, workers, names, known)
        return
    stages = stages or quiet()
    with contextlib.ExitStack() as stack:
        with stages.stage("lab up") as step:
            live = running_lab(Path(root))
            if live is not None:
                step.detail = f"the running lab (pid {live['pid']}): {len(live['devices'])} switches"
            else:  # none runs: one for this command, on the lab's persisted state
                live = stack.enter_context(started_lab(Path(root)))
                step.detail = (
                    f"{len(live['devices'])} mock switches started for this command (pid {live['pid']})"
                )
            endpoints = endpoints_from_json(live)
        known = lab_known_hosts(published_known_hosts(Path(root), live)) if checking() else None
        yield build_nornir(root, creds, endpoints, workers, names, known)
