"""Loopbacks, fabric links and the eBGP underlay + EVPN overlay sessions of one switch."""

from __future__ import annotations

from typing import Literal

from fabricctl.compile.buffers import link_sizing, lossless_port
from fabricctl.compile.drain import drained_on
from fabricctl.compile.intent import Bgp, BgpNeighbor, Interface, Loopback
from fabricctl.compile.topology import Topology, addr_str
from fabricctl.compile.view import FabricView
from fabricctl.model.fabric import Switch
from fabricctl.platforms import get_platform


def loopbacks(topo: Topology, switch: Switch) -> list[Loopback]:
    out = [
        Loopback(
            number=0, description="router-id, EVPN peering", ipv4=f"{addr_str(topo.loopback[switch.name])}/32"
        )
    ]
    if switch.role == "leaf":
        out.append(
            Loopback(number=1, description="VTEP source", ipv4=f"{addr_str(topo.vtep[switch.name])}/32")
        )
    return out


def fabric_interfaces(fabric: FabricView, topo: Topology, switch: Switch, mtu: int) -> list[Interface]:
    """Every cabled fabric port (leaf-spine, spine-superspine): routed /31, lossless QoS, jumbo MTU,
    PFC headroom for the link: its speed (the slower end's port) and its tier's cable, the same
    at both ends."""
    qos = fabric.settings.qos
    model = fabric.model(switch)
    sizes: dict[tuple[int, int], int | None] = {}
    out = []
    for link in topo.links_of(switch.name):
        role: Literal["uplink", "downlink"]
        if link.leaf == switch.name:  # the lower end: an uplink
            name, peer, peer_port, ip, role = (
                link.leaf_port,
                link.spine,
                link.spine_port,
                link.leaf_ip,
                "uplink",
            )
        else:
            name, peer, peer_port, ip, role = (
                link.spine_port,
                link.leaf,
                link.leaf_port,
                link.spine_ip,
                "downlink",
            )
        gbps, meters = link_sizing(fabric, link)
        if (gbps, meters) not in sizes:
            sizes[(gbps, meters)] = lossless_port(
                model, qos.buffer, gbps, meters, mtu, qos.roce_mtu, vxlan=True
            )
        out.append(
            Interface(
                name=name,
                role=role,
                description=f"to {peer} {peer_port}",
                mtu=mtu,
                ipv4=f"{addr_str(ip)}/31",
                lossless=True,
                speed_gbps=gbps,
                cable_m=meters,
                headroom=sizes[(gbps, meters)],
                peer=f"{peer} {peer_port}",
            )
        )
    return out


def evpn_peers(fabric: FabricView, switch: Switch) -> list[Switch]:
    """Whom a switch's EVPN sessions reach, loopback to loopback: a leaf its pod's spines; a spine
    its pod's leaves and the super-spines of its plane; a super-spine the spines of its plane in
    every pod. Spines and super-spines re-advertise with the next hop (the VTEP) unchanged, so
    every route keeps the leaf that originated it; a 2-tier fabric is one pod without planes."""
    if switch.role == "leaf":
        return fabric.in_pod("spine", switch.pod)
    if switch.role == "spine":
        uplinks = fabric.in_plane("superspine", switch.index) if switch.pod is not None else []
        return [*fabric.in_pod("leaf", switch.pod), *uplinks]
    assert switch.plane is not None
    return fabric.in_plane("spine", switch.plane)


def bgp(fabric: FabricView, topo: Topology, switch: Switch) -> Bgp:
    """Underlay peers on the /31s; overlay (EVPN) peers between loopbacks (`evpn_peers`)."""
    neighbors: list[BgpNeighbor] = []
    for link in topo.links_of(switch.name):
        if link.leaf == switch.name:
            neighbors.append(
                BgpNeighbor(
                    ip=addr_str(link.spine_ip),
                    asn=topo.asn[link.spine],
                    description=f"{link.spine} underlay",
                    kind="underlay",
                    bfd=fabric.settings.underlay.bfd,
                )
            )
        else:
            neighbors.append(
                BgpNeighbor(
                    ip=addr_str(link.leaf_ip),
                    asn=topo.asn[link.leaf],
                    description=f"{link.leaf} underlay",
                    kind="underlay",
                    bfd=fabric.settings.underlay.bfd,
                )
            )
    for peer in evpn_peers(fabric, switch):
        neighbors.append(
            BgpNeighbor(
                ip=addr_str(topo.loopback[peer.name]),
                asn=topo.asn[peer.name],
                description=f"{peer.name} evpn",
                kind="overlay",
            )
        )
    networks = [f"{addr_str(topo.loopback[switch.name])}/32"]
    if switch.role == "leaf":
        networks.append(f"{addr_str(topo.vtep[switch.name])}/32")
    max_paths = fabric.settings.underlay.max_paths
    drained = drained_on(fabric.maintenance, topo, switch.name)
    platform = get_platform(switch.platform)
    default_ecmp = platform.default_max_ecmp
    return Bgp(
        asn=topo.asn[switch.name],
        router_id=addr_str(topo.loopback[switch.name]),
        max_paths=max_paths,
        max_ecmp=max_paths if default_ecmp is not None and max_paths > default_ecmp else None,
        graceful_restart=fabric.settings.underlay.graceful_restart,
        overlay_bfd=fabric.settings.overlay.bfd and platform.multihop_bfd,
        networks=networks,
        neighbors=neighbors,
        evpn=True,
        evpn_next_hop_unchanged=switch.role != "leaf",
        evpn_retain_all_routes=switch.role != "leaf",
        graceful_shutdown=drained.whole,
        graceful_shutdown_peers=list(drained.peers),
    )
