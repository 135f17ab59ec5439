"""Tenant objects on one leaf: VRFs, VLANs, ACLs and the GPU ports they hold (nothing elsewhere)."""

from __future__ import annotations

from fabricctl.compile.allocate import Allocation, TenantAllocation
from fabricctl.compile.buffers import lossless_port
from fabricctl.compile.intent import Acl, AclEntry, Interface, Vlan, Vrf
from fabricctl.compile.topology import Topology, addr_str
from fabricctl.compile.view import FabricView
from fabricctl.config.rules import fabric_mark
from fabricctl.model.fabric import RD_SEGMENT_BASE, Overlay, Switch


def mark(fabric: str, a: TenantAllocation) -> str:
    """The description (or ACL remark) of every object fabricctl creates for tenant `a`: the
    fabric's mark (config/rules.py), then the tenant, so a switch shows who made it and for whom."""
    return f"{fabric_mark(fabric)} tenant {a.name}"


def vrf_rd(overlay: Overlay, router_id: str, a: TenantAllocation) -> str:
    """The VRF's route distinguisher: `<router-id>:<tenant id>` (RFC 4364 section 4.2 type 1, one
    per switch and VRF), or `<route_target_asn>:<L3VNI>` (type 0) with `rd_format: asn`."""
    if overlay.rd_format == "asn":
        return f"{overlay.route_target_asn}:{a.l3vni}"
    return f"{router_id}:{a.tenant.id}"


def segment_rd(overlay: Overlay, router_id: str, a: TenantAllocation) -> str:
    """An l2 segment's route distinguisher: `<router-id>:<32767 + VLAN>`, clear of every VRF's
    number on the switch, or `<route_target_asn>:<L2VNI>` with `rd_format: asn`."""
    if overlay.rd_format == "asn":
        return f"{overlay.route_target_asn}:{a.l2vni}"
    assert a.vlan is not None
    return f"{router_id}:{RD_SEGMENT_BASE + a.vlan}"


def vrfs(tenants: list[TenantAllocation], router_id: str, overlay: Overlay, fabric: str) -> list[Vrf]:
    out = []
    for a in tenants:
        # A declared two-sided exception imports the peer's route target, and nothing else.
        imports = [a.route_target] + [p.route_target for p in a.peers]
        out.append(
            Vrf(
                name=a.vrf,
                tenant=a.name,
                tenant_id=a.tenant.id,
                description=mark(fabric, a),
                l3vni=a.l3vni,
                l3vni_interface=overlay.l3vni_interface_base + a.tenant.id,
                rd=vrf_rd(overlay, router_id, a),
                route_targets_import=imports,
                route_targets_export=[a.route_target],
            )
        )
    return out


def vlans(
    tenants: list[TenantAllocation], switch: str, router_id: str, overlay: Overlay, mtu: int, fabric: str
) -> list[Vlan]:
    return [
        Vlan(
            id=a.vlan,
            name=a.object_name,
            description=mark(fabric, a),
            tenant=a.name,
            l2vni=a.l2vni,
            rd=segment_rd(overlay, router_id, a),
            route_target=a.l2_route_target,
            vrf=a.vrf,
            gateway=a.gateway,
            address=a.svi_addresses.get(switch),
            acl_in=a.acl_name,
            mtu=mtu,
        )
        for a in tenants
        if a.vlan is not None and a.l2vni is not None and a.l2_route_target and a.gateway
    ]


def acls(tenants: list[TenantAllocation], fabric: str) -> list[Acl]:
    return [
        Acl(
            name=a.acl_name,
            tenant=a.name,
            description=mark(fabric, a),
            entries=[
                AclEntry(
                    seq=r.seq,
                    action=r.action,  # type: ignore[arg-type]  # the model's action is one of the literal's words (schema-checked)
                    source=addr_str(r.source) if r.source else None,
                    destination=addr_str(r.destination) if r.destination else None,
                    remark=r.remark,
                )
                for r in a.acl
            ],
        )
        for a in tenants
    ]


def gpu_interfaces(
    fabric: FabricView, topo: Topology, alloc: Allocation, leaf: Switch, mtu: int
) -> list[Interface]:
    """Every GPU-facing port: in its tenant's VRF or VLAN, or shut down when no tenant holds it."""
    settings = fabric.settings
    qos = settings.qos
    model = fabric.model(leaf)
    port_gbps, lane_gbps = model.port_gbps, model.lane_gbps(settings.cabling.gpu_port_breakout)
    meters = fabric.gpu_meters
    sizes = {
        speed: lossless_port(model, qos.buffer, speed, meters, mtu, qos.roce_mtu, vxlan=False)
        for speed in (port_gbps, lane_gbps)
    }
    out = []
    for gp in topo.gpu_ports[leaf.name]:
        held = alloc.port_owner.get((leaf.name, gp.name))
        peer = f"{gp.server} nic{gp.nic}"
        if held is None:
            out.append(
                Interface(
                    name=gp.name,
                    role="gpu",
                    description=f"{peer} unassigned",
                    enabled=False,
                    mtu=mtu,
                    peer=peer,
                )
            )
            continue
        a, pa = held
        routed = a.tenant.isolation == "l3"
        speed = port_gbps if gp.lane is None else lane_gbps
        out.append(
            Interface(
                name=gp.name,
                role="gpu",
                description=f"{peer} tenant {a.name}",
                routed=routed,
                mtu=mtu,
                ipv4=f"{addr_str(pa.leaf_ip)}/31" if routed and pa.leaf_ip else None,
                vrf=a.vrf if routed else None,
                access_vlan=None if routed else a.vlan,
                acl_in=a.acl_name,
                lossless=a.tenant.lossless,
                speed_gbps=speed if a.tenant.lossless else None,
                cable_m=meters if a.tenant.lossless else None,
                headroom=sizes[speed] if a.tenant.lossless else None,
                tenant=a.name,
                peer=peer,
            )
        )
    return out
