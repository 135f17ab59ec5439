"""Lossless consistency: every hop GPU -> leaf -> spine -> leaf -> GPU treats RoCE the same way
(in a multi-pod fabric also GPU -> leaf -> spine -> super-spine -> spine -> leaf -> GPU across pods).

The reference is the fabric's QoS policy as each switch's intent states it (DSCP -> class, the
no-drop priority, the CNP and protocol classes, the RoCE MTU). Each switch's DSCP and queue maps
are checked once, and every VTEP for trusting tunnelled traffic; each port on a path (both ends of
every fabric link, every GPU port of a lossless tenant, the gateways of lossless l2 tenants) is
checked for trust, PFC no-drop on exactly that priority with headroom, the PFC watchdog, ECN on
that queue, strict CNP and protocol queues, and its size: the IP MTU of a routed hop and the
frame limit of every hop must carry a full RoCE packet (plus VXLAN on fabric links). Since every hop must equal the policy, any two hops agree: a mismatch anywhere names the
switch, port and line, with a GPU-to-GPU path that crosses it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from fabricctl.compile.build import Compiled
from fabricctl.compile.intent import Interface as IntentInterface
from fabricctl.compile.intent import Qos
from fabricctl.compile.lossless import qos_intent
from fabricctl.compile.topology import FabricLink, GpuPort
from fabricctl.config.readback import TUNNEL_CLASS, TUNNEL_ECN, TUNNEL_MARKING, Interface, Src, SwitchConfig
from fabricctl.model.fabric import ETHERNET_OVERHEAD, ROCE_HEADERS, VXLAN_OVERHEAD
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


def check_lossless(compiled: Compiled, parsed: dict[str, SwitchConfig]) -> tuple[list[Violation], list[str]]:
    """Every lossless-relevant port against the policy, every switch's priority maps and every
    VTEP's tunnel QoS; also the assumptions the proof rests on (behaviour no document states)."""
    paths = Paths(compiled)
    out: list[Violation] = []
    assumed: dict[tuple[str, str], list[str]] = {}  # (VTEP | switch, what is taken as given) -> where
    ports: dict[str, list[tuple[str, str]]] = {}  # switch -> [(port, "fabric" | "routed" | "bridged")]
    for ln in compiled.topology.links:
        ports.setdefault(ln.leaf, []).append((ln.leaf_port, "fabric"))
        ports.setdefault(ln.spine, []).append((ln.spine_port, "fabric"))
    for (leaf, name), (a, _pa) in compiled.allocation.port_owner.items():
        if a.tenant.lossless:
            ports.setdefault(leaf, []).append((name, "routed" if a.tenant.isolation == "l3" else "bridged"))
    for sw, cfg in parsed.items():
        qos = _policy(compiled, sw)
        if qos is None:
            continue
        out += _dscp_map(cfg, qos, paths)
        out += _tunnel(compiled, cfg, qos, paths, assumed)
        gateways: set[str] = set()  # the segments of lossless bridged ports (their gateways route)
        intent = compiled.intents.get(sw)
        sized = {i.name: i for i in intent.interfaces if i.headroom} if intent is not None else {}
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
            if name in sized:
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
    out += _link_ends(compiled, parsed, paths)
    assumptions = [
        f"{len(names)} {noun}{'s' if len(names) > 1 and noun == 'VTEP' else 'es' if len(names) > 1 else ''} "
        f"({', '.join(sorted(names)[:3])}{', ...' if len(names) > 3 else ''}): {what}"
        for (noun, what), names in sorted((key, set(names)) for key, names in assumed.items())
    ]
    return out, assumptions


#: The NOS reserves PFC headroom itself where no line sizes it: nothing to compare with the bytes in flight.
_NOS_HEADROOM = (
    "the NOS sizes PFC headroom itself (no line sets it), so it is not compared with the bytes in flight"
)


def _headroom(
    cfg: SwitchConfig,
    intf: Interface,
    qos: Qos,
    planned: IntentInterface,
    paths: Paths,
    assumed: dict[tuple[str, str], list[str]],
) -> list[Violation]:
    """The headroom a port reserves covers what arrives after XOFF at its speed and cable length."""
    lc = qos.lossless_class
    at = intf.qos.headroom_cells.get(lc)
    if at is None:
        if lc in intf.qos.headroom:
            assumed.setdefault(("switch", _NOS_HEADROOM), []).append(cfg.name)
        return []  # a missing headroom line is the `headroom` check of _port
    have = at.value * qos.cell_bytes
    need = planned.headroom or 0
    if have >= need:
        return []
    return [
        Violation(
            "headroom",
            cfg.name,
            intf.name,
            at.src.line or None,
            at.src.text,
            f"{at.value} cells x {qos.cell_bytes} bytes = {have:,} bytes of headroom on path "
            f"{paths.through(cfg.name, intf.name)}, but a {planned.speed_gbps}G port with its cable "
            f"takes {need:,} bytes after it sends XOFF (fabric.yaml qos.buffer, docs/verify.md): the "
            "rest of the frames in flight are dropped",
        )
    ]


def _link_ends(compiled: Compiled, parsed: dict[str, SwitchConfig], paths: Paths) -> list[Violation]:
    """Both ends of every fabric link carry the same lossless values: headroom, ECN thresholds on
    the lossless queue and PFC watchdog timers (compared where both ends run the same NOS)."""
    out = []
    for ln in compiled.topology.links:
        a, b = parsed.get(ln.leaf), parsed.get(ln.spine)
        qos = _policy(compiled, ln.leaf)
        if a is None or b is None or qos is None or a.platform != b.platform:
            continue
        pa, pb = a.interfaces.get(ln.leaf_port), b.interfaces.get(ln.spine_port)
        if pa is None or pb is None:
            continue
        lc = qos.lossless_class
        pairs = (
            ("PFC headroom", pa.qos.headroom_cells.get(lc), pb.qos.headroom_cells.get(lc)),
            (f"ECN on queue {lc}", pa.qos.ecn_values.get(lc), pb.qos.ecn_values.get(lc)),
            ("PFC watchdog", a.watchdog_timers, b.watchdog_timers),
        )
        for what, here, there in pairs:
            if here is None or there is None or here.value == there.value:
                continue
            out.append(
                Violation(
                    "lossless-ends",
                    ln.spine,
                    ln.spine_port,
                    there.src.line or None,
                    there.src.text,
                    f"{what} is '{there.value}' here but '{here.value}' at the other end of the link "
                    f"({ln.leaf} {ln.leaf_port}, line {here.src.line}) on path {paths.through(ln.spine, ln.spine_port)}: "
                    "the two ends of a link pause, mark and recover the lossless class differently",
                )
            )
    return out


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


#: A RoCE packet's way through a VXLAN tunnel, step by step: (tunnel QoS key, violation, where it
#: happens, what the step must do, what goes wrong without it).
_TUNNEL_STEPS = (
    (
        TUNNEL_MARKING,
        "tunnel-encap",
        "encapsulation",
        "the outer header carries the inner DSCP",
        "spines queue VXLAN by the outer DSCP, so RoCE leaves the no-drop class on every spine and "
        "is dropped under congestion",
    ),
    (
        TUNNEL_ECN,
        "tunnel-ecn",
        "encapsulation and decapsulation",
        "ECN is copied into the outer header and a CE mark back into the inner one (RFC 6040 section 4)",
        "a spine cannot mark a Not-ECT outer header (its WRED drops instead) and a CE mark made in the "
        "fabric never reaches the receiver, so DCQCN never slows the sender",
    ),
    (
        TUNNEL_CLASS,
        "tunnel-trust",
        "decapsulation",
        "decapsulated RoCE is classified into the lossless class",
        "PFC does not pause it on the way to the GPU and it can be dropped",
    ),
)


def _tunnel(
    compiled: Compiled, cfg: SwitchConfig, qos: Qos, paths: Paths, assumed: dict[tuple[str, str], list[str]]
) -> list[Violation]:
    """Follow RoCE through this VTEP's tunnels: inner DSCP -> outer DSCP at encapsulation (the
    spines' DSCP maps, checked on each spine, then queue it) -> ECN both ways -> class at
    decapsulation. A step no line sets is the NOS default (a violation when that breaks the
    class) or, where no document states the behaviour, an assumption the report lists."""
    intent = compiled.intents.get(cfg.name)
    sw = compiled.fabric.switch(cfg.name)
    vtep = intent.vtep is not None if intent is not None else bool(sw and sw.role == "leaf")
    if not vtep:
        return []
    out = []
    roce = next(d for d, c in sorted(qos.dscp_to_class.items()) if c == qos.lossless_class)
    for key, check, where, must, broken in _TUNNEL_STEPS:
        if key in cfg.tunnel_qos:
            continue
        if key in cfg.tunnel_assumed:
            assumed.setdefault(("VTEP", cfg.tunnel_assumed[key]), []).append(cfg.name)
            continue
        default = cfg.tunnel_defaults.get(key, "the NOS does not do it by default")
        walk = f"RoCE (DSCP {roce}, class {qos.lossless_class}) on path {paths.through(cfg.name, None)}"
        out.append(
            Violation(
                check,
                cfg.name,
                "VXLAN",
                None,
                f"(no line for: {must})",
                f"{walk}: at {where} on {cfg.name} {default}; {broken}",
            )
        )
    return out


def _policy(compiled: Compiled, switch: str) -> Qos | None:
    intent = compiled.intents.get(switch)
    if intent is not None:
        return intent.qos
    sw = compiled.fabric.switch(switch)
    return qos_intent(compiled.fabric.settings.qos, sw) if sw else None


def _dscp_map(cfg: SwitchConfig, qos: Qos, paths: Paths) -> list[Violation]:
    out = []
    for dscp, cls in sorted(qos.dscp_to_class.items()):
        at = cfg.dscp_map.get(dscp)
        what = "RoCE" if cls == qos.lossless_class else "CNP"
        if at is None or at.value != cls:
            got = f"class {at.value}" if at else "the default class"
            out.append(
                Violation(
                    "dscp-map",
                    cfg.name,
                    f"DSCP {dscp}",
                    (at.src.line or None) if at else None,
                    at.src.text if at else f"(no map for DSCP {dscp})",
                    f"{what} DSCP {dscp} is {got} on {cfg.name} but class {cls} on every other hop, on path "
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
