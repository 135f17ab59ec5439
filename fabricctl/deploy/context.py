"""Where the switches are for one command: the lab (endpoints + lab login) or real switches."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from nornir.core import Nornir

from fabricctl.deploy.credentials import login
from fabricctl.deploy.nornir_inv import build_nornir


@contextlib.contextmanager
def open_fabric(root: Path, lab: bool, names: set[str] | None, workers: int = 20) -> Iterator[Nornir]:
    """A prepared Nornir for `names`; with `lab`, the lab stays up for the whole block."""
    creds = login(lab)
    if not lab:
        yield build_nornir(root, creds, None, workers, names)
        return
    from fabricctl.lab import lab_endpoints

    with lab_endpoints(Path(root)) as endpoints:
        yield build_nornir(root, creds, endpoints, workers, names)
