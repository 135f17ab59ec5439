"""`lab_endpoints(root)`: where the lab of a fabric listens, starting one for the block if none runs."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from fabricctl.lab.runtime import Endpoint, endpoints_from_json, running_lab


@contextlib.contextmanager
def lab_endpoints(root: Path) -> Iterator[dict[str, Endpoint]]:
    """Endpoints of the detached lab for `root`, or of an in-process lab started on the
    persisted state for the duration of the block."""
    data = running_lab(root)
    if data is not None:
        yield endpoints_from_json(data)
        return
    from fabricctl.lab.server import LabFabric  # the SSH server loads only when a lab starts

    with LabFabric.from_inventory(Path(root)) as fabric:
        yield fabric.endpoints()
