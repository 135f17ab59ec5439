"""verify: prove tenant isolation, lossless consistency and capacity from config text, before a push."""

from fabricctl.verify.api import Fetch, parse_configs, read_configs, render_configs, verify_fabric
from fabricctl.verify.report import (
    AllowedException,
    CapacityRow,
    VerifyReport,
    Violation,
    render_text,
    to_json,
)

__all__ = [
    "AllowedException",
    "CapacityRow",
    "Fetch",
    "VerifyReport",
    "Violation",
    "parse_configs",
    "read_configs",
    "render_configs",
    "render_text",
    "to_json",
    "verify_fabric",
]
