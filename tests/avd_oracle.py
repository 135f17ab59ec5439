"""Arista's own renderer (pyavd) as an oracle for the EOS templates.

`structured_config(intent)` maps a DeviceIntent to AVD `eos_cli_config_gen` structured config;
`render(intent)` validates it and renders it with pyavd's templates (`pyavd.get_device_config`);
`compare(ours, theirs)` lists every line of one config the other lacks, both read as config trees
(each line keyed by the path of its parent lines, order and blank/`!` lines ignored).

The mapping reads only DeviceIntent fields, never fabricctl's templates. Where a template
hard-codes a choice instead of reading the intent (peer-group names, ebgp-multihop 3, the
tc -> tx-queue identity map, the VXLAN QoS of a VTEP, ...), the same choice is a named constant
here: the oracle checks how fabricctl writes a setting, not whether the setting is wanted.
"""

from __future__ import annotations

from ipaddress import IPv4Interface
from typing import Any

try:
    import pyavd
    from pyavd._eos_cli_config_gen.schema import EosCliConfigGen
except ImportError as exc:  # a missing oracle is a failure, never a skip: CI installs the test extra
    raise ImportError(f"the EOS oracle needs pyavd: pip install -e '.[test]' ({exc})") from exc

from fabricctl.compile.intent import Acl, DeviceIntent, Interface, Qos, Vlan, Vrf
from fabricctl.platforms.eos.qos import EosQosTuning

# fabricctl's choices, hard-coded in templates/eos/*.j2 rather than carried in the intent.
UNDERLAY_PEER_GROUP = "UNDERLAY"
OVERLAY_PEER_GROUP = "EVPN-OVERLAY"
OVERLAY_EBGP_MULTIHOP = 3
OVERLAY_SEND_COMMUNITY = "all"  # bare `send-community`: standard + extended + large
#: Arista's design defaults fabricctl adopts (tests/test_avd_designs.py): per-neighbor route limits
#: (0: none), BGP announcing only installed routes, the multihop BFD timers of the overlay.
UNDERLAY_MAXIMUM_ROUTES = 256000
OVERLAY_MAXIMUM_ROUTES = 0
BFD_MULTIHOP = {"interval": 300, "min_rx": 300, "multiplier": 3}
ROUTING_PROTOCOLS_MODEL = "multi-agent"
#: The BGP group and maintenance unit a drained switch quiesces its drained peers with (bgp-drain.j2).
DRAIN_GROUP = "FABRICCTL-DRAIN"
#: Breakout mode -> EOS speed of each lane (a 400G-8 port split into 2 x 200G-4).
BREAKOUT_LANE_SPEED = {"2x200G": "200g-4"}
#: AVD `qos_profiles[].<key>` of the egress queues (`uc_tx_queues` is the other EOS form; which
#: one a 7060X5 prints is not settled by AVD).
TX_QUEUE_KEY = "tx_queues"
#: The tunnel QoS lines a VTEP's model takes (intent `vtep.tunnel_qos`, readback TUNNEL_* keys) as
#: AVD's `vxlan_interface.vxlan1.vxlan.qos` keys: DSCP and ECN copied to the outer header and back,
#: decapsulated traffic classified by DSCP (evpn.j2).
VTEP_QOS = {
    "ecn-propagation": "ecn_propagation",
    "marking-encap": "dscp_propagation_encapsulation",
    "class-decap": "map_dscp_to_traffic_class_decapsulation",
}


def _ip(cidr: str) -> str:
    return str(IPv4Interface(cidr).ip)


def _seconds(value: float) -> str:
    """AVD takes watchdog times as strings and prints them verbatim: 1.0 -> '1', 0.2 -> '0.2'."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _prune(value: Any) -> Any:
    """Drop None values (and dicts or lists left empty): AVD sees only what the intent sets."""
    if isinstance(value, dict):
        pruned = {k: _prune(v) for k, v in value.items()}
        return {k: v for k, v in pruned.items() if v is not None and v != {} and v != []}
    if isinstance(value, list):
        return [_prune(v) for v in value]
    return value


def _ethernet(iface: Interface, intent: DeviceIntent) -> dict[str, Any]:
    breakout = {b.port: b.mode for b in intent.breakouts}
    parent = iface.name.rpartition("/")[0]
    return {
        "name": iface.name,
        "description": iface.description or None,
        "shutdown": True if not iface.enabled else None,  # enabled is the EOS default: no line
        "speed": BREAKOUT_LANE_SPEED[breakout[parent]] if parent in breakout else None,
        "mtu": iface.mtu,
        # access is the EOS default mode: AVD would print `switchport mode access`, EOS does not
        "switchport": {"enabled": False} if iface.routed else {"access_vlan": iface.access_vlan},
        "vrf": iface.vrf,
        "ip_address": iface.ipv4,
        "access_group_in": iface.acl_in,
        "service_profile": intent.qos.profile_name if iface.lossless else None,
    }


def _vlan_interface(vlan: Vlan) -> dict[str, Any]:
    return {
        "name": f"Vlan{vlan.id}",
        "description": vlan.description,
        "mtu": vlan.mtu,
        "vrf": vlan.vrf,
        "ip_address_virtual": vlan.gateway,
        "access_group_in": vlan.acl_in,
    }


#: The sequence of the remark that carries an ACL's description (the mark): before every rule.
ACL_DESCRIPTION_SEQUENCE = 1


def acl(rules: Acl) -> dict[str, Any]:
    """An ACL as AVD's schemas take it (eos_cli_config_gen ip_access_lists, eos_designs ipv4_acls)."""
    entries = [{"sequence": ACL_DESCRIPTION_SEQUENCE, "remark": rules.description}] + [
        {
            "sequence": e.seq,
            "action": e.action,
            "protocol": "ip",
            "source": e.source or "any",
            "destination": e.destination or "any",
        }
        for e in rules.entries
    ]
    return {"name": rules.name, "counters_per_entry": True, "entries": entries}


def _qos(qos: Qos) -> dict[str, Any]:
    t = EosQosTuning.model_validate(qos.tuning)
    queues = [
        {
            "id": qos.default_class,
            "priority": "no priority",
            "bandwidth_percent": 100 - qos.lossless_bandwidth_percent,
        },
        {
            "id": qos.lossless_class,
            "priority": "no priority",
            "bandwidth_percent": qos.lossless_bandwidth_percent,
            "random_detect": {
                "ecn": {
                    "threshold": {
                        "units": t.ecn_unit,
                        "min": t.ecn_minimum,
                        "max": t.ecn_maximum,
                        "max_probability": t.ecn_max_mark_probability,
                        "weight": t.ecn_weight,
                    }
                }
            },
        },
        {"id": qos.cnp_class, "priority": "priority strict"},
    ]
    return {
        "qos": {
            "map": {
                "dscp": [f"{dscp} to traffic-class {cls}" for dscp, cls in qos.dscp_to_class.items()],
                "traffic_class": [f"{c} to tx-queue {c}" for c in (qos.lossless_class, qos.cnp_class)],
            }
        },
        "priority_flow_control": {
            "watchdog": {
                "timeout": _seconds(t.watchdog_timeout),
                "polling_interval": _seconds(t.watchdog_polling_interval),
                "recovery_time": _seconds(t.watchdog_recovery_time),
                "action": t.watchdog_action,
            }
        },
        "qos_profiles": [
            {
                "name": qos.profile_name,
                "trust": "dscp",
                "priority_flow_control": {
                    "enabled": True,
                    "watchdog": {"enabled": True},
                    "priorities": [{"priority": qos.lossless_class, "no_drop": True}],
                },
                TX_QUEUE_KEY: queues,
            }
        ],
    }


def _bgp_vrf(vrf: Vrf, router_id: str) -> dict[str, Any]:
    return {
        "name": vrf.name,
        "rd": vrf.rd,
        "router_id": router_id,
        "route_targets": {
            "import": [{"address_family": "evpn", "route_targets": vrf.route_targets_import}],
            "export": [{"address_family": "evpn", "route_targets": vrf.route_targets_export}],
        },
        "redistribute": {"connected": {"enabled": True}},
    }


def _vxlan(intent: DeviceIntent) -> dict[str, Any] | None:
    vtep = intent.vtep
    if vtep is None:
        return None
    vxlan = {
        "source_interface": f"Loopback{vtep.source_interface}",
        "udp_port": vtep.udp_port,
        "vlans": [{"id": v.id, "vni": v.l2vni} for v in intent.vlans],
        "vrfs": [{"name": v.name, "vni": v.l3vni} for v in intent.vrfs],
    }
    if vtep.tunnel_qos:
        vxlan["qos"] = {VTEP_QOS[key]: True for key in vtep.tunnel_qos}
    return {"vxlan1": {"vxlan": vxlan}}


def _router_bgp(intent: DeviceIntent) -> dict[str, Any]:
    bgp = intent.bgp
    router_id = _ip(bgp.router_id)
    peering = next((f"Loopback{lo.number}" for lo in intent.loopbacks if _ip(lo.ipv4) == router_id), None)
    group = {"underlay": UNDERLAY_PEER_GROUP, "overlay": OVERLAY_PEER_GROUP}
    peer_groups: list[dict[str, Any]] = [
        {"name": UNDERLAY_PEER_GROUP, "maximum_routes": UNDERLAY_MAXIMUM_ROUTES}
    ]
    if bgp.evpn:
        peer_groups.append(
            {
                "name": OVERLAY_PEER_GROUP,
                "update_source": peering,
                "ebgp_multihop": OVERLAY_EBGP_MULTIHOP,
                "send_community": OVERLAY_SEND_COMMUNITY,
                "next_hop_unchanged": True if bgp.evpn_next_hop_unchanged else None,
                "bfd": True if bgp.overlay_bfd else None,
                "maximum_routes": OVERLAY_MAXIMUM_ROUTES,
            }
        )
    evpn = {"peer_groups": [{"name": OVERLAY_PEER_GROUP, "activate": True}]}
    return {
        "as": str(bgp.asn),
        "router_id": router_id,
        "updates": {"wait_install": True},
        "bgp": {"default": {"ipv4_unicast": False}},
        "maximum_paths": {"paths": bgp.max_paths, "ecmp": bgp.max_paths},
        "graceful_restart": {"enabled": True} if bgp.graceful_restart else None,
        "peer_groups": peer_groups,
        "neighbors": [
            {
                "ip_address": n.ip,
                "peer_group": group[n.kind],
                "remote_as": str(n.asn),
                "description": n.description or None,
                "bfd": True if n.bfd else None,
                "send_community": "all" if n.ip in bgp.graceful_shutdown_peers else None,
            }
            for n in bgp.neighbors
        ],
        "vlans": [
            {
                "id": v.id,
                "rd": v.rd,
                "route_targets": {"both": [v.route_target]},
                "redistribute_routes": ["learned"],
            }
            for v in intent.vlans
        ],
        "address_family_evpn": evpn if bgp.evpn else None,
        "address_family_ipv4": {
            "networks": [{"prefix": net} for net in bgp.networks],
            "peer_groups": [{"name": UNDERLAY_PEER_GROUP, "activate": True}],
        },
        "vrfs": [_bgp_vrf(vrf, router_id) for vrf in intent.vrfs],
    }


def _drain(intent: DeviceIntent) -> dict[str, Any]:
    """Gracefully shut down peers: one BGP group, quiesced by one maintenance unit."""
    peers = intent.bgp.graceful_shutdown_peers
    if not peers:
        return {}
    return {
        "bgp_groups": [{"name": DRAIN_GROUP, "neighbors": list(peers)}],
        "maintenance": {
            "units": [{"name": DRAIN_GROUP, "groups": {"bgp_groups": [DRAIN_GROUP]}, "quiesce": True}]
        },
    }


def structured_config(intent: DeviceIntent) -> dict[str, Any]:
    """DeviceIntent -> AVD eos_cli_config_gen structured config (a plain, JSON-able dict)."""
    if intent.platform != "eos":
        raise ValueError(f"{intent.name}: pyavd renders EOS only, not {intent.platform!r}")
    config: dict[str, Any] = {
        "hostname": intent.name,
        "service_routing_protocols_model": ROUTING_PROTOCOLS_MODEL,
        "ip_routing": True,
        **_qos(intent.qos),
        "ip_access_lists": [acl(a) for a in intent.acls],
        "loopback_interfaces": [
            {"name": f"Loopback{lo.number}", "description": lo.description or None, "ip_address": lo.ipv4}
            for lo in intent.loopbacks
        ],
        "vlans": [{"id": v.id, "name": v.name} for v in intent.vlans],
        "vrfs": [
            {"name": v.name, "description": v.description or None, "ip_routing": True} for v in intent.vrfs
        ],
        "vlan_interfaces": [_vlan_interface(v) for v in intent.vlans],
        "ethernet_interfaces": [_ethernet(i, intent) for i in intent.interfaces],
        "vxlan_interface": _vxlan(intent),
        "ip_virtual_router_mac_address": intent.anycast_gateway_mac,
        "router_bfd": {"multihop": BFD_MULTIHOP} if intent.bgp.overlay_bfd else None,
        "router_bgp": _router_bgp(intent),
        **_drain(intent),
    }
    pruned: dict[str, Any] = _prune(config)
    return pruned


class AvdValidationError(Exception):
    """pyavd refused the structured config (the messages name the offending paths)."""


def validate(config: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Validate against the eos_cli_config_gen schema: (validated data, deprecation warnings).

    Raises AvdValidationError on any violation, and on an unknown top-level key: pyavd skips
    those without a word, so a misspelt key would render nothing and hide lines. The known keys
    come from a private pyavd attribute; if a pyavd upgrade drops it, this is what breaks.
    """
    errors = [f"unknown top-level key {k!r}" for k in config if k not in EosCliConfigGen._fields]
    result = pyavd.validate_structured_config(config)
    errors += [f"{'.'.join(map(str, v.path))}: {v.message}" for v in result.validation_result.violations]
    if errors or result.validated_data is None:
        raise AvdValidationError("; ".join(errors) or "validation returned no data")
    return result.validated_data, [str(d) for d in result.validation_result.deprecations]


def render(intent: DeviceIntent) -> str:
    """The intent rendered by pyavd's own eos_cli_config_gen templates."""
    data, _ = validate(structured_config(intent))
    text: str = pyavd.get_device_config(data)
    return text


def config_lines(text: str) -> list[tuple[str, ...]]:
    """EOS config as (parent, ..., line) paths in text order; `!` lines, comments, `end` dropped."""
    paths: list[tuple[str, ...]] = []
    stack: list[tuple[int, str]] = []
    for raw in text.splitlines():
        line = " ".join(raw.split())
        if not line or line.startswith("!") or line == "end":
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        paths.append((*(parent for _, parent in stack), line))
        stack.append((indent, line))
    return paths


def compare(ours: str, theirs: str) -> list[str]:
    """Lines of `ours` (as `parent > ... > line`) that `theirs` lacks, in our order, no repeats."""
    present = set(config_lines(theirs))
    missing = [p for p in config_lines(ours) if p not in present]
    return [" > ".join(p) for p in dict.fromkeys(missing)]
