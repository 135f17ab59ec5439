"""Where the switches are for one command: the lab (endpoints + lab login) or real switches."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from nornir.core import Nornir

from fabricctl.deploy.credentials import login
from fabricctl.deploy.nornir_inv import build_nornir
from fabricctl.deploy.stages import Stages, quiet


@contextlib.contextmanager
def open_fabric(
    root: Path, lab: bool, names: set[str] | None, workers: int = 20, stages: Stages | None = None
) -> Iterator[Nornir]:
    """A prepared Nornir for `names`; with `lab`, the lab stays up for the whole block."""
    creds = login(lab)
    if not lab:
        yield build_nornir(root, creds, None, workers, names)
        return
    from fabricctl.lab import lab_endpoints
    from fabricctl.lab.runtime import running_lab

    stages = stages or quiet()
    with contextlib.ExitStack() as stack:
        with stages.stage("lab up") as step:
            live = running_lab(Path(root))
            endpoints = stack.enter_context(lab_endpoints(Path(root)))
            step.detail = (
                f"the running lab (pid {live['pid']}): {len(endpoints)} switches"
                if live is not None
                else f"{len(endpoints)} mock switches started in this process"
            )
        yield build_nornir(root, creds, endpoints, workers, names)
