"""What fabricctl knows about a NOS, as data: names, capabilities and limits.

Compile and validate ask the platform instead of branching on its name; the CLI dialect rules for
diff and push live next to these facts in the same module.
"""

from __future__ import annotations

from dataclasses import dataclass

from fabricctl.platforms.dialect import Dialect


@dataclass(frozen=True)
class Capabilities:
    """Features a tenant or the QoS policy may need; a missing one fails at validate."""

    pfc: bool
    pfc_watchdog: bool
    ecn_per_queue: bool
    strict_priority_queue: bool
    evpn_type5: bool
    evpn_symmetric_irb: bool
    commit_confirm: bool
    config_sessions: bool


@dataclass(frozen=True)
class Limits:
    """Per-switch budgets (datasheet figures; override per fabric under `limits:` in fabric.yaml)."""

    max_vrfs: int
    max_vlans: int
    max_vnis: int
    max_acl_entries: int


@dataclass(frozen=True)
class Platform:
    """One NOS: how its ports are named and what it can do."""

    name: str
    netmiko_device_type: str
    capabilities: Capabilities
    limits: Limits
    cnp_class: int
    port_prefix_400g: str
    port_prefix_200g: str
    dialect: Dialect
    port_count: int = 64

    def port_name(self, port: int, lane: int | None = None) -> str:
        """Front-panel port `port` (1-based), or breakout lane `lane` (1-based) of it."""
        raise NotImplementedError

    def limits_with(self, overrides: dict[str, int]) -> Limits:
        """Datasheet limits with the fabric's own overrides applied."""
        known = {k: v for k, v in overrides.items() if hasattr(self.limits, k)}
        return Limits(**{**self.limits.__dict__, **known})
