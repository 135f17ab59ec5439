"""The QoS values a fabric sets for its NVIDIA Cumulus Linux switches (`qos.nvue`).

The lossless class itself is NVIDIA's RoCE profile (`nv set qos roce mode lossless`): trust
PCP/DSCP, DSCP 24-31 -> switch priority 3 -> traffic class 3 with PFC and ECN, DSCP 48-55 -> 6
strict priority (the CNP class), ETS 50/50, dedicated lossless buffer pools. NVIDIA validates it
per ASIC ("RoCE configuration generated for one switch ASIC is not applicable to another"), so
fabricctl does not restate its thresholds; what is left to the site is below.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from fabricctl.platforms.base import QosTuning

#: What `qos roce mode lossless` sets (Cumulus Linux user guide 5.17, "RDMA over Converged
#: Ethernet - RoCE" > "Default RoCE Configuration" and `nv show qos roce`), as the proofs read it.
ROCE_LOSSLESS_PRIORITY = 3
ROCE_CNP_PRIORITY = 6
ROCE_ECN_CLASSES = (0, 3)
ROCE_ECN_MIN_BYTES = 150000
ROCE_ECN_MAX_BYTES = 1501500
ROCE_SOURCE = (
    "https://docs.nvidia.com/networking-ethernet-software/cumulus-linux/Layer-1-and-Switch-Ports/"
    "Quality-of-Service/RDMA-over-Converged-Ethernet-RoCE/ (Default RoCE Configuration)"
)


def roce_switch_priority(dscp: int) -> int:
    """The switch priority the RoCE profile maps a DSCP to: 0-7 -> 0, ..., 24-31 -> 3, 48-55 -> 6
    (`nv show qos roce`, "RoCE PCP/DSCP->SP mapping configurations")."""
    return dscp // 8


class NvueQosTuning(QosTuning):
    """roce_mode: `lossless` (separate lossy and lossless buffer pools, NVIDIA's default) or
    `lossless-single-ipool` (one shared ingress pool, "Single Shared Buffer Pool"); the lossy
    modes are not offered (no PFC). The PFC watchdog timers are global (`nv set qos pfc-watchdog
    polling-interval`, `robustness`: Quality of Service > "PFC Watchdog"; defaults 100 ms and 3)."""

    roce_mode: Literal["lossless", "lossless-single-ipool"] = "lossless"
    watchdog_polling_interval: int = Field(default=100, ge=1)  # milliseconds
    watchdog_robustness: int = Field(default=3, ge=1)  # polling intervals before the watchdog acts
