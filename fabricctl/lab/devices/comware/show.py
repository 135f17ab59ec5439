"""Comware V7 `display` commands that read state, in the layout H3C switches print.

Tables name ports as the switch does: abbreviated (`400GE1/0/1`, `Loop0`, `Vsi4197`) in the
one-line-per-port tables, in full in the per-interface blocks (lab/names.py). The layouts follow
real captures where ntc-templates has them (tests/captures/ntc-templates/hp_comware: interface,
brief, LLDP, BGP peers, VPN instances, VLANs, ARP, MAC, routing table, manuinfo, clock) and H3C's
command references elsewhere, closely enough that ntc-templates' hp_comware templates and
napalm-h3c-comware's TextFSM templates parse them (tests/lab/test_show_layouts.py).
"""

from __future__ import annotations

import re
from ipaddress import IPv4Network

from fabricctl.lab.devices.comware.names import INTERFACE_TYPES
from fabricctl.lab.devices.comware.render import COMWARE_VERSION
from fabricctl.lab.dialect import CliError
from fabricctl.lab.hardware import optic_serial
from fabricctl.lab.names import canonical, short
from fabricctl.lab.nos import lab_nos
from fabricctl.lab.ports import PortState, chassis_digits
from fabricctl.lab.routing import Route
from fabricctl.lab.traffic import CNP_QUEUE, RX_LOW_ALARM_DBM, port_traffic
from fabricctl.lab.view import Shown, View, registry
from fabricctl.macs import mac_as

SHOWS, show = registry()
_PHYSICAL = ("FourHundredGigE", "TwoHundredGigE")
#: Comware's route preferences (display ip routing-table: Direct 0, Static 60, BGP 255).
_PREFERENCE = {"connected": 0, "static": 60, "ebgp": 255, "evpn": 255}
_PROTO = {"connected": "Direct", "static": "Static", "ebgp": "BGP", "evpn": "BGP"}


def _text(text: str) -> Shown:
    return text, None


def _link(state: PortState) -> str:
    if not state.admin_up:
        return "ADM"
    return "UP" if state.oper_up else "DOWN"


def _port(view: View, typed: str | None) -> str | None:
    """A typed interface name in full; a name that is no interface of the switch is an error."""
    if typed is None:
        return None
    name = canonical(INTERFACE_TYPES, typed)
    if name is None or name not in view.facts.ports:
        raise CliError(" % Wrong parameter found at '^' position.")
    return name


def mac(view: View) -> str:
    return mac_as(view.mac_digits(), "MAC_DASH_FOUR")


# --- interfaces ----------------------------------------------------------------------------------


@show(r"display interface brief")
def interface_brief(view: View, m: re.Match[str]) -> Shown:
    routed = [s for s in view.ports if s.routed]
    bridged = [s for s in view.ports if not s.routed]
    rows = [
        "Brief information on interfaces in route mode:",
        "Link: ADM - administratively down; Stby - standby",
        "Protocol: (s) - spoofing",
        "Interface            Link Protocol Primary IP      Description",
    ]
    for s in routed:
        port = view.facts.ports.get(s.name)
        ip = str(port.addresses[0].ip) if port and port.addresses else "--"
        proto = "UP" if s.oper_up else "DOWN"
        if s.oper_up and s.name.startswith("LoopBack"):
            proto = "UP(s)"
        rows.append(
            f"{short(INTERFACE_TYPES, s.name):<20} {_link(s):<4} {proto:<8} {ip:<15} {(s.description or '')[:27]}".rstrip()
        )
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
            f"{short(INTERFACE_TYPES, s.name):<20} {_link(s):<4} {speed:<7} F      A    1    {(s.description or '')[:27]}".rstrip()
        )
    return _text("\n".join(rows))


def interface_detail(view: View, state: PortState) -> str:
    """`display interface <name>` (H3C S6520X command reference 1.1.9 layout)."""
    up = ("UP" if state.oper_up else "DOWN") if state.admin_up else "Administratively DOWN"
    port = view.facts.ports.get(state.name)
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
        lines.append(f"IP packet frame type: Ethernet II, hardware address: {mac(view)}")
        if port and port.addresses:
            lines.append(f"Internet address: {port.addresses[0]} (primary)")
        else:
            lines.append("Internet protocol processing: Disabled")
        if state.max_frame is not None:
            lines += ["Allow jumbo frames to pass", f"The maximum frame length is {state.max_frame}"]
    else:
        lines.append(f"IP packet frame type: Ethernet II, hardware address: {mac(view)}")
        if state.max_frame is not None:
            lines += [f"Maximum frame length: {state.max_frame}", "Allow jumbo frame to pass"]
        lines += ["PVID: 1", "Port link-type: Access", " Tagged VLANs:   None", " Untagged VLANs: 1"]
    if state.name.startswith(_PHYSICAL):
        gbps = "200G" if state.name.startswith("TwoHundredGigE") else "400G"
        lines += [
            "Media type is optical fiber, port hardware type is 400G_BASE_DR4_QSFP_DD",
            f"{gbps}-speed mode, full-duplex mode",
            "Link speed type is force link, link duplex type is force link",
        ]
    traffic = port_traffic(view.state, view.name, state.name, view.now)
    last = "Never" if traffic.last_flap is None else flap_age(view.now - traffic.last_flap)
    lines.append(f"Last link flapping: {last}")
    if state.name.startswith(_PHYSICAL):
        pauses = view.state.pauses(view.name, state.name, view.now)
        lines += [
            "Last clearing of counters: Never",
            "Peak input rate: 0 bytes/sec, at 2025-01-01 00:00:00",
            "Peak output rate: 0 bytes/sec, at 2025-01-01 00:00:00",
            "Last 300 second input: 0 packets/sec 0 bytes/sec 0%",
            "Last 300 second output: 0 packets/sec 0 bytes/sec 0%",
            " Input (total):  0 packets, 0 bytes",
            " Input (normal):  0 packets, - bytes",
            f" Input:  {traffic.fcs_errors} input errors, 0 runts, 0 giants, {pauses.received if pauses else 0} pauses",
            f"         {traffic.fcs_errors} CRC, 0 frame, - overruns, 0 aborts",
            " Output (total): 0 packets, 0 bytes",
            f" Output: 0 output errors, 0 underruns, {pauses.sent if pauses else 0} pauses",
            f"         {traffic.lossless_dropped} drops",
        ]
    return "\n".join(lines)


def flap_age(seconds: float) -> str:
    """How long ago a link last flapped, as `display interface` words it in real captures
    (`6 hours 39 minutes 25 seconds`; from a week on, no seconds: `14 weeks 4 days 22 hours 58
    minutes`), leading zero units left out."""
    left = int(seconds)
    units = [("weeks", 604800), ("days", 86400), ("hours", 3600), ("minutes", 60), ("seconds", 1)]
    if left >= 604800:
        units = units[:-1]
    words: list[str] = []
    for unit, size in units:
        n, left = divmod(left, size)
        if n or words:
            words.append(f"{n} {unit}")
    return " ".join(words) or "0 seconds"


@show(r"display interface(?! brief)(?: (?P<port>\S+(?: \S+)?))?")
def interfaces(view: View, m: re.Match[str]) -> Shown:
    only = _port(view, m["port"])
    states = [s for s in view.ports if only is None or s.name == only]
    return _text("\n\n".join(interface_detail(view, s) for s in states))


@show(r"display ip interface(?: (?P<port>(?!brief)\S+(?: \S+)?))?")
def ip_interface(view: View, m: re.Match[str]) -> Shown:
    """Every interface with an address (the layout ntc-templates' and napalm-h3c-comware's
    `display ip interface` templates read)."""
    only = _port(view, m["port"])
    blocks = []
    for s in view.ports:
        port = view.facts.ports.get(s.name)
        if not s.routed or (only and s.name != only) or port is None or not port.addresses:
            continue
        state = ("UP" if s.oper_up else "DOWN") if s.admin_up else "Administratively DOWN"
        proto = (
            "UP(spoofing)" if s.name.startswith("LoopBack") and s.oper_up else ("UP" if s.oper_up else "DOWN")
        )
        a = port.addresses[0]
        blocks.append(
            "\n".join(
                [
                    f"{s.name} current state: {state}",
                    f"Line protocol current state: {proto}",
                    f"Internet Address is {a} Primary",
                    f"Broadcast address: {a.network.broadcast_address}",
                    f"The Maximum Transmit Unit: {s.ip_mtu or 1500} bytes",
                    "input packets : 0, bytes : 0, multicasts : 0",
                    "output packets : 0, bytes : 0, multicasts : 0",
                    "TTL invalid packet number:         0",
                    "ICMP packet input number:          0",
                    "  Echo reply:                      0",
                    "  Unreachable:                     0",
                ]
            )
        )
    return _text("\n\n".join(blocks))


@show(r"display ip interface brief")
def ip_interface_brief(view: View, m: re.Match[str]) -> Shown:
    rows = [
        "*down: administratively down",
        "(s): spoofing  (l): loopback",
        "Interface            Physical Protocol IP address      VPN instance Description",
    ]
    for s in view.ports:
        port = view.facts.ports.get(s.name)
        if not s.routed:
            continue
        phys = ("up" if s.oper_up else "down") if s.admin_up else "*down"
        proto = ("up(s)" if s.name.startswith("LoopBack") else "up") if s.oper_up else "down"
        ip = str(port.addresses[0].ip) if port and port.addresses else "--"
        vrf = port.vrf if port and port.vrf != "default" else "--"
        rows.append(
            f"{short(INTERFACE_TYPES, s.name):<20} {phys:<8} {proto:<8} {ip:<15} {vrf[:12]:<12} {(s.description or '--')[:11]}"
        )
    return _text("\n".join(rows))


@show(r"display transceiver interface(?: (?P<port>\S+(?: \S+)?))?")
def transceiver(view: View, m: re.Match[str]) -> Shown:
    only = _port(view, m["port"])
    blocks = []
    for s in view.ports:
        if not s.name.startswith(_PHYSICAL) or (only and s.name != only):
            continue
        if not view.cabled(s.name):
            if only:
                raise CliError(" % The transceiver is absent.")
            continue
        blocks.append(
            "\n".join(
                [
                    f"{s.name} transceiver information:",
                    f"  Transceiver Type              : {view.model.optic_type}",
                    "  Connector Type                : MPO",
                    "  Wavelength(nm)                : 1310",
                    "  Transfer Distance(m)          : 500(SMF)",
                    "  Digital Diagnostic Monitoring : YES",
                    f"  Vendor Name                   : {view.model.optic_vendor}",
                    f"  Serial Number                 : {optic_serial(view.name, s.name)}",
                ]
            )
        )
    return _text("\n\n".join(blocks))


# --- LLDP -------------------------------------------------------------------------------------------


def _chassis(view: View, device: str) -> str:
    prefix = lab_nos(view.state.facts[device].platform).mac_prefix
    return mac_as(prefix + chassis_digits(device), "MAC_DASH_FOUR")


def _lldp(view: View, only: str | None) -> list[tuple[str, str, str]]:
    return [x for x in view.state.lldp(view.name) if only is None or x[0] == only]


@show(r"display lldp neighbor-information(?: interface (?P<port>\S+(?: \S+)?))? list")
def lldp_list(view: View, m: re.Match[str]) -> Shown:
    rows = [
        "Chassis ID : * -- -- Nearest nontpmr bridge neighbor",
        "             # -- -- Nearest customer bridge neighbor",
        "             Default -- -- Nearest bridge neighbor",
        "System Name            Local Interface      Chassis ID      Port ID",
    ]
    for port, name, far in _lldp(view, _port(view, m["port"])):
        device = view.state.far_end(view.name, port)
        assert device is not None
        rows.append(f"{name:<22} {short(INTERFACE_TYPES, port):<20} {_chassis(view, device[0]):<15} {far}")
    return _text("\n".join(rows))


@show(r"display lldp neighbor-information(?: interface (?P<port>\S+(?: \S+)?))?(?: verbose)?")
def lldp_verbose(view: View, m: re.Match[str]) -> Shown:
    """The layout of the S12510-X capture in ntc-templates' tests: every line the ntc and
    napalm-h3c-comware templates key on, up to `Maximum frame size`, which closes a record."""
    blocks = []
    index = {p: i for i, p in enumerate(view.facts.ports, start=1)}
    for port, name, far in _lldp(view, _port(view, m["port"])):
        device = view.state.far_end(view.name, port)
        assert device is not None
        facts = view.state.facts[device[0]]
        first, *more = lab_nos(facts.platform).system_description(facts.model)
        description = [first, *(" " * 23 + line for line in more)]
        far_port = view.state.facts[device[0]].ports.get(far)
        blocks.append(
            "\n".join(
                [
                    f"LLDP neighbor-information of port {index.get(port, 0)}[{port}]:",
                    "LLDP agent nearest-bridge:",
                    " LLDP neighbor index : 1",
                    " Update time         : 0 days, 0 hours, 1 minutes, 0 seconds",
                    " Chassis type        : MAC address",
                    f" Chassis ID          : {_chassis(view, device[0])}",
                    " Port ID type        : Interface name",
                    f" Port ID             : {far}",
                    " Time to live        : 121",
                    f" Port description    : {(far_port.description if far_port and far_port.description else far + ' Interface')}",
                    f" System name         : {name}",
                    f" System description  : {description[0]}",
                    *description[1:],
                    " System capabilities supported : Bridge, Router, Customer Bridge, Service Bridge",
                    " System capabilities enabled   : Bridge, Router",
                    " Management address type           : IPv4",
                    f" Management address                : {facts.router_id or '0.0.0.0'}",
                    " Management address interface type : IfIndex",
                    " Management address interface ID   : Unknown",
                    " Management address OID            : 0",
                    " Link aggregation supported : Yes",
                    " Link aggregation enabled   : No",
                    " Aggregation port ID        : 0",
                    " Auto-negotiation supported : No",
                    " Auto-negotiation enabled   : No",
                    " OperMau                    : Speed(400000)/Duplex(Full)",
                    " Maximum frame size         : 9416",
                ]
            )
        )
    return _text("\n\n".join(blocks))


# --- BGP ---------------------------------------------------------------------------------------------


@show(r"display bgp peer (?P<family>ipv4|l2vpn evpn)(?: vpn-instance (?P<vrf>\S+))?")
def bgp_peers(view: View, m: re.Match[str]) -> Shown:
    family = "ipv4" if m["family"] == "ipv4" else "evpn"
    facts = view.facts
    sessions = (
        []
        if m["vrf"]
        else sorted(
            (s for s in view.state.sessions.get(view.name, {}).values() if family in s.families),
            key=lambda s: s.peer,
        )
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
    ribs = view.routing.routes(view.name)
    for s in sessions:
        est = s.state == "Established"
        n = 13 if est else 0
        if family == "ipv4":
            received = sum(
                1 for r in ribs.get("default", {}).values() if any(h.address == s.peer for h in r.hops)
            )
        else:
            received = sum(1 for t in ribs.values() for r in t.values() if r.kind == "evpn")
        rows.append(
            f"  {s.peer!s:<18} {s.remote_as or 0:>10} {n:>8} {n:>8} {0:>4} {received if est else 0:>7} 00:10:00 {s.state}"
        )
    return _text("\n".join(rows))


@show(r"display bgp l2vpn evpn")
def bgp_evpn_routes(view: View, m: re.Match[str]) -> Shown:
    """The EVPN routes the switch holds: type 5 (IP prefix) of its VRFs, own and learned."""
    facts = view.facts
    rows = [
        "",
        f" BGP local router ID is {facts.router_id or '0.0.0.0'}",
        " Status codes: * - valid, > - best, d - dampened, h - history",
        "               s - suppressed, S - stale, i - internal, e - external",
        "               a - additional-path",
        "       Origin: i - IGP, e - EGP, ? - incomplete",
        "",
    ]
    count = 0
    for vrf, table in view.routing.routes(view.name).items():
        if vrf == "default":
            continue
        rd = facts.rds.get(vrf, "")
        entries = [
            r
            for r in table.values()
            if r.kind == "evpn" or (r.kind == "connected" and vrf in facts.redistributed)
        ]
        if not entries:
            continue
        rows += [f" Route distinguisher: {rd}({vrf})", f" Total number of routes: {len(entries)}", ""]
        rows.append("     Network            NextHop         MED        LocPrf     PrefVal Path/Ogn")
        for r in entries:
            hop = str(r.hops[0].vtep) if r.kind == "evpn" else "0.0.0.0"
            rows.append(f" * >e [5][0][{r.prefix.prefixlen}][{r.prefix.network_address}]/80")
            rows.append(f"                         {hop:<15} 0                     0       ?")
            count += 1
        rows.append("")
    rows.insert(1, f" Total number of routes from all PEs: {count}")
    return _text("\n".join(rows))


# --- VRFs, VLANs, VSIs, VXLAN -------------------------------------------------------------------------


@show(r"display ip vpn-instance(?: instance-name (?P<vrf>\S+))?")
def vpn_instances(view: View, m: re.Match[str]) -> Shown:
    """Every VPN instance with its RD (the layout ntc-templates' hp_comware_display_ip_vpn-instance
    template reads, from a Comware V7 capture)."""
    names = [
        t.split()[2]
        for t in view.running.children
        if t.startswith("ip vpn-instance ") and len(t.split()) == 3
    ]
    if m["vrf"]:
        if m["vrf"] not in names:
            raise CliError(f" % VPN instance {m['vrf']} does not exist.")
        return _text(_vpn_instance(view, m["vrf"], names.index(m["vrf"]) + 1))
    rows = [
        f"  Total VPN-Instances configured : {len(names)}",
        "  VPN-Instance Name               RD                     Create time",
    ]
    rows += [f"  {name:<31} {view.facts.rds.get(name, ''):<22} 2025/01/01 00:00:00" for name in names]
    return _text("\n".join(rows))


def _vpn_instance(view: View, vrf: str, index: int) -> str:
    """One VPN instance in the layout of a real Comware V7 capture (ntc-templates'
    display_ip_vpn-instance_instance-name): its RD, description, interfaces and, per address
    family it configures, its VPN targets (this fabric's are EVPN's)."""
    node = view.running.children[f"ip vpn-instance {vrf}"]
    description = next((" ".join(t.split()[1:]) for t in node.children if t.startswith("description ")), "")
    intfs = [p.name for p in view.facts.ports.values() if p.vrf == vrf]
    imports, exports = view.facts.route_targets.get(("vrf", vrf), (set(), set()))
    rows = [
        f"  VPN-Instance Name and ID : {vrf}, {index}",
        f"  Route Distinguisher : {view.facts.rds.get(vrf, '')}",
        *([f"  Description : {description}"] if description else []),
        *_wrapped("  Interfaces : ", intfs),
    ]
    if imports or exports:
        rows += [
            "  Address-family EVPN:",
            "   Export VPN Targets :",
            f"       {' '.join(sorted(exports))}",
            "   Import VPN Targets :",
            f"       {' '.join(sorted(imports))}",
        ]
    return "\n".join(rows)


def _wrapped(head: str, items: list[str], width: int = 80) -> list[str]:
    """A comma-separated list as Comware prints a long one: wrapped at the screen width, each
    further line indented under the first item."""
    lines, line = [], head
    for i, item in enumerate(items):
        word = item + ("," if i < len(items) - 1 else "")
        if line.strip() and len(line) + len(word) + 1 > width and line != head:
            lines.append(line.rstrip())
            line = " " * len(head)
        line += word + " "
    return [*lines, line.rstrip()]


_LAG_LEGEND = """Loadsharing Type: Shar -- Loadsharing, NonS -- Non-Loadsharing
Port Status: S -- Selected, U -- Unselected, I -- Individual
Port: A -- Auto port, M -- Management port, R -- Reference port
Flags:  A -- LACP_Activity, B -- LACP_Timeout, C -- Aggregation,
        D -- Synchronization, E -- Collecting, F -- Distributing,
        G -- Defaulted, H -- Expired"""


@show(r"display link-aggregation (?P<what>verbose|member-port|summary)(?: \S+)?")
def link_aggregation(view: View, m: re.Match[str]) -> Shown:
    """No aggregate interface (this fabric's links are routed, its GPU ports single): the legend
    alone, as the layout of real captures (ntc-templates' hp_comware) starts."""
    if m["what"] == "member-port":
        return _text("\n".join(_LAG_LEGEND.splitlines()[3:]).replace("Flags:  ", "Flags: "))
    return _text(_LAG_LEGEND)


@show(r"display route-policy(?: \S+)?")
def route_policies(view: View, m: re.Match[str]) -> Shown:
    """No route policy is configured: Comware prints nothing."""
    return _text("")


def _vlan_ids(view: View) -> list[int]:
    words = (t.split() for t in view.running.children)
    return list(
        dict.fromkeys(
            [1, *sorted(int(w[1]) for w in words if w[0] == "vlan" and len(w) == 2 and w[1].isdigit())]
        )
    )


def _vlan_members(view: View, vid: int) -> list[str]:
    """The bridged ports of a VLAN: every bridged port is an access port of VLAN 1 (its PVID),
    the ones whose untagged frames a service instance hands to a VSI too."""
    return [s.name for s in view.ports if not s.routed] if vid == 1 else []


@show(r"display vlan all")
def vlans(view: View, m: re.Match[str]) -> Shown:
    """VLAN 1 holds the bridged Ethernet ports; tenant segments are VSIs, not VLANs."""
    blocks = []
    for vid in _vlan_ids(view):
        members = _vlan_members(view, vid)
        lines = [
            f" VLAN ID: {vid}",
            " VLAN type: Static",
            " Route interface: Not configured",
            f" Description: VLAN {vid:04d}",
            f" Name: VLAN {vid:04d}",
            " Tagged ports:   None",
            " Untagged ports: " + ("" if members else "None"),
        ]
        # Two ports a line, each padded to 30 columns, trailing blanks kept (as the switch prints).
        lines += ["    " + "".join(f"{p:<30}" for p in members[i : i + 2]) for i in range(0, len(members), 2)]
        blocks.append("\n".join(lines))
    return _text("\n\n".join(blocks))


@show(r"display vlan brief")
def vlan_brief(view: View, m: re.Match[str]) -> Shown:
    rows = [
        "Brief information about all VLANs:",
        "Supported Minimum VLAN ID: 1",
        "Supported Maximum VLAN ID: 4094",
        "Default VLAN ID: 1",
        "VLAN ID   Name                             Port",
    ]
    for vid in _vlan_ids(view):
        members = [short(INTERFACE_TYPES, p) for p in _vlan_members(view, vid)]
        head = f"{vid:<9} {f'VLAN {vid:04d}':<32} "
        chunks = [members[i : i + 3] for i in range(0, len(members), 3)] or [[]]
        rows.append((head + "  ".join(chunks[0])).rstrip())
        rows += [" " * len(head) + "  ".join(c) for c in chunks[1:]]
    return _text("\n".join(rows))


@show(r"display l2vpn vsi(?: name (?P<vsi>\S+))?(?: (?P<verbose>verbose))?")
def vsis(view: View, m: re.Match[str]) -> Shown:
    facts = view.facts
    vsi_vni = {k[1]: v for v, k in facts.vnis.items() if k[0] == "vsi"}
    names = [n for n in vsi_vni if m["vsi"] is None or n == m["vsi"]]
    if m["vsi"] and not names:
        raise CliError(f" % VSI {m['vsi']} does not exist.")
    if not m["verbose"]:
        rows = [
            "Total number of VSIs: " + str(len(names)) + ", " + str(len(names)) + " up, 0 down, 0 admin down",
            "",
            "VSI Name                        VSI Index       MTU    State",
        ]
        rows += [f"{n:<31} {i:<15} 1500   Up" for i, n in enumerate(names)]
        return _text("\n".join(rows))
    blocks = []
    for i, n in enumerate(names):
        ports = [p.name for p in facts.ports.values() if p.segment == ("vsi", n)]
        remote = sorted(view.state.remote_vteps(view.name).get(vsi_vni[n], set()))
        lines = [
            f"VSI Name: {n}",
            f"  VSI Index               : {i}",
            "  VSI State               : Up",
            "  MTU                     : 1500",
            "  Bandwidth               : -",
            "  Broadcast Restrain      : -",
            "  MAC Learning            : Enabled",
            "  MAC Table Limit         : -",
            f"  Gateway Interface       : {facts.gateways.get(('vsi', n), '-')}",
            f"  VXLAN ID                : {vsi_vni[n]}",
            "  Tunnels:",
            "    Tunnel Name          Link ID    State    Type        Flood proxy",
        ]
        lines += [
            f"    Tunnel{j + 1:<14} 0x{5000000 + j:x}  UP       Auto        Disabled"
            for j, _ in enumerate(remote)
        ]
        lines += ["  ACs:", "    AC                               Link ID    State       Type"]
        lines += [f"    {p} srv{1:<18} {j}          Up          Manual" for j, p in enumerate(ports)]
        blocks.append("\n".join(lines))
    return _text("\n\n".join(blocks))


@show(r"display vxlan tunnel")
def vxlan_tunnels(view: View, m: re.Match[str]) -> Shown:
    """One automatic tunnel per remote VTEP EVPN taught this one."""
    if view.facts.vtep is None:
        return _text("")
    vteps = sorted({ip for ips in view.state.remote_vteps(view.name).values() for ip in ips})
    rows = [f"Total number of VXLANs: {len(view.facts.vnis)}", ""]
    for i, vtep in enumerate(vteps, start=1):
        vnis = sorted(v for v, ips in view.state.remote_vteps(view.name).items() if vtep in ips)
        rows += [
            f"Tunnel{i}",
            f"  Source address: {view.facts.vtep}",
            f"  Destination address: {vtep}",
            "  Tunnel type: VXLAN",
            "  Tunnel mode: Automatic (BGP EVPN)",
            f"  VXLAN IDs: {', '.join(str(v) for v in vnis)}",
            "",
        ]
    return _text("\n".join(rows).rstrip())


# --- ARP, MAC, routes ---------------------------------------------------------------------------------


@show(r"display arp(?: (?:vpn-instance (?P<vrf>\S+)|(?P<all>all)))?")
def arp(view: View, m: re.Match[str]) -> Shown:
    rows = [
        "  Type: S-Static   D-Dynamic   O-Openflow   R-Rule   M-Multiport  I-Invalid",
        "IP address      MAC address    VLAN/VSI   Interface                Aging Type",
    ]
    segments = {h.address: h.segment for h in view.routing.hosts(view.name)}
    for e in view.routing.arp(view.name):
        if m["vrf"] and e.vrf != m["vrf"]:
            continue
        segment = segments.get(e.address)
        vsi = segment[1][:10] if segment else "N/A"  # a routed port has no VLAN (real captures: N/A)
        rows.append(
            f"{e.address!s:<15} {mac_as(e.mac, 'MAC_DASH_FOUR'):<14} {vsi:<10} {short(INTERFACE_TYPES, e.interface):<24} {1190:<5} D"
        )
    return _text("\n".join(rows))


@show(r"display mac-address(?: (?P<move>mac-move))?")
def mac_table(view: View, m: re.Match[str]) -> Shown:
    """The VLAN MAC table: GPU NICs on bridged ports in a VLAN (a VSI's MACs are in
    `display l2vpn mac-address`)."""
    if m["move"]:
        return _text(
            "MAC address    VLAN Current port    Source port     Last time           Times\n---  No MAC address moved  ---"
        )
    rows = ["MAC Address      VLAN ID    State            Port/Nickname            Aging"]
    for h in view.routing.hosts(view.name):
        if h.segment and h.segment[0] == "vlan":
            rows.append(
                f"{mac_as(h.mac, 'MAC_DASH_FOUR'):<16} {h.segment[1]:<10} Learned          {short(INTERFACE_TYPES, h.port):<24} Y"
            )
    return _text("\n".join(rows))


@show(r"display l2vpn mac-address(?: vsi (?P<vsi>\S+))?")
def vsi_macs(view: View, m: re.Match[str]) -> Shown:
    rows = ["MAC Address    State    VSI Name                        Link ID/Name   Aging"]
    for h in view.routing.hosts(view.name):
        if h.segment and h.segment[0] == "vsi" and (m["vsi"] is None or h.segment[1] == m["vsi"]):
            rows.append(
                f"{mac_as(h.mac, 'MAC_DASH_FOUR'):<14} Dynamic  {h.segment[1]:<31} {short(INTERFACE_TYPES, h.port):<14} Aging"
            )
    for (kind, key), mac_addr, vtep in view.routing.remote_macs(view.name):
        if kind == "vsi" and (m["vsi"] is None or key == m["vsi"]):
            rows.append(
                f"{mac_as(mac_addr, 'MAC_DASH_FOUR'):<14} EVPN     {key:<31} {'Tunnel(' + str(vtep) + ')':<14} NotAging"
            )
    rows.append(f"--- {len(rows) - 1} mac address(es) found  ---")
    return _text("\n".join(rows))


def _route_rows(view: View, vrf: str, r: Route) -> list[str]:
    rows = []
    proto, pre = _PROTO[r.kind], _PREFERENCE[r.kind]
    for i, h in enumerate(r.hops):
        if r.kind == "connected":
            own = view.facts.ports[h.interface].addresses[0].ip
            hop, intf = str(own), short(INTERFACE_TYPES, h.interface)
        elif h.vtep is not None:  # through the VRF's L3VNI interface
            hop, intf = str(h.vtep), short(INTERFACE_TYPES, _l3_interface(view, vrf))
        else:
            hop, intf = str(h.address), short(INTERFACE_TYPES, h.interface)
        rows.append(f"{str(r.prefix) if i == 0 else '':<19} {proto:<6} {pre:<4} {0:<12} {hop:<15} {intf}")
    return rows


def _l3_interface(view: View, vrf: str) -> str:
    """The Vsi-interface that carries a VRF's L3VNI (`l3-vni N` under it)."""
    vni = next((v for v, k in view.facts.vnis.items() if k == ("vrf", vrf)), None)
    node = next(
        (
            n
            for t, n in view.running.children.items()
            if t.startswith("interface Vsi-interface") and f"l3-vni {vni}" in n.children
        ),
        None,
    )
    return node.text.split()[1] if node is not None else "NULL0"


@show(r"display ip routing-table(?: vpn-instance (?P<vrf>\S+))?(?: (?P<stats>statistics))?")
def routing_table(view: View, m: re.Match[str]) -> Shown:
    vrf = m["vrf"] or "default"
    ribs = view.routing.routes(view.name)
    if vrf not in ribs:
        raise CliError(f" % The VPN instance {vrf} does not exist.")
    table = dict(sorted(ribs[vrf].items(), key=lambda x: (int(x[0].network_address), x[0].prefixlen)))
    host: dict[IPv4Network, Route] = {}
    for r in table.values():  # the switch's own address of each connected subnet, via InLoop0
        if r.kind == "connected":
            address = view.facts.ports[r.hops[0].interface].addresses[0].ip
            host.setdefault(IPv4Network(f"{address}/32"), r)
    if m["stats"]:
        counts = {
            k: sum(1 for r in table.values() if r.kind == k) for k in ("connected", "static", "ebgp", "evpn")
        }
        rows = [
            f"Total prefixes: {len(table)}    Active prefixes: {len(table)}",
            "",
            "Proto      route       active      added       deleted",
            f"DIRECT     {counts['connected']:<11} {counts['connected']:<11} {counts['connected']:<11} 0",
            f"STATIC     {counts['static']:<11} {counts['static']:<11} {counts['static']:<11} 0",
            f"BGP        {counts['ebgp'] + counts['evpn']:<11} {counts['ebgp'] + counts['evpn']:<11} {counts['ebgp'] + counts['evpn']:<11} 0",
        ]
        return _text("\n".join(rows))
    entries = len(table) + sum(1 for p in host if p not in table)
    rows = [
        "",
        f"Destinations : {entries}        Routes : {sum(len(r.hops) for r in table.values()) + len(host)}",
        "",
        "Destination/Mask    Proto  Pre  Cost         NextHop         Interface",
    ]
    for prefix, r in table.items():
        rows += _route_rows(view, vrf, r)
        if prefix.prefixlen < 32:
            own = next((p for p in host if p.network_address in prefix and host[p] is r), None)
            if own is not None and own not in table:
                rows.append(f"{own!s:<19} {'Direct':<6} {0:<4} {0:<12} {'127.0.0.1':<15} InLoop0")
    return _text("\n".join(rows))


# --- the box -----------------------------------------------------------------------------------------


def _uptime(seconds: float) -> str:
    """Comware's wording: `0 weeks, 0 days, 1 hour, 5 minutes`."""
    minutes = int(seconds) // 60
    weeks, rest = divmod(minutes, 7 * 24 * 60)
    days, rest = divmod(rest, 24 * 60)
    hours, mins = divmod(rest, 60)
    return (
        f"{weeks} weeks, {days} days, {hours} hour{'s' if hours != 1 else ''}, "
        f"{mins} minute{'s' if mins != 1 else ''}"
    )


@show(r"display version")
def version(view: View, m: re.Match[str]) -> Shown:
    mdl = view.model
    release = COMWARE_VERSION.split("Release ")[-1]
    return _text(
        "\n".join(
            [
                f"H3C Comware Software, Version {COMWARE_VERSION}",
                "Copyright (c) 2004-2024 New H3C Technologies Co., Ltd. All rights reserved.",
                f"H3C {mdl.name} uptime is {_uptime(view.uptime)}",
                "Last reboot reason : User reboot",
                "",
                f"Boot image: flash:/{mdl.name.split('-')[0]}-CMW710-BOOT-R{release}.bin",
                f"Boot image version: {COMWARE_VERSION}",
                f"System image: flash:/{mdl.name.split('-')[0]}-CMW710-SYSTEM-R{release}.bin",
                f"System image version: {COMWARE_VERSION}",
                "",
                "Slot 1:",
                f"Uptime is {_uptime(view.uptime).replace(', ', ',')}",
                f"{mdl.name} with 2 Processors",
                f"BOARD TYPE:         {mdl.name}",
                f"DRAM:               {mdl.mem_total_kb // 1024}M bytes",
                "FLASH:              4096M bytes",
                "PCB 1 Version:      VER.A",
                "Bootrom Version:    123",
                "CPLD 1 Version:     002",
                f"Release Version:    H3C {mdl.name}-{release}",
            ]
        )
    )


@show(r"display device manuinfo")
def manuinfo(view: View, m: re.Match[str]) -> Shown:
    mdl = view.model
    serial = view.dev.serial()
    lines = [
        "Slot 1 CPU 0:",
        f"DEVICE_NAME          : {mdl.name}",
        f"DEVICE_SERIAL_NUMBER : {serial}",
        f"MAC_ADDRESS          : {mac(view).upper()}",
        "MANUFACTURING_DATE   : 2025-01-01",
        "VENDOR_NAME          : H3C",
    ]
    for i in range(1, mdl.fan_trays + 1):
        lines += [
            f"Fan {i}:",
            "DEVICE_NAME          : FAN-40B-1-A",
            f"DEVICE_SERIAL_NUMBER : {serial}F{i}",
            "MANUFACTURING_DATE   : 2025-01-01",
            "VENDOR_NAME          : H3C",
        ]
    for i in range(1, mdl.psus + 1):
        lines += [
            f"Power {i}:",
            f"DEVICE_NAME          : {mdl.psu_model}",
            f"DEVICE_SERIAL_NUMBER : {serial}P{i}",
            "MANUFACTURING_DATE   : 2025-01-01",
            "VENDOR_NAME          : H3C",
        ]
    return _text("\n".join(lines))


@show(r"display cpu-usage(?: (?P<summary>summary))?")
def cpu(view: View, m: re.Match[str]) -> Shown:
    load = view.model.cpu_percent
    if m["summary"]:
        return _text(
            f"Slot CPU        Last 5 sec        Last 1 min        Last 5 min\n1    0          {load}%                {load}%                {load}%"
        )
    return _text(
        f"Slot 1 CPU 0 CPU usage:\n       {load}% in last 5 seconds\n       {load}% in last 1 minute\n       {load}% in last 5 minutes"
    )


@show(r"display memory")
def memory(view: View, m: re.Match[str]) -> Shown:
    mdl = view.model
    used = mdl.mem_total_kb - mdl.mem_free_kb
    ratio = mdl.mem_free_kb / mdl.mem_total_kb * 100
    return _text(
        "\n".join(
            [
                "Memory statistics are measured in KB:",
                "Slot 1:",
                "             Total      Used      Free    Shared   Buffers    Cached   FreeRatio",
                f"Mem:  {mdl.mem_total_kb:>12} {used:>9} {mdl.mem_free_kb:>9} {0:>9} {2548:>9} {1064876:>9} {ratio:>10.1f}%",
                f"-/+ Buffers/Cache: {used - 1067424:>9} {mdl.mem_free_kb + 1067424:>9}",
                "Swap:            0         0         0",
            ]
        )
    )


@show(r"display fan")
def fans(view: View, m: re.Match[str]) -> Shown:
    lines = [" Slot 1:"]
    for i in range(1, view.model.fan_trays + 1):
        lines += [
            f" Fan {i}:",
            " State    : Normal",
            " Airflow Direction: Port-to-power",
            " Prefer Airflow Direction: Port-to-power",
        ]
    return _text("\n".join(lines))


@show(r"display power")
def power(view: View, m: re.Match[str]) -> Shown:
    lines = [" Slot 1:", " PowerID State    Mode   Current(A)  Voltage(V)  Power(W)  FanDirection"]
    lines += [
        f" {i:<7} Normal   AC     {1.65:<11} {230.0:<11} {380.0:<9} Port-to-power"
        for i in range(1, view.model.psus + 1)
    ]
    return _text("\n".join(lines))


@show(r"display environment")
def environment(view: View, m: re.Match[str]) -> Shown:
    lines = [
        " System temperature information (degree centigrade):",
        " -----------------------------------------------------------------------",
        " Slot  Sensor            Temperature  Lower  Warning  Alarm  Shutdown",
    ]
    lines += [
        f" 1     {s.name:<17} {int(s.celsius):<12} {-5:<6} {int(s.overheat):<8} {int(s.critical):<6} NA"
        for s in view.model.sensors
    ]
    return _text("\n".join(lines))


# --- counters, queues, optics ------------------------------------------------------------------------


def _physical_ports(view: View, only: str | None) -> list[str]:
    return [p for p in view.facts.ports if p.startswith(_PHYSICAL) and (only is None or p == only)]


@show(r"display counters (?P<way>inbound|outbound) interface(?: (?P<port>\S+(?: \S+)?))?")
def counters(view: View, m: re.Match[str]) -> Shown:
    """Packets and error packets per port and direction, in the table real switches print
    (ntc-templates' hp_comware display_counters_bound_interface capture): the tenants' workload
    where one runs; errors in are the FCS errors of a failing optic, none go out."""
    only = _port(view, m["port"])
    rows = ["Interface         Total (pkts)   Broadcast (pkts)   Multicast (pkts)  Err (pkts)"]
    for port in _physical_ports(view, only):
        traffic = port_traffic(view.state, view.name, port, view.now)
        errors = traffic.fcs_errors if m["way"] == "inbound" else 0
        total = errors + (traffic.rx_packets if m["way"] == "inbound" else traffic.tx_packets)
        rows.append(f"{short(INTERFACE_TYPES, port):<17} {total:>12} {0:>18} {0:>18} {errors:>11}")
    rows += ["", ' Overflow: More than 14 digits (7 digits for column "Err").', "       --: Not supported."]
    return _text("\n".join(rows))


@show(r"display qos queue-statistics interface(?: (?P<port>\S+(?: \S+)?))? outbound")
def queue_statistics(view: View, m: re.Match[str]) -> Shown:
    """Packets each of the 8 egress queues forwarded and dropped (Comware 7 ACL and QoS command
    reference, `display qos queue-statistics interface outbound`: per interface a Direction and
    totals, then per queue Forwarded and Dropped). The lab forwards CNPs on the CNP queue of a
    port that faces congestion, the tenants' workload on the lossless queue, and drops on the
    lossless queue under the lossless_drops fault."""
    only = _port(view, m["port"])
    blocks = []
    for port in _physical_ports(view, only):
        facts = view.facts.ports[port]
        traffic = port_traffic(view.state, view.name, port, view.now)
        roce = max(facts.no_drop, default=None)  # the workload's RoCE rides the no-drop class
        forwarded = {
            q: (traffic.cnp_sent if q == CNP_QUEUE else 0) + (traffic.tx_packets if q == roce else 0)
            for q in range(8)
        }
        dropped = {q: (traffic.lossless_dropped if q in facts.no_drop else 0) for q in range(8)}
        lines = [
            f"Interface: {port}",
            " Direction: outbound",
            f" Forwarded: {sum(forwarded.values())} packets, {sum(forwarded.values()) * 64} bytes",
            f" Dropped: {sum(dropped.values())} packets, {sum(dropped.values()) * 4096} bytes",
        ]
        for q in range(8):
            lines += [
                f" Queue {q}",
                f"  Forwarded: {forwarded[q]} packets, {forwarded[q] * 64} bytes, 0 pps, 0 bps",
                f"  Dropped: {dropped[q]} packets, {dropped[q] * 4096} bytes",
            ]
        blocks.append("\n".join(lines))
    return _text("\n".join(blocks))


@show(r"display transceiver diagnosis interface(?: (?P<port>\S+(?: \S+)?))?")
def transceiver_diagnosis(view: View, m: re.Match[str]) -> Shown:
    """The optic's digital diagnostics now and its alarm thresholds (H3C command reference,
    display transceiver diagnosis: Current diagnostic parameters Temp.(°C), Voltage(V),
    Bias(mA), RX power(dBm), TX power(dBm); Alarm thresholds High and Low)."""
    only = _port(view, m["port"])
    blocks = []
    for port in _physical_ports(view, only):
        if not view.cabled(port):
            if only:
                raise CliError(" % The transceiver is absent.")
            continue
        rx = port_traffic(view.state, view.name, port, view.now).rx_dbm
        header = "Temp.(°C)  Voltage(V)  Bias(mA)  RX power(dBm)  TX power(dBm)"
        blocks.append(
            "\n".join(
                [
                    f"{port} transceiver diagnostic information:",
                    "  Current diagnostic parameters:",
                    f"    {header}",
                    f"    {35:<10} {3.29:<11.2f} {42.10:<9.2f} {rx:<14.2f} {1.10:.2f}",
                    "  Alarm thresholds:",
                    f"          {header}",
                    f"    High  {75:<10} {3.63:<11.2f} {80.00:<9.2f} {5.00:<14.2f} {5.00:.2f}",
                    f"    Low   {-5:<10} {2.97:<11.2f} {10.00:<9.2f} {RX_LOW_ALARM_DBM:<14.2f} {-8.00:.2f}",
                ]
            )
        )
    return _text("\n\n".join(blocks))


# --- PFC ---------------------------------------------------------------------------------------------


@show(r"display priority-flow-control interface(?: (?P<port>\S+(?: \S+)?))?")
def pfc_interface(view: View, m: re.Match[str]) -> Shown:
    """One row per Ethernet port and no-drop priority, with PFC frames received and sent and their
    rates (H3C S9825/S9855 R913x PFC command reference, display priority-flow-control: AdminMode,
    OperMode, Dot1pList, Prio, Recv, Send, Inpps, Outpps); ports named as the tables name them."""
    only = _port(view, m["port"])
    rows = [
        "Interface                        AdminMode  OperMode  Dot1pList   Prio  Recv"
        "       Send       Inpps      Outpps",
        "-" * 99,
    ]
    for port in view.facts.ports:
        if not port.startswith(_PHYSICAL) or (only and port != only):
            continue
        pauses = view.state.pauses(view.name, port, view.now)
        name = short(INTERFACE_TYPES, port)
        if pauses is None:
            rows.append(f"{name:<32} {'Disabled':<10} {'Disabled':<9}")
            continue
        dot1p = ",".join(str(p) for p in pauses.priorities)
        oper = "Enabled" if view.state.link_up(view.name, port) else "Disabled"
        for prio in pauses.priorities or (0,):
            rows.append(
                f"{name:<32} {'Enabled':<10} {oper:<9} {dot1p:<11} {prio:<5} {pauses.received:<10} "
                f"{pauses.sent:<10} {pauses.received_pps:<10} {pauses.sent_pps}"
            )
    return _text("\n".join(rows))
