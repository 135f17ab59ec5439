"""IPv4 networks as people write them: text only, and never a range no fabric may number from."""

from __future__ import annotations

from ipaddress import IPv4Network
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator
from pydantic_core import PydanticCustomError

#: Ranges that are not unicast host space: a pool or tenant block inside one would give switches
#: addresses they refuse or, worse, accept with another meaning (RFC 6890).
SPECIAL_RANGES: tuple[tuple[IPv4Network, str], ...] = (
    (IPv4Network("0.0.0.0/8"), "'this network' range"),
    (IPv4Network("127.0.0.0/8"), "loopback range"),
    (IPv4Network("169.254.0.0/16"), "link-local range"),
    (IPv4Network("224.0.0.0/4"), "multicast range"),
    (IPv4Network("240.0.0.0/4"), "reserved range (with the broadcast address)"),
)
USABLE = "unicast space outside " + ", ".join(str(net) for net, _ in SPECIAL_RANGES)


def special_range(net: IPv4Network) -> str | None:
    """'the multicast range 224.0.0.0/4' when `net` touches a special range, else None."""
    for special, name in SPECIAL_RANGES:
        if net.overlaps(special):
            return f"the {name} {special}"
    return None


def _text(value: Any) -> Any:
    """Only written text is a network: a YAML number (167772160) is not read as 10.0.0.0/32."""
    if isinstance(value, (str, IPv4Network)):
        return value
    raise PydanticCustomError("ip_v4_network", "Input is not a valid IPv4 network")


def _usable(net: IPv4Network) -> IPv4Network:
    where = special_range(net)
    if where is not None:
        raise ValueError(f"{net} overlaps {where}; use {USABLE}")
    return net


#: An IPv4 network field of fabric.yaml or a tenant file.
Network = Annotated[IPv4Network, BeforeValidator(_text), AfterValidator(_usable)]
