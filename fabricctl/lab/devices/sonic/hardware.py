"""What a lab SONiC switch reports about its hardware, per switch model (lab/hardware.py): a
healthy SN5600 as NVIDIA's SN5000 hardware user manual gives it (64 OSFP 800GbE ports, 2U)."""

from __future__ import annotations

from fabricctl.lab.hardware import Model, Sensor

MODELS: dict[str, Model] = {
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
        ),
        optic_vendor="NVIDIA",
        optic_model="MMS4X00-NS",
        optic_type="800GBASE-2xDR4",
        cpu_percent=7,
        mem_total_kb=32_768_000,
        mem_free_kb=25_011_220,
    ),
}
