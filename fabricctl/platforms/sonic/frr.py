"""A switch's DeviceIntent -> the frr.conf a SONiC switch runs in `split-unified` mode (one
integrated FRR config, `service integrated-vtysh-config`, not generated from CONFIG_DB: sonic-buildimage
dockers/docker-fpm-frr/docker_init.sh), changed through `vtysh` and saved with `write memory`.

The lines are FRR's (FRRouting user guide, docs.frrouting.org/en/latest/, by page and section):
  bgp.html "BGP router configuration" (`router bgp`, `bgp router-id`), "Route Selection"
  (`bgp bestpath as-path multipath-relax`), "Peer configuration" (`neighbor remote-as`,
  `description`, `bfd`, `ebgp-multihop`, `update-source`), "Policy configuration"
  (`no bgp ebgp-requires-policy`: FRR refuses eBGP routes without a policy otherwise),
  "Graceful Restart" (`bgp graceful-restart`), "Graceful Shutdown" (`bgp graceful-shutdown`,
  `neighbor graceful-shutdown`), "Address Families" (`network`, `maximum-paths`),
  "Ethernet Virtual Network - EVPN" (`advertise-all-vni`, `advertise ipv4 unicast`, `rd`,
  `route-target import|export`, `vni`, "EVPN Multihoming"-free symmetric routing: `vrf` / `vni`
  in zebra, "EVPN L3 Route-Targets"); spines re-advertise with the VTEP as next hop (`neighbor
  attribute-unchanged next-hop`). FRR has no route-target retention for EVPN (`bgp retain
  route-target all` is a VPN family's; vtysh refuses it under `address-family l2vpn evpn`): a
  spine's EVPN table keeps every route it learns, so nothing is written for
  `evpn_retain_all_routes`. The test checks the whole file with FRR's own parser (`vtysh -C`).
SONiC's EVPN VXLAN HLD (4.3 "EVPN Control Plane and configurations") names the FRR side: the L3VNI
under the VRF (`vrf <name>` / `vni <l3vni>`) and the BGP EVPN address family.
"""

from __future__ import annotations

from ipaddress import IPv4Interface
from typing import Any

from fabricctl.platforms.sonic.switch import vrf_name


def _neighbors(bgp: Any) -> list[str]:
    out: list[str] = []
    for n in bgp.neighbors:
        out.append(f" neighbor {n.ip} remote-as {n.asn}")
        out.append(f" neighbor {n.ip} description {n.description}")
        if n.kind == "overlay":
            out.append(f" neighbor {n.ip} ebgp-multihop 3")
            out.append(f" neighbor {n.ip} update-source Loopback0")
        if n.bfd or (n.kind == "overlay" and bgp.overlay_bfd):
            out.append(f" neighbor {n.ip} bfd")
        if n.ip in bgp.graceful_shutdown_peers and not bgp.graceful_shutdown:
            out.append(f" neighbor {n.ip} graceful-shutdown")
    return out


def _l2vnis(intent: Any) -> list[str]:
    out: list[str] = []
    for vl in intent.vlans:
        out += [f"  vni {vl.l2vni}", f"   rd {vl.rd}"]
        out += [f"   route-target import {vl.route_target}", f"   route-target export {vl.route_target}"]
        out.append("  exit-vni")
    return out


def _families(intent: Any) -> list[str]:
    bgp = intent.bgp
    out = [" !", " address-family ipv4 unicast"]
    out += [f"  network {IPv4Interface(net).network}" for net in bgp.networks]
    out += [f"  neighbor {n.ip} activate" for n in bgp.neighbors if n.kind == "underlay"]
    out += [f"  maximum-paths {bgp.max_paths}", " exit-address-family"]
    overlay = [n for n in bgp.neighbors if n.kind == "overlay"]
    if bgp.evpn and overlay:
        out += [" !", " address-family l2vpn evpn"]
        for n in overlay:
            out.append(f"  neighbor {n.ip} activate")
            if bgp.evpn_next_hop_unchanged:
                out.append(f"  neighbor {n.ip} attribute-unchanged next-hop")
        if intent.vlans or intent.vrfs:
            out.append("  advertise-all-vni")
        out += _l2vnis(intent)
        out.append(" exit-address-family")
    return out


def _vrf_bgp(asn: int, router_id: str, vrf: Any) -> list[str]:
    name = vrf_name(vrf.name)
    out = [f"router bgp {asn} vrf {name}", f" bgp router-id {router_id}", " !"]
    out += [" address-family ipv4 unicast", "  redistribute connected", " exit-address-family", " !"]
    out += [" address-family l2vpn evpn", "  advertise ipv4 unicast", f"  rd {vrf.rd}"]
    out += [f"  route-target import {rt}" for rt in vrf.route_targets_import]
    out += [f"  route-target export {rt}" for rt in vrf.route_targets_export]
    out += [" exit-address-family", "exit", "!"]
    return out


def frr_conf(intent: Any) -> str:
    """The whole frr.conf of one switch."""
    bgp = intent.bgp
    router_id = str(IPv4Interface(bgp.router_id).ip)
    out = [f"hostname {intent.name}", "service integrated-vtysh-config", "!"]
    for vrf in intent.vrfs:
        out += [f"vrf {vrf_name(vrf.name)}", f" vni {vrf.l3vni}", "exit-vrf", "!"]
    out += [f"router bgp {bgp.asn}", f" bgp router-id {router_id}", " no bgp ebgp-requires-policy"]
    out += [" no bgp default ipv4-unicast", " bgp bestpath as-path multipath-relax"]
    if bgp.graceful_restart:
        out.append(" bgp graceful-restart")
    if bgp.graceful_shutdown:
        out.append(" bgp graceful-shutdown")
    out += _neighbors(bgp)
    out += _families(intent)
    out += ["exit", "!"]
    for vrf in intent.vrfs:
        out += _vrf_bgp(bgp.asn, router_id, vrf)
    out.append("end")
    return "\n".join(out) + "\n"
