"""What a lab switch reports about its hardware: plausible, fixed facts per model.

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


MODELS = {
    "7060X5-64": Model(
        name="DCS-7060X5-64",
        description="64x400G QSFP-DD switch",
        psus=2,
        psu_model="PWR-2421-HV-RED",
        psu_watts=2400.0,
        fan_trays=6,
        fan_speed=40,
        fans_per_tray=1,
        sensors=(
            Sensor("TempSensor1", "CPU temp sensor", 52.0, 95.0, 105.0),
            Sensor("TempSensor2", "Switch chip temp sensor", 61.0, 105.0, 115.0),
            Sensor("TempSensor3", "Front-panel temp sensor", 28.0, 65.0, 75.0),
            Sensor("TempSensor4", "Rear temp sensor", 36.0, 80.0, 90.0),
        ),
        optic_vendor="Arista Networks",
        optic_model="QDD-400G-DR4",
        optic_type="400GBASE-DR4",
        cpu_percent=7,
        mem_total_kb=32_599_444,
        mem_free_kb=25_011_220,
    ),
    "S9825-64D": Model(
        name="S9825-64D",
        description="H3C S9825-64D 64x400G QSFP-DD switch",
        psus=2,
        psu_model="PSR2000-12A",
        psu_watts=2000.0,
        fan_trays=6,
        fan_speed=40,
        fans_per_tray=1,
        sensors=(
            Sensor("hotspot 1", "Switch chip", 61.0, 105.0, 115.0),
            Sensor("hotspot 2", "CPU", 52.0, 95.0, 105.0),
            Sensor("inflow 1", "Air inlet", 28.0, 65.0, 75.0),
            Sensor("outflow 1", "Air outlet", 36.0, 80.0, 90.0),
        ),
        optic_vendor="H3C",
        optic_model="QSFP-DD-400G-DR4",
        optic_type="400G_BASE_DR4_QSFP_DD",
        cpu_percent=7,
        mem_total_kb=16_268_532,
        mem_free_kb=11_032_116,
    ),
    # NVIDIA Spectrum-4 SN5000 2U Switch Systems Hardware User Manual (SN5600): 64 OSFP 800GbE
    # ports, 2U, 32 GB RAM; PSU and fan counts as a healthy 2U box of the family shows them.
    "SN5600": Model(
        name="MSN5600",
        description="NVIDIA Spectrum-4 SN5600 64x800G OSFP switch",
        psus=2,
        psu_model="MTEF-PSF-AC-M",
        psu_watts=3000.0,
        fan_trays=4,
        fan_speed=40,
        fans_per_tray=2,
        sensors=(
            Sensor("ASIC", "Spectrum-4 ASIC", 61.0, 105.0, 120.0),
            Sensor("CPU Pack", "CPU package", 52.0, 95.0, 105.0),
            Sensor("Ambient Port Side", "Air inlet", 28.0, 65.0, 75.0),
            Sensor("Ambient Fan Side", "Air outlet", 36.0, 80.0, 90.0),
        ),
        optic_vendor="NVIDIA",
        optic_model="MMS4X00-NS",
        optic_type="800GBASE-2xDR4",
        cpu_percent=7,
        mem_total_kb=32_768_000,
        mem_free_kb=25_011_220,
    ),
}


def model(name: str) -> Model:
    """The facts of a model (a model the lab does not know reports as the platform's default)."""
    if name in MODELS:
        return MODELS[name]
    return MODELS["S9825-64D" if name.upper().startswith("S") else "7060X5-64"]


def optic_serial(device: str, port: str) -> str:
    """A stable serial number per optic."""
    return "XK" + hashlib.sha256(f"{device}/{port}".encode()).hexdigest()[:10].upper()
