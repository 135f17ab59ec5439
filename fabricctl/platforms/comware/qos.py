"""Comware's queues, its default priority maps and the QoS values a fabric sets (`qos.comware`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from fabricctl.platforms.base import QosTuning

#: Queue names for local precedence / queue 0..7 (`qos wrr <name> ...`).
QUEUE_NAMES = ("be", "af1", "af2", "af3", "af4", "ef", "cs6", "cs7")
QUEUE_NUMBER = {name: number for number, name in enumerate(QUEUE_NAMES)}

#: The pre-defined priority maps (HPE 5950 ACL/QoS guide, Appendix B "Default priority maps"):
#: trusting DSCP, a packet's queue is DOT1P_LP[DSCP_DOT1P(dscp)]. dot1p 0 lands in queue 2 (af2)
#: unless the dot1p-lp map is set, so best effort would not be the `be` queue the weights name.
DEFAULT_DOT1P_LP = {0: 2, 1: 0, 2: 1, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7}


def default_dscp_dot1p(dscp: int) -> int:
    """dscp-dot1p default: DSCP 0-7 -> 0, 8-15 -> 1, ... 56-63 -> 7."""
    return dscp // 8


class ComwareQosTuning(QosTuning):
    """Comware values no S98xx document settles, kept as settings (docs/emitted-syntax.md says why).

    WRED limits: site policy, 6000/12000/40 as seen in a third-party 400G RoCE configuration (no
    H3C document gives S98xx values, and the unit is not stated; the sibling range is 0-16000).
    PFC headroom is not a setting: it is computed per port from its speed and cable (fabric.yaml
    qos.buffer, compile/buffers.py).
    link_delay_up: seconds a fabric port waits before it reports up (None: not set).
    """

    wred_table: str = Field(default="ROCE-ECN", pattern=r"^[A-Z][A-Z0-9-]{0,30}$")
    wred_low_limit: int = Field(default=6000, ge=0, le=16000)
    wred_high_limit: int = Field(default=12000, ge=0, le=16000)
    wred_discard_probability: int = Field(default=40, ge=0, le=100)
    wred_weighting_constant: int = Field(default=0, ge=0, le=15)
    deadlock_precision: Literal["high", "normal", "low"] = "high"
    deadlock_interval: int = Field(default=10, ge=1, le=30)
    deadlock_recover_delay: int = Field(default=10, ge=1, le=30)
    link_delay_up: int | None = Field(default=2, ge=0, le=30)

    @model_validator(mode="after")
    def _ordered(self) -> ComwareQosTuning:
        if self.wred_low_limit >= self.wred_high_limit:
            raise ValueError(
                f"wred_low_limit ({self.wred_low_limit}) must be below wred_high_limit ({self.wred_high_limit})"
            )
        return self
