"""What a lab TinyOS switch reports about its hardware, per switch model (lab/hardware.py): the
facts of a healthy T-16 as TinyOS's own datasheet (DATASHEET in the platform package) gives them."""

from __future__ import annotations

from fabricctl.lab.hardware import Model, Sensor

MODELS: dict[str, Model] = {
    "T-16": Model(
        name="T-16",
        description="TinyOS T-16 16-port switch",
        psus=1,
        psu_model="T-PSU",
        psu_watts=500.0,
        fan_trays=1,
        fans_per_tray=1,
        fan_speed=40,
        sensors=(Sensor("board", "Board", 40.0, 80.0, 90.0),),
        optic_vendor="Tiny",
        optic_model="T-OPTIC",
        optic_type="T-SR",
        cpu_percent=5,
        mem_total_kb=1_000_000,
        mem_free_kb=500_000,
    ),
}
