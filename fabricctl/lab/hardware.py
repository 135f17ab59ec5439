"""What a lab switch reports about its hardware: plausible, fixed facts per model.

Each NOS's twin lists its models' facts (lab/devices/<nos>/hardware.py, `LabNos.models`): a
switch's vendor facts come from its NOS's table, never from guessing at the model's name.

Nothing here is measured: power supplies, fans, temperature sensors, optics, CPU and memory
are what a healthy box of that model would show (counts and part names from the vendors'
datasheets, readings in the normal range), the same on every read. Optics are present in the
ports a cable runs to (lab/fabric_state.Cabling) and absent elsewhere.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Sensor:
    name: str
    description: str
    celsius: float
    overheat: float
    critical: float


@dataclass(frozen=True)
class Model:
    name: str
    description: str
    psus: int
    psu_model: str
    psu_watts: float
    fan_trays: int
    fans_per_tray: int
    fan_speed: int  # percent
    sensors: tuple[Sensor, ...]
    optic_vendor: str
    optic_model: str
    optic_type: str  # what `show interfaces status` / `display transceiver` call the optic
    cpu_percent: int
    mem_total_kb: int
    mem_free_kb: int


def optic_serial(device: str, port: str) -> str:
    """A stable serial number per optic."""
    return "XK" + hashlib.sha256(f"{device}/{port}".encode()).hexdigest()[:10].upper()
