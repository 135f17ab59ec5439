"""The QoS values a fabric sets for its Arista EOS switches (`qos.eos`)."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import Field, field_validator, model_validator

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
    #: What the watchdog does to a stuck no-drop queue (EOS: drop | errdisable | notify-only). EOS
    #: has no `no-drop` action (AVD removed it in 6.0 for that reason). `errdisable` is left out on
    #: purpose: it error-disables the whole port on a pause storm instead of dropping that queue.
    watchdog_action: Literal["drop", "notify-only"] = "drop"

    @field_validator("watchdog_timeout", "watchdog_recovery_time")
    @classmethod
    def _centiseconds(cls, value: float) -> float:
        return _at_most_decimals(value, 2)

    @field_validator("watchdog_polling_interval")
    @classmethod
    def _milliseconds(cls, value: float) -> float:
        return _at_most_decimals(value, 3)

    @model_validator(mode="after")
    def _ordered(self) -> EosQosTuning:
        if self.ecn_minimum >= self.ecn_maximum:
            raise ValueError(
                f"ecn_minimum ({self.ecn_minimum}) must be below ecn_maximum ({self.ecn_maximum})"
            )
        return self


def _at_most_decimals(value: float, places: int) -> float:
    """EOS takes watchdog times with at most 2 decimals (polling interval: 3; AVD's schema says so)."""
    exponent = Decimal(repr(float(value))).normalize().as_tuple().exponent
    if isinstance(exponent, int) and -exponent > places:
        raise ValueError(f"{value} has more than {places} decimals (the most EOS takes)")
    return value
