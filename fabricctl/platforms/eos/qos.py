"""The QoS values a fabric sets for its Arista EOS switches (`qos.eos`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from fabricctl.platforms.base import QosTuning


class EosQosTuning(QosTuning):
    """EOS ECN and PFC watchdog values: syntax verified, values are site policy (tune per chip)."""

    ecn_minimum: int = Field(default=2000, ge=1)
    ecn_maximum: int = Field(default=10000, ge=1)
    ecn_unit: Literal["segments", "bytes", "kbytes", "mbytes"] = "segments"
    ecn_max_mark_probability: int = Field(default=20, ge=1, le=100)
    ecn_weight: int = Field(default=0, ge=0, le=15)
    watchdog_timeout: float = Field(default=0.2, gt=0, le=60)
    watchdog_polling_interval: float = Field(default=0.1, gt=0, le=10)
    watchdog_recovery_time: float = Field(default=1.0, gt=0, le=600)
    watchdog_action: Literal["drop", "no-drop"] = "drop"

    @model_validator(mode="after")
    def _ordered(self) -> EosQosTuning:
        if self.ecn_minimum >= self.ecn_maximum:
            raise ValueError(
                f"ecn_minimum ({self.ecn_minimum}) must be below ecn_maximum ({self.ecn_maximum})"
            )
        return self
