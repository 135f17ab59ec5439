"""Helpers the platforms' render filters share (each platform spells the result its own way)."""

from __future__ import annotations


def mac_digits(value: str) -> str:
    """The 12 hex digits of a MAC address written with ':', '-' or '.' (or none)."""
    digits = "".join(c for c in value.lower() if c not in ":-.")
    if len(digits) != 12 or any(c not in "0123456789abcdef" for c in digits):
        raise ValueError(f"not a MAC address: {value!r}")
    return digits
