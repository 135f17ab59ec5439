"""The QoS values a fabric sets for its SONiC switches (`qos.sonic`): the PFC watchdog and the
ECN (WRED) thresholds of the lossless queue, each a CONFIG_DB field of sonic-net's YANG models.

The lossless class itself is built from the fabric's policy in CONFIG_DB tables (configdb.py):
DSCP_TO_TC_MAP, TC_TO_QUEUE_MAP, PORT_QOS_MAP `pfc_enable`, BUFFER_PG on the lossless priority
group (headroom sized by SONiC's buffer manager from the port's speed and CABLE_LENGTH, the
dynamic buffer model), WRED_PROFILE with ECN on the lossless queue and PFC_WD per port.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from fabricctl.platforms.base import QosTuning


class SonicQosTuning(QosTuning):
    """watchdog_*: PFC_WD (sonic-pfcwd.yang: `action` drop|forward|alert, `detection_time` and
    `restoration_time` in ms, the GLOBAL `POLL_INTERVAL` in ms). ecn_*: the lossless queue's
    WRED_PROFILE (sonic-wred-profile.yang: green_min_threshold / green_max_threshold in bytes,
    green_drop_probability in percent, `ecn: ecn_all`: mark instead of drop)."""

    watchdog_action: Literal["drop", "forward", "alert"] = "drop"
    watchdog_detection_ms: int = Field(default=200, ge=100, le=5000)
    watchdog_restoration_ms: int = Field(default=200, ge=100, le=60000)
    watchdog_poll_ms: int = Field(default=200, ge=100, le=1000)
    ecn_min_bytes: int = Field(default=150000, ge=1)
    ecn_max_bytes: int = Field(default=1500000, ge=1)
    ecn_probability: int = Field(default=5, ge=0, le=100)
