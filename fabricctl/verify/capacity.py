"""Capacity: oversubscription per tier (leaf: GPU ports : uplinks; spine of a multi-pod fabric:
leaf-facing : super-spine-facing ports), hardware budgets per switch (and the PFC headroom a switch
reserves against its model's packet buffer), GPUs per tenant and free GPUs.

Bandwidth comes from the topology and each switch's model (its port speed, a breakout lane's); budgets are counted from
the config text read back (what the switch will actually hold), against the platform limits with
the fabric's overrides.
"""

from __future__ import annotations

from fabricctl.compile.buffers import figures_for, lossless_port
from fabricctl.compile.build import Compiled
from fabricctl.compile.topology import switch_model
from fabricctl.config.readback import SwitchConfig
from fabricctl.model.fabric import Switch
from fabricctl.platforms import get_platform
from fabricctl.platforms.base import breakout_lanes
from fabricctl.verify.report import CapacityRow, Violation


def check_capacity(
    compiled: Compiled, parsed: dict[str, SwitchConfig], max_oversubscription: float | None = None
) -> tuple[list[CapacityRow], list[Violation]]:
    """`max_oversubscription` overrides the leaf tier's declared `cabling.max_oversubscription`."""
    rows: list[CapacityRow] = []
    out: list[Violation] = []
    topo = compiled.topology
    if max_oversubscription is None:
        max_oversubscription = compiled.fabric.settings.cabling.max_oversubscription
    uplinks: dict[str, int] = {}
    downlinks: dict[str, int] = {}
    for ln in topo.links:
        uplinks[ln.leaf] = uplinks.get(ln.leaf, 0) + 1
        downlinks[ln.spine] = downlinks.get(ln.spine, 0) + 1
    out += _leaf_tier(compiled, rows, uplinks, max_oversubscription)
    out += _spine_tier(compiled, rows, uplinks, downlinks)
    out += _switch_budgets(compiled, parsed, rows)
    _gpu_rows(compiled, rows)
    return rows, out


def _leaf_tier(
    compiled: Compiled, rows: list[CapacityRow], uplinks: dict[str, int], max_oversubscription: float
) -> list[Violation]:
    """Each leaf's GPU ports against its uplinks, now and after each breakout its model has."""
    out: list[Violation] = []
    topo = compiled.topology
    for leaf in compiled.fabric.leaves:
        ports = topo.gpu_ports.get(leaf.name, [])
        model = switch_model(leaf)
        lane_gbps = model.lane_gbps(compiled.fabric.settings.cabling.gpu_port_breakout)
        down = sum(lane_gbps if gp.lane else model.port_gbps for gp in ports)
        up = uplinks.get(leaf.name, 0) * model.port_gbps
        ratio = down / up if up else float(down)  # no uplinks: report the stranded bandwidth
        ok = bool(up) and ratio <= max_oversubscription
        rows.append(
            CapacityRow(
                leaf.name,
                "oversubscription",
                round(ratio, 3),
                max_oversubscription,
                ok,
                f"{down}G down / {up}G up",
            )
        )
        # The expansion splits every GPU port in the model's breakout mode(s): each lane a GPU.
        parents = {gp.port for gp in ports}
        for mode in model.breakouts:
            lanes = len(breakout_lanes(mode)) * len(parents)
            after = lanes * model.lane_gbps(mode)
            rows.append(
                CapacityRow(
                    leaf.name,
                    f"oversubscription after {mode}",
                    round(after / up, 3) if up else float(after),
                    max_oversubscription,
                    bool(up) and after / up <= max_oversubscription,
                    f"{lanes} x {model.lane_gbps(mode)}G down / {up}G up",
                )
            )
        if not ok:
            out.append(
                Violation(
                    "oversubscription",
                    leaf.name,
                    "GPU ports",
                    None,
                    f"({len(ports)} GPU ports, {uplinks.get(leaf.name, 0)} uplinks)",
                    f"{down}G of GPU ports share {up}G of uplinks ({ratio:.2f}:1, design allows {max_oversubscription:g}:1): all-to-all traffic congests and PFC spreads it",
                )
            )
    return out


def _switch_budgets(
    compiled: Compiled, parsed: dict[str, SwitchConfig], rows: list[CapacityRow]
) -> list[Violation]:
    """What each switch's config carries (headroom, VRFs, VLANs, VNIs, ACL entries) against its
    platform's budgets."""
    out: list[Violation] = []
    for name, cfg in sorted(parsed.items()):
        sw = compiled.fabric.switch(name)
        if sw is None:
            continue
        limits = get_platform(sw.platform).limits_with(compiled.fabric.settings.limits, sw.model)
        vnis = {at.value for h in [*cfg.vrfs.values(), *cfg.segments.values()] for at in h.vnis}
        entries = sum(
            len(cfg.acls[i.acl_in.value].rules)
            for i in cfg.interfaces.values()
            if i.acl_in and i.acl_in.value in cfg.acls
        )
        out += _headroom_budget(compiled, sw, cfg, rows)
        vrfs = sum(1 for v in cfg.vrfs.values() if v.src.line)
        for metric, used, limit in (
            ("VRFs", vrfs, limits.max_vrfs),
            ("VLANs/VSIs", len(cfg.segments), limits.max_vlans),
            ("VNIs", len(vnis), limits.max_vnis),
            ("ACL entries", entries, limits.max_acl_entries),
        ):
            rows.append(CapacityRow(name, metric, used, limit, used <= limit, sw.platform))
            if used > limit:
                out.append(
                    Violation(
                        "budget",
                        name,
                        metric,
                        None,
                        f"({used} {metric})",
                        f"{name} carries {used} {metric}, over the {sw.platform} budget of {limit}",
                    )
                )
    return out


def _gpu_rows(compiled: Compiled, rows: list[CapacityRow]) -> None:
    """The GPUs each tenant holds, then the fabric's held and free."""
    topo = compiled.topology
    total = sum(len(p) for p in topo.gpu_ports.values())
    held = len(compiled.allocation.port_owner)
    for a in sorted(compiled.allocation.tenants, key=lambda a: a.tenant.id):
        detail = (
            f"{a.tenant.isolation}, {'lossless' if a.tenant.lossless else 'lossy'}, {len(a.leaves)} leaf(s)"
        )
        rows.append(CapacityRow(a.name, "tenant GPUs", len(a.ports), None, True, detail))
    rows.append(
        CapacityRow(
            "fabric", "GPUs held", held, total, held <= total, f"{len(compiled.allocation.tenants)} tenants"
        )
    )
    rows.append(
        CapacityRow("fabric", "GPUs free", total - held, total, True, "unassigned GPU ports (shut down)")
    )


def _spine_tier(
    compiled: Compiled, rows: list[CapacityRow], uplinks: dict[str, int], downlinks: dict[str, int]
) -> list[Violation]:
    """Each spine of a multi-pod fabric: leaf-facing bandwidth against super-spine-facing bandwidth
    (every fabric port is 400G), against the declared `pods.max_oversubscription`."""
    pods = compiled.fabric.settings.pods
    if pods is None:
        return []
    limit = pods.max_oversubscription
    out = []
    for spine in compiled.fabric.spines:
        gbps = switch_model(spine).port_gbps
        down = downlinks.get(spine.name, 0) * gbps
        up = uplinks.get(spine.name, 0) * gbps
        ratio = down / up if up else float(down)
        ok = bool(up) and ratio <= limit
        rows.append(
            CapacityRow(
                spine.name,
                "oversubscription to super-spines",
                round(ratio, 3),
                limit,
                ok,
                f"{down}G down / {up}G up",
            )
        )
        if not ok:
            out.append(
                Violation(
                    "oversubscription",
                    spine.name,
                    "super-spine uplinks",
                    None,
                    f"({downlinks.get(spine.name, 0)} leaf links, {uplinks.get(spine.name, 0)} super-spine links)",
                    f"{down}G from leaves share {up}G towards the super-spines ({ratio:.2f}:1, design allows "
                    f"{limit:g}:1): traffic between pods congests and PFC spreads it",
                )
            )
    return out


def _headroom_budget(
    compiled: Compiled, sw: Switch, cfg: SwitchConfig, rows: list[CapacityRow]
) -> list[Violation]:
    """The PFC headroom the switch reserves, as its config states it (cells, or the cable length the
    NOS sizes it for, by the model's figures), against the packet buffer its model's datasheet
    gives: headroom is carved out of that buffer before any shared pool, so more headroom than
    buffer means the switch cannot reserve it. Models without a published buffer get no row."""
    model = switch_model(sw)
    policy = compiled.fabric.settings.qos
    figures = figures_for(model, policy.buffer)
    if model.buffer_mb is None or figures is None:
        return []
    intent = compiled.intents.get(sw.name)
    speeds = {i.name: i.speed_gbps for i in intent.interfaces if i.speed_gbps} if intent else {}
    reserved = ports = 0
    for intf in cfg.interfaces.values():
        for priority in intf.qos.headroom:
            cells = intf.qos.headroom_cells.get(priority)
            if cells is not None:
                size: int | None = cells.value * figures.cell_bytes
            elif intf.qos.cable_m is not None:
                gbps = speeds.get(intf.name, model.port_gbps)
                size = lossless_port(
                    model,
                    policy.buffer,
                    gbps,
                    intf.qos.cable_m.value,
                    policy.mtu,
                    policy.roce_mtu,
                    vxlan=True,
                )
            else:
                continue
            reserved += size or 0
            ports += 1
    if not ports:
        return []
    buffer = model.buffer_mb * 1_000_000
    used = round(reserved / 1_000_000, 1)
    source = model.sources.get("buffer_mb", "")
    ok = reserved <= buffer
    rows.append(
        CapacityRow(
            sw.name, "PFC headroom MB", used, model.buffer_mb, ok, f"{ports} lossless port(s), {model.name}"
        )
    )
    if ok:
        return []
    return [
        Violation(
            "budget",
            sw.name,
            "PFC headroom",
            None,
            f"({ports} lossless ports, {reserved:,} bytes of headroom)",
            f"{sw.name} reserves {used} MB of PFC headroom on {ports} lossless port(s), more than the "
            f"{model.buffer_mb:g} MB packet buffer of the {model.name} ({source}): the switch cannot hold "
            "what arrives after XOFF on every port at once",
        )
    ]
