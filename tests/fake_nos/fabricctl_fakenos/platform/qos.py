"""The QoS values a fabric may set for its TinyOS switches (`qos.tinyos`): none; TinyOS sizes its
buffers itself (`headroom: nos`)."""

from __future__ import annotations

from fabricctl.platforms.base import QosTuning


class TinyQosTuning(QosTuning):
    """No site policy: the PFC, ECN and strict-priority lines the templates write are all it takes."""
