"""NVUE config (the YAML `nv config show -o yaml` prints, or the rendered file) -> the neutral
read-back model the proofs read. Each fact keeps its line and the `nv set` path that sets it.

What NVUE's RoCE profile sets is not in the config as separate objects: one `qos roce` object
stands for all of it, so the profile's documented values (qos.py) are recorded against that line.
"""

from __future__ import annotations

from ipaddress import IPv4Interface, IPv4Network

import yaml

from fabricctl.config.readback import (
    TUNNEL_CLASS,
    TUNNEL_MARKING,
    Acl,
    AclRule,
    At,
    Interface,
    PeerPolicy,
    PortQos,
    RtHolder,
    Segment,
    Src,
    SwitchConfig,
)
from fabricctl.errors import StageError
from fabricctl.platforms.nvue.qos import (
    ROCE_CNP_PRIORITY,
    ROCE_ECN_CLASSES,
    ROCE_ECN_MAX_BYTES,
    ROCE_ECN_MIN_BYTES,
    ROCE_LOSSLESS_PRIORITY,
    roce_switch_priority,
)
from fabricctl.platforms.nvue.tree import Obj, load, src

PLATFORM = "nvue"
#: Switch Port Attributes > MTU: ifupdown2 gives every interface MTU 9216 unless set.
DEFAULT_MTU = 9216
_LOSSLESS_MODES = ("lossless", "lossless-single-ipool")


class NvueConfigError(StageError):
    """Text that is not NVUE's YAML."""


def parse_nvue(switch: str, text: str) -> SwitchConfig:
    try:
        root = load(text)
    except yaml.YAMLError as exc:
        raise NvueConfigError(f"{switch}: config is not NVUE YAML ({exc})") from None
    # FRR gives routes with the GRACEFUL_SHUTDOWN community LOCAL_PREF 0 as a receiver, and
    # sends communities to every neighbor (`community-advertise` on by default).
    cfg = SwitchConfig(
        switch, PLATFORM, ip_mtu_default=DEFAULT_MTU, lines=text.count("\n"), honors_gshut=True
    )
    roce = _roce(cfg, root)
    _interfaces(cfg, root, roce)
    _segments(cfg, root)
    _vrfs(cfg, root)
    _acls(cfg, root)
    _bgp(cfg, root)
    _tunnel(cfg, root)
    return cfg


def _roce(cfg: SwitchConfig, root: Obj) -> Src | None:
    """The RoCE profile's maps (every DSCP to its switch priority, priority 3 to class 3 and 6 to 6,
    the rest to class 0) and the PFC watchdog timers; the profile's line, or None when off."""
    qos = root.obj("qos")
    wd = qos.obj("pfc-watchdog")
    if wd.values:
        timers = f"polling-interval {wd.text('polling-interval') or '100'} robustness {wd.text('robustness') or '3'}"
        cfg.watchdog_timers = At(timers, src(qos, "pfc-watchdog", "qos"))
    roce = qos.obj("roce")
    mode = roce.text("mode") or "lossless"
    if "roce" not in qos.values or roce.text("state") == "disabled" or mode not in _LOSSLESS_MODES:
        return None
    at = src(roce, "mode", "qos", "roce") if "mode" in roce.values else src(qos, "roce", "qos")
    for code in range(64):
        cfg.dscp_map[code] = At(roce_switch_priority(code), at)
    mapped = qos.obj("mapping", "default-global", "dscp")  # the site's own map, over the profile's
    for dscp in mapped.names():
        sp = mapped.obj(dscp).text("switch-priority")
        if dscp.isdigit() and sp is not None and sp.isdigit():
            where = ("qos", "mapping", "default-global", "dscp", dscp)
            cfg.dscp_map[int(dscp)] = At(int(sp), src(mapped.obj(dscp), "switch-priority", *where))
    for prio in range(8):
        cls = prio if prio in (ROCE_LOSSLESS_PRIORITY, ROCE_CNP_PRIORITY) else 0
        if cls != prio:
            cfg.class_queue[prio] = At(cls, at)
    return at


def _port_qos(roce: Src, watchdog: Src | None) -> PortQos:
    ecn = f"min-threshold {ROCE_ECN_MIN_BYTES} max-threshold {ROCE_ECN_MAX_BYTES} bytes"
    return PortQos(
        trust_dscp=roce,
        pfc_enabled=roce,
        no_drop={ROCE_LOSSLESS_PRIORITY: roce},
        watchdog=watchdog,
        ecn_queues={c: roce for c in ROCE_ECN_CLASSES},
        strict_queues={ROCE_CNP_PRIORITY: roce},
        headroom={ROCE_LOSSLESS_PRIORITY: roce},  # sized by the switch from the cable length
        ecn_values={c: At(ecn, roce) for c in ROCE_ECN_CLASSES},
        profile=roce,
    )


def _ipv4(text: str) -> IPv4Interface | None:
    """An IPv4 address key; None for `dhcp` and IPv6 (NVUE lists them under the same `address`)."""
    try:
        return IPv4Interface(text)
    except ValueError:
        return None


def _interfaces(cfg: SwitchConfig, root: Obj, roce: Src | None) -> None:
    interfaces = root.obj("interface")
    for name in interfaces.names():
        body = interfaces.obj(name)
        path = ("interface", name)
        intf = Interface(name, Src(interfaces.lines[name], f"interface {name}"))
        # the port's own addresses, then an l2 tenant's anycast gateway (VRR): the address every
        # host of the segment routes through. Cumulus Linux 5.15 and later write them under
        # `ipv4` and the VRF as the interface's `vrf`; older releases under `ip` (`ip vrf`), as
        # a config saved before an upgrade still may.
        for family in ("ipv4", "ip"):
            ip = body.obj(family)
            for where in (("address",), ("vrr", "address")):
                found = ip.obj(*where)
                for addr in found.names():
                    if (v4 := _ipv4(addr)) is not None:
                        intf.ipv4.append(At(v4, src(found, addr, *path, family, *where)))
                        if where == ("vrr", "address") and intf.anycast is None:
                            intf.anycast = intf.ipv4[-1]
        if vrf := body.text("vrf"):
            intf.vrf = At(vrf, src(body, "vrf", *path))
        elif vrf := body.obj("ip").text("vrf"):
            intf.vrf = At(vrf, src(body.obj("ip"), "vrf", *path, "ip"))
        link = body.obj("link")
        if (mtu := link.text("mtu")) and mtu.isdigit():
            intf.mtu = At(int(mtu), src(link, "mtu", *path, "link"))
        if link.choice("state") == "down":
            intf.shutdown = src(link, "state", *path, "link")
        for acl in body.obj("acl").names():
            if "inbound" in body.obj("acl", acl).values:
                intf.acl_in = At(acl, src(body.obj("acl"), acl, *path, "acl"))
        access = body.obj("bridge", "domain", "br_default")
        if vid := access.text("access"):
            intf.segment = At(vid, src(access, "access", *path, "bridge", "domain", "br_default"))
        if body.text("type") == "svi" and (vid := body.text("vlan")):
            intf.segment = At(vid, src(body, "vlan", *path))
        if roce is not None and body.text("type") == "swp":
            # `nv set interface <swp> qos pfc-watchdog` alone turns it on; `state disabled` off
            qos = body.obj("qos")
            on = "pfc-watchdog" in qos.values and qos.obj("pfc-watchdog").text("state") not in (
                "disabled",
                "disable",
            )
            intf.qos = _port_qos(roce, src(qos, "pfc-watchdog", *path, "qos") if on else None)
            intf.qos.cable_m = _cable_length(root, qos, path)
        cfg.interfaces[name] = intf


#: `nv set qos roce cable-length`: "The default setting is 100 meters" (NVUE Command Reference 5.17, QoS).
ROCE_CABLE_M = 100


def _cable_length(root: Obj, port_qos: Obj, path: tuple[str, ...]) -> At[int]:
    """The cable the port's PFC headroom is sized for: its PFC profile's `cable-length`
    (`nv set interface <id> qos pfc profile <name>`, `nv set qos pfc <name> cable-length <m>`),
    else the RoCE profile's (`qos roce cable-length`, default 100 m)."""
    qos = root.obj("qos")
    if (name := port_qos.obj("pfc").text("profile")) is not None:
        profile = qos.obj("pfc", name)
        if (meters := profile.text("cable-length")) and meters.isdigit():
            return At(int(meters), src(profile, "cable-length", "qos", "pfc", name))
    roce = qos.obj("roce")
    if (meters := roce.text("cable-length")) and meters.isdigit():
        return At(int(meters), src(roce, "cable-length", "qos", "roce"))
    return At(ROCE_CABLE_M, Src(0, f"(RoCE profile default cable-length {ROCE_CABLE_M})"))


def _route_targets(obj: Obj, *path: str) -> list[At[str]]:
    return [At(rt, src(obj, rt, *path)) for rt in obj.names()]


def _segments(cfg: SwitchConfig, root: Obj) -> None:
    """Bridge VLANs with their L2VNI; each VNI's route targets; the SVI that is its gateway."""
    vlans = root.obj("bridge", "domain", "br_default", "vlan")
    evpn_vni = root.obj("evpn", "vni")
    for key in vlans.names():
        for vid in _ids(key):
            cfg.segments[vid] = _segment(cfg, vlans, evpn_vni, key, vid)


def _ids(key: str) -> list[str]:
    """The VLAN ids a bridge `vlan` key names: one id, or a range such as `101-102` (NVUE prints
    VLANs without settings of their own as ranges: NVIDIA's startup.yaml examples)."""
    low, sep, high = key.partition("-")
    if sep and low.isdigit() and high.isdigit():
        return [str(v) for v in range(int(low), int(high) + 1)]
    return [key]


def _segment(cfg: SwitchConfig, vlans: Obj, evpn_vni: Obj, key: str, vid: str) -> Segment:
    seg = Segment(
        "segment", vid, Src(vlans.lines[key], f"bridge domain br_default vlan {key}"), label=f"vlan {vid}"
    )
    vnis = vlans.obj(key, "vni")
    path = ("bridge", "domain", "br_default", "vlan", key, "vni")
    seg.vnis = [At(int(v), src(vnis, v, *path)) for v in vnis.names() if v.isdigit()]
    seg.vni = seg.vnis[0] if seg.vnis else None
    for vni in vnis.names():
        rts = evpn_vni.obj(vni, "route-target")
        where = ("evpn", "vni", vni, "route-target")
        seg.imports += _route_targets(rts.obj("import"), *where, "import")
        seg.exports += _route_targets(rts.obj("export"), *where, "export")
        for both in rts.obj("both").names():
            at = At(both, src(rts.obj("both"), both, *where, "both"))
            seg.imports.append(at)
            seg.exports.append(at)
    svi = f"vlan{vid}"
    if svi in cfg.interfaces:
        seg.gateway = At(svi, cfg.interfaces[svi].src)
    return seg


def _vrfs(cfg: SwitchConfig, root: Obj) -> None:
    vrfs = root.obj("vrf")
    for name in vrfs.names():
        if name == "default":
            continue
        body = vrfs.obj(name)
        holder = RtHolder("vrf", name, Src(vrfs.lines[name], f"vrf {name}"))
        vnis = body.obj("evpn", "vni")
        holder.vnis = [
            At(int(v), src(vnis, v, "vrf", name, "evpn", "vni")) for v in vnis.names() if v.isdigit()
        ]
        holder.vni = holder.vnis[0] if holder.vnis else None
        bgp = body.obj("router", "bgp")
        for found, way, to in (
            (holder.imports, "route-import", "from-evpn"),
            (holder.exports, "route-export", "to-evpn"),
        ):
            rts = bgp.obj(way, to, "route-target")
            found += _route_targets(rts, "vrf", name, "router", "bgp", way, to, "route-target")
        cfg.vrfs[name] = holder


def _network(text: str | None) -> IPv4Network | None:
    return IPv4Network(text, strict=False) if text else None


def _acls(cfg: SwitchConfig, root: Obj) -> None:
    acls = root.obj("acl")
    for name in acls.names():
        acl = Acl(name, Src(acls.lines[name], f"acl {name}"))
        rules = acls.obj(name, "rule")
        for seq in rules.names():
            rule = rules.obj(seq)
            actions = [a for a in ("permit", "deny") if a in rule.obj("action").values]
            if not actions or not seq.isdigit():
                continue
            match = rule.obj("match", "ip")
            acl.rules.append(
                AclRule(
                    seq=int(seq),
                    action=actions[0],
                    proto=match.text("protocol") or "ip",
                    source=_network(match.text("source-ip")),
                    destination=_network(match.text("dest-ip")),
                    src=src(rule.obj("action"), actions[0], "acl", name, "rule", seq, "action"),
                )
            )
        cfg.acls[name] = acl


def _bgp(cfg: SwitchConfig, root: Obj) -> None:
    router = root.obj("router", "bgp")
    if (asn := router.text("autonomous-system")) and asn.isdigit():
        cfg.bgp.asn = At(int(asn), src(router, "autonomous-system", "router", "bgp"))
    bgp = root.obj("vrf", "default", "router", "bgp")
    path = ("vrf", "default", "router", "bgp")
    v4 = bgp.obj("address-family", "ipv4-unicast")
    af = (*path, "address-family", "ipv4-unicast")
    for net in v4.obj("network").names():
        cfg.bgp.networks.append(
            At(IPv4Network(net, strict=False), src(v4.obj("network"), net, *af, "network"))
        )
    multipaths = v4.obj("multipaths")
    if (paths := multipaths.text("ebgp")) and paths.isdigit():
        cfg.bgp.max_paths = At(int(paths), src(multipaths, "ebgp", *af, "multipaths"))
    relax = bgp.obj("path-selection", "multipath")
    if ignore := relax.text("aspath-ignore"):
        cfg.bgp.relax = At(
            ignore == "enabled", src(relax, "aspath-ignore", *path, "path-selection", "multipath")
        )
    # Graceful BGP Shutdown (5.17 user guide, Optional BGP Configuration): switch-wide or per
    # neighbor, the GRACEFUL_SHUTDOWN community on the routes sent, LOCAL_PREF 0 on those heard.
    everywhere = router.text("graceful-shutdown") == "enabled"
    neighbors = bgp.obj("neighbor")
    for peer in neighbors.names():
        body = neighbors.obj(peer)
        if everywhere or body.text("graceful-shutdown") == "enabled":
            at = (
                src(router, "graceful-shutdown", "router", "bgp")
                if everywhere
                else src(body, "graceful-shutdown", *path, "neighbor", peer)
            )
            cfg.bgp.policies[peer] = PeerPolicy(at, gshut=True, local_pref=0)
        asn = body.text("remote-as")
        if asn and asn.isdigit():
            cfg.bgp_neighbors[peer] = At(int(asn), src(body, "remote-as", *path, "neighbor", peer))
        if body.obj("address-family", "ipv4-unicast").text("state") != "disabled":
            cfg.bgp.ipv4_peers.add(peer)


def _tunnel(cfg: SwitchConfig, root: Obj) -> None:
    """How the VTEP carries the lossless class through VXLAN: `nve vxlan encapsulation dscp action
    copy` (the outer DSCP is the inner one) and `decapsulation dscp action preserve` (the inner
    DSCP is kept); what no line sets is the switch model's documented default (verify/lossless.py)."""
    vxlan = root.obj("nve", "vxlan")
    for step, action, key in (
        ("encapsulation", "copy", TUNNEL_MARKING),
        ("decapsulation", "preserve", TUNNEL_CLASS),
    ):
        dscp = vxlan.obj(step, "dscp")
        if dscp.text("action") == action:
            cfg.tunnel_qos[key] = src(dscp, "action", "nve", "vxlan", step, "dscp")
