"""TinyOS's interface types and the short forms its tables print, in its own order."""

from __future__ import annotations

INTERFACE_TYPES = {"port": "p", "lo": "lo"}
