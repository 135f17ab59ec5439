"""Lossless consistency: every hop GPU -> leaf -> spine -> leaf -> GPU treats RoCE the same way
(in a multi-pod fabric also GPU -> leaf -> spine -> super-spine -> spine -> leaf -> GPU across pods).

The reference is the fabric's QoS policy as each switch's intent states it (DSCP -> class, the
no-drop priority, the CNP and protocol classes, the RoCE MTU). Each switch's DSCP and queue maps
are checked once, and every VTEP's tunnel QoS against what its switch model does (a line, or the
model's documented default, platforms/base.py TunnelQos); each port on a path (both ends of every
fabric link, every GPU port of a lossless tenant, the gateways of lossless l2 tenants) is checked
for trust, PFC no-drop on exactly that priority with headroom, the PFC watchdog, ECN on that
queue, strict CNP and protocol queues, and its size: the IP MTU of a routed hop and the frame
limit of every hop must carry a full RoCE packet (plus VXLAN on fabric links). Both ends of every
fabric link, whatever their NOS, must carry the same no-drop priority and DSCP map and be sized
for the link's cable and speed. Since every hop must equal the policy, any two hops agree: a
mismatch anywhere names the switch, port and line, with a GPU-to-GPU path that crosses it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Literal

from fabricctl.compile.buffers import figures_for, link_sizing, lossless_port
from fabricctl.compile.build import Compiled
from fabricctl.compile.intent import Interface as IntentInterface
from fabricctl.compile.intent import Qos
from fabricctl.compile.lossless import qos_intent
from fabricctl.compile.topology import FabricLink, GpuPort, switch_model
from fabricctl.compile.view import read_fabric
from fabricctl.config.readback import (
    TUNNEL_CLASS,
    TUNNEL_ECN,
    TUNNEL_MARKING,
    At,
    Interface,
    Src,
    SwitchConfig,
)
from fabricctl.model.fabric import ETHERNET_OVERHEAD, ROCE_HEADERS, VXLAN_OVERHEAD
from fabricctl.platforms.base import TunnelStep
from fabricctl.verify.report import Violation


class Paths:
    """Sample GPU-to-GPU paths through a given port, so each witness names a real path."""

    def __init__(self, compiled: Compiled) -> None:
        topo = compiled.topology
        self.gpu_ports: dict[str, list[GpuPort]] = topo.gpu_ports
        self.link_of: dict[tuple[str, str], FabricLink] = {}
        self.first_link: dict[tuple[str, str], FabricLink] = {}
        self.any_link: dict[str, FabricLink] = {}
        self.down: dict[str, FabricLink] = {}  # a spine's first leaf link
        self.via_super: dict[str, list[FabricLink]] = {}  # a super-spine's links, one per spine
        self.by_spine: dict[str, list[FabricLink]] = {}  # a spine's links, one per GPU leaf
        gpu_leaves = {leaf for leaf, ports in topo.gpu_ports.items() if ports}
        for ln in topo.links:
            self.link_of[(ln.leaf, ln.leaf_port)] = ln
            self.link_of[(ln.spine, ln.spine_port)] = ln
            self.first_link.setdefault((ln.leaf, ln.spine), ln)
            first = self.first_link[(ln.leaf, ln.spine)] is ln
            if ln.tier == "spine-superspine":
                if first:
                    self.via_super.setdefault(ln.spine, []).append(ln)
                continue
            if first and ln.leaf in gpu_leaves:
                self.by_spine.setdefault(ln.spine, []).append(ln)
            self.down.setdefault(ln.spine, ln)
            self.any_link.setdefault(ln.leaf, ln)
            self.any_link.setdefault(ln.spine, ln)
        for ln in topo.links:
            self.any_link.setdefault(ln.spine, ln)  # super-spines: their first link
        self.leaves = [leaf for leaf, ports in topo.gpu_ports.items() if ports]

    def _gpu(self, leaf: str, gp: GpuPort | None = None) -> str:
        gp = gp or next(iter(self.gpu_ports.get(leaf, [])), None)
        return f"{gp.server} nic{gp.nic} ({leaf} {gp.name})" if gp else f"a GPU on {leaf}"

    def _across(self, ln: FabricLink) -> str:
        """A path from a GPU in the spine's pod over `ln` (spine -> super-spine) to another pod."""
        first = self.down.get(ln.leaf)
        other = next((x for x in self.via_super.get(ln.spine, []) if x.leaf != ln.leaf), None)
        back = self.down.get(other.leaf) if other else None
        if first is None or other is None or back is None:
            return f"{ln.leaf} {ln.leaf_port} -> {ln.spine} {ln.spine_port}"
        hops = [
            self._gpu(first.leaf),
            f"{first.leaf} {first.leaf_port}",
            f"{first.spine} {first.spine_port}",
            f"{ln.leaf} {ln.leaf_port}",
            f"{ln.spine} {ln.spine_port}",
            f"{other.spine} {other.spine_port}",
            f"{other.leaf} {other.leaf_port}",
            f"{back.spine} {back.spine_port}",
            f"{back.leaf} {back.leaf_port}",
            self._gpu(back.leaf),
        ]
        return " -> ".join(hops)

    def _via(self, ln: FabricLink, start: GpuPort | None = None) -> str:
        if ln.tier == "spine-superspine":
            return self._across(ln)
        hops = [self._gpu(ln.leaf, start), f"{ln.leaf} {ln.leaf_port}", f"{ln.spine} {ln.spine_port}"]
        back = next((x for x in self.by_spine.get(ln.spine, []) if x.leaf != ln.leaf), None)
        far = back.leaf if back else None
        if far and back:
            hops += [f"{back.spine} {back.spine_port}", f"{back.leaf} {back.leaf_port}", self._gpu(far)]
        return " -> ".join(hops)

    def through(self, switch: str, port: str | None) -> str:
        """A path crossing `port` of `switch` (any port of it when None)."""
        ln = self.link_of.get((switch, port)) if port else None
        if ln is not None:
            return self._via(ln)
        gp = next((g for g in self.gpu_ports.get(switch, []) if g.name == port), None)
        ln = self.any_link.get(switch)
        if ln is None:
            return f"{switch} {port or ''}".strip()
        return self._via(ln, gp)


def check_lossless(
    compiled: Compiled, parsed: dict[str, SwitchConfig]
) -> tuple[list[Violation], list[str], list[str]]:
    """Every lossless-relevant port against the policy, every switch's priority maps, every VTEP's
    tunnel QoS and both ends of every fabric link; also what the proof rests on: the assumptions
    (behaviour no document states) and the notes (each model's documented behaviour it relies on,
    and the links it proved across NOSes)."""
    paths = Paths(compiled)
    out: list[Violation] = []
    assumed: dict[tuple[str, str], list[str]] = {}  # (VTEP | switch, what is taken as given) -> where
    noted: dict[tuple[str, str], list[str]] = {}  # (VTEP, documented behaviour) -> where
    ports: dict[str, list[tuple[str, str]]] = {}  # switch -> [(port, "fabric" | "routed" | "bridged")]
    for ln in compiled.topology.links:
        ports.setdefault(ln.leaf, []).append((ln.leaf_port, "fabric"))
        ports.setdefault(ln.spine, []).append((ln.spine_port, "fabric"))
    for (leaf, name), (a, _pa) in compiled.allocation.port_owner.items():
        if a.tenant.lossless:
            ports.setdefault(leaf, []).append((name, "routed" if a.tenant.isolation == "l3" else "bridged"))
    outer: dict[
        int, tuple[int, str]
    ] = {}  # outer DSCP a VTEP derives from a class -> (class, 'VTEP (model)')
    for sw, cfg in parsed.items():
        qos = _policy(compiled, sw)
        if qos is None:
            continue
        out += _dscp_map(cfg, qos, paths)
        out += _tunnel(compiled, cfg, qos, paths, assumed, noted, outer)
        _fabric_figures(compiled, cfg, assumed)
        gateways: set[str] = set()  # the segments of lossless bridged ports (their gateways route)
        intent = compiled.intents.get(sw)
        sized = {i.name: i for i in intent.interfaces if i.lossless} if intent is not None else {}
        for name, kind in ports.get(sw, []):
            intf = cfg.interfaces.get(name)
            if intf is None:
                out.append(
                    Violation(
                        "port-missing",
                        sw,
                        name,
                        None,
                        f"(no interface {name})",
                        f"the lossless class on {paths.through(sw, name)} cannot be proven",
                    )
                )
                continue
            out += _port(cfg, intf, qos, paths)
            out += _size(cfg, intf, qos, kind, partial(paths.through, sw, name))
            if kind != "fabric" and name in sized:  # fabric links: _link_ends sizes both ends
                out += _headroom(cfg, intf, qos, sized[name], paths, assumed)
            if kind == "bridged" and intf.segment is not None:
                gateways.add(intf.segment.value)
        routed = [  # routed RoCE leaves through its VRF's L3VNI interface, and an l2 tenant's gateway
            i
            for vrf in _lossless_vrfs(compiled, sw)
            for i in cfg.interfaces.values()
            if i.l3vni and i.vrf and i.vrf.value == vrf
        ]
        for seg_name in sorted(gateways):
            seg = cfg.segments.get(seg_name)
            svi = cfg.interfaces.get(seg.gateway.value) if seg and seg.gateway else None
            if svi is not None:
                routed.append(svi)
        for intf in routed:
            out += _size(
                cfg,
                intf,
                qos,
                "gateway",
                partial(_routed_by, paths, sw, intf.name),
            )
    out += _outer_dscp(parsed, outer, paths)
    ends, crossed = _link_ends(compiled, parsed, paths, assumed)
    out += ends
    return out, _listed(assumed), _listed(noted) + crossed


def _listed(found: dict[tuple[str, str], list[str]]) -> list[str]:
    """'4 VTEPs (leaf1, leaf2, leaf3, ...): what', one line per (noun, what)."""
    return [
        f"{len(names)} {noun}{'s' if len(names) > 1 and noun == 'VTEP' else 'es' if len(names) > 1 else ''} "
        f"({', '.join(sorted(names)[:3])}{', ...' if len(names) > 3 else ''}): {what}"
        for (noun, what), names in sorted((key, set(names)) for key, names in found.items())
    ]


def _fabric_figures(compiled: Compiled, cfg: SwitchConfig, assumed: dict[tuple[str, str], list[str]]) -> None:
    """A switch whose headroom lines are sized from fabric.yaml `qos.buffer` (its vendor publishes
    no figures for the model): the headroom proof rests on those figures, so the report lists them."""
    sw = compiled.fabric.switch(cfg.name)
    if sw is None or not any(i.qos.headroom_cells for i in cfg.interfaces.values()):
        return
    model = switch_model(sw)
    figures = figures_for(model, compiled.fabric.settings.qos.buffer)
    if model.buffer is not None or figures is None:
        return
    what = (
        f"the PFC headroom is sized from fabric.yaml qos.buffer (cell {figures.cell_bytes} bytes, pipeline "
        f"latency {figures.pipeline_latency_bytes:g} bytes, MAC/PHY delay {figures.mac_phy_delay_bytes:g} "
        f"bytes), figures no vendor document states for the {model.name}"
    )
    assumed.setdefault(("switch", what), []).append(cfg.name)


#: The NOS reserves PFC headroom itself where no line sizes it: nothing to compare with the bytes in flight.
_NOS_HEADROOM = (
    "the NOS sizes PFC headroom itself (no line sets a size or a cable length), so it is not compared "
    "with the bytes in flight"
)


def _sized_for(
    intf: Interface, qos: Qos, need: int | None, gbps: int, meters: int
) -> tuple[Src, str] | Literal[False] | None:
    """Whether a port's headroom covers what arrives after XOFF at `gbps` on a `meters` cable:
    None when it does, (line, what is short) when not, False when no line sizes it (the NOS does)."""
    lc = qos.lossless_class
    if (cells := intf.qos.headroom_cells.get(lc)) is not None:
        have = cells.value * (qos.cell_bytes or 0)
        if need is None or have >= need:
            return None
        return cells.src, (
            f"{cells.value} cells x {qos.cell_bytes} bytes = {have:,} bytes of headroom, but a {gbps}G port "
            f"on a {meters} m cable takes {need:,} bytes after it sends XOFF"
        )
    if (cable := intf.qos.cable_m) is not None:
        if cable.value >= meters:
            return None
        return cable.src, (
            f"the switch sizes the headroom for a {cable.value} m cable, but the cabling plan gives this "
            f"{gbps}G link {meters} m"
        )
    return False


def _headroom(
    cfg: SwitchConfig,
    intf: Interface,
    qos: Qos,
    planned: IntentInterface,
    paths: Paths,
    assumed: dict[tuple[str, str], list[str]],
) -> list[Violation]:
    """The headroom a GPU port reserves covers what arrives after XOFF at its speed and cable."""
    if qos.lossless_class not in intf.qos.headroom or planned.speed_gbps is None or planned.cable_m is None:
        return []  # a missing headroom line is the `headroom` check of _port
    short = _sized_for(intf, qos, planned.headroom, planned.speed_gbps, planned.cable_m)
    if short is False:
        assumed.setdefault(("switch", _NOS_HEADROOM), []).append(cfg.name)
        return []
    if short is None:
        return []
    src, what = short
    return [
        Violation(
            "headroom",
            cfg.name,
            intf.name,
            src.line or None,
            src.text,
            f"{what} on path {paths.through(cfg.name, intf.name)} (docs/verify.md): the rest of the frames in "
            "flight are dropped",
        )
    ]


def _link_ends(
    compiled: Compiled,
    parsed: dict[str, SwitchConfig],
    paths: Paths,
    assumed: dict[tuple[str, str], list[str]],
) -> tuple[list[Violation], list[str]]:
    """Both ends of every fabric link, whatever their NOS, carry the same lossless class: the same
    PFC no-drop priorities, RoCE's DSCP in the same class, and headroom sized for the link (its
    speed and the cable the cabling plan gives it); where both run one NOS, also the same ECN
    thresholds on the lossless queue and PFC watchdog timers. Returns the violations, each naming
    both ends, and one line per pair of NOSes that meet on a link, naming a link proven."""
    fabric = compiled.fabric
    view = read_fabric(fabric)  # read once: every link below looks its ends up
    out = []
    crossed: dict[tuple[str, str], tuple[int, str]] = {}
    for ln in compiled.topology.links:
        a, b = parsed.get(ln.leaf), parsed.get(ln.spine)
        qos = _policy(compiled, ln.leaf)
        far_qos = _policy(compiled, ln.spine)
        if a is None or b is None or qos is None or far_qos is None:
            continue
        pa, pb = a.interfaces.get(ln.leaf_port), b.interfaces.get(ln.spine_port)
        if pa is None or pb is None:
            continue
        ends = f"{ln.leaf} {ln.leaf_port} <-> {ln.spine} {ln.spine_port}"
        lc = qos.lossless_class
        roce = next(d for d, c in sorted(qos.dscp_to_class.items()) if c == lc)
        # The no-drop priority and RoCE's class are the policy's at each end (_port, _dscp_map: a
        # difference is reported there, on the line); here they are compared to name the link.
        alike = _value(_at_set(pa.qos.no_drop)) == _value(_at_set(pb.qos.no_drop)) and (
            _value(a.dscp_map.get(roce)) == _value(b.dscp_map.get(roce)) == lc
        )
        mismatched = _same_nos_ends(ln, a, b, pa, pb, lc, ends, paths)
        gbps, meters = link_sizing(view, ln)
        ends_qos = ((ln.leaf, pa, qos), (ln.spine, pb, far_qos))
        short = _ends_headroom(compiled, ends_qos, gbps, meters, ends, paths, assumed)
        out += mismatched + short
        broken = not alike or bool(mismatched) or bool(short)
        if a.platform != b.platform and not broken:  # a link of two NOSes proven alike: name it
            low, high = sorted((a.platform, b.platform))
            key = (low, high)
            count, sample = crossed.get(key, (0, ""))
            proven = (
                f"{ends}: no-drop priority {lc}, DSCP {roce} -> {lc} at both ends, headroom for {meters} m at "
                f"{gbps}G"
            )
            crossed[key] = (count + 1, sample or proven)
    notes = [
        f"{count} fabric link(s) between {x} and {y} proven alike at both ends, e.g. {sample}"
        for (x, y), (count, sample) in sorted(crossed.items())
    ]
    return out, notes


def _same_nos_ends(
    ln: FabricLink,
    a: SwitchConfig,
    b: SwitchConfig,
    pa: Interface,
    pb: Interface,
    lc: int,
    ends: str,
    paths: Paths,
) -> list[Violation]:
    """Where both ends of a link run one NOS: the same ECN thresholds on the lossless queue, PFC
    watchdog timers and headroom (reported at the spine's end)."""
    out: list[Violation] = []
    pairs: list[tuple[str, tuple[object, Src] | None, tuple[object, Src] | None]] = []
    if a.platform == b.platform:
        pairs += [
            (f"ECN on queue {lc}", pa.qos.ecn_values.get(lc), pb.qos.ecn_values.get(lc)),
            ("PFC watchdog", a.watchdog_timers, b.watchdog_timers),
        ]
        pairs.append(("PFC headroom", pa.qos.headroom_cells.get(lc), pb.qos.headroom_cells.get(lc)))
    for what, here, there in pairs:
        if here is None or there is None or here[0] == there[0]:
            continue
        src = there[1]
        out.append(
            Violation(
                "lossless-ends",
                ln.spine,
                ln.spine_port,
                src.line or None,
                src.text,
                f"{what} is '{there[0]}' here but '{here[0]}' at the other end of the link "
                f"{ends} (line {here[1].line}) on path {paths.through(ln.spine, ln.spine_port)}: "
                "the two ends of a link pause, mark and recover the lossless class differently",
            )
        )
    return out


def _ends_headroom(
    compiled: Compiled,
    ends_qos: tuple[tuple[str, Interface, Qos], ...],
    gbps: int,
    meters: int,
    ends: str,
    paths: Paths,
    assumed: dict[tuple[str, str], list[str]],
) -> list[Violation]:
    """Each end's PFC headroom holds what is in flight on this link (its speed and cable); an
    end whose NOS sizes it is noted in `assumed`."""
    fabric = compiled.fabric
    policy = fabric.settings.qos
    out: list[Violation] = []
    for name, port, end_qos in ends_qos:
        sw = fabric.switch(name)
        if sw is None or end_qos.lossless_class not in port.qos.headroom:
            continue
        model = switch_model(sw)
        need = lossless_port(model, policy.buffer, gbps, meters, end_qos.mtu, end_qos.roce_mtu, vxlan=True)
        short = _sized_for(port, end_qos, need, gbps, meters)
        if short is False:
            assumed.setdefault(("switch", _NOS_HEADROOM), []).append(name)
        elif short is not None:
            src, what = short
            out.append(
                Violation(
                    "headroom",
                    name,
                    port.name,
                    src.line or None,
                    src.text,
                    f"{what}: the link {ends} is sized for {meters} m at {gbps}G at both ends "
                    f"(docs/verify.md), on path {paths.through(name, port.name)}: the rest of the frames in "
                    "flight are dropped",
                )
            )
    return out


def _at_set(found: dict[int, Src]) -> tuple[str, Src] | None:
    """A port's no-drop priorities as one comparable value, with the line of the first."""
    if not found:
        return None
    return ",".join(map(str, sorted(found))), found[min(found)]


def _value(at: tuple[object, Src] | None) -> object:
    return None if at is None else at[0]


def _lossless_vrfs(compiled: Compiled, switch: str) -> list[str]:
    """The VRFs of lossless tenants on a leaf."""
    return [a.vrf for a in compiled.allocation.by_leaf.get(switch, []) if a.tenant.lossless]


def _needed_ip(qos: Qos, kind: str) -> int:
    """The IP MTU a hop needs to carry a full RoCE packet: VXLAN-encapsulated on fabric links."""
    packet = qos.roce_mtu + ROCE_HEADERS
    return packet + VXLAN_OVERHEAD if kind == "fabric" else packet


def _routed_by(paths: Paths, sw: str, gateway: str) -> str:
    return f"{paths.through(sw, None)} (routed by {gateway})"


def _size(
    cfg: SwitchConfig, intf: Interface, qos: Qos, kind: str, path: Callable[[], str]
) -> list[Violation]:
    """IP MTU on routed hops and the frame limit on every hop, against a full RoCE packet (`path`
    is only worked out for a violation: tens of thousands of ports pass)."""
    out = []
    ip = _needed_ip(qos, kind)
    what = f"a {qos.roce_mtu}-byte RoCE payload needs {ip} bytes of IP" + (
        " with VXLAN" if kind == "fabric" else ""
    )
    if kind != "bridged":
        mtu = cfg.ip_mtu(intf)
        if mtu.value < ip:
            out.append(_size_violation(cfg, intf, "mtu", mtu.src, f"IP MTU {mtu.value}", what, path()))
    frame = cfg.frame_limit(intf)
    if frame is not None and frame.value < ip + ETHERNET_OVERHEAD:
        need = f"{what}, so frames of {ip + ETHERNET_OVERHEAD} bytes"
        out.append(_size_violation(cfg, intf, "frame", frame.src, f"frame limit {frame.value}", need, path()))
    return out


def _size_violation(
    cfg: SwitchConfig, intf: Interface, check: str, src: Src, got: str, need: str, path: str
) -> Violation:
    if not src.line:  # no line sets it: the platform default is in force, shown on the interface
        src, got = intf.src, f"{got} {src.text}"
    return Violation(
        check,
        cfg.name,
        intf.name,
        src.line,
        src.text,
        f"{got} on path {path}: {need}; larger packets are dropped",
    )


#: A RoCE packet's way through a VXLAN tunnel, step by step: (tunnel QoS key, the model's step,
#: violation, where it happens, what the step must do, what goes wrong without it).
_TUNNEL_STEPS = (
    (
        TUNNEL_MARKING,
        "marking",
        "tunnel-encap",
        "encapsulation",
        "the outer header carries the lossless class (the inner DSCP, or one every hop maps back)",
        "spines queue VXLAN by the outer DSCP, so RoCE leaves the no-drop class on every spine and "
        "is dropped under congestion",
    ),
    (
        TUNNEL_ECN,
        "ecn",
        "tunnel-ecn",
        "encapsulation and decapsulation",
        "ECN is copied into the outer header and a CE mark back into the inner one (RFC 6040 section 4)",
        "a spine cannot mark a Not-ECT outer header (its WRED drops instead) and a CE mark made in the "
        "fabric never reaches the receiver, so DCQCN never slows the sender",
    ),
    (
        TUNNEL_CLASS,
        "decap",
        "tunnel-trust",
        "decapsulation",
        "decapsulated RoCE keeps its inner DSCP and is classified into the lossless class",
        "PFC does not pause it on the way to the GPU and it can be dropped",
    ),
)

#: What a documented default does, for the notes (platforms/base.py TunnelMode).
_DOCUMENTED = {
    "copy": "at encapsulation the outer DSCP is the inner one by default",
    "rfc6040": "ECN is carried per RFC 6040 by default (outer ECN from the inner at encapsulation, a CE "
    "mark back into an ECT inner at decapsulation)",
    "inner": "decapsulated traffic keeps its inner DSCP and class by default",
    "compatibility": "the outer header is Not-ECT (RFC 6040 section 4.1 compatibility mode): no switch "
    "inside the fabric marks ECN on RoCE, PFC alone holds the lossless class there and the egress "
    "leaf marks the inner header",
}


def _tunnel(
    compiled: Compiled,
    cfg: SwitchConfig,
    qos: Qos,
    paths: Paths,
    assumed: dict[tuple[str, str], list[str]],
    noted: dict[tuple[str, str], list[str]],
    outer: dict[int, tuple[int, str]],
) -> list[Violation]:
    """Follow RoCE through this VTEP's tunnels: inner DSCP -> outer DSCP at encapsulation (the
    spines' DSCP maps then queue it) -> ECN both ways -> class at decapsulation. Each step is a
    line or the switch model's documented default: a default that breaks the class is a violation,
    one the model documents is a note, one no document states an assumption (both listed)."""
    intent = compiled.intents.get(cfg.name)
    sw = compiled.fabric.switch(cfg.name)
    vtep = intent.vtep is not None if intent is not None else bool(sw and sw.role == "leaf")
    if not vtep or sw is None:
        return []
    model = switch_model(sw)
    out = []
    roce = next(d for d, c in sorted(qos.dscp_to_class.items()) if c == qos.lossless_class)
    for key, attr, check, where, must, broken in _TUNNEL_STEPS:
        if key in cfg.tunnel_qos:
            continue
        step: TunnelStep = getattr(model.tunnel_qos, attr)
        about = f"{model.name}: {{}} ({step.source})"
        if step.unstated:
            assumed.setdefault(
                ("VTEP", f"{step.unstated}, though no vendor document states it for the {model.name}"), []
            ).append(cfg.name)
        if step.mode == "unknown":
            what = f"{must}, though no vendor document states it for the {model.name}"
            assumed.setdefault(("VTEP", what), []).append(cfg.name)
            continue
        if step.mode in _DOCUMENTED:
            noted.setdefault(("VTEP", about.format(_DOCUMENTED[step.mode])), []).append(cfg.name)
            continue
        if step.mode == "from-class":
            for cls in sorted(set(qos.dscp_to_class.values())):
                outer.setdefault(8 * cls, (cls, f"{cfg.name} ({model.name})"))
            derived = ", ".join(f"class {c} -> DSCP {8 * c}" for c in sorted(set(qos.dscp_to_class.values())))
            noted.setdefault(
                (
                    "VTEP",
                    about.format(f"at encapsulation the outer DSCP is derived from the class ({derived})"),
                ),
                [],
            ).append(cfg.name)
            continue
        # "line": the model sets it with a line, and the line is missing
        walk = f"RoCE (DSCP {roce}, class {qos.lossless_class}) on path {paths.through(cfg.name, None)}"
        out.append(
            Violation(
                check,
                cfg.name,
                "VXLAN",
                None,
                f"(no line for: {must})",
                f"{walk}: at {where} on {cfg.name} the {model.name} needs the line its vendor documents "
                f"({step.source}); without it {broken}",
            )
        )
    return out


def _outer_dscp(
    parsed: dict[str, SwitchConfig], outer: dict[int, tuple[int, str]], paths: Paths
) -> list[Violation]:
    """Where a VTEP derives the outer DSCP from the class, every switch a tunnel crosses (and the
    far VTEP's uplink, which pauses by it) must map that DSCP back into the same class."""
    out = []
    for sw, cfg in sorted(parsed.items()):
        for dscp, (cls, vtep) in sorted(outer.items()):
            at = cfg.dscp_map.get(dscp)
            if at is not None and at.value == cls:
                continue
            out.append(
                _dscp_violation(
                    "tunnel-encap",
                    sw,
                    dscp,
                    at,
                    f"VXLAN packets of class {cls} leave {vtep} with outer DSCP {dscp} (derived from the class), "
                    f"but {sw} puts DSCP {dscp} in {_class(at)}, on path {paths.through(sw, None)}: the class is "
                    "lost inside the tunnel",
                )
            )
    return out


def _class(at: At[int] | None) -> str:
    return f"class {at.value}" if at else "the default class"


def _dscp_violation(check: str, switch: str, dscp: int, at: At[int] | None, why: str) -> Violation:
    """A DSCP that lands in the wrong class on `switch`, named by its map line (or its absence)."""
    line, text = ((at.src.line or None), at.src.text) if at else (None, f"(no map for DSCP {dscp})")
    return Violation(check, switch, f"DSCP {dscp}", line, text, why)


def _policy(compiled: Compiled, switch: str) -> Qos | None:
    intent = compiled.intents.get(switch)
    if intent is not None:
        return intent.qos
    sw = compiled.fabric.switch(switch)
    return qos_intent(compiled.fabric.settings.qos, sw, switch_model(sw)) if sw else None


def _dscp_map(cfg: SwitchConfig, qos: Qos, paths: Paths) -> list[Violation]:
    out = []
    for dscp, cls in sorted(qos.dscp_to_class.items()):
        at = cfg.dscp_map.get(dscp)
        what = "RoCE" if cls == qos.lossless_class else "CNP"
        if at is None or at.value != cls:
            out.append(
                _dscp_violation(
                    "dscp-map",
                    cfg.name,
                    dscp,
                    at,
                    f"{what} DSCP {dscp} is {_class(at)} on {cfg.name} but class {cls} on every other hop, on path "
                    f"{paths.through(cfg.name, None)}: PFC pauses priority {qos.lossless_class} while the packet "
                    "is elsewhere, so it can be dropped",
                )
            )
    roles = {
        qos.default_class: "best-effort traffic is weighted",
        qos.lossless_class: "ECN and the lossless weight are set",
        qos.cnp_class: "CNPs get strict priority",
    }
    if qos.protocol_class is not None:
        roles[qos.protocol_class] = "network control gets strict priority"
    for cls, why in roles.items():
        if cfg.queue_of(cls) != cls:
            at = cfg.class_queue[cls]
            out.append(
                Violation(
                    "queue-map",
                    cfg.name,
                    f"class {cls}",
                    at.src.line or None,
                    at.src.text,
                    f"class {cls} leaves {cfg.name} from queue {at.value}, not queue {cls} where {why}",
                )
            )
    return out


# long: a table of checks: one per QoS setting a lossless port needs, each with the reason it matters
def _port(cfg: SwitchConfig, intf: Interface, qos: Qos, paths: Paths) -> list[Violation]:
    q = intf.qos
    sw, name = cfg.name, intf.name
    lc, cnp = qos.lossless_class, qos.cnp_class
    problems: list[tuple[str, Src | None, str, str]] = []
    if q.trust_dscp is None:
        problems.append(
            (
                "trust",
                None,
                "(no 'qos trust dscp')",
                "the port ignores DSCP, so RoCE is not classified into the lossless class",
            )
        )
    if q.pfc_enabled is None or lc not in q.no_drop:
        problems.append(
            (
                "pfc",
                q.pfc_enabled,
                f"(no PFC no-drop on priority {lc})",
                f"priority {lc} is not no-drop here, so RoCE is dropped under congestion",
            )
        )
    elif set(q.no_drop) != {lc}:
        extra = sorted(set(q.no_drop) - {lc})
        problems.append(
            ("pfc", q.no_drop[extra[0]], "", f"PFC no-drop also on priority {extra}, unlike every other hop")
        )
    if q.watchdog is None:
        problems.append(
            (
                "pfc-watchdog",
                None,
                "(no PFC watchdog/deadlock detection)",
                "a PFC storm or deadlock on this port is never broken",
            )
        )
    if lc not in q.ecn_queues:
        problems.append(
            (
                "ecn",
                q.profile,
                f"(no ECN on queue {lc})",
                f"queue {lc} never marks ECN, so DCQCN cannot slow senders before PFC fires",
            )
        )
    if cnp not in q.strict_queues:
        problems.append(
            (
                "cnp-strict",
                q.profile,
                f"(queue {cnp} not strict priority)",
                f"CNPs (class {cnp}) wait behind bulk traffic, so congestion notification arrives late",
            )
        )
    if qos.protocol_class is not None and qos.protocol_class not in q.strict_queues:
        problems.append(
            (
                "protocol-strict",
                q.profile,
                f"(queue {qos.protocol_class} not strict priority)",
                f"network control (class {qos.protocol_class}: BGP, BFD, LLDP) waits behind a paused or full queue",
            )
        )
    if lc not in q.headroom:
        problems.append(
            (
                "headroom",
                q.pfc_enabled,
                f"(no PFC headroom for priority {lc})",
                "frames in flight after a PAUSE have no buffer to land in, so they are dropped",
            )
        )
    if not problems:
        return []
    path = paths.through(sw, name)
    return [
        Violation(
            check,
            sw,
            name,
            src.line if src else intf.src.line,
            src.text if src else intf.src.text,
            f"{'' if src else f'missing {missing}; '}on path {path}: {why}",
        )
        for check, src, missing, why in problems
    ]
