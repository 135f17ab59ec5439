"""Every capability a platform declares is a requirement some part of the fabric has: a switch or
tenant that needs a missing one is refused at validate, never found halfway through a push."""

from __future__ import annotations

from fabricctl.compile.allocate import Allocation
from fabricctl.compile.view import FabricView, read_fabric
from fabricctl.model.load import Fabric, TenantDoc
from fabricctl.model.problems import ProblemLog
from fabricctl.platforms import get_platform

#: Needed by every switch: (capability flag, what it is, why every switch needs it).
EVERY_SWITCH = (
    ("pfc", "PFC", "every fabric link carries the lossless RoCE class"),
    ("pfc_watchdog", "a PFC watchdog", "a pause storm must not wedge the fabric"),
    ("ecn_per_queue", "ECN marking per queue", "the lossless queue marks ECN (DCQCN)"),
    ("strict_priority_queue", "a strict-priority queue", "CNPs go in a strict-priority queue"),
    ("commit_confirm", "a commit-confirm timer", "apply pushes only under a confirm timer"),
)


def check_capabilities(
    fabric: Fabric | FabricView, alloc: Allocation, docs: list[TenantDoc], log: ProblemLog
) -> None:
    """Switches against what the fabric always needs; leaves against the tenants and cabling they carry."""
    fabric = read_fabric(fabric)
    hosts = fabric.root / "inventory" / "hosts.yaml"
    for sw in fabric.switches:
        platform = get_platform(sw.platform)
        for flag, what, why in EVERY_SWITCH:
            if not getattr(platform.capabilities, flag):
                log.add(
                    hosts,
                    sw.line,
                    sw.name,
                    f"{platform.title} ({sw.platform}) lacks {what}, and {why}",
                    f"a platform with {flag}",
                )
    mtu = fabric.settings.qos.mtu
    for sw in fabric.switches:
        platform = get_platform(sw.platform)
        if mtu > platform.capabilities.max_ip_mtu:
            log.add(
                fabric.root / "inventory" / "fabric.yaml",
                fabric.settings_line("qos", "mtu"),
                "qos.mtu",
                f"{sw.name} ({platform.title}) takes an IP MTU of at most {platform.capabilities.max_ip_mtu}, not {mtu}",
                f"1500-{platform.capabilities.max_ip_mtu} (the platform's max_ip_mtu)",
            )
            break
    _buffer_figures(fabric, log)
    breakout = fabric.settings.cabling.gpu_port_breakout
    if breakout != "none":
        for leaf in fabric.leaves:
            platform = get_platform(leaf.platform)
            model = platform.model(leaf.model)
            if breakout not in model.breakouts:
                log.add(
                    fabric.root / "inventory" / "fabric.yaml",
                    fabric.settings_line("cabling", "gpu_port_breakout"),
                    "cabling.gpu_port_breakout",
                    f"{leaf.name} ({platform.title}{' ' + leaf.model if leaf.model else ''}) cannot split its GPU ports {breakout}",
                    ", ".join(("none", *model.breakouts)),
                )
    by_name = {td.tenant.name: td for td in docs}
    for a in alloc.tenants:
        needs = [("evpn_type5", "EVPN type-5 routes for the tenant VRF")]
        if a.tenant.isolation == "l2":
            needs.append(("evpn_symmetric_irb", "EVPN symmetric IRB for an l2 tenant"))
        for leaf_name in a.leaves:
            tenant_leaf = fabric.switch(leaf_name)
            assert tenant_leaf is not None
            platform = get_platform(tenant_leaf.platform)
            for flag, what in needs:
                if not getattr(platform.capabilities, flag):
                    td = by_name[a.name]
                    log.add(
                        td.file,
                        td.line("gpus"),
                        "gpus",
                        f"{leaf_name} ({platform.title}) lacks {what}",
                        f"leaves whose platform has {flag}",
                    )


def _buffer_figures(fabric: FabricView, log: ProblemLog) -> None:
    """A platform that takes PFC headroom as a size needs the ASIC figures to size it from: the
    switch model's published ones, else fabric.yaml `qos.buffer` (compile/buffers.py)."""
    policy = fabric.settings.qos.buffer
    given = None not in (policy.cell_bytes, policy.mac_phy_delay_bytes, policy.pipeline_latency_bytes)
    for sw in fabric.switches:
        platform = get_platform(sw.platform)
        model = fabric.model(sw)
        if platform.headroom == "cells" and model.buffer is None and not given:
            log.add(
                fabric.root / "inventory" / "fabric.yaml",
                fabric.settings_line("qos", "buffer"),
                "qos.buffer",
                f"{sw.name} ({platform.title} {model.name}) takes PFC headroom in buffer cells and its vendor "
                "publishes no buffer figures: set cell_bytes, mac_phy_delay_bytes and pipeline_latency_bytes",
                "the switch ASIC's cell size, MAC/PHY delay and pipeline latency in bytes",
            )
            return
