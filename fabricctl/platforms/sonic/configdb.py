"""A switch's DeviceIntent (the template context's `intent`) -> CONFIG_DB: the tables fabricctl
owns on a SONiC switch, as `sonic-cfggen -d --print-data` prints them (table -> key -> field -> string; a multi-part key joined with `|`).

Every table and field is one of sonic-net's YANG models (sonic-buildimage
src/sonic-yang-models/yang-models/<model>.yang, named per table below as `YANG`) and is shown in
the CONFIG_DB manual (src/sonic-yang-models/doc/Configuration.md, section named per table); the
test validates the output against those models with libyang, as sonic-yang-mgmt does.

  PORT, BREAKOUT_CFG          sonic-port, sonic-breakout_cfg        "Port", "BREAKOUT_CFG"
  INTERFACE, LOOPBACK_INTERFACE  sonic-interface, sonic-loopback-interface  "L3 Interfaces", "Loopback Interface"
  VLAN, VLAN_MEMBER, VLAN_INTERFACE  sonic-vlan                    "VLAN", "VLAN_MEMBER", "L3 Interfaces"
                              (the anycast gateway: the same address and `mac_addr` on every leaf)
  VRF                         sonic-vrf                             "VRF" (`vni`: EVPN VXLAN HLD 4.3)
  VXLAN_TUNNEL, VXLAN_TUNNEL_MAP, VXLAN_EVPN_NVO  sonic-vxlan       "VXLAN"
  ACL_TABLE, ACL_RULE         sonic-acl                             "ACL and Mirroring"
  DSCP_TO_TC_MAP, TC_TO_QUEUE_MAP, TC_TO_PRIORITY_GROUP_MAP, MAP_PFC_PRIORITY_TO_QUEUE
                              sonic-dscp-tc-map, sonic-tc-queue-map, sonic-tc-priority-group-map,
                              sonic-pfc-priority-queue-map          "DSCP_TO_TC_MAP", "TC to Queue map",
                                                                    "TC to Priority group map", "MAP_PFC_PRIORITY_TO_QUEUE"
  PORT_QOS_MAP                sonic-port-qos-map                    "Port QoS Map" (`pfc_enable`)
  SCHEDULER, QUEUE            sonic-scheduler, sonic-queue          "Scheduler", "Queue"
  WRED_PROFILE                sonic-wred-profile                    "WRED_PROFILE" (`ecn: ecn_all`)
  BUFFER_PG, CABLE_LENGTH     sonic-buffer-pg, sonic-cable-length   "BUFFER_PG" (dynamic model: "NULL"), "Cable length"
  PFC_WD                      sonic-pfcwd                           (the YANG model; `GLOBAL` POLL_INTERVAL)
  DEVICE_METADATA             sonic-device_metadata                 "Device Metadata" (`docker_routing_config_mode`)

The lossless priority group's headroom is SONiC's to size, in its dynamic buffer model: BUFFER_PG
names no profile ("NULL") and CABLE_LENGTH gives each port's cable, from which buffermgrd computes
it with the formula compile/buffers.py follows (SONiC doc/qos/dynamically-headroom-calculation.md,
CONFIG_DB > BUFFER_PG: "Not providing this field or being NULL means the profile needs to be
dynamically calculated"; the CONFIG_DB manual's BUFFER_PG section alike). The model is the
switch's (DEVICE_METADATA `buffer_model`): "when the system is installed from scratch, the
dynamic mode will be applied" on a platform that supports it, as NVIDIA's do (same document,
"Backward compatibility"); fabricctl does not switch it (`config qos reload` does), and the
read-back proves no headroom on a switch in the `traditional` model (parse.py). No BUFFER_PROFILE
is written: a dynamic profile holds only `dynamic_th` (the same document), which
sonic-buffer-profile.yang refuses (`size` and `pool` are mandatory).
"""

from __future__ import annotations

import json
from ipaddress import IPv4Interface
from typing import Any

from fabricctl.macs import mac_as
from fabricctl.platforms.sonic.qos import SonicQosTuning
from fabricctl.platforms.sonic.switch import (
    BREAKOUT_MODES,
    L3VNI_VLAN_BASE,
    L3VNI_VLANS,
    port_lanes,
    port_position,
    vrf_name,
)

Table = dict[str, dict[str, Any]]
ConfigDb = dict[str, Table]

#: The VTEP and NVO names (VXLAN section: "vtep1", "nvo1"): one of each per switch.
VTEP = "vtep1"
NVO = "nvo1"
#: The CABLE_LENGTH entry fabricctl writes (a SONiC switch's own is "AZURE").
CABLE_GROUP = "AZURE"
#: Ingress ACL rules: SONiC matches the highest PRIORITY first (ACL_RULE PRIORITY, 0..999999);
#: fabricctl's sequence numbers count up, so a rule's PRIORITY is ACL_TOP - seq.
ACL_TOP = 999999


def l3vni_vlan(tenant_id: int) -> int:
    """The VLAN a tenant VRF's L3VNI is mapped through (EVPN VXLAN HLD 4.3: "Configure L3VNI-VLAN
    mapping"): L3VNI_VLAN_BASE + the tenant's id, inside L3VNI_VLANS."""
    vid = L3VNI_VLAN_BASE + tenant_id
    if not L3VNI_VLANS[0] <= vid <= L3VNI_VLANS[1]:
        raise ValueError(f"tenant id {tenant_id}: its L3VNI VLAN {vid} is outside {L3VNI_VLANS}")
    return vid


def _ways(intent: Any) -> dict[int, int]:
    """Front-panel port -> how many ways it is broken out (1: whole)."""
    out: dict[int, int] = {}
    for b in intent.breakouts:
        pos = port_position(b.port)
        if pos is not None:
            out[pos[0]] = 1 if b.mode == "none" else int(b.mode.partition("x")[0])
    return out


def _port(intf: Any, ways: dict[int, int]) -> dict[str, Any]:
    """A PORT entry: lanes and speed (both mandatory in sonic-port.yang), MTU, state, description."""
    pos = port_position(intf.name, 2)
    port, lane = pos if pos is not None else (0, None)
    n = ways.get(port, 1)
    if lane is None and n > 1:
        lane = 1
    real = port_position(intf.name, n)
    if real is None or port == 0:
        raise ValueError(f"{intf.name}: not a SONiC front-panel port name")
    entry: dict[str, Any] = {
        "admin_status": "up" if intf.enabled else "down",
        "description": intf.description,
        "lanes": ",".join(str(x) for x in port_lanes(real[0], real[1], n)),
        "speed": str((intf.speed_gbps or 800 // n) * 1000),
    }
    if intf.mtu is not None:
        entry["mtu"] = str(intf.mtu)
    return entry


def _ports(intent: Any, db: ConfigDb) -> None:
    ways = _ways(intent)
    db["PORT"] = {i.name: _port(i, ways) for i in intent.interfaces}
    db["BREAKOUT_CFG"] = {b.port: {"brkout_mode": BREAKOUT_MODES[b.mode]} for b in intent.breakouts}
    interface: Table = {}
    for i in intent.interfaces:
        if i.ipv4 is None:
            continue
        interface[i.name] = {"vrf_name": vrf_name(i.vrf)} if i.vrf else {}
        interface[f"{i.name}|{IPv4Interface(i.ipv4).with_prefixlen}"] = {}
    db["INTERFACE"] = interface
    loopbacks: Table = {}
    for lo in intent.loopbacks:
        loopbacks[f"Loopback{lo.number}"] = {}
        loopbacks[f"Loopback{lo.number}|{lo.ipv4}"] = {}
    db["LOOPBACK_INTERFACE"] = loopbacks


def _tenants(intent: Any, db: ConfigDb) -> None:
    """VRFs with their L3VNI, l2 tenants' VLANs (members, SVI), and the VXLAN maps.

    An l2 tenant's gateway is anycast: every leaf gives the SVI the same address and the fabric's
    anycast MAC (VLAN_INTERFACE `mac_addr`, "Assign administrator-provided MAC address to
    Interface": CONFIG_DB manual, L3 Interfaces, 202505 and later). SONiC's SAG table and
    VLAN_INTERFACE `static_anycast_gateway` are in no community release yet: they reach
    sonic-buildimage's master after 202511 (7e3ed9e, "[EVPN-MH] Add EVPN-MH YANG model support"),
    and the YANG models of 202505 and 202511 refuse them."""
    vlans: Table = {}
    members: Table = {}
    svis: Table = {}
    maps: Table = {}
    vrfs: Table = {}
    for v in intent.vrfs:
        vid = l3vni_vlan(v.tenant_id)
        vrfs[vrf_name(v.name)] = {"vni": str(v.l3vni)}
        vlans[f"Vlan{vid}"] = {"vlanid": str(vid), "description": v.description}
        svis[f"Vlan{vid}"] = {"vrf_name": vrf_name(v.name)}
        maps[f"{VTEP}|map_{v.l3vni}_Vlan{vid}"] = {"vlan": f"Vlan{vid}", "vni": str(v.l3vni)}
    for vl in intent.vlans:
        name = f"Vlan{vl.id}"
        vlans[name] = {"vlanid": str(vl.id), "description": vl.description, "mtu": str(vl.mtu)}
        svis[name] = {"vrf_name": vrf_name(vl.vrf)}
        if intent.anycast_gateway_mac:
            svis[name]["mac_addr"] = mac_as(intent.anycast_gateway_mac, "MAC_COLON_TWO")
        svis[f"{name}|{vl.gateway}"] = {}
        maps[f"{VTEP}|map_{vl.l2vni}_{name}"] = {"vlan": name, "vni": str(vl.l2vni)}
    for i in intent.interfaces:
        if i.access_vlan is not None:
            members[f"Vlan{i.access_vlan}|{i.name}"] = {"tagging_mode": "untagged"}
    db["VRF"] = vrfs
    db["VLAN"] = vlans
    db["VLAN_MEMBER"] = members
    db["VLAN_INTERFACE"] = svis
    if intent.vtep is not None:
        db["VXLAN_TUNNEL"] = {VTEP: {"src_ip": intent.vtep.source_ip}}
        db["VXLAN_EVPN_NVO"] = {NVO: {"source_vtep": VTEP}}
        db["VXLAN_TUNNEL_MAP"] = maps


def _acl_rules(acl: Any) -> Table:
    rules: Table = {}
    for e in acl.entries:
        rule: dict[str, Any] = {
            "PRIORITY": str(ACL_TOP - e.seq),
            "PACKET_ACTION": "ACCEPT" if e.action == "permit" else "DROP",
            "IP_TYPE": "IPV4ANY",
        }
        if e.source:
            rule["SRC_IP"] = e.source
        if e.destination:
            rule["DST_IP"] = e.destination
        rules[f"{acl.name}|RULE_{e.seq}"] = rule
    return rules


def _acls(intent: Any, db: ConfigDb) -> None:
    """One L3 ingress table per tenant ACL, bound to the ports it guards: a routed GPU port's own
    ACL, and an l2 tenant's VLAN member ports for its VLAN's (sonic-acl.yang binds ACL_TABLE
    `ports` to PORT or PORTCHANNEL names only)."""
    bound: dict[str, list[str]] = {a.name: [] for a in intent.acls}
    vlan_acl = {vl.id: vl.acl_in for vl in intent.vlans}
    for i in intent.interfaces:
        acl = i.acl_in or (vlan_acl.get(i.access_vlan) if i.access_vlan is not None else None)
        if acl in bound:
            bound[acl].append(i.name)
    tables: Table = {}
    rules: Table = {}
    for a in intent.acls:
        tables[a.name] = {
            "policy_desc": a.description,
            "type": "L3",
            "stage": "ingress",
            "ports": bound[a.name],
        }
        rules.update(_acl_rules(a))
    db["ACL_TABLE"] = tables
    db["ACL_RULE"] = rules


def _qos_maps(intent: Any, db: ConfigDb) -> str:
    q = intent.qos
    name: str = q.profile_name
    dscp = {str(d): str(q.dscp_to_class.get(d, q.default_class)) for d in range(64)}
    identity = {str(c): str(c) for c in range(8)}
    db["DSCP_TO_TC_MAP"] = {name: dscp}
    db["TC_TO_QUEUE_MAP"] = {name: identity}
    db["TC_TO_PRIORITY_GROUP_MAP"] = {name: identity}
    db["MAP_PFC_PRIORITY_TO_QUEUE"] = {name: identity}
    return name


def _lossless(intent: Any, db: ConfigDb) -> None:  # long: one CONFIG_DB table per step
    """PFC, ECN, scheduling, headroom and the watchdog on every lossless port."""
    q = intent.qos
    t = SonicQosTuning.model_validate({k: v for k, v in q.tuning.items() if v is not None})
    name = _qos_maps(intent, db)
    lossless = str(q.lossless_class)
    strict = f"{name}.strict"
    dwrr = f"{name}.lossless"
    lossy = f"{name}.lossy"
    db["SCHEDULER"] = {
        strict: {"type": "STRICT"},
        dwrr: {"type": "DWRR", "weight": str(q.lossless_bandwidth_percent)},
        lossy: {"type": "DWRR", "weight": str(100 - q.lossless_bandwidth_percent)},
    }
    db["WRED_PROFILE"] = {
        name: {
            "ecn": "ecn_all",
            "wred_green_enable": "true",
            "green_min_threshold": str(t.ecn_min_bytes),
            "green_max_threshold": str(t.ecn_max_bytes),
            "green_drop_probability": str(t.ecn_probability),
        }
    }
    port_qos: Table = {}
    queues: Table = {}
    pgs: Table = {}
    cables: dict[str, str] = {}
    watchdog: Table = {"GLOBAL": {"POLL_INTERVAL": str(t.watchdog_poll_ms)}}
    for i in intent.interfaces:
        if not i.lossless:
            continue
        port_qos[i.name] = {
            "dscp_to_tc_map": name,
            "tc_to_queue_map": name,
            "tc_to_pg_map": name,
            "pfc_to_queue_map": name,
            "pfc_enable": lossless,
            "pfcwd_sw_enable": lossless,
        }
        # the classes the DSCP map uses (identity to queues): ETS shares the port between the
        # lossless queue and the default class's, DWRR by weight; CNP (and network control,
        # where it has a class) strict priority. Other queues carry nothing and are left alone.
        for c in sorted({q.cnp_class, q.lossless_class, q.default_class} | ({q.protocol_class} - {None})):
            if c == q.lossless_class:
                queues[f"{i.name}|{c}"] = {"scheduler": dwrr, "wred_profile": name}
            elif c == q.default_class:
                queues[f"{i.name}|{c}"] = {"scheduler": lossy}
            else:
                queues[f"{i.name}|{c}"] = {"scheduler": strict}
        pgs[f"{i.name}|{lossless}"] = {"profile": "NULL"}
        if i.cable_m is not None:
            cables[i.name] = f"{i.cable_m}m"
        watchdog[i.name] = {
            "action": t.watchdog_action,
            "detection_time": str(t.watchdog_detection_ms),
            "restoration_time": str(t.watchdog_restoration_ms),
        }
    db["PORT_QOS_MAP"] = port_qos
    db["QUEUE"] = queues
    db["BUFFER_PG"] = pgs
    if cables:
        db["CABLE_LENGTH"] = {CABLE_GROUP: cables}
    if port_qos:
        db["PFC_WD"] = watchdog


def config_db(intent: Any) -> ConfigDb:
    """The CONFIG_DB tables fabricctl owns on one switch."""
    db: ConfigDb = {
        # split-unified: FRR holds BGP and EVPN in one frr.conf, not generated from CONFIG_DB
        # (sonic-buildimage dockers/docker-fpm-frr/docker_init.sh; SONiC doc/wcmp/wcmp-design.md 2.2:
        # "EVPN configuration is only relevant when docker_routing_config_mode is either split
        # or split-unified").
        "DEVICE_METADATA": {
            "localhost": {"hostname": intent.name, "docker_routing_config_mode": "split-unified"}
        },
    }
    _ports(intent, db)
    _tenants(intent, db)
    _acls(intent, db)
    _lossless(intent, db)
    return {table: rows for table, rows in db.items() if rows}


def dumps(db: ConfigDb) -> str:
    """CONFIG_DB as `sonic-cfggen -d --print-data` prints it: sorted keys, four-space indent."""
    return json.dumps(db, indent=4, sort_keys=True, ensure_ascii=False) + "\n"
