"""Lab fabric: mock EOS / Comware switches that real SSH clients (netmiko, NAPALM) configure.

Public API::

    LabFabric(specs, state_dir=None, host="127.0.0.1", clock=None, faults=None)
    LabClock.frozen() (tests: time moves only on lab.advance(seconds))
    LabFabric.from_inventory(root) ; .start() / .stop() / with LabFabric(...) as lab
    lab.endpoints() -> dict[str, Endpoint] ; lab.device(name) -> DeviceHandle
    lab.set_faults(name, Faults(...) | **changes) ; lab.clear_faults() ; lab.load_faults(path)
    lab.reset(name=None) ; lab_endpoints(root) context manager

Names load on first use: the SSH server (asyncssh) only when a lab is actually built.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the checker sees the real types; at run time they load on first use
    from fabricctl.lab.clock import LabClock as LabClock
    from fabricctl.lab.connect import lab_endpoints as lab_endpoints
    from fabricctl.lab.factory import DeviceSpec as DeviceSpec
    from fabricctl.lab.faults import (
        FaultFileError as FaultFileError,
    )
    from fabricctl.lab.faults import (
        Faults as Faults,
    )
    from fabricctl.lab.faults import (
        load_faults as load_faults,
    )
    from fabricctl.lab.runtime import Endpoint as Endpoint
    from fabricctl.lab.runtime import lab_credentials as lab_credentials
    from fabricctl.lab.server import DeviceHandle as DeviceHandle
    from fabricctl.lab.server import LabFabric as LabFabric

_EXPORTS = {
    "DeviceHandle": "fabricctl.lab.server",
    "DeviceSpec": "fabricctl.lab.factory",
    "Endpoint": "fabricctl.lab.runtime",
    "FaultFileError": "fabricctl.lab.faults",
    "Faults": "fabricctl.lab.faults",
    "LabClock": "fabricctl.lab.clock",
    "LabFabric": "fabricctl.lab.server",
    "lab_credentials": "fabricctl.lab.runtime",
    "lab_endpoints": "fabricctl.lab.connect",
    "load_faults": "fabricctl.lab.faults",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'fabricctl.lab' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
