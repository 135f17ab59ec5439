"""A TinyOS config (its YAML object tree) -> the neutral read-back model verify proves: ports
(address, VRF, ACL, MTU, shutdown, QoS), VRFs (VNI, route targets), ACLs, BGP, the DSCP map and
the tunnels' QoS, each fact with the path it was read from."""

from __future__ import annotations

from ipaddress import IPv4Interface, IPv4Network
from typing import Any

import yaml

from fabricctl.config.readback import Acl, AclRule, At, Interface, RtHolder, Src, SwitchConfig

NAME = "tinyos"


def _src(*path: object) -> Src:
    return Src(1, " ".join(str(p) for p in path))


def _net(text: str) -> IPv4Network | None:
    return None if text == "any" else IPv4Network(text)


def _interface(cfg: SwitchConfig, name: str, body: dict[str, Any]) -> None:
    intf = cfg.interfaces[name] = Interface(name, _src("interface", name))
    if "address" in body:
        intf.ipv4.append(At(IPv4Interface(body["address"]), _src("interface", name, "address")))
    if "vrf" in body:
        intf.vrf = At(str(body["vrf"]), _src("interface", name, "vrf", body["vrf"]))
    if "acl" in body:
        intf.acl_in = At(str(body["acl"]), _src("interface", name, "acl", body["acl"]))
    if "mtu" in body:
        intf.mtu = At(int(body["mtu"]), _src("interface", name, "mtu", body["mtu"]))
    if body.get("shutdown") == "on":
        intf.shutdown = _src("interface", name, "shutdown")
    port = body.get("qos", {})
    if port.get("trust") == "dscp":
        intf.qos.trust_dscp = _src("interface", name, "qos trust dscp")
    pfc = port.get("pfc", {})
    if pfc:
        intf.qos.pfc_enabled = _src("interface", name, "qos pfc")
        for key, found in (("no-drop", intf.qos.no_drop), ("headroom", intf.qos.headroom)):
            if key in pfc:
                found[int(pfc[key])] = _src("interface", name, "qos pfc", key, pfc[key])
        if pfc.get("watchdog") == "on":
            intf.qos.watchdog = _src("interface", name, "qos pfc watchdog")
    for key, queues in (("ecn", intf.qos.ecn_queues), ("strict", intf.qos.strict_queues)):
        if key in port:
            queues[int(port[key])] = _src("interface", name, "qos", key, port[key])


def _vrf(cfg: SwitchConfig, name: str, body: dict[str, Any]) -> None:
    vrf = cfg.vrfs[name] = RtHolder("vrf", name, _src("vrf", name))
    if "vni" in body:
        vrf.vni = At(int(body["vni"]), _src("vrf", name, "vni", body["vni"]))
        vrf.vnis.append(vrf.vni)
    for rt in body.get("import", {}) or {}:
        vrf.imports.append(At(str(rt), _src("vrf", name, "import", rt)))
    for rt in body.get("export", {}) or {}:
        vrf.exports.append(At(str(rt), _src("vrf", name, "export", rt)))


def _acl(cfg: SwitchConfig, name: str, body: dict[str, Any]) -> None:
    acl = cfg.acls[name] = Acl(name, _src("acl", name))
    for seq, rule in sorted(((int(k), v) for k, v in (body.get("rule") or {}).items())):
        acl.rules.append(
            AclRule(
                seq,
                str(rule["action"]),
                "ip",
                _net(str(rule.get("source", "any"))),
                _net(str(rule.get("destination", "any"))),
                _src("acl", name, "rule", seq),
            )
        )


def _bgp(cfg: SwitchConfig, bgp: dict[str, Any]) -> None:
    if "asn" in bgp:
        cfg.bgp.asn = At(int(bgp["asn"]), _src("bgp asn", bgp["asn"]))
    if "max-paths" in bgp:
        cfg.bgp.max_paths = At(int(bgp["max-paths"]), _src("bgp max-paths", bgp["max-paths"]))
    for net in bgp.get("network", {}) or {}:
        cfg.bgp.networks.append(At(IPv4Network(net), _src("bgp network", net)))
    for peer, body in (bgp.get("neighbor") or {}).items():
        cfg.bgp_neighbors[str(peer)] = At(int(body["remote-as"]), _src("bgp neighbor", peer, "remote-as"))


def parse(switch: str, text: str) -> SwitchConfig:
    """The read-back model of one switch's config text."""
    cfg = SwitchConfig(switch, NAME, ip_mtu_default=1500)
    tree = yaml.load(text, Loader=yaml.BaseLoader) or {}  # every scalar as text, as the NOS prints it
    qos = tree.get("qos", {})
    for dscp, cls in (qos.get("dscp") or {}).items():
        cfg.dscp_map[int(dscp)] = At(int(cls), _src("qos dscp", dscp, cls))
    for key in qos.get("tunnel") or {}:
        cfg.tunnel_qos[key] = _src("qos tunnel", key)
    for name, body in (tree.get("interface") or {}).items():
        _interface(cfg, name, body)
    for name, body in (tree.get("vrf") or {}).items():
        _vrf(cfg, name, body)
    for name, body in (tree.get("acl") or {}).items():
        _acl(cfg, name, body)
    _bgp(cfg, tree.get("bgp") or {})
    return cfg
