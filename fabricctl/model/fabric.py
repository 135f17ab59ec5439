"""The fabric a set of tenants lands on: switches (from the Nornir inventory) and fabric-wide settings.

Everything here is written by people in inventory/; models forbid unknown keys so a typo is an
error, not a silently ignored setting.
"""

from __future__ import annotations

import difflib
from ipaddress import IPv4Network
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator, model_validator
from pydantic_core import PydanticCustomError

from fabricctl.platforms import PLATFORMS
from fabricctl.platforms.base import Platform, QosTuning

PortRange = Annotated[str, Field(pattern=r"^\d+(-\d+)?(,\d+(-\d+)?)*$")]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def expand_ports(spec: str) -> list[int]:
    """'1-32,40' -> [1..32, 40]: port lists are written as ranges, like on a switch."""
    ports: list[int] = []
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        ports.extend(range(int(lo), int(hi or lo) + 1))
    return ports


class Underlay(Strict):
    """eBGP underlay: one ASN for all spines, one per leaf, numbered /31 fabric links."""

    spine_asn: int = Field(ge=1, le=4294967294)
    leaf_asn_base: int = Field(ge=1, le=4294967294)
    spine_loopbacks: IPv4Network
    leaf_loopbacks: IPv4Network
    vtep_loopbacks: IPv4Network
    p2p_links: IPv4Network
    max_paths: int = Field(default=64, ge=1, le=512)


class Overlay(Strict):
    """EVPN/VXLAN numbering: every tenant number follows from its explicit id."""

    l3vni_base: int = Field(ge=1, le=16_000_000)
    l2vni_base: int = Field(ge=1, le=16_000_000)
    vlan_base: int = Field(ge=0, le=4000)
    route_target_asn: int = Field(ge=1, le=65535)
    anycast_gateway_mac: str = Field(pattern=r"^[0-9a-f]{2}(:[0-9a-f]{2}){5}$")
    tenant_id_max: int = Field(default=9999, ge=1, le=99999)


class _QosPolicy(Strict):
    """The lossless RoCEv2 class, fabric-wide; per-platform tuning where syntax differs."""

    roce_dscp: int = Field(default=26, ge=0, le=63)
    lossless_priority: int = Field(default=3, ge=0, le=7)
    cnp_dscp: int = Field(default=48, ge=0, le=63)
    cnp_class: int | None = Field(default=None, ge=0, le=7)
    mtu: int = Field(default=9214, ge=1500, le=9416)
    lossless_bandwidth_percent: int = Field(default=50, ge=1, le=99)
    profile_name: str = Field(default="ROCE-LOSSLESS", pattern=r"^[A-Z][A-Z0-9_-]{0,30}$")

    @model_validator(mode="after")
    def _distinct(self) -> _QosPolicy:
        if self.roce_dscp == self.cnp_dscp:
            raise ValueError(f"roce_dscp and cnp_dscp must differ (both are {self.roce_dscp})")
        if self.cnp_class is not None and self.cnp_class == self.lossless_priority:
            raise ValueError(f"cnp_class must differ from lossless_priority (both are {self.cnp_class})")
        return self

    def tuning_for(self, platform: Platform) -> QosTuning:
        """The platform's QoS values: `qos.<platform>` in fabric.yaml, or the platform's defaults."""
        tuning = getattr(self, platform.name, None)
        return tuning if isinstance(tuning, QosTuning) else platform.qos_tuning()


#: `qos:` of fabric.yaml: the policy, plus one block of tuning values per platform (`qos.<name>`).
QosPolicy = create_model(
    "QosPolicy",
    __base__=_QosPolicy,
    __doc__=_QosPolicy.__doc__,
    **{name: (p.qos_tuning, Field(default_factory=p.qos_tuning)) for name, p in PLATFORMS.items()},  # type: ignore[call-overload]
)


class Cabling(Strict):
    """Cabling rules instead of hand-written links: uplinks per spine, rail-optimized GPU servers."""

    leaf_uplinks_per_spine: int = Field(ge=1, le=8)
    leaf_uplink_ports: PortRange
    leaf_gpu_ports: PortRange
    spine_downlink_ports: PortRange
    gpu_port_breakout: Literal["none", "2x200G"] = "none"
    nics_per_server: int = Field(default=8, ge=1, le=16)
    server_name: str = Field(default="gpu{:03d}", pattern=r"^[a-z][a-z0-9-]*\{:0?\d?d\}$")

    @field_validator("leaf_uplink_ports", "leaf_gpu_ports", "spine_downlink_ports")
    @classmethod
    def _increasing(cls, value: str) -> str:
        for part in value.split(","):
            lo, _, hi = part.partition("-")
            if hi and int(hi) < int(lo):
                raise ValueError(f"range {part} runs backwards (write low-high)")
        ports = expand_ports(value)
        if min(ports) < 1:
            raise ValueError("ports are numbered from 1")
        if len(set(ports)) != len(ports):
            twice = sorted({p for p in ports if ports.count(p) > 1})
            raise ValueError(f"port(s) {', '.join(map(str, twice))} listed more than once")
        return value

    @model_validator(mode="after")
    def _disjoint(self) -> Cabling:
        shared = set(expand_ports(self.leaf_uplink_ports)) & set(expand_ports(self.leaf_gpu_ports))
        if shared:
            ports = ", ".join(map(str, sorted(shared)))
            raise ValueError(f"leaf_gpu_ports overlap leaf_uplink_ports on port(s) {ports}")
        return self


#: Keys of `limits:` in fabric.yaml (the fields of fabricctl.platforms.base.Limits).
LIMIT_NAMES = ("max_vrfs", "max_vlans", "max_vnis", "max_acl_entries")


class FabricSettings(Strict):
    """inventory/fabric.yaml."""

    name: str = Field(pattern=r"^[a-z][a-z0-9-]{0,31}$")
    description: str = Field(default="", max_length=200)
    underlay: Underlay
    overlay: Overlay
    qos: QosPolicy = Field(default_factory=QosPolicy)  # type: ignore[valid-type]
    cabling: Cabling
    limits: dict[str, int] = Field(
        default_factory=dict,
        description="Per-leaf budgets overriding the platform's datasheet figures: " + ", ".join(LIMIT_NAMES),
    )

    @field_validator("limits")
    @classmethod
    def _known_limits(cls, value: dict[str, int]) -> dict[str, int]:
        for key, number in value.items():
            if key not in LIMIT_NAMES:
                close = difflib.get_close_matches(key, LIMIT_NAMES, n=1)
                hint = f"; did you mean '{close[0]}'?" if close else ""
                raise ValueError(f"{key} is not a known limit{hint} (known: {', '.join(LIMIT_NAMES)})")
            if number < 1:
                raise ValueError(f"{key} must be at least 1, not {number}")
        return value


class Switch(Strict):
    """One switch from hosts.yaml with role and platform resolved through its groups."""

    name: str = Field(pattern=r"^[a-z][a-z0-9-]{0,31}$")
    role: Literal["spine", "leaf"]
    platform: str
    index: int = Field(ge=1, le=4096)
    model: str = ""
    file: str = ""
    line: int = 0

    @field_validator("platform")
    @classmethod
    def _registered(cls, value: str) -> str:
        """A platform some package under fabricctl/platforms/ provides (looked up at run time)."""
        if value not in PLATFORMS:
            raise PydanticCustomError(
                "literal_error", "Input should be {expected}", {"expected": ", ".join(PLATFORMS)}
            )
        return value
