"""What a lab Arista switch reports about its hardware, per switch model (lab/hardware.py):
the facts of a healthy box of the model, from the vendor's datasheets."""

from __future__ import annotations

from fabricctl.lab.hardware import Model, Sensor

MODELS: dict[str, Model] = {
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
}
