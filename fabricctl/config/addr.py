"""Address forms shared by the ACL parsers: wildcard masks to prefixes."""

from __future__ import annotations

from ipaddress import IPv4Address, IPv4Network


def wildcard_network(ip: str, wildcard: str) -> tuple[IPv4Network, bool]:
    """'10.1.0.0 0.0.255.255' -> (10.1.0.0/16, True).

    A non-contiguous wildcard matches a set no prefix describes; it is widened to the smallest prefix
    holding every matched address and flagged inexact, so a permit is never under-estimated and an
    inexact deny is never trusted to cover anything.
    """
    w = int(IPv4Address(wildcard))
    base = int(IPv4Address(ip)) & ~w & 0xFFFFFFFF
    span = w.bit_length()  # bits at or below the highest wildcard bit
    net = IPv4Network((base >> span << span, 32 - span))
    return net, w == (1 << span) - 1
