"""What a lab H3C switch reports about its hardware, per switch model (lab/hardware.py):
the facts of a healthy box of the model, from the vendor's datasheets."""

from __future__ import annotations

from fabricctl.lab.hardware import Model, Sensor

MODELS: dict[str, Model] = {
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
}
