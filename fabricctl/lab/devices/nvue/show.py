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

from collections.abc import Callable
from ipaddress import IPv4Address
from typing import Any

import fabricctl.lab.devices.nvue.revisions as revisions
from fabricctl.lab.devices.nvue.tree import Tree, get_path
from fabricctl.lab.ports import chassis_digits
from fabricctl.lab.traffic import ROCE_FRAME_BYTES, port_traffic
from fabricctl.lab.view import View, colon_mac

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
        "mac-address": colon_mac(view.mac_digits()),
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
    return colon_mac(f"1c34{chassis_digits(system)}")


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


def answer(view: View, words: list[str], source: Tree | None) -> Any:
    """What `nv show <words>` returns (None: no such object). `source`: the revision read
    (applied unless `--pending` / `--rev`)."""
    ports = view.facts.ports
    if words == ["interface"]:
        return interfaces(view)
    if words == ["interface", "lldp-detail"] and source is None:
        return lldp_detail(view)
    if words == ["interface", "qos-roce-counters"] and source is None:
        return {name: roce_counters(view, name) for name in view.facts.ports if name.startswith("swp")}
    if len(words) >= 2 and words[0] == "interface" and words[1] in ports and source is None:
        name, rest = words[1], words[2:]
        table: dict[tuple[str, ...], Callable[[], Any]] = {
            (): lambda: interface(view, name),
            ("link",): lambda: interface(view, name)["link"],
            ("link", "stats"): lambda: link_stats(view, name),
            ("lldp", "neighbor"): lambda: lldp_neighbors(view, name),
            ("counters", "qos", "pfc-stats"): lambda: pfc_stats(view, name),
            ("counters", "qos", "port-stats"): lambda: port_stats(view, name),
            ("counters", "qos", "egress-queue-stats"): lambda: egress_queue_stats(view, name),
            ("qos", "roce", "counters"): lambda: roce_counters(view, name),
        }
        fn = table.get(tuple(rest))
        if fn is not None:
            return fn()
    if (
        len(words) == 5
        and words[0] == "vrf"
        and words[2:] == ["router", "bgp", "neighbor"]
        and source is None
    ):
        return bgp_neighbors(view, words[1])
    if words == ["evpn", "vni"] and source is None:
        return evpn_vnis(view)
    if words == ["system"] and source is None:
        return {"hostname": view.hostname, "build": "Cumulus Linux 5.15.0", "uptime": int(view.uptime)}
    tree = source if source is not None else revisions.applied(view.dev)
    return get_path(tree, words) if words else tree
