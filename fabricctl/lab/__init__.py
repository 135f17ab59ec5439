"""Lab fabric: mock EOS / Comware switches that real SSH clients (netmiko, NAPALM) configure.

Public API::

    LabFabric(specs, state_dir=None, host="127.0.0.1", time_scale=None, faults=None)
    LabFabric.from_inventory(root) ; .start() / .stop() / with LabFabric(...) as lab
    lab.endpoints() -> dict[str, Endpoint] ; lab.device(name) -> DeviceHandle
    lab.set_faults(name, Faults(...) | **changes) ; lab.clear_faults() ; lab.load_faults(path)
    lab.reset(name=None) ; lab_endpoints(root) context manager
"""

from fabricctl.lab.factory import DeviceSpec
from fabricctl.lab.faults import FaultFileError, Faults, load_faults
from fabricctl.lab.runtime import lab_endpoints
from fabricctl.lab.server import DeviceHandle, Endpoint, LabFabric, lab_credentials

__all__ = [
    "DeviceHandle",
    "DeviceSpec",
    "Endpoint",
    "FaultFileError",
    "Faults",
    "LabFabric",
    "lab_credentials",
    "lab_endpoints",
    "load_faults",
]
