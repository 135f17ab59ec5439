"""sonic-utilities' show output in its layouts (tests/captures/sonic/: `show version`, `show
interfaces status`, `show interfaces counters`, `show lldp table`: tabulate's "simple" table,
right-aligned, two spaces between columns) and FRR's `show bgp summary json`."""

from __future__ import annotations

from typing import Any

from fabricctl.lab.config_tree import Node
from fabricctl.lab.view import View

from .render import db_of, frr_lines


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(c) for c in col) for col in zip(header, *rows, strict=True)]
    out = ["  ".join(h.rjust(w) for h, w in zip(header, widths, strict=True))]
    out.append("  ".join("-" * w for w in widths))
    out += ["  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
    return "\n".join(out)


def _port_order(name: str) -> tuple[int, str]:
    digits = "".join(c for c in name if c.isdigit())
    return (int(digits) if digits else 0, name)


def version(view: View) -> str:
    model = view.dev.spec.model
    return "\n".join(
        [
            "SONiC Software Version: SONiC.202505.0-lab",
            "Distribution: Debian 12.10",
            "Kernel: 6.1.0-29-2-amd64",
            "Build commit: 0000000",
            "",
            f"Platform: x86_64-nvidia_{model.lower()}-r0",
            f"HwSKU: ACS-{model}",
            "ASIC: mellanox",
            "ASIC Count: 1",
            f"Serial Number: MT{view.name.upper()[:10]}",
            f"Model Number: M{model}-V00",
            "Hardware Rev: A1",
        ]
    )


def interfaces_status(view: View) -> str:
    db = db_of(view.dev.running)
    members = {k.partition("|")[2] for k in db.get("VLAN_MEMBER", {})}
    header = [
        "Interface",
        "Lanes",
        "Speed",
        "MTU",
        "FEC",
        "Alias",
        "Vlan",
        "Oper",
        "Admin",
        "Type",
        "Asym PFC",
    ]
    rows = []
    for name in sorted(db.get("PORT", {}), key=_port_order):
        row = db["PORT"][name]
        speed = int(row.get("speed", "0")) // 1000
        up = view.state.oper_up(view.name, name)
        rows.append(
            [
                name,
                str(row.get("lanes", "N/A")),
                f"{speed}G",
                str(row.get("mtu", "9100")),
                str(row.get("fec", "N/A")),
                str(row.get("alias", "N/A")),
                "trunk" if name in members else "routed",
                "up" if up else "down",
                str(row.get("admin_status", "down")),
                "OSFP 8X",
                "off",
            ]
        )
    return _table(header, rows)


def interfaces_counters(view: View) -> str:
    db = db_of(view.dev.running)
    header = ["IFACE", "STATE", "RX_OK", "RX_BPS", "RX_UTIL", "RX_ERR", "RX_DRP", "RX_OVR"]
    header += ["TX_OK", "TX_BPS", "TX_UTIL", "TX_ERR", "TX_DRP", "TX_OVR"]
    rows = []
    for name in sorted(db.get("PORT", {}), key=_port_order):
        state = "U" if view.state.oper_up(view.name, name) else "D"
        zero = ["0", "0.00 B/s", "0.00%", "0", "0", "0"]
        rows.append([name, state, *zero, *zero])
    return _table(header, rows)


def _ports(view: View) -> list[str]:
    return sorted(db_of(view.dev.running).get("PORT", {}), key=_port_order)


def pfc_counters(view: View) -> str:
    """`show pfc counters`: a `Port Rx` table, then a `Port Tx` table, pause frames per priority
    (nothing pauses in the lab unless a fault storms a port; a port without PFC counts none)."""
    tables = []
    for way in ("Rx", "Tx"):
        rows = []
        for name in _ports(view):
            pauses = view.state.pauses(view.name, name, view.now)
            count = 0 if pauses is None else (pauses.received if way == "Rx" else pauses.sent)
            on = () if pauses is None else pauses.priorities
            rows.append([name, *(f"{count:,}" if p in on else "0" for p in range(8))])
        tables.append(_table([f"Port {way}", *(f"PFC{p}" for p in range(8))], rows))
    return "\n\n".join(tables)


def queue_counters(view: View) -> dict[str, Any]:
    """`show queue counters --json`: per port, unicast queues UC0-UC7 and the multicast ALL20-ALL29
    the SN5600 counts none of ("N/A"), as the capture prints them."""
    zero = {"dropbytes": "0", "droppacket": "0", "totalbytes": "0", "totalpacket": "0"}
    na = dict.fromkeys(zero, "N/A")
    return {
        name: {**{f"ALL2{q}": na for q in range(10)}, **{f"UC{q}": zero for q in range(8)}}
        for name in _ports(view)
    }


def lldp_table(view: View) -> str:
    rows = [[port, system, far, "BR", ""] for port, system, far in view.state.lldp(view.name)]
    header = ["LocalPort", "RemoteDevice", "RemotePortID", "Capability", "RemotePortDescr"]
    lines = ["Capability codes: (R) Router, (B) Bridge, (O) Other", _table(header, rows)]
    lines += ["-" * 50, f"Total entries displayed:  {len(rows)}"]
    return "\n".join(lines)


def frr_running(running: Node) -> str:
    return "\n".join(["Building configuration...", "", "Current configuration:", "!", *frr_lines(running)])


def bgp_summary(view: View) -> dict[str, Any]:
    """FRR's `show bgp summary json` (tests/captures/sonic/vtysh_show_ip_bgp_summary_json.json):
    per address family, the router and each peer's state."""
    facts = view.facts
    sessions = view.state.sessions.get(view.name, {})
    peers = {
        str(ip): {
            "remoteAs": peer.remote_as,
            "state": sessions[ip].state if ip in sessions else "Idle",
            "desc": peer.description,
        }
        for ip, peer in sorted(facts.peers.items())
    }
    return {
        "ipv4Unicast": {
            "routerId": str(facts.router_id) if facts.router_id else "0.0.0.0",
            "as": facts.asn or 0,
            "vrfName": "default",
            "peers": peers,
            "totalPeers": len(peers),
        }
    }
