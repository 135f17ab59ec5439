"""What a TinyOS config says: its ports, BGP, VTEP, VRFs and their route targets."""

from __future__ import annotations

from ipaddress import IPv4Address, IPv4Interface, IPv4Network
from typing import Any

from fabricctl.lab.config_tree import Node
from fabricctl.lab.facts import DeviceFacts, PeerFacts, PortFacts

from .render import tree_of

PORT_GBPS = 400


def _port(name: str, body: dict[str, Any]) -> PortFacts:
    pfc = (body.get("qos") or {}).get("pfc") or {}
    return PortFacts(
        name,
        admin_up=body.get("shutdown") != "on",
        description=str(body.get("description", "")),
        addresses=[IPv4Interface(body["address"])] if "address" in body else [],
        vrf=str(body.get("vrf", "default")),
        routed=True,
        pfc=bool(pfc),
        no_drop=(int(pfc["no-drop"]),) if "no-drop" in pfc else (),
        mtu=int(body["mtu"]) if "mtu" in body else None,
        speed=PORT_GBPS if name.startswith("port") else None,
    )


def read_facts(name: str, running: Node) -> DeviceFacts:
    tree = tree_of(running)
    facts = DeviceFacts(hostname=name, platform="tinyos")
    interfaces = tree.get("interface", {})
    for port, body in interfaces.items():
        facts.ports[port] = _port(port, body)
    bgp = tree.get("bgp", {})
    if "asn" in bgp:
        facts.asn = int(bgp["asn"])
    if "router-id" in bgp:
        facts.router_id = IPv4Address(bgp["router-id"])
    facts.max_paths = int(bgp.get("max-paths", 1))
    facts.networks = [IPv4Network(n) for n in bgp.get("network", {})]
    for peer, body in bgp.get("neighbor", {}).items():
        ip = IPv4Address(peer)
        facts.peers[ip] = PeerFacts(
            ip, int(body["remote-as"]), str(body.get("description", "")), {str(body.get("family", "ipv4"))}
        )
    source = tree.get("vtep", {}).get("source")
    if source in interfaces and "address" in interfaces[source]:
        facts.vtep = IPv4Interface(interfaces[source]["address"]).ip
    for vrf, body in tree.get("vrf", {}).items():
        if "vni" in body:
            facts.vnis[int(body["vni"])] = ("vrf", vrf)
        facts.route_targets[("vrf", vrf)] = (set(body.get("import", {})), set(body.get("export", {})))
        if "rd" in body:
            facts.rds[vrf] = str(body["rd"])
        facts.redistributed.add(vrf)
    return facts
