"""A SONiC configuration (CONFIG_DB JSON, then frr.conf: document.py) -> the neutral read-back model
the proofs read. Each fact keeps its line: a CONFIG_DB field the line of its `"field": value` in
the JSON as printed (four-space indent, one field a line), an FRR fact the line of its command.
VRF names are read back as fabricctl names (`Vrf-<tenant>` -> `tnt-<tenant>`), each Src quoting
the SONiC name. Tables and fields: configdb.py; FRR lines: frr.py.
"""

from __future__ import annotations

import re
from ipaddress import IPv4Interface, IPv4Network
from typing import Any

from fabricctl.config.readback import (
    Acl,
    AclRule,
    At,
    Interface,
    PortQos,
    RtHolder,
    Segment,
    Src,
    SwitchConfig,
)
from fabricctl.platforms.sonic.configdb import ACL_TOP, ConfigDb
from fabricctl.platforms.sonic.document import split
from fabricctl.platforms.sonic.switch import fabric_vrf

PLATFORM = "sonic"
#: A port without an `mtu` field runs 9100 (sonic-buildimage src/sonic-config-engine/minigraph.py:
#: "set default port MTU as 9100").
DEFAULT_MTU = 9100

_ROW = re.compile(r'^ {4}"([^"]+)": \{|^ {8}"([^"]+)": |^ {12}"([^"]+)": ')


class Lines:
    """(table, key[, field]) -> the line it is printed on."""

    def __init__(self, text: str) -> None:
        self.at: dict[tuple[str, ...], int] = {}
        table = key = ""
        for n, line in enumerate(text.splitlines(), 1):
            m = _ROW.match(line)
            if m is None:
                continue
            if m[1] is not None:
                table = m[1]
                self.at[(table,)] = n
            elif m[2] is not None:
                key = m[2]
                self.at[(table, key)] = n
            else:
                self.at[(table, key, m[3])] = n
            if line.startswith("}"):
                break

    def src(self, table: str, key: str, field: str | None = None, value: Any = None) -> Src:
        where = (table, key) if field is None else (table, key, field)
        text = f"{table}|{key}" if field is None else f"{table}|{key} {field}: {value}"
        return Src(self.at.get(where, 0), text)


def parse_sonic(switch: str, text: str) -> SwitchConfig:
    db, frr, frr_line = split(switch, text)
    lines = Lines(text)
    # FRR gives routes with the GRACEFUL_SHUTDOWN community LOCAL_PREF 0 as a receiver, and
    # sends communities to every neighbor.
    cfg = SwitchConfig(
        switch, PLATFORM, ip_mtu_default=DEFAULT_MTU, lines=text.count("\n"), honors_gshut=True
    )
    _ports(cfg, db, lines)
    _qos(cfg, db, lines)
    _segments(cfg, db, lines)
    _acls(cfg, db, lines)
    _frr(cfg, frr, frr_line)
    return cfg


def _table(db: ConfigDb, name: str) -> dict[str, dict[str, Any]]:
    return db.get(name, {})


def _ports(cfg: SwitchConfig, db: ConfigDb, lines: Lines) -> None:
    for name, row in _table(db, "PORT").items():
        intf = Interface(name, lines.src("PORT", name))
        if row.get("admin_status", "down") != "up":  # sonic-port.yang: admin_status default down
            intf.shutdown = lines.src("PORT", name, "admin_status", row.get("admin_status", "(default down)"))
        if str(row.get("mtu", "")).isdigit():
            intf.mtu = At(int(row["mtu"]), lines.src("PORT", name, "mtu", row["mtu"]))
        cfg.interfaces[name] = intf
    for table in ("INTERFACE", "VLAN_INTERFACE", "LOOPBACK_INTERFACE"):
        for key, row in _table(db, table).items():
            name, _, prefix = key.partition("|")
            intf = cfg.interfaces.setdefault(name, Interface(name, lines.src(table, key)))
            if prefix:
                ip = IPv4Interface(prefix)
                intf.ipv4.append(At(ip, lines.src(table, key)))
            elif vrf := row.get("vrf_name"):
                intf.vrf = At(fabric_vrf(vrf), lines.src(table, key, "vrf_name", vrf))
    for key in _table(db, "VLAN_MEMBER"):
        vlan, _, port = key.partition("|")
        if port in cfg.interfaces:
            cfg.interfaces[port].segment = At(vlan.removeprefix("Vlan"), lines.src("VLAN_MEMBER", key))
    for key, row in _table(db, "VLAN").items():
        svi = cfg.interfaces.get(key)
        if svi is not None and str(row.get("vlanid", "")).isdigit():
            svi.segment = At(str(row["vlanid"]), lines.src("VLAN", key, "vlanid", row["vlanid"]))


def _qos(
    cfg: SwitchConfig, db: ConfigDb, lines: Lines
) -> None:  # long: PFC, ECN, scheduling and the watchdog per port
    """The DSCP and queue maps, then per port what PORT_QOS_MAP, QUEUE, SCHEDULER, WRED_PROFILE,
    BUFFER_PG, CABLE_LENGTH and PFC_WD put in force."""
    maps = _table(db, "DSCP_TO_TC_MAP")
    queues_map = _table(db, "TC_TO_QUEUE_MAP")
    for name, mapping in maps.items():
        for dscp, tc in mapping.items():
            cfg.dscp_map[int(dscp)] = At(int(tc), lines.src("DSCP_TO_TC_MAP", name, dscp, tc))
    for name, mapping in queues_map.items():
        for tc, q in mapping.items():
            if tc != q:
                cfg.class_queue[int(tc)] = At(int(q), lines.src("TC_TO_QUEUE_MAP", name, tc, q))
    sched = _table(db, "SCHEDULER")
    wred = _table(db, "WRED_PROFILE")
    cables = next(iter(_table(db, "CABLE_LENGTH").items()), ("", {}))
    watchdog = _table(db, "PFC_WD")
    if "GLOBAL" in watchdog:
        poll = watchdog["GLOBAL"].get("POLL_INTERVAL", "")
        cfg.watchdog_timers = At(
            f"POLL_INTERVAL {poll}", lines.src("PFC_WD", "GLOBAL", "POLL_INTERVAL", poll)
        )
    for port, row in _table(db, "PORT_QOS_MAP").items():
        intf = cfg.interfaces.get(port)
        if intf is None:
            continue
        qos = PortQos()
        if "dscp_to_tc_map" in row:
            qos.trust_dscp = lines.src("PORT_QOS_MAP", port, "dscp_to_tc_map", row["dscp_to_tc_map"])
            qos.profile = qos.trust_dscp
        enabled = [p for p in str(row.get("pfc_enable", "")).split(",") if p.isdigit()]
        if enabled:
            at = lines.src("PORT_QOS_MAP", port, "pfc_enable", row["pfc_enable"])
            qos.pfc_enabled = at
            qos.no_drop = {int(p): at for p in enabled}
            dynamic = _table(db, "DEVICE_METADATA").get("localhost", {}).get("buffer_model") != "traditional"
            for p in enabled:
                pg = f"{port}|{p}"
                profile = _table(db, "BUFFER_PG").get(pg, {}).get("profile", "NULL")
                if pg in _table(db, "BUFFER_PG") and (dynamic or profile != "NULL"):
                    qos.headroom[int(p)] = lines.src(
                        "BUFFER_PG", pg, "profile", _table(db, "BUFFER_PG")[pg].get("profile")
                    )
        if port in watchdog and str(row.get("pfcwd_sw_enable", "")):
            qos.watchdog = lines.src("PFC_WD", port, "action", watchdog[port].get("action"))
        for key, q in _table(db, "QUEUE").items():
            name, _, index = key.partition("|")
            if name != port or not index.isdigit():
                continue
            if sched.get(q.get("scheduler", ""), {}).get("type") == "STRICT":
                qos.strict_queues[int(index)] = lines.src("QUEUE", key, "scheduler", q["scheduler"])
            profile = wred.get(q.get("wred_profile", ""))
            if profile and profile.get("ecn", "ecn_none") != "ecn_none":
                at = lines.src("QUEUE", key, "wred_profile", q["wred_profile"])
                qos.ecn_queues[int(index)] = at
                spelled = (
                    f"min {profile.get('green_min_threshold')} max {profile.get('green_max_threshold')} bytes"
                )
                qos.ecn_values[int(index)] = At(spelled, at)
        if port in cables[1]:
            meters = str(cables[1][port]).removesuffix("m")
            if meters.isdigit():
                qos.cable_m = At(int(meters), lines.src("CABLE_LENGTH", cables[0], port, cables[1][port]))
        intf.qos = qos


def _segments(cfg: SwitchConfig, db: ConfigDb, lines: Lines) -> None:
    """VRFs with their L3VNI (VRF `vni`), and VLANs mapped to a VNI (VXLAN_TUNNEL_MAP): l2
    tenants' segments; a VLAN whose SVI is in a VRF with that VNI is the VRF's L3VNI VLAN."""
    for name, row in _table(db, "VRF").items():
        holder = cfg.vrf(fabric_vrf(name))
        holder.src = lines.src("VRF", name)
        if str(row.get("vni", "")).isdigit():
            holder.vnis.append(At(int(row["vni"]), lines.src("VRF", name, "vni", row["vni"])))
            holder.vni = holder.vnis[0]
    l3vnis = {h.vni.value for h in cfg.vrfs.values() if h.vni is not None}
    for key, row in _table(db, "VXLAN_TUNNEL_MAP").items():
        vlan, vni = str(row.get("vlan", "")), str(row.get("vni", ""))
        if not vni.isdigit():
            continue
        if int(vni) in l3vnis:  # the VRF's L3VNI VLAN: its SVI carries the L3VNI
            if vlan in cfg.interfaces:
                cfg.interfaces[vlan].l3vni = At(int(vni), lines.src("VXLAN_TUNNEL_MAP", key, "vni", vni))
            continue
        vid = vlan.removeprefix("Vlan")
        seg = cfg.segments.setdefault(
            vid, Segment("segment", vid, lines.src("VLAN", vlan), label=f"vlan {vid}")
        )
        seg.vnis.append(At(int(vni), lines.src("VXLAN_TUNNEL_MAP", key, "vni", vni)))
        seg.vni = seg.vnis[0]
        if vlan in _table(db, "VLAN_INTERFACE"):
            seg.gateway = At(vlan, lines.src("VLAN_INTERFACE", vlan))


def _network(text: str | None) -> IPv4Network | None:
    return IPv4Network(text, strict=False) if text else None


def _acls(cfg: SwitchConfig, db: ConfigDb, lines: Lines) -> None:
    """ACL tables with their rules (highest PRIORITY first: seq = ACL_TOP - PRIORITY), each bound
    as the inbound ACL of its `ports`; an l2 tenant's table, bound to its VLAN's member ports,
    is its gateway's too."""
    for name, row in _table(db, "ACL_TABLE").items():
        acl = Acl(name, lines.src("ACL_TABLE", name))
        cfg.acls[name] = acl
        ports = row.get("ports", [])
        for port in ports if isinstance(ports, list) else str(ports).split(","):
            if port in cfg.interfaces:
                cfg.interfaces[port].acl_in = At(name, lines.src("ACL_TABLE", name, "ports", port))
    for key, row in _table(db, "ACL_RULE").items():
        table = key.partition("|")[0]
        if table not in cfg.acls or not str(row.get("PRIORITY", "")).isdigit():
            continue
        action = {"ACCEPT": "permit", "FORWARD": "permit", "DROP": "deny"}.get(str(row.get("PACKET_ACTION")))
        if action is None:
            continue
        cfg.acls[table].rules.append(
            AclRule(
                seq=ACL_TOP - int(row["PRIORITY"]),
                action=action,
                proto="ip",
                source=_network(row.get("SRC_IP")),
                destination=_network(row.get("DST_IP")),
                src=lines.src("ACL_RULE", key, "PACKET_ACTION", row.get("PACKET_ACTION")),
            )
        )
    for seg in cfg.segments.values():
        svi = cfg.interfaces.get(f"Vlan{seg.name}")
        members = [
            i for i in cfg.interfaces.values() if i.segment and i.segment.value == seg.name and i.acl_in
        ]
        if svi is not None and members and svi.acl_in is None:
            svi.acl_in = members[0].acl_in


_VRF = re.compile(r"router bgp (\d+)(?: vrf (\S+))?$")


def _frr(cfg: SwitchConfig, text: str, first: int) -> None:  # long: one reader over frr.conf's blocks
    """BGP from frr.conf: the ASN, IPv4 peers, networks, maximum-paths, multipath-relax; per VRF
    its route targets; per L2VNI (`vni` under `address-family l2vpn evpn`) its route targets."""
    vrf: RtHolder | None = None
    seg: Segment | None = None
    peers: dict[str, At[int]] = {}
    family = ""
    for n, raw in enumerate(text.splitlines(), first):
        line = raw.strip()
        src = Src(n, line)
        words = line.split()
        if words[:1] == ["address-family"]:
            family = line
        elif line == "exit-address-family":
            family = ""
        if m := _VRF.match(line):
            vrf = cfg.vrf(fabric_vrf(m[2])) if m[2] else None
            if m[2] is None:
                cfg.bgp.asn = At(int(m[1]), src)
            continue
        if line in ("exit", "end"):
            vrf, seg = None, None
        elif line == "exit-vni":
            seg = None
        elif words[:1] == ["vni"] and raw.startswith("  ") and words[1].isdigit():
            vni = int(words[1])
            seg = next((s for s in cfg.segments.values() if s.vni and s.vni.value == vni), None)
        elif words[:2] == ["route-target", "import"] or words[:2] == ["route-target", "export"]:
            holder: RtHolder | None = seg or vrf
            if holder is not None:
                (holder.imports if words[1] == "import" else holder.exports).append(At(words[2], src))
        elif (
            vrf is None
            and seg is None
            and len(words) == 4
            and words[0] == "neighbor"
            and words[2] == "remote-as"
        ):
            peers[words[1]] = At(int(words[3]), src)
        elif vrf is None and words[:1] == ["network"]:
            cfg.bgp.networks.append(At(IPv4Network(words[1], strict=False), src))
        elif vrf is None and words[:1] == ["maximum-paths"]:
            cfg.bgp.max_paths = At(int(words[1]), src)
        elif line == "bgp bestpath as-path multipath-relax" and vrf is None:
            cfg.bgp.relax = At(True, src)
        elif (
            vrf is None
            and words[:1] == ["neighbor"]
            and words[2:] == ["activate"]
            and words[1] in peers
            and family == "address-family ipv4 unicast"
        ):
            cfg.bgp.ipv4_peers.add(words[1])
    cfg.bgp_neighbors.update(peers)
