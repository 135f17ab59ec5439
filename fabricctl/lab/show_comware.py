"""Comware V7 `display` commands that read state, in the layout H3C switches print.

The layouts follow H3C's command references (display interface brief, display lldp
neighbor-information, display bgp peer, display device manuinfo) closely enough that
ntc-templates' hp_comware templates and napalm-h3c-comware's TextFSM templates parse them.
"""

from __future__ import annotations

from fabricctl.lab.config_tree import Node
from fabricctl.lab.fabric_state import FabricState
from fabricctl.lab.ports import PortState, chassis_digits, port_states


def _link(state: PortState) -> str:
    if not state.admin_up:
        return "ADM"
    return "UP" if state.oper_up else "DOWN"


def interface_brief(running: Node, fabric: FabricState, device: str) -> str:
    facts = fabric.facts[device]
    ports = port_states("comware", running, fabric, device)
    routed = [s for s in ports if s.routed]
    bridged = [s for s in ports if not s.routed]
    rows = [
        "Brief information on interfaces in route mode:",
        "Link: ADM - administratively down; Stby - standby",
        "Protocol: (s) - spoofing",
        "Interface            Link Protocol Primary IP      Description",
    ]
    for s in routed:
        port = facts.ports.get(s.name)
        ip = str(port.addresses[0].ip) if port and port.addresses else "--"
        proto = "UP" if s.oper_up else "DOWN"
        if s.oper_up and s.name.startswith("LoopBack"):
            proto = "UP(s)"
        rows.append(f"{s.name:<20} {_link(s):<4} {proto:<8} {ip:<15} {(s.description or '')[:27]}".rstrip())
    rows += [
        "",
        "Brief information on interfaces in bridge mode:",
        "Link: ADM - administratively down; Stby - standby",
        "Speed: (a) - auto",
        "Duplex: (a)/A - auto; H - half; F - full",
        "Type: A - access; T - trunk; H - hybrid",
        "Interface            Link Speed   Duplex Type PVID Description",
    ]
    for s in bridged:
        speed = "200G" if s.name.startswith("TwoHundredGigE") else "400G"
        rows.append(
            f"{s.name:<20} {_link(s):<4} {speed:<7} F      A    1    {(s.description or '')[:27]}".rstrip()
        )
    return "\n".join(rows)


def interface_detail(state: PortState, primary: str | None) -> str:
    """`display interface <name>` (H3C S6520X command reference 1.1.9 layout)."""
    up = ("UP" if state.oper_up else "DOWN") if state.admin_up else "Administratively DOWN"
    lines = [
        state.name,
        f"Current state: {up}",
        f"Line protocol state: {'UP' if state.oper_up else 'DOWN'}",
        f"Description: {state.description or state.name + ' Interface'}",
        "Bandwidth: " + ("200000000" if state.name.startswith("TwoHundredGigE") else "400000000") + " kbps",
    ]
    if state.routed:
        if state.ip_mtu is not None:
            lines.append(f"Maximum transmission unit: {state.ip_mtu}")
        lines.append("IP packet frame type: Ethernet II, hardware address: 0000-fc00-0001")
        if primary:
            lines.append(f"Internet address: {primary} (primary)")
        else:
            lines.append("Internet protocol processing: Disabled")
        if state.max_frame is not None:
            lines += ["Allow jumbo frames to pass", f"The maximum frame length is {state.max_frame}"]
    else:
        lines.append("IP packet frame type: Ethernet II, hardware address: 0000-fc00-0001")
        if state.max_frame is not None:
            lines += [f"Maximum frame length: {state.max_frame}", "Allow jumbo frame to pass"]
        lines += ["PVID: 1", "Port link-type: Access"]
    lines.append("Last link flapping: Never")
    return "\n".join(lines)


def interfaces(running: Node, fabric: FabricState, device: str) -> str:
    facts = fabric.facts[device]
    blocks = []
    for state in port_states("comware", running, fabric, device):
        port = facts.ports.get(state.name)
        primary = str(port.addresses[0]) if port and port.addresses else None
        blocks.append(interface_detail(state, primary))
    return "\n\n".join(blocks)


def lldp_list(fabric: FabricState, device: str) -> str:
    rows = [
        "Chassis ID : * -- -- Nearest nontpmr bridge neighbor",
        "             # -- -- Nearest customer bridge neighbor",
        "             Default -- -- Nearest bridge neighbor",
        "System Name            Local Interface      Chassis ID      Port ID",
    ]
    for port, name, far in fabric.lldp(device):
        rows.append(f"{name:<22} {port:<20} {_chassis(name):<15} {far}")
    return "\n".join(rows)


def lldp_verbose(fabric: FabricState, device: str) -> str:
    blocks = []
    for index, (port, name, far) in enumerate(fabric.lldp(device), start=1):
        blocks.append(
            "\n".join(
                [
                    f"LLDP neighbor-information of port {index}[{port}]:",
                    "LLDP agent nearest-bridge:",
                    " LLDP neighbor index : 1",
                    " Update time         : 0 days, 0 hours, 1 minutes, 0 seconds",
                    " Chassis type        : MAC address",
                    f" Chassis ID          : {_chassis(name)}",
                    " Port ID type        : Interface name",
                    f" Port ID             : {far}",
                    " Time to live        : 121",
                    f" Port description    : {far} Interface",
                    f" System name         : {name}",
                    " System description  : lab switch",
                    " System capabilities supported : Bridge, Router",
                    " System capabilities enabled   : Bridge, Router",
                ]
            )
        )
    return "\n\n".join(blocks)


def _chassis(name: str) -> str:
    """A stable per-switch MAC, as the chassis ID an LLDP neighbor advertises."""
    digits = chassis_digits(name)
    return f"0000-{digits[:4]}-{digits[4:]}"


def bgp_peers(fabric: FabricState, device: str, family: str) -> str:
    """`display bgp peer ipv4` (family ipv4) / `display bgp peer l2vpn evpn` (family evpn)."""
    facts = fabric.facts[device]
    sessions = sorted(
        (s for s in fabric.sessions.get(device, {}).values() if family in s.families),
        key=lambda s: s.peer,
    )
    up = sum(1 for s in sessions if s.state == "Established")
    rows = [
        "",
        f" BGP local router ID: {facts.router_id or '0.0.0.0'}",
        f" Local AS number: {facts.asn or 0}",
        f" Total number of peers: {len(sessions)}                 Peers in established state: {up}",
        "",
        "  * - Dynamically created peer",
        "  Peer                    AS  MsgRcvd  MsgSent OutQ PrefRcv Up/Down  State",
        "",
    ]
    for s in sessions:
        est = s.state == "Established"
        state = "Established" if est else s.state
        n = 10 if est else 0
        rows.append(
            f"  {s.peer!s:<18} {s.remote_as or 0:>10} {n:>8} {n:>8} {0:>4} {1 if est else 0:>7} 00:10:00 {state}"
        )
    return "\n".join(rows)


def device_manuinfo(model: str, serial: str) -> str:
    return "\n".join(
        [
            "Slot 1 CPU 0:",
            f"DEVICE_NAME          : {model}",
            f"DEVICE_SERIAL_NUMBER : {serial}",
            "MAC_ADDRESS          : 0000-FC00-0001",
            "MANUFACTURING_DATE   : 2025-01-01",
            "VENDOR_NAME          : H3C",
        ]
    )


def pfc_interface(fabric: FabricState, device: str, now: float, only: str | None = None) -> str:
    """`display priority-flow-control interface [name]` (H3C S9825/S9855 R913x PFC command
    reference, display priority-flow-control): one row per Ethernet port, with PFC frames
    received and sent on each no-drop priority and their rates (Inpps, Outpps). The lab prints
    full interface names where the switch prints abbreviated ones."""
    rows = [
        "Interface                        AdminMode  OperMode  Dot1pList   Prio  Recv"
        "       Send       Inpps      Outpps",
        "-" * 99,
    ]
    for port in fabric.facts[device].ports:
        if not port.startswith(("FourHundredGigE", "TwoHundredGigE")) or (only and port != only):
            continue
        pauses = fabric.pauses(device, port, now)
        if pauses is None:
            rows.append(f"{port:<32} {'Disabled':<10} {'Disabled':<9}")
            continue
        dot1p = ",".join(str(p) for p in pauses.priorities)
        oper = "Enabled" if fabric.link_up(device, port) else "Disabled"
        for prio in pauses.priorities or (0,):
            rows.append(
                f"{port:<32} {'Enabled':<10} {oper:<9} {dot1p:<11} {prio:<5} {pauses.received:<10} "
                f"{pauses.sent:<10} {pauses.received_pps:<10} {pauses.sent_pps}"
            )
    return "\n".join(rows)


def vpn_instances(running: Node) -> str:
    """`display ip vpn-instance`: every VPN instance with its RD (the layout ntc-templates'
    hp_comware_display_ip_vpn-instance template reads, from a Comware V7 capture)."""
    found = []
    for text, node in running.children.items():
        words = text.split()
        if words[:2] == ["ip", "vpn-instance"] and len(words) == 3:
            rd = next((w[1] for w in map(str.split, node.children) if w[0] == "route-distinguisher"), "")
            found.append((words[2], rd))
    rows = [
        f"  Total VPN-Instances configured : {len(found)}",
        "  VPN-Instance Name               RD                     Create time",
    ]
    rows += [f"  {name:<31} {rd:<22} 2025/01/01 00:00:00" for name, rd in found]
    return "\n".join(rows)


def vlans(running: Node, fabric: FabricState, device: str) -> str:
    """`display vlan all` (Comware V7 layout, as ntc-templates' hp_comware_display_vlan_all reads it):
    VLAN 1 holds every bridged Ethernet port; tenant segments are VSIs, not VLANs."""
    words = (t.split() for t in running.children)
    ids = [1, *sorted(int(w[1]) for w in words if w[0] == "vlan" and len(w) == 2 and w[1].isdigit())]
    bridged = [s.name for s in port_states("comware", running, fabric, device) if not s.routed]
    blocks = []
    for vid in dict.fromkeys(ids):
        lines = [
            f" VLAN ID: {vid}",
            " VLAN type: Static",
            " Route interface: Not configured",
            f" Description: VLAN {vid:04d}",
            f" Name: VLAN {vid:04d}",
            " Tagged ports:   None",
        ]
        members = bridged if vid == 1 else []
        lines.append(" Untagged ports: " + ("" if members else "None"))
        # Two ports a line, each padded to 30 columns, trailing blanks kept (as the switch prints).
        lines += ["    " + "".join(f"{m:<30}" for m in members[i : i + 2]) for i in range(0, len(members), 2)]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
