"""Comware's queues and the QoS values a fabric sets for its Comware switches (`qos.comware`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from fabricctl.platforms.base import QosTuning

#: Queue names for local precedence / queue 0..7 (`qos wrr <name> ...`).
QUEUE_NAMES = ("be", "af1", "af2", "af3", "af4", "ef", "cs6", "cs7")
QUEUE_NUMBER = {name: number for number, name in enumerate(QUEUE_NAMES)}


class ComwareQosTuning(QosTuning):
    """Comware WRED/ECN and PFC deadlock values: units unconfirmed on S98xx, so kept as settings."""

    wred_table: str = Field(default="ROCE-ECN", pattern=r"^[A-Z][A-Z0-9-]{0,30}$")
    wred_low_limit: int = Field(default=1000, ge=0, le=1_000_000)
    wred_high_limit: int = Field(default=2000, ge=0, le=1_000_000)
    wred_discard_probability: int = Field(default=20, ge=0, le=100)
    wred_weighting_constant: int = Field(default=0, ge=0, le=15)
    deadlock_precision: Literal["high", "normal", "low"] = "high"
    deadlock_interval: int = Field(default=10, ge=1, le=30)
    deadlock_recover_delay: int = Field(default=10, ge=1, le=30)

    @model_validator(mode="after")
    def _ordered(self) -> ComwareQosTuning:
        if self.wred_low_limit >= self.wred_high_limit:
            raise ValueError(
                f"wred_low_limit ({self.wred_low_limit}) must be below wred_high_limit ({self.wred_high_limit})"
            )
        return self
