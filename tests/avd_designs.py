"""Arista's design layer (pyavd `eos_designs`) as an oracle for what an EOS fabric should carry.

tests/avd_oracle.py checks how fabricctl writes each line (pyavd's `eos_cli_config_gen` renders the
same intent). This module asks a different question: given the same fabric (the inventory's
switches, cabling, pools and ASNs, and the tenants' VRFs, ports and addresses, never fabricctl's
templates), which settings does Arista's own l3ls-evpn design put on each switch? `inputs(compiled)`
writes the eos_designs inputs, `render(compiled)` runs eos_designs and renders every switch, and
`sections(text, roles)` reads a config as sections of value-free lines, so the two fabrics compare
section by section: an interface by its role (uplink, GPU port, ...), a BGP peer group by its job,
addresses, numbers that are the fabric's own and names replaced by placeholders.
"""

from __future__ import annotations

import re
from typing import Any

import pyavd

from fabricctl.compile.build import Compiled
from fabricctl.compile.intent import DeviceIntent
from tests import avd_oracle

UNDERLAY_PEER_GROUP = "UNDERLAY"
OVERLAY_PEER_GROUP = "EVPN-OVERLAY"
#: eos_designs' node types for fabricctl's roles.
NODE_TYPE = {"spine": "spine", "leaf": "l3leaf"}


def _leaf_node(intent: DeviceIntent) -> dict[str, Any]:
    uplinks = [i for i in intent.interfaces if i.role == "uplink"]
    return {
        "name": intent.name,
        "id": int(re.sub(r"\D", "", intent.name) or 0),
        "bgp_as": str(intent.bgp.asn),
        "uplink_interfaces": [i.name for i in uplinks],
        "uplink_switches": [(i.peer or "").split()[0] for i in uplinks],
        "uplink_switch_interfaces": [(i.peer or "").split()[1] for i in uplinks],
        # an l2 segment only on the leaves that carry it, as fabricctl places it
        "filter": {"tags": [v.name for v in intent.vlans] or ["none"]},
    }


def inputs(compiled: Compiled) -> dict[str, dict[str, Any]]:
    """hostname -> eos_designs inputs, for every EOS switch of the fabric (2-tier, l3ls-evpn)."""
    settings = compiled.fabric.settings
    und, ov, qos = settings.underlay, settings.overlay, settings.qos
    intents = {n: i for n, i in compiled.intents.items() if i.platform == "eos"}
    spines = sorted((i for i in intents.values() if i.role == "spine"), key=lambda i: i.name)
    leaves = sorted((i for i in intents.values() if i.role == "leaf"), key=lambda i: i.name)
    per_spine = settings.cabling.leaf_uplinks_per_spine
    vrfs: dict[str, dict[str, Any]] = {}
    svis: dict[int, dict[str, Any]] = {}
    network_ports: list[dict[str, Any]] = []
    acls: dict[str, dict[str, Any]] = {}
    for leaf in leaves:
        for v in leaf.vrfs:
            vrf = vrfs.setdefault(
                v.name,
                {
                    "name": v.name,
                    "vrf_id": v.tenant_id,
                    "vrf_vni": v.l3vni,
                    "description": v.description,
                    "l3_interfaces": [],
                    "additional_route_targets": [],
                    "svis": [],
                },
            )
            for rt in v.route_targets_import:
                if rt not in v.route_targets_export:
                    entry = {"type": "import", "address_family": "evpn", "route_target": rt}
                    if entry not in vrf["additional_route_targets"]:
                        vrf["additional_route_targets"].append(entry)
        for i in leaf.interfaces:
            if i.role == "gpu" and i.vrf and i.ipv4:
                vrfs[i.vrf]["l3_interfaces"].append(
                    {
                        "interfaces": [i.name],
                        "ip_addresses": [i.ipv4],
                        "nodes": [leaf.name],
                        "description": i.description,
                        "mtu": i.mtu,
                        "ipv4_acl_in": i.acl_in,
                        "enabled": True,
                    }
                )
            elif i.role == "gpu" and i.access_vlan:
                network_ports.append(
                    {
                        "switches": [leaf.name],
                        "switch_ports": [i.name],
                        "mode": "access",
                        "vlans": str(i.access_vlan),
                        "description": i.description,
                        "mtu": i.mtu,
                    }
                )
        for vlan in leaf.vlans:
            svi = svis.setdefault(
                vlan.id,
                {
                    "id": vlan.id,
                    "name": vlan.name,
                    "ip_address_virtual": vlan.gateway,
                    "mtu": vlan.mtu,
                    "vni_override": vlan.l2vni,
                    "ipv4_acl_in": vlan.acl_in,
                    "enabled": True,
                    "tags": [vlan.name],  # placed by the leaves' tag filters (_leaf_node)
                    "vrf": vlan.vrf,
                },
            )
            del svi
        for acl in leaf.acls:
            acls[acl.name] = avd_oracle.acl(acl)  # eos_designs takes ipv4_acls as eos_cli_config_gen does
    for svi in svis.values():
        vrfs[svi.pop("vrf")]["svis"].append(svi)
    common: dict[str, Any] = {
        "fabric_name": settings.name.upper().replace("-", "_"),
        "bgp_peer_groups": {
            "ipv4_underlay_peers": {"name": UNDERLAY_PEER_GROUP},
            "evpn_overlay_peers": {"name": OVERLAY_PEER_GROUP},
        },
        "p2p_uplinks_mtu": qos.mtu,
        "bgp_maximum_paths": und.max_paths,
        "bgp_ecmp": und.max_paths,
        "overlay_rd_type": {"vlan_assigned_number_subfield": "mac_vrf_id"},
        "overlay_rt_type": {"admin_subfield": ov.route_target_asn, "vrf_admin_subfield": ov.route_target_asn},
        "spine": {
            "defaults": {
                "loopback_ipv4_pool": str(und.spine_loopbacks),
                "bgp_as": str(und.spine_asn),
            },
            "nodes": [{"name": s.name, "id": int(re.sub(r"\D", "", s.name) or 0)} for s in spines],
        },
        "l3leaf": {
            "defaults": {
                "loopback_ipv4_pool": str(und.leaf_loopbacks),
                "vtep_loopback_ipv4_pool": str(und.vtep_loopbacks),
                "uplink_ipv4_pool": str(und.p2p_links),
                "virtual_router_mac_address": ov.anycast_gateway_mac,
                "max_uplink_switches": len(spines),
                "max_parallel_uplinks": per_spine,
            },
            "node_groups": [{"group": leaf.name.upper(), "nodes": [_leaf_node(leaf)]} for leaf in leaves],
        },
        "tenants": [
            {
                "name": "FABRIC",
                "mac_vrf_vni_base": ov.l2vni_base,
                "mac_vrf_id_base": 32767,
                "vrfs": list(vrfs.values()),
            }
        ],
        "network_ports": network_ports,
        "ipv4_acls": list(acls.values()),
    }
    return {name: {**common, "type": NODE_TYPE[i.role]} for name, i in intents.items()}


def render(compiled: Compiled) -> dict[str, str]:
    """hostname -> the config eos_designs + eos_cli_config_gen make for it."""
    all_inputs = inputs(compiled)
    for name, data in all_inputs.items():
        violations = pyavd.validate_inputs(data).validation_result.violations
        if violations:
            raise ValueError(
                f"{name}: eos_designs inputs invalid: {[('.'.join(map(str, v.path)), v.message) for v in violations][:6]}"
            )
    facts = pyavd.get_avd_facts(all_inputs)
    out = {}
    for name, data in all_inputs.items():
        structured = pyavd.get_device_structured_config(name, data, facts)
        out[name] = pyavd.get_device_config(structured)
    return out


#: Value-free spelling: what varies with the fabric's own numbers is a placeholder.
_VALUES = (
    (re.compile(r"\b\d+\.\d+\.\d+\.\d+(/\d+)?\b"), "<ip>"),
    (re.compile(r"\b\S+:\d+\b"), "<rd>"),
    (re.compile(r"\b(description) .*$"), r"\1 <text>"),
    (re.compile(r"\b(remote-as|router bgp|vni|vlan|Vlan|Loopback|Ethernet|access vlan) \d+\b"), r"\1 <n>"),
    (re.compile(r"\b(Ethernet|Vlan)\d+(/\d+)?\b"), r"\1<n>"),
)


def _spell(line: str, names: set[str]) -> str:
    words = ["<name>" if w in names else w for w in line.split()]
    text = " ".join(words)
    for rx, repl in _VALUES:
        text = rx.sub(repl, text)
    return text


def sections(text: str, intent: DeviceIntent) -> dict[str, set[str]]:
    """Section -> its value-free lines (`parent > child` for nested ones). An Ethernet interface's
    section is its role in the intent (uplink, downlink, gpu l3/l2, unused)."""
    roles = {
        i.name: f"{i.role} {'l3' if i.vrf else 'l2' if i.access_vlan else ''}".strip()
        for i in intent.interfaces
    }
    names = {v.name for v in intent.vrfs} | {v.name for v in intent.vlans} | {a.name for a in intent.acls}
    names |= {UNDERLAY_PEER_GROUP, OVERLAY_PEER_GROUP, intent.name}
    out: dict[str, set[str]] = {}
    stack: list[tuple[int, str]] = []
    section = ""
    for raw in text.splitlines():
        line = " ".join(raw.split())
        if not line or line.startswith("!") or line == "end":
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        if indent == 0:
            words = line.split()
            if words[0] == "interface" and words[1] in roles:
                section = f"interface ({roles[words[1]]})"
            else:
                section = _spell(line, names)
            out.setdefault(section, set())
            stack = [(0, section)]
            continue
        while stack and stack[-1][0] >= indent:
            stack.pop()
        spelled = _spell(line, names)
        parents = [p for _, p in stack[1:]]
        out.setdefault(section, set()).add(" > ".join([*parents, spelled]))
        stack.append((indent, spelled))
    return out
