"""`nv show ...` answers: the operational state of one switch, from its applied tree and the fabric.

NVUE's show output mirrors its object model (`nv show interface swp1 link stats` is GET
/nvue_v1/interface/swp1/link/stats, NVUE API "Use the API for Active Monitoring"), so each
function returns the JSON object (`-o json`); the CLI prints it as JSON or YAML. Field names are
those NVIDIA's documents show (NVUE API: interface `link` admin-status / oper-status / mtu /
state / stats with carrier-transitions, in-bytes, in-pkts ... out-errors; NVUE reference: LLDP
neighbor columns, `counters qos pfc-stats` switch-priority rx-pause-frames rx-pause-duration
tx-pause-frames tx-pause-duration; RoCE page: `qos roce counters` rx-pfc-stats, tx-ecn-stats,
tx-cnp-stats ...; NVUE CLI: the `lldp-detail` and `qos-roce-counters` views of `nv show
interface`). A path that names configuration (`nv show vrf default
router bgp`) answers with the applied subtree.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from ipaddress import IPv4Address
from typing import Any

import fabricctl.lab.devices.nvue.revisions as revisions
import fabricctl.lab.devices.nvue.show_platform as show_platform
from fabricctl.lab.devices.nvue.tree import NVUE_VERSION, Tree, get_path
from fabricctl.lab.ports import chassis_digits
from fabricctl.lab.traffic import ROCE_FRAME_BYTES, port_traffic
from fabricctl.lab.view import View
from fabricctl.macs import mac_as

DEFAULT_MTU = 9216
PRIORITIES = range(8)


def interfaces(view: View) -> dict[str, Any]:
    return {name: interface(view, name) for name in view.facts.ports}


def _ifindex(view: View, name: str) -> int:
    return list(view.facts.ports).index(name) + 2  # 1 is lo's in Linux; NVUE lists lo too


def interface(view: View, name: str) -> dict[str, Any]:
    """`nv show interface <id> -o json` (the object the NVUE API's interface GET returns)."""
    port = view.facts.ports[name]
    up = view.state.oper_up(view.name, name)
    kind = _type(name)
    link: dict[str, Any] = {
        "admin-status": "up" if port.admin_up else "down",
        "oper-status": "up" if up else "down",
        "mtu": port.mtu or DEFAULT_MTU,
        "mac-address": mac_as(view.mac_digits(), "MAC_COLON_TWO"),
        "state": {"up" if port.admin_up else "down": {}},
        "stats": link_stats(view, name),
    }
    if port.speed:
        link["speed"] = f"{port.speed}G"
    out: dict[str, Any] = {"ifindex": _ifindex(view, name), "link": link, "type": kind}
    if port.addresses:
        out["ip"] = {"address": {str(a): {} for a in port.addresses}, "vrf": port.vrf}
    if port.description:
        out["description"] = port.description
    return out


def _type(name: str) -> str:
    for prefix, kind in (
        ("swp", "swp"),
        ("lo", "loopback"),
        ("vlan", "svi"),
        ("eth", "eth"),
        ("bond", "bond"),
    ):
        if name.startswith(prefix):
            return kind
    return "swp"


def link_stats(view: View, name: str) -> dict[str, int]:
    """`nv show interface <id> link stats`: the tenants' workload where one runs; errors are the faults'."""
    t = port_traffic(view.state, view.name, name, view.now)
    return {
        "carrier-transitions": t.link_changes,
        "in-bytes": t.rx_packets * ROCE_FRAME_BYTES,
        "in-drops": 0,
        "in-errors": t.fcs_errors,
        "in-pkts": t.rx_packets,
        "out-bytes": t.tx_packets * ROCE_FRAME_BYTES,
        "out-drops": t.lossless_dropped,
        "out-errors": 0,
        "out-pkts": t.tx_packets,
    }


def lldp_neighbors(view: View, name: str) -> dict[str, Any]:
    """`nv show interface <id> lldp neighbor -o json`: one entry per neighbor system."""
    out: dict[str, Any] = {}
    for port, system, far_port in view.state.lldp(view.name):
        if port != name:
            continue
        out[system] = {
            "chassis": {"system-name": system, "chassis-id": _far_mac(view, system)},
            "port": {"name": far_port, "ttl": 120},
        }
    return out


def lldp_detail(view: View) -> dict[str, Any]:
    """`nv show interface lldp-detail -o json` (NVUE Command Reference, Show Commands > LLDP:
    "detailed LLDP information for all configured interfaces", since Cumulus Linux 5.0.0): per
    interface with a neighbor, its `lldp.neighbor` objects as `nv show interface <id> lldp
    neighbor` gives them."""
    out: dict[str, Any] = {}
    for name in view.facts.ports:
        found = lldp_neighbors(view, name)
        if found:
            out[name] = {"lldp": {"neighbor": found}}
    return out


def _far_mac(view: View, system: str) -> str:
    return mac_as(f"1c34{chassis_digits(system)}", "MAC_COLON_TWO")


def bgp_neighbors(view: View, vrf: str) -> dict[str, Any]:
    """`nv show vrf <vrf> router bgp neighbor -o json`."""
    if vrf != "default":
        return {}
    out: dict[str, Any] = {}
    for ip, session in sorted(view.state.sessions.get(view.name, {}).items()):
        entry: dict[str, Any] = {
            "remote-as": session.remote_as,
            "state": session.state.lower(),
            "type": "numbered",
            "address-family": {
                {"ipv4": "ipv4-unicast", "evpn": "l2vpn-evpn"}[f]: {"enable": "on"}
                for f in sorted(session.families)
            },
        }
        if session.peer_router_id is not None:
            entry["peer-router-id"] = str(session.peer_router_id)
        if session.description:
            entry["description"] = session.description
        if session.reason:
            entry["last-reset-reason"] = session.reason
        out[str(ip)] = entry
    return out


def evpn_vnis(view: View) -> dict[str, Any]:
    """`nv show evpn vni -o json`: each VNI, its owner and the remote VTEPs EVPN learned."""
    remote = view.state.remote_vteps(view.name)
    out: dict[str, Any] = {}
    for vni, (kind, owner) in sorted(view.facts.vnis.items()):
        entry: dict[str, Any] = {
            "type": "L2" if kind == "vlan" else "L3",
            "remote-vtep": {str(ip): {} for ip in sorted(remote.get(vni, set()), key=IPv4Address)},
        }
        if view.facts.vtep is not None:
            entry["local-vtep"] = str(view.facts.vtep)
        entry["vlan" if kind == "vlan" else "vrf"] = int(owner) if kind == "vlan" else owner
        out[str(vni)] = entry
    return out


def pfc_stats(view: View, name: str) -> dict[str, Any]:
    """`nv show interface <id> counters qos pfc-stats -o json`, per switch priority."""
    pauses = view.state.pauses(view.name, name, view.now)
    out: dict[str, Any] = {}
    for prio in PRIORITIES:
        counted = pauses is not None and prio in pauses.priorities
        out[str(prio)] = {
            "rx-pause-frames": pauses.received if counted and pauses else 0,
            "rx-pause-duration": 0,
            "tx-pause-frames": pauses.sent if counted and pauses else 0,
            "tx-pause-duration": 0,
        }
    return out


def port_stats(view: View, name: str) -> dict[str, Any]:
    """`nv show interface <id> counters qos port-stats -o json`: ECN marks and lossless drops."""
    t = port_traffic(view.state, view.name, name, view.now)
    return {
        "rx-stats": {"rx-frames": 0, "rx-buffer-discards": t.lossless_dropped},
        "tx-stats": {"tx-frames": 0, "ecn-marked-packets": t.ecn_marked, "tx-uc-buffer-discards": 0},
    }


def egress_queue_stats(view: View, name: str) -> dict[str, Any]:
    """`nv show interface <id> counters qos egress-queue-stats -o json`, per traffic class."""
    t = port_traffic(view.state, view.name, name, view.now)
    return {
        str(tc): {
            "tx-frames": t.cnp_sent if tc == 6 else 0,
            "tx-bytes": 0,
            "tx-uc-buffer-discards": t.lossless_dropped if tc == 3 else 0,
            "wred-discards": 0,
        }
        for tc in PRIORITIES
    }


def roce_counters(view: View, name: str) -> dict[str, Any]:
    """`nv show interface <id> qos roce counters -o json` (RoCE page, "Verify RoCE Configuration"):
    PFC pauses of the lossless priority, ECN marks, CNPs sent and the no-buffer discards."""
    t = port_traffic(view.state, view.name, name, view.now)
    pauses = view.state.pauses(view.name, name, view.now)
    return {
        "rx-stats": {
            "rx-non-roce-stats": {"no-buffer-discard": 0},
            "rx-pfc-stats": {"pause-packets": pauses.received if pauses else 0},
            "rx-roce-stats": {"no-buffer-discard": 0},
        },
        "tx-stats": {
            "tx-cnp-stats": {"cnp-packets": t.cnp_sent, "unicast-no-buffer-discard": 0},
            "tx-ecn-stats": {"ecn-marked-packets": t.ecn_marked},
            "tx-pfc-stats": {"pause-packets": pauses.sent if pauses else 0},
            "tx-roce-stats": {"unicast-no-buffer-discard": t.lossless_dropped},
        },
    }


# --- system and platform ---------------------------------------------------------------------------


def _release() -> str:
    return NVUE_VERSION.split()[-1]


def system(view: View) -> dict[str, Any]:
    """`nv show system -o json`: the fields the 5.16/5.17 table lists (hostname, uptime in
    seconds, product name and release, date and time zone, health, system MAC), and `build`,
    what the NVUE API guide's example of GET /nvue_v1/system returns."""
    now = time.gmtime(view.calendar)
    return {
        "hostname": view.hostname,
        "fqdn": view.hostname,
        "uptime": int(view.uptime),
        "product-name": "Cumulus Linux",
        "build": NVUE_VERSION,
        "timezone": "Etc/UTC",
        "date-time": {"local-time": time.strftime("%Y-%m-%d %H:%M:%S", now), "timezone": "Etc/UTC"},
        "health": {"status": "OK"},
        "version": {"product-release": _release()},
        "global": {"system-mac": mac_as(view.mac_digits(), "MAC_COLON_TWO"), "anycast-mac": "none"},
    }


def system_version(view: View) -> dict[str, Any]:
    """`nv show system version -o json` (NVIDIA's 5.16 example's fields)."""
    return {
        "onie": "2024.08-5.3.0014-115200",
        "kernel": "6.1.0-cl-1-amd64",
        "base-os": "Debian GNU/Linux 12.13",
        "product-release": _release(),
        "image": {"build-id": f"{_release()}.0087", "build-date": "Thu Feb 19 20:27:27 UTC 2026"},
    }


def system_cpu(view: View) -> dict[str, Any]:
    return {
        "model": "Intel(R) Xeon(R) CPU D-1734NT @ 2.00GHz",
        "core-count": 8,
        "utilization": float(view.model.cpu_percent),
    }


def system_memory(view: View) -> dict[str, Any]:
    mdl = view.model
    total, free = mdl.mem_total_kb * 1024, mdl.mem_free_kb * 1024
    return {
        "Physical": {
            "total": total,
            "free": free,
            "used": total - free,
            "utilization": round(100 * (total - free) / total, 1),
            "buffers": 0,
            "cache": 0,
        },
        "Swap": {"total": 0, "free": 0, "used": 0, "utilization": 0.0},
    }


def platform(view: View) -> dict[str, str]:
    """`nv show platform` (Cumulus Linux 5.9 and later: the platform's hardware), with the keys
    of NVIDIA's example (user guide 5.17, Monitoring System Hardware); the serial number is the
    one the switch's rack file names (lab/inventory.py), the values besides are the lab's."""
    mdl = view.model
    digits = view.mac_digits()
    return {
        "system-mac": mac_as(digits, "MAC_COLON_TWO"),
        "manufacturer": "Nvidia",
        "cpu": "x86_64 Intel(R) Xeon(R) CPU D-1734NT x16",
        "memory": f"{mdl.mem_total_kb / 1024 / 1024:.2f} GB",
        "disk-size": "n/a",
        "port-layout": "64x800G",
        "part-number": f"{mdl.name}-NS2F",
        "serial-number": view.dev.serial(),
        "asic-model": "Spectrum-4",
        "system-uuid": f"{digits[:8]}-{digits[8:12]}-4000-8000-{digits:0>12}"[:36],
        "system-type": mdl.name,
    }


def operational_table(data: dict[str, str]) -> str:
    """A flat object as NVUE's CLI prints it: its keys, and their values under `operational`,
    each column under a row of dashes (the layout of NVIDIA's `nv show platform` example)."""
    key_w, value_w = max(map(len, data)), max(map(len, data.values()))
    lines = [" " * (key_w + 2) + "operational".ljust(value_w), "-" * key_w + "  " + "-" * value_w]
    lines += [f"{k.ljust(key_w)}  {v.ljust(value_w)}" for k, v in data.items()]
    return "\n".join(lines)


def environment(view: View, what: str) -> dict[str, Any] | None:
    """`nv show platform environment fan|psu|temperature -o json`: the model's fixed facts."""
    mdl = view.model
    if what == "fan":
        fans = {
            f"FAN{t}/{f}": {
                "state": "ok",
                "current-speed": 6000,
                "max-speed": 29000,
                "min-speed": 2500,
                "direction": "F2B",
            }
            for t in range(1, mdl.fan_trays + 1)
            for f in range(1, mdl.fans_per_tray + 1)
        }
        fans |= {
            f"PSU{p}/FAN": {
                "state": "ok",
                "current-speed": 6000,
                "max-speed": 29000,
                "min-speed": 2500,
                "direction": "F2B",
            }
            for p in range(1, mdl.psus + 1)
        }
        return fans
    if what == "psu":
        return {
            f"PSU{p}": {"state": "ok", "capacity": mdl.psu_watts, "model": mdl.psu_model}
            for p in range(1, mdl.psus + 1)
        }
    if what == "temperature":
        return {
            s.name: {"current": s.celsius, "max": s.overheat, "crit": s.critical, "min": 0.0, "state": "ok"}
            for s in mdl.sensors
        }
    return None


# --- routing, BFD, EVPN routes ---------------------------------------------------------------------


def bgp_neighbor(view: View, vrf: str, peer: str) -> dict[str, Any] | None:
    """`nv show vrf <vrf> router bgp neighbor <ip> -o json`: the summary entry and the session's
    details (timers, its local address, the message counts)."""
    entry = bgp_neighbors(view, vrf).get(peer)
    if entry is None:
        return None
    session = view.state.sessions[view.name][IPv4Address(peer)]
    up = session.state == "Established"
    port = view.state._connected_port(view.name, session.peer)
    local = view.facts.ports[port].addresses[0].ip if port else view.facts.router_id
    return {
        **entry,
        "local-as": view.facts.asn,
        "hold-time": 9 if up else 0,
        "keepalive-time": 3 if up else 0,
        "timers": {"hold-time": 9, "keepalive": 3, "connection-retry": 10},
        "local-ip": str(local),
        "bfd": {
            "status": "up"
            if any(b.up for b in view.routing.bfd(view.name) if str(b.peer) == peer)
            else "down"
        },
        "message-stats": {
            "input-count": int(view.uptime // 3) if up else 0,
            "output-count": int(view.uptime // 3) if up else 0,
        },
        "uptime": int(view.uptime) if up else 0,
    }


def bfd_peers(view: View) -> dict[str, Any]:
    """`nv show vrf default router bfd peers -o json`: one session per BGP peer with BFD."""
    out: dict[str, Any] = {}
    for i, b in enumerate(view.routing.bfd(view.name), start=1):
        out[str(i)] = {
            "peer": str(b.peer),
            "local": str(b.local),
            "interface": b.interface,
            "state": "up" if b.up else "down",
            "multihop": "off" if b.interface else "on",
            "tx-interval": 300,
            "rx-interval": 300,
            "detect-multiplier": 3,
            "up-time": int(view.uptime) if b.up else 0,
        }
    return out


def evpn_routes(view: View) -> dict[str, Any]:
    """`nv show vrf default router bgp address-family l2vpn-evpn route -o json`: each route by
    its id, `[RD]:[type]:[0]:[key]` as 5.11+ prints it, with its RD, type and path count."""
    out: dict[str, Any] = {}
    spines = sum(
        1
        for s in view.state.sessions.get(view.name, {}).values()
        if s.state == "Established" and "evpn" in s.families
    )
    for r in view.routing.evpn_routes(view.name):
        if r.kind == 2:
            key = f"[{r.mac}]" + (f":[{r.ip}]" if r.ip else "")
        elif r.kind == 3:
            key = f"[{r.vtep}]"
        else:
            key = f"[{r.prefix}]"
        paths = 1 if r.origin == view.name or view.facts.vtep is None else max(spines, 1)
        out[f"[{r.rd}]:[{r.kind}]:[0]:{key}"] = {"rd": r.rd, "route-type": r.kind, "path-count": paths}
    return out


def evpn_vni_bgp_info(view: View, vni: int) -> dict[str, Any] | None:
    """`nv show evpn vni <vni> bgp-info -o json` (BGP-EVPN show reference 5.17)."""
    owner = view.facts.vnis.get(vni)
    if owner is None:
        return None
    imports, exports = view.facts.route_targets.get(owner, (set(), set()))
    rid = view.facts.router_id or view.facts.vtep
    rd = view.facts.segment_rds.get(owner) or view.facts.rds.get(owner[1]) or f"{rid}:{vni}"
    return {
        "rd": rd,
        "local-vtep": str(view.facts.vtep or ""),
        "advertise-svi-ip": "off",
        "advertise-default-gateway": "disabled",
        "in-kernel": "on",
        "type": "L2" if owner[0] == "vlan" else "L3",
        "mac-vrf-soo": "",
        "import-route-target": {rt: {} for rt in sorted(imports)},
        "export-route-target": {rt: {} for rt in sorted(exports)},
    }


def ip_addresses(view: View, name: str) -> dict[str, Any]:
    port = view.facts.ports[name]
    return {str(a): {} for a in port.addresses}


# --- the paths ----------------------------------------------------------------------------------------

Path = tuple[str, ...]
#: Operational paths: a pattern (`<if>` an interface, `<vrf>` a VRF, `<peer>` a BGP peer, `<vni>`
#: a VNI, `<any>` any word) -> the answer.
_PATHS: list[tuple[Path, Callable[[View, list[str]], Any]]] = [
    (("interface",), lambda v, w: interfaces(v)),
    (("interface", "lldp-detail"), lambda v, w: lldp_detail(v)),
    (
        ("interface", "qos-roce-counters"),
        lambda v, w: {n: roce_counters(v, n) for n in v.facts.ports if n.startswith("swp")},
    ),
    (("interface", "<if>"), lambda v, w: interface(v, w[1])),
    (("interface", "<if>", "link"), lambda v, w: interface(v, w[1])["link"]),
    (("interface", "<if>", "link", "stats"), lambda v, w: link_stats(v, w[1])),
    (("interface", "<if>", "counters"), lambda v, w: link_stats(v, w[1])),
    (("interface", "<if>", "ip", "address"), lambda v, w: ip_addresses(v, w[1])),
    (("interface", "<if>", "lldp"), lambda v, w: {"neighbor": lldp_neighbors(v, w[1])}),
    (("interface", "<if>", "lldp", "neighbor"), lambda v, w: lldp_neighbors(v, w[1])),
    (("interface", "<if>", "lldp", "neighbor", "<any>"), lambda v, w: lldp_neighbors(v, w[1]).get(w[4])),
    (("interface", "<if>", "counters", "qos", "pfc-stats"), lambda v, w: pfc_stats(v, w[1])),
    (("interface", "<if>", "counters", "qos", "port-stats"), lambda v, w: port_stats(v, w[1])),
    (
        ("interface", "<if>", "counters", "qos", "egress-queue-stats"),
        lambda v, w: egress_queue_stats(v, w[1]),
    ),
    (("interface", "<if>", "qos", "roce", "counters"), lambda v, w: roce_counters(v, w[1])),
    (("vrf", "<vrf>", "router", "bgp", "neighbor"), lambda v, w: bgp_neighbors(v, w[1])),
    (("vrf", "<vrf>", "router", "bgp", "neighbor", "<any>"), lambda v, w: bgp_neighbor(v, w[1], w[5])),
    (("vrf", "default", "router", "bfd", "peers"), lambda v, w: bfd_peers(v)),
    (
        ("vrf", "default", "router", "bgp", "address-family", "l2vpn-evpn", "route"),
        lambda v, w: evpn_routes(v),
    ),
    (("evpn", "vni"), lambda v, w: evpn_vnis(v)),
    (("evpn", "vni", "<any>"), lambda v, w: evpn_vnis(v).get(w[2])),
    (
        ("evpn", "vni", "<any>", "bgp-info"),
        lambda v, w: evpn_vni_bgp_info(v, int(w[2])) if w[2].isdigit() else None,
    ),
    (("system",), lambda v, w: system(v)),
    (("system", "version"), lambda v, w: system_version(v)),
    (("system", "cpu"), lambda v, w: system_cpu(v)),
    (("system", "memory"), lambda v, w: system_memory(v)),
    (("system", "health"), lambda v, w: {"status": "OK", "status-led": "green"}),
    (("platform",), lambda v, w: platform(v)),
    (("platform", "environment", "<any>"), lambda v, w: environment(v, w[2])),
]


def _matches(view: View, pattern: Path, words: list[str]) -> bool:
    if len(pattern) != len(words):
        return False
    for want, word in zip(pattern, words, strict=True):
        if want == "<if>":
            if word not in view.facts.ports:
                return False
        elif want == "<vrf>":
            if word != "default" and word not in view.facts.rds:
                return False
        elif want != "<any>" and want != word:
            return False
    return True


def answer(view: View, words: list[str], source: Tree | None) -> Any:
    """What `nv show <words>` returns (None: no such object). `source`: the revision read
    (applied unless `--pending` / `--rev`); an operational path answers from the switch's state
    only when no revision is asked for."""
    if source is None:
        optics = show_platform.answer(view, words)
        if optics is not None:
            return optics
        for pattern, fn in _PATHS:
            if _matches(view, pattern, words):
                return fn(view, words)
    tree = source if source is not None else revisions.applied(view.dev)
    return get_path(tree, words) if words else tree
