"""EOS `show` commands about ports, neighbors and the box: the text the CLI prints and the JSON
eAPI returns (routing, BGP and VXLAN are in show_routing.py).

The JSON carries the fields of Arista's eAPI models that NAPALM's eos driver and ANTA's tests
read, in the shapes of the real replies in tests/captures/napalm/eos (tests/deploy/test_eos_clients.py
runs both against the lab); the text follows the layouts ntc-templates' arista_eos templates
parse (tests/lab/test_show_layouts.py). Each function answers `(text, json)`.
"""

from __future__ import annotations

import re
import time
from typing import Any

from fabricctl.lab.devices.eos.names import INTERFACE_TYPES
from fabricctl.lab.devices.eos.render import EOS_VERSION
from fabricctl.lab.devices.eos.spelling import duration
from fabricctl.lab.dialect import CliError
from fabricctl.lab.hardware import Sensor, optic_serial
from fabricctl.lab.names import canonical, short
from fabricctl.lab.nos import lab_nos
from fabricctl.lab.ports import PortState, chassis_digits
from fabricctl.lab.traffic import (
    ROCE_FRAME_BYTES,
    RX_LOW_ALARM_DBM,
    RX_LOW_WARN_DBM,
    PortTraffic,
    port_traffic,
)
from fabricctl.lab.view import Shown, View, registry
from fabricctl.macs import mac_as

SHOWS, show = registry()

#: Bits per second of a port, by type (400G front-panel ports; a 2 x 200G lane is 200G).
_SPEED = {"Ethernet": 400_000_000_000, "Management": 1_000_000_000}
EOS_L2_MTU = 9214  # what `show interfaces` reports as the MTU of a switched EOS port
_PHYSICAL = ("Ethernet", "Management")


def _kind(name: str) -> str:
    return name.rstrip("0123456789/")


def _bandwidth(view: View, state: PortState) -> int:
    """Bits per second: a front-panel port's speed (a breakout lane's, 400G unsplit), 1G for the
    management port, none for a logical interface."""
    port = view.facts.ports.get(state.name)
    if state.name.startswith("Ethernet") and port is not None and port.speed:
        return port.speed * 1_000_000_000
    return _SPEED.get(_kind(state.name), 0)


def status(state: PortState) -> str:
    """`show interfaces status` wording: connected, notconnect or disabled."""
    if not state.admin_up:
        return "disabled"
    return "connected" if state.oper_up else "notconnect"


def _line(state: PortState) -> str:
    return "up" if state.oper_up else "down"


def system_mac(view: View) -> str:
    return mac_as(view.mac_digits(), "MAC_COLON_TWO")


# --- interfaces ---------------------------------------------------------------------------------


def _traffic(view: View, port: str) -> PortTraffic:
    return port_traffic(view.state, view.name, port, view.now)


def _counters(view: View, state: PortState) -> dict[str, Any]:
    """Counters since boot: LLDP and BGP chatter on an up port, PFC pauses when they storm, the
    tenants' workload where one runs, and what the counter faults add (lab/traffic.py)."""
    pauses = view.state.pauses(view.name, state.name, view.now)
    chatter = int(view.uptime // 30) if state.oper_up else 0
    traffic = _traffic(view, state.name)
    return {
        "inOctets": chatter * 300 + traffic.rx_packets * ROCE_FRAME_BYTES,
        "inUcastPkts": traffic.rx_packets,
        "inMulticastPkts": chatter,
        "inBroadcastPkts": 0,
        "inDiscards": 0,
        "inTotalPkts": chatter + traffic.rx_packets,
        "outOctets": chatter * 300 + traffic.tx_packets * ROCE_FRAME_BYTES,
        "outUcastPkts": traffic.tx_packets,
        "outMulticastPkts": chatter,
        "outBroadcastPkts": 0,
        "outDiscards": traffic.lossless_dropped,
        "totalInErrors": traffic.fcs_errors,
        "totalOutErrors": 0,
        "linkStatusChanges": traffic.link_changes,
        "lastClear": view.now - view.uptime,
        "counterRefreshTime": view.calendar,
        "inputErrorsDetail": {
            "runtFrames": 0,
            "giantFrames": 0,
            "fcsErrors": traffic.fcs_errors,
            "alignmentErrors": 0,
            "symbolErrors": 0,
            "rxPause": pauses.received if pauses else 0,
        },
        "outputErrorsDetail": {
            "collisions": 0,
            "lateCollisions": 0,
            "deferredTransmissions": 0,
            "txPause": pauses.sent if pauses else 0,
        },
    }


def _last_change(view: View, port: str) -> float:
    """Calendar time of the port's last link change: its last flap, else the switch's boot."""
    last = _traffic(view, port).last_flap
    return view.calendar - view.now + last if last is not None else view.calendar - view.uptime


def interface_json(view: View, state: PortState) -> dict[str, Any]:
    mac = system_mac(view)
    port = view.facts.ports.get(state.name)
    addresses = [
        {
            "primaryIp": {"address": str(a.ip), "maskLen": a.network.prefixlen},
            "secondaryIps": {},
            "secondaryIpsOrderedList": [],
            "virtualIp": {"address": "0.0.0.0", "maskLen": 0},
            "virtualSecondaryIps": {},
            "virtualSecondaryIpsOrderedList": [],
            "broadcastAddress": "255.255.255.255",
            "dhcp": False,
        }
        for a in (port.addresses[:1] if port else [])
    ]
    entry: dict[str, Any] = {
        "name": state.name,
        "description": state.description or "",
        "interfaceStatus": status(state),
        "lineProtocolStatus": _line(state),
        "hardware": "ethernet" if _kind(state.name) in _PHYSICAL else _kind(state.name).lower(),
        "bandwidth": _bandwidth(view, state),
        "mtu": state.ip_mtu if state.ip_mtu is not None else EOS_L2_MTU,
        "l3MtuConfigured": state.ip_mtu is not None and port is not None and port.mtu is not None,
        "l2Mru": 0,
        "physicalAddress": mac,
        "burnedInAddress": mac,
        "lastStatusChangeTimestamp": _last_change(view, state.name),
        "forwardingModel": "routed" if state.routed else "bridged",
        "interfaceAddress": addresses,
        "loopbackMode": "loopbackNone",
    }
    if _kind(state.name) in _PHYSICAL:
        entry |= {
            "duplex": "duplexFull",
            "autoNegotiate": "unknown",
            "lanes": 8 if _bandwidth(view, state) == 400_000_000_000 else 4,
            "interfaceCounters": _counters(view, state),
            "interfaceStatistics": {
                "updateInterval": 300.0,
                "inBitsRate": 0.0,
                "inPktsRate": 0.0,
                "outBitsRate": 0.0,
                "outPktsRate": 0.0,
            },
        }
    if state.name == "Vxlan1":
        entry |= _vxlan_interface(view)
    return entry


def _vxlan_interface(view: View) -> dict[str, Any]:
    node = view.running.children.get("interface Vxlan1")
    words = [c.split() for c in (node.children if node else {})]
    source = next((w[2] for w in words if w[:2] == ["vxlan", "source-interface"] and len(w) == 3), "")
    udp = next((int(w[2]) for w in words if w[:2] == ["vxlan", "udp-port"] and len(w) == 3), 4789)
    vlans = {str(k[1]): v for v, k in view.facts.vnis.items() if k[0] == "vlan"}
    vrfs = {k[1]: v for v, k in view.facts.vnis.items() if k[0] == "vrf"}
    return {
        "srcIpIntf": source,
        "srcIpAddr": str(view.facts.vtep or "0.0.0.0"),
        "udpPort": udp,
        "replicationMode": "headendVcs",
        "vlanToVniMap": {vlan: {"vni": vni} for vlan, vni in vlans.items()},
        "vrfToVniMap": vrfs,
        "vtepAddrMask": "255.255.255.255",
        "floodMcastGrp": "0.0.0.0",
        "mlagSharedRouterMacAddr": "00:00:00:00:00:00",
    }


def _interface_text(view: View, state: PortState) -> str:
    stat = ("up" if state.oper_up else "down") if state.admin_up else "administratively down"
    line = _line(state)
    mac = mac_as(system_mac(view), "MAC_DOT_FOUR")
    hardware = "Ethernet" if _kind(state.name) in _PHYSICAL else _kind(state.name)
    lines = [f"{state.name} is {stat}, line protocol is {line} ({status(state)})"]
    lines.append(f"  Hardware is {hardware}, address is {mac} (bia {mac})")
    if state.description:
        lines.append(f"  Description: {state.description}")
    port = view.facts.ports.get(state.name)
    if port and port.addresses:
        lines += [
            f"  Internet address is {port.addresses[0]}",
            "  Broadcast address is 255.255.255.255",
            "  Address determined by manual configuration",
        ]
    elif state.routed:
        lines.append("  No Internet protocol address assigned")
    bw = _bandwidth(view, state) // 1000
    if state.ip_mtu is not None:
        lines.append(f"  IP MTU {state.ip_mtu} bytes , BW {bw} kbit")
    else:
        lines.append(f"  Ethernet MTU {EOS_L2_MTU} bytes , BW {bw} kbit")
    if _kind(state.name) in _PHYSICAL:
        c = _counters(view, state)
        gbps = _bandwidth(view, state) // 1_000_000_000
        lines += [
            f"  Full-duplex, {gbps}Gb/s, auto negotiation: off, uni-link: n/a",
            f"  {'Up' if state.oper_up else 'Down'} {duration(view.uptime)}",
            f"  {c['linkStatusChanges']} link status changes since last clear",
            '  Last clearing of "show interface" counters never',
            "  5 minutes input rate 0 bps (0.0% with framing overhead), 0 packets/sec",
            "  5 minutes output rate 0 bps (0.0% with framing overhead), 0 packets/sec",
            f"     {c['inMulticastPkts']} packets input, {c['inOctets']} bytes",
            f"     Received 0 broadcasts, {c['inMulticastPkts']} multicast",
            "     0 runts, 0 giants",
            "     0 input errors, 0 CRC, 0 alignment, 0 symbol, 0 input discards",
            f"     {c['inputErrorsDetail']['rxPause']} PAUSE input",
            f"     {c['outMulticastPkts']} packets output, {c['outOctets']} bytes",
            f"     Sent 0 broadcasts, {c['outMulticastPkts']} multicast",
            "     0 output errors, 0 collisions",
            "     0 late collision, 0 deferred, 0 output discards",
            f"     {c['outputErrorsDetail']['txPause']} PAUSE output",
        ]
    return "\n".join(lines)


def _pick(view: View, only: str | None) -> list[PortState]:
    states = view.ports
    if only is None:
        return states
    found = [s for s in states if s.name == only]
    if not found:
        raise CliError("% Invalid input")
    return found


@show(r"show interfaces(?: (?P<port>(?!status|description|counters|transceiver|phy)\S+(?: \S+)?))?")
def interfaces(view: View, m: re.Match[str]) -> Shown:
    states = _pick(view, _port_arg(view, m["port"]))
    text = "\n".join(_interface_text(view, s) for s in states)
    return text, {"interfaces": {s.name: interface_json(view, s) for s in states}}


def _port_arg(view: View, typed: str | None) -> str | None:
    if typed is None:
        return None
    name = canonical(INTERFACE_TYPES, typed)
    if name is None:
        raise CliError("% Invalid input")
    return name


@show(r"show interfaces status(?: (?P<what>errdisabled|connected|notconnect|disabled))?")
def interfaces_status(view: View, m: re.Match[str]) -> Shown:
    rows = ["Port       Name        Status       Vlan     Duplex Speed  Type            Flags Encapsulation"]
    data = {}
    for state in view.ports:
        if _kind(state.name) not in _PHYSICAL:
            continue
        stat = status(state)
        if m["what"] and stat != m["what"]:
            continue
        port = view.facts.ports.get(state.name)
        vlan = "routed" if state.routed else (port.segment[1] if port and port.segment else "1")
        gbps = _bandwidth(view, state) // 1_000_000_000
        speed = f"{gbps}G" if gbps < 1000 else "1G"
        optic = view.model.optic_type if view.cabled(state.name) else "Not Present"
        if state.name.startswith("Management"):
            optic, speed = "10/100/1000", "a-1G"
        rows.append(
            f"{short(INTERFACE_TYPES, state.name):<10} {(state.description or '')[:11]:<11} {stat:<12} {vlan:<8} full   {speed:<6} {optic}"
        )
        data[state.name] = {
            "description": state.description or "",
            "linkStatus": stat,
            "lineProtocolStatus": _line(state),
            "vlanInformation": {
                "interfaceMode": "routed" if state.routed else "bridged",
                "interfaceForwardingModel": "routed" if state.routed else "bridged",
                **({} if state.routed else {"vlanId": int(vlan)}),
            },
            "bandwidth": _bandwidth(view, state),
            "interfaceType": optic,
            "duplex": "duplexFull",
            "autoNegotiateActive": False,
        }
    return "\n".join(rows), {"interfaceStatuses": data}


@show(r"show interfaces description")
def interfaces_description(view: View, m: re.Match[str]) -> Shown:
    rows = ["Interface                      Status         Protocol           Description"]
    data = {}
    for state in view.ports:
        stat = "up" if state.oper_up else ("admin down" if not state.admin_up else "down")
        proto = _line(state)
        rows.append(
            f"{short(INTERFACE_TYPES, state.name):<30} {stat:<14} {proto:<18} {state.description or ''}".rstrip()
        )
        data[state.name] = {
            "description": state.description or "",
            "interfaceStatus": "up" if state.oper_up else ("adminDown" if not state.admin_up else "down"),
            "lineProtocolStatus": proto,
        }
    return "\n".join(rows), {"interfaceDescriptions": data}


def _physical(view: View) -> list[PortState]:
    return [s for s in view.ports if _kind(s.name) in _PHYSICAL]


@show(r"show interfaces counters errors")
def counters_errors(view: View, m: re.Match[str]) -> Shown:
    rows = ["Port             FCS      Align     Symbol    Rx      Runts     Giants    Tx"]
    data = {}
    for s in _physical(view):
        fcs = _traffic(view, s.name).fcs_errors
        rows.append(
            f"{short(INTERFACE_TYPES, s.name):<16} {fcs:>5} {0:>9} {0:>9} {fcs:>9} {0:>7} {0:>9} {0:>9}"
        )
        data[s.name] = {
            "inErrors": fcs,
            "frameTooLongs": 0,
            "frameTooShorts": 0,
            "fcsErrors": fcs,
            "alignmentErrors": 0,
            "symbolErrors": 0,
            "outErrors": 0,
        }
    return "\n".join(rows), {"interfaceErrorCounters": data}


@show(r"show interfaces counters discards")
def counters_discards(view: View, m: re.Match[str]) -> Shown:
    rows = [
        "Port           InDiscards         OutDiscards",
        "-------- ------------------ -------------------",
    ]
    data = {}
    for s in _physical(view):
        dropped = _traffic(view, s.name).lossless_dropped
        rows.append(f"{short(INTERFACE_TYPES, s.name):<8} {0:>18} {dropped:>19}")
        data[s.name] = {"inDiscards": 0, "outDiscards": dropped}
    total = sum(d["outDiscards"] for d in data.values())
    rows.append(f"{'Totals':<8} {0:>18} {total:>19}")
    return "\n".join(rows), {"interfaces": data, "inDiscardsTotal": 0, "outDiscardsTotal": total}


@show(r"show interfaces counters rates")
def counters_rates(view: View, m: re.Match[str]) -> Shown:
    rows = ["Port      Name        Intvl   In Mbps      %  In Kpps  Out Mbps      % Out Kpps"]
    data = {}
    for s in _physical(view):
        rows.append(
            f"{short(INTERFACE_TYPES, s.name):<9} {(s.description or '')[:11]:<11} 5:00       0.0   0.0%        0       0.0   0.0%        0"
        )
        data[s.name] = {
            "description": s.description or "",
            "interval": 300,
            "inBpsRate": 0.0,
            "inPktsRate": 0.0,
            "inPpsRate": 0.0,
            "outBpsRate": 0.0,
            "outPktsRate": 0.0,
            "outPpsRate": 0.0,
            "lastUpdateTimestamp": view.calendar,
        }
    return "\n".join(rows), {"interfaces": data}


def _optics(view: View) -> list[tuple[PortState, float]]:
    """Every cabled front-panel port and the receive power its optic reads now."""
    return [
        (s, _traffic(view, s.name).rx_dbm)
        for s in _physical(view)
        if s.name.startswith("Ethernet") and view.cabled(s.name)
    ]


@show(r"show interfaces transceiver")
def transceivers(view: View, m: re.Match[str]) -> Shown:
    rows = [
        "If device is externally calibrated, only calibrated values are printed.",
        "N/A: not applicable, Tx: transmit, Rx: receive.",
        "mA: milliamperes, dBm: decibels (milliwatts).",
        "                               Bias      Optical   Optical",
        "          Temp       Voltage   Current   Tx Power  Rx Power",
        "Port      (Celsius)  (Volts)   (mA)      (dBm)     (dBm)     Last Update",
        "-----     ---------  --------  --------  --------  --------  -------------------",
    ]
    data = {}
    for s, rx in _optics(view):
        rows.append(
            f"{short(INTERFACE_TYPES, s.name):<9} {34.5:>6.2f}     {3.29:>5.2f}     {42.1:>6.2f}    {1.10:>5.2f}     {rx:>6.2f}     0:00:02 ago"
        )
        data[s.name] = {
            "vendorSn": _serial(view, s.name),
            "mediaType": view.model.optic_type,
            "updateTime": view.calendar,
            "temperature": 34.5,
            "voltage": 3.29,
            "txBias": 42.1,
            "txPower": 1.1,
            "rxPower": rx,
            "displayName": s.name,
        }
    return "\n".join(rows), {"interfaces": data}


@show(r"show interfaces transceiver dom thresholds")
def transceiver_thresholds(view: View, m: re.Match[str]) -> Shown:
    """Receive power per lane with the module's own thresholds: the JSON ANTA's
    VerifyInterfacesOpticsReceivePower reads (tests/captures/anta); one entry per port."""
    rows = [f"{'Port':<10} {'Channel':>7} {'Rx Power':>9} {'Low Warn':>9} {'Low Alarm':>9}"]
    data = {}
    for s, rx in _optics(view):
        lanes = {str(lane): rx for lane in range(1, 9)}
        rows += [
            f"{short(INTERFACE_TYPES, s.name):<10} {lane:>7} {rx:>9.2f} {RX_LOW_WARN_DBM:>9.2f} {RX_LOW_ALARM_DBM:>9.2f}"
            for lane in lanes
        ]
        data[s.name] = {
            "displayName": s.name,
            "vendorSn": _serial(view, s.name),
            "mediaType": view.model.optic_type,
            "parameters": {
                "rxPower": {
                    "unit": "dBm",
                    "channels": lanes,
                    "threshold": {
                        "lowAlarm": RX_LOW_ALARM_DBM,
                        "lowAlarmOverridden": False,
                        "lowWarn": RX_LOW_WARN_DBM,
                        "lowWarnOverridden": False,
                    },
                }
            },
        }
    return "\n".join(rows), {"interfaces": data}


#: The DOM sensors `show interfaces transceiver detail` lists, with the module's thresholds
#: (high alarm, high warn, low alarm, low warn) and what a healthy optic reads; receive power
#: is the lab optic's own (lab/traffic.py).
_DOM = (
    ("Temperature", "Celsius", (75.0, 70.0, -5.0, 0.0), 34.5),
    ("Voltage", "Volts", (3.63, 3.46, 2.97, 3.13), 3.29),
    ("Current", "mA", (100.0, 95.0, 10.0, 15.0), 42.1),
    ("Tx Power", "dBm", (6.0, 5.0, -6.4, -4.4), 1.1),
    ("Rx Power", "dBm", (6.0, 5.0, RX_LOW_ALARM_DBM, RX_LOW_WARN_DBM), None),
)


@show(r"show interfaces transceiver detail")
def transceiver_detail(view: View, m: re.Match[str]) -> Shown:
    """Each sensor of each cabled port's optic with its thresholds, one table per sensor, in the
    layout of real EOS output (ntc-templates' arista_eos capture)."""
    optics = _optics(view)
    rows = [
        "mA: milliamperes, dBm: decibels (milliwatts), NA or N/A: not applicable.",
        "++ : high alarm, +  : high warning, -  : low warning, -- : low alarm.",
        "A2D readouts (if they differ), are reported in parentheses.",
        "The threshold values are calibrated.",
    ]
    data: dict[str, Any] = {s.name: {} for s, _ in optics}
    for sensor, unit, (hi_alarm, hi_warn, lo_alarm, lo_warn), value in _DOM:
        rows += [
            "                         High Alarm  High Warn   Low Alarm   Low Warn    ",
            f"           {sensor:<13} Threshold   Threshold   Threshold   Threshold   ",
            f"Port       ({unit}){' ' * (12 - len(unit))}({unit}){' ' * (10 - len(unit))}({unit}){' ' * (10 - len(unit))}({unit}){' ' * (10 - len(unit))}({unit})",
            "-------    ------------  ----------  ----------  ----------  ----------  ",
        ]
        for s, rx in optics:
            now = rx if value is None else value
            rows.append(
                f"{short(INTERFACE_TYPES, s.name):<10} {now:<13.2f} {hi_alarm:<11.2f} {hi_warn:<11.2f} {lo_alarm:<11.2f} {lo_warn:<11.2f}"
            )
            data[s.name][sensor] = {
                "value": now,
                "highAlarm": hi_alarm,
                "highWarn": hi_warn,
                "lowAlarm": lo_alarm,
                "lowWarn": lo_warn,
            }
    return "\n".join(rows), {"interfaces": data}


def _serial(view: View, port: str) -> str:
    return optic_serial(view.name, port)


# --- LLDP ---------------------------------------------------------------------------------------


def _far_description(view: View, device: str) -> str:
    facts = view.state.facts[device]
    return " ".join(lab_nos(facts.platform).system_description(facts.model))


def _far_chassis(view: View, device: str) -> str:
    prefix = lab_nos(view.state.facts[device].platform).mac_prefix
    return mac_as(prefix + chassis_digits(device), "MAC_DOT_FOUR")


@show(r"show lldp neighbors")
def lldp_neighbors(view: View, m: re.Match[str]) -> Shown:
    rows = [
        "Last table change time   : 0:00:10 ago",
        f"Number of table inserts  : {len(view.state.lldp(view.name))}",
        "Number of table deletes  : 0",
        "Number of table drops    : 0",
        "Number of table age-outs : 0",
        "",
        "Port          Neighbor Device ID       Neighbor Port ID    TTL",
        "------------- ------------------------ ------------------- ---",
    ]
    entries = []
    for port, name, far in view.state.lldp(view.name):
        rows.append(f"{short(INTERFACE_TYPES, port):<13} {name:<24} {far:<19} 120")
        entries.append({"port": port, "neighborDevice": name, "neighborPort": far, "ttl": 120})
    data = {
        "tablesLastChangeTime": view.calendar - 10,
        "tablesAgeOuts": 0,
        "tablesInserts": len(entries),
        "tablesDeletes": 0,
        "tablesDrops": 0,
        "lldpNeighbors": entries,
    }
    return "\n".join(rows), data


@show(r"show lldp neighbors(?: (?P<port>\S+))? detail")
def lldp_neighbors_detail(view: View, m: re.Match[str]) -> Shown:
    """The layout of a vEOS capture in ntc-templates' tests, the eAPI keys NAPALM's eos
    `get_lldp_neighbors_detail` and ANTA's VerifyLLDPNeighbors read."""
    only = _port_arg(view, m["port"])
    seen = {port: (name, far) for port, name, far in view.state.lldp(view.name)}
    blocks, data = [], {}
    for state in _physical(view):
        port = state.name
        if (only is not None and port != only) or not port.startswith("Ethernet"):
            continue
        if port not in seen:
            data[port] = {"lldpNeighborInfo": [], "maxNeighbors": 10}
            continue
        name, far = seen[port]
        device = view.state.far_end(view.name, port)
        assert device is not None
        chassis = _far_chassis(view, device[0])
        description = _far_description(view, device[0])
        blocks.append(
            "\n".join(
                [
                    f"Interface {port} detected 1 LLDP neighbors:",
                    "",
                    f'  Neighbor {chassis}/"{far}", age 10 seconds',
                    "  Discovered 0:00:10 ago; Last changed 0:00:10 ago",
                    "  - Chassis ID type: MAC address (4)",
                    f"    Chassis ID     : {chassis}",
                    "  - Port ID type: Interface name (5)",
                    f'    Port ID     : "{far}"',
                    "  - Time To Live: 120 seconds",
                    f'  - System Name: "{name}"',
                    f'  - System Description: "{description}"',
                    "  - System Capabilities : Bridge, Router",
                    "    Enabled Capabilities: Bridge, Router",
                    "  - IEEE802.3 Maximum Frame Size: 9236 bytes",
                ]
            )
        )
        data[port] = {
            "lldpNeighborInfo": [
                {
                    "systemName": name,
                    "systemDescription": description,
                    "chassisIdType": "macAddress",
                    "chassisId": chassis,
                    "ttl": 120,
                    "lastChangeTime": view.calendar - 10,
                    "lastContactTime": view.calendar - 10,
                    "neighborDiscoveryTime": view.calendar - 10,
                    "systemCapabilities": {"bridge": True, "router": True},
                    "managementAddresses": [],
                    "neighborInterfaceInfo": {
                        "interfaceIdType": "interfaceName",
                        "interfaceId": f'"{far}"',
                        "interfaceId_v2": far,
                        "interfaceDescription": "",
                        "maxFrameSize": 9236,
                    },
                }
            ],
            "maxNeighbors": 10,
        }
    return "\n\n".join(blocks), {"lldpNeighbors": data}


# --- the box ---------------------------------------------------------------------------------------


@show(r"show version(?: detail)?")
def version(view: View, m: re.Match[str]) -> Shown:
    mdl = view.model
    mac = system_mac(view)
    data = {
        "mfgName": "Arista",
        "modelName": mdl.name,
        "hardwareRevision": "11.00",
        "serialNumber": view.dev.serial(),
        "systemMacAddress": mac,
        "hwMacAddress": mac,
        "configMacAddress": "00:00:00:00:00:00",
        "version": EOS_VERSION,
        "architecture": "x86_64",
        "internalVersion": f"{EOS_VERSION}-lab",
        "internalBuildId": "00000000-0000-0000-0000-000000000000",
        "imageFormatVersion": "3.0",
        "imageOptimization": "Strata-4GB",
        "kernelVersion": "5.10.0",
        "bootupTimestamp": view.calendar - view.uptime,
        "uptime": view.uptime,
        "memTotal": mdl.mem_total_kb,
        "memFree": mdl.mem_free_kb,
        "isIntlVersion": False,
    }
    text = "\n".join(
        [
            f"Arista {mdl.name}",
            "Hardware version:    11.00",
            f"Serial number:       {data['serialNumber']}",
            f"Hardware MAC address:  {mac_as(mac, 'MAC_DOT_FOUR')}",
            f"System MAC address:  {mac_as(mac, 'MAC_DOT_FOUR')}",
            "",
            f"Software image version: {EOS_VERSION}",
            "Architecture:           x86_64",
            f"Internal build version: {data['internalVersion']}",
            f"Internal build ID:      {data['internalBuildId']}",
            f"Image format version:   {data['imageFormatVersion']}",
            f"Image optimization:     {data['imageOptimization']}",
            "",
            f"Uptime:                 {_uptime_words(view.uptime)}",
            f"Total memory:           {mdl.mem_total_kb} kB",
            f"Free memory:            {mdl.mem_free_kb} kB",
        ]
    )
    return text, data


def _uptime_words(seconds: float) -> str:
    minutes = int(seconds) // 60
    days, rest = divmod(minutes, 1440)
    hours, mins = divmod(rest, 60)
    parts = ([f"{days} days"] if days else []) + [f"{hours} hours", f"{mins} minutes"]
    return " and ".join([", ".join(parts[:-1]), parts[-1]]) if len(parts) > 1 else parts[0]


@show(r"show hostname")
def hostname(view: View, m: re.Match[str]) -> Shown:
    name = view.hostname
    return f"Hostname: {name}\nFQDN:     {name}", {"hostname": name, "fqdn": name}


@show(r"show uptime")
def uptime(view: View, m: re.Match[str]) -> Shown:
    now = time.strftime("%H:%M:%S", time.gmtime(view.calendar))
    text = f" {now} up {duration(view.uptime)},  1 user,  load average: 0.35, 0.30, 0.28"
    return text, {
        "upTime": view.uptime,
        "loadAvg": [0.35, 0.3, 0.28],
        "users": 1,
        "currentTime": view.calendar,
    }


@show(r"show reload cause(?: full)?")
def reload_cause(view: View, m: re.Match[str]) -> Shown:
    text = "\n".join(
        [
            "Reload Cause 1:",
            "-------------------",
            "Reload requested by the user.",
            "",
            "Reload Time:",
            "------------",
            f"Reload occurred at {time.strftime('%a %b %d %H:%M:%S %Y', time.gmtime(view.calendar - view.uptime))} UTC.",
            "",
            "Recommended Action:",
            "-------------------",
            "No action necessary.",
            "",
            "Debugging Information:",
            "----------------------",
            "None available.",
        ]
    )
    cause = {
        "description": "Reload requested by the user.",
        "timestamp": view.calendar - view.uptime,
        "recommendedAction": "No action necessary.",
        "debugInfoIsDir": False,
    }
    return text, {"resetCauses": [cause], "full": False}


@show(r"show ntp status")
def ntp_status(view: View, m: re.Match[str]) -> Shown:
    server = next((t.split()[2] for t in view.running.children if t.startswith("ntp server ")), None)
    if server is None:
        return "unsynchronised\npoll interval unknown", {"status": "unsynchronised"}
    text = f"synchronised to NTP server ({server}) at stratum 3\n   time correct to within 12 ms\n   polling server every 1024 s"
    return text, {"status": "synchronised", "ntpServer": server, "stratum": 3}


@show(r"show ntp associations")
def ntp_associations(view: View, m: re.Match[str]) -> Shown:
    rows = [
        "     remote          refid      st t when  poll reach   delay   offset  jitter",
        "==============================================================================",
    ]
    peers = {}
    for t in view.running.children:
        if t.startswith("ntp server "):
            server = t.split()[2]
            rows.append(f"*{server:<15} 192.0.2.1        2 u   35  1024  377    0.312   -0.015   0.020")
            peers[server] = {"peerIpAddr": server, "condition": "sys.peer", "stratumLevel": 2}
    return "\n".join(rows), {"peers": peers}


#: The busiest EOS agents of a switch that runs BGP, BFD, VXLAN and PFC (what `top` lists first),
#: in the column layout of real `show processes top once` output (ntc-templates' captures).
_PROCESSES = [
    f"{pid:>5} root      20   0 {virt:>7} {res:>6} {shr:>6} S {cpu:>5.1f} {mem:>4.1f} {time:>9} {name}"
    for pid, virt, res, shr, cpu, mem, time, name in (
        (1921, 714612, 256340, 142364, 3.0, 0.8, "13:05.12", "Sysdb"),
        (2034, 1104912, 156128, 98960, 1.0, 0.5, "6:14.82", "Bgp-main"),
        (2035, 1185848, 84908, 71692, 0.7, 0.3, "3:23.59", "IpRib"),
        (2117, 968336, 142116, 116404, 0.7, 0.4, "4:15:39", "StrataCentral"),
        (2140, 523256, 61204, 48712, 0.3, 0.2, "1:02.44", "Bfd"),
        (2152, 498212, 55172, 44310, 0.3, 0.2, "0:48.10", "VxlanSwFwd"),
        (2166, 478820, 51044, 41890, 0.3, 0.2, "0:31.77", "Lldp"),
        (2201, 501944, 58612, 46004, 0.0, 0.2, "0:22.03", "Qos"),
        (1, 83904, 9264, 7064, 0.0, 0.0, "0:05.40", "systemd"),
    )
]


@show(r"show processes top once")
def processes_top(view: View, m: re.Match[str]) -> Shown:
    mdl = view.model
    idle = 100.0 - mdl.cpu_percent
    used = mdl.mem_total_kb - mdl.mem_free_kb
    text = "\n".join(
        [
            f"top - {time.strftime('%H:%M:%S', time.gmtime(view.calendar))} up {duration(view.uptime)},  1 user,  load average: 0.35, 0.30, 0.28",
            "Tasks: 301 total,   1 running, 300 sleeping,   0 stopped,   0 zombie",
            f"%Cpu(s):  {mdl.cpu_percent - 2:.1f} us,  2.0 sy,  0.0 ni, {idle:.1f} id,  0.0 wa,  0.0 hi,  0.0 si,  0.0 st",
            f"KiB Mem : {mdl.mem_total_kb} total, {mdl.mem_free_kb} free, {used} used,        0 buff/cache",
            f"KiB Swap:        0 total,        0 free,        0 used. {mdl.mem_free_kb} avail Mem",
            "",
            "  PID USER      PR  NI    VIRT    RES    SHR S  %CPU %MEM     TIME+ COMMAND",
            *_PROCESSES,
        ]
    )
    data = {
        "cpuInfo": {
            "%Cpu(s)": {
                "user": float(mdl.cpu_percent - 2),
                "system": 2.0,
                "nice": 0.0,
                "idle": idle,
                "ioWait": 0.0,
                "hwIrq": 0.0,
                "swIrq": 0.0,
                "stolen": 0.0,
            }
        },
        "memInfo": {"physicalMem": {"total": mdl.mem_total_kb, "free": mdl.mem_free_kb, "used": used}},
        "timeInfo": {"loadAvg": [0.35, 0.3, 0.28], "users": 1},
        "processes": {},
    }
    return text, data


@show(r"show system coredump")
def coredump(view: View, m: re.Match[str]) -> Shown:
    return "No core dumps", {"mode": "compressedDeferred", "coreFiles": []}


@show(r"show inventory")
def inventory(view: View, m: re.Match[str]) -> Shown:
    mdl = view.model
    ports = [s for s in _physical(view) if s.name.startswith("Ethernet") and "/" not in s.name]
    rows = [
        "System information",
        "  Model                    Description",
        "  ------------------------ ----------------------------------------------------",
        f"  {mdl.name:<24} {mdl.description}",
        "",
        "  HW Version  Serial Number  Mfg Date",
        "  ----------- -------------- ----------",
        f"  11.00       {view.dev.serial():<14} 2025-01-01",
        "",
        f"System has {mdl.psus} power supply slots",
        "  Slot Model            Serial Number",
        "  ---- ---------------- ----------------",
    ]
    rows += [f"  {i:<4} {mdl.psu_model:<16} {view.dev.serial()}P{i}" for i in range(1, mdl.psus + 1)]
    rows += [
        "",
        f"System has {mdl.fan_trays} fan modules",
        "  Module  Number of Fans  Model            Serial Number",
        "  ------- --------------- ---------------- ----------------",
    ]
    rows += [f"  {i:<7} {mdl.fans_per_tray:<15} FAN-7002H-RED    N/A" for i in range(1, mdl.fan_trays + 1)]
    rows += ["", f"System has {len(ports) + 1} ports", "  Type             Count", "  ---------------- ----"]
    rows += ["  Management       1", f"  Switched         {len(ports)}"]
    xcvrs = {}
    for s in ports:
        present = view.cabled(s.name)
        xcvrs[s.name[len("Ethernet") :]] = {
            "mfgName": view.model.optic_vendor if present else "Not Present",
            "modelName": view.model.optic_model if present else "",
            "serialNum": _serial(view, s.name) if present else "",
            "hardwareRev": "11" if present else "",
        }
    data = {
        "systemInformation": {
            "name": mdl.name,
            "description": mdl.description,
            "hardwareRev": "11.00",
            "serialNum": view.dev.serial(),
            "mfgDate": "2025-01-01",
        },
        "powerSupplySlots": {
            str(i): {"name": mdl.psu_model, "serialNum": f"{view.dev.serial()}P{i}"}
            for i in range(1, mdl.psus + 1)
        },
        "fanTraySlots": {
            str(i): {"name": "FAN-7002H-RED", "serialNum": "N/A", "numFans": mdl.fans_per_tray}
            for i in range(1, mdl.fan_trays + 1)
        },
        "portCount": len(ports) + 1,
        "switchedPortCount": len(ports),
        "internalPortCount": 0,
        "switchedBootstrapPortCount": 0,
        "managementPortCount": 1,
        "xcvrSlots": xcvrs,
        "cardSlots": {},
        "storageDevices": {},
        "dimmSlots": {},
    }
    return "\n".join(rows), data


def _sensor(view: View, i: int, sensor: Any, name: str | None = None) -> dict[str, Any]:
    return {
        "name": name or sensor.name,
        "relPos": str(i),
        "description": sensor.description,
        "currentTemperature": sensor.celsius,
        "maxTemperature": sensor.celsius + 2.0,
        "maxTemperatureLastChange": view.calendar - view.uptime,
        "overheatThreshold": sensor.overheat,
        "criticalThreshold": sensor.critical,
        "targetTemperature": sensor.overheat - 30.0,
        "hwStatus": "ok",
        "alertCount": 0,
        "inAlertState": False,
        "isPidDriver": False,
        "pidDriverCount": 0,
    }


@show(r"show (?:system )?environment temperature(?: (?P<transceiver>transceiver))?")
def temperature(view: View, m: re.Match[str]) -> Shown:
    mdl = view.model
    if m["transceiver"]:
        cabled = [s.name for s in _physical(view) if s.name.startswith("Ethernet") and view.cabled(s.name)]
        sensors = [
            _sensor(
                view, i, Sensor(f"DomTemperatureSensor{p[8:]}", f"Xcvr{p[8:]} temp sensor", 34.5, 75.0, 80.0)
            )
            for i, p in enumerate(cabled, start=1)
        ]
        rows = ["Transceiver      Temp (C)  Alert  Critical"]
        rows += [
            f"{s['description'].split()[0]:<16} {s['currentTemperature']:>8}  {75:>5}  {80:>8}"
            for s in sensors
        ]
        return "\n".join(rows), {"tempSensors": sensors}
    sensors = [_sensor(view, i, s) for i, s in enumerate(mdl.sensors, start=1)]
    psu_slots = [
        {
            "relPos": str(i),
            "entPhysicalClass": "PowerSupply",
            "tempSensors": [_sensor(view, 1, mdl.sensors[0], f"TempSensorP{i}/1")],
        }
        for i in range(1, mdl.psus + 1)
    ]
    rows = [
        "System temperature status is: Ok",
        "",
        "                                                                 Alert  Critical",
        "                                               Temp    Setpoint  Limit     Limit",
        "Sensor  Description                             (C)         (C)    (C)       (C)",
        "------- ----------------------------------- ------- ----------- ------ ---------",
    ]
    rows += [
        f"{i:<7} {s.description:<35} {s.celsius:>7.1f}   ({int(s.overheat - 30)}) {s.overheat - 30:.1f} {int(s.overheat):>6} {int(s.critical):>9}"
        for i, s in enumerate(mdl.sensors, start=1)
    ]
    data = {
        "systemStatus": "temperatureOk",
        "shutdownOnOverheat": True,
        "tempSensors": sensors,
        "powerSupplySlots": psu_slots,
        "cardSlots": [],
        "ambientThreshold": 45,
    }
    return "\n".join(rows), data


def _fans(mdl: Any, prefix: str, count: int) -> list[dict[str, Any]]:
    return [
        {
            "label": f"{prefix}/{j}",
            "status": "ok",
            "configuredSpeed": mdl.fan_speed,
            "actualSpeed": mdl.fan_speed,
            "speedHwOverride": False,
            "speedStable": True,
            "uptime": 0.0,
        }
        for j in range(1, count + 1)
    ]


@show(r"show (?:system )?environment cooling")
def cooling(view: View, m: re.Match[str]) -> Shown:
    mdl = view.model
    trays: list[dict[str, Any]] = [
        {
            "label": str(i),
            "status": "ok",
            "speed": mdl.fan_speed,
            "fans": _fans(mdl, str(i), mdl.fans_per_tray),
        }
        for i in range(1, mdl.fan_trays + 1)
    ]
    psus: list[dict[str, Any]] = [
        {
            "label": f"PowerSupply{i}",
            "status": "ok",
            "speed": mdl.fan_speed,
            "fans": _fans(mdl, f"PowerSupply{i}", 1),
        }
        for i in range(1, mdl.psus + 1)
    ]
    rows = [
        "System cooling status is: Ok",
        "Ambient temperature: 28C",
        "Airflow: front-to-back",
        "Fan              Status          Configured Speed     Actual Speed",
        "---------------- --------------- ---------------- ----------------",
    ]
    rows += [
        f"{f['label']:<16} {'Ok':<15} {mdl.fan_speed:>15}% {mdl.fan_speed:>15}%"
        for t in trays + psus
        for f in t["fans"]
    ]
    data = {
        "systemStatus": "coolingOk",
        "ambientTemperature": 28.0,
        "airflowDirection": "frontToBackAirflow",
        "coolingMode": "automatic",
        "overrideFanSpeed": 0,
        "shutdownOnInsufficientFans": True,
        "fanTraySlots": trays,
        "powerSupplySlots": psus,
    }
    return "\n".join(rows), data


@show(r"show (?:system )?environment power")
def power(view: View, m: re.Match[str]) -> Shown:
    mdl = view.model
    rows = [
        "Power                       Input  Output  Output",
        "Supply  Model            Capacity  Current Current Power  Status  Uptime",
        "------- --------------- -------- ------- ------- ------ ------- ----------------",
    ]
    supplies = {}
    for i in range(1, mdl.psus + 1):
        watts = 380.0
        rows.append(
            f"{i:<7} {mdl.psu_model:<15} {int(mdl.psu_watts):>7}W {1.7:>6.2f}A {31.7:>6.2f}A {watts:>5.1f}W Ok      {duration(view.uptime)}"
        )
        supplies[str(i)] = {
            "modelName": mdl.psu_model,
            "capacity": mdl.psu_watts,
            "state": "ok",
            "inputVoltage": 230.0,
            "inputCurrent": 1.7,
            "outputCurrent": 31.7,
            "outputPower": watts,
            "managed": True,
            "uptime": view.uptime,
            "fans": {f"FanP{i}/1": {"status": "ok", "speed": mdl.fan_speed}},
            "tempSensors": {f"TempSensorP{i}/1": {"status": "ok", "temperature": 31.0}},
        }
    return "\n".join(rows), {"powerSupplies": supplies}


@show(r"show snmp v2-mib (?P<what>chassis|contact|location)")
def snmp_mib(view: View, m: re.Match[str]) -> Shown:
    words = [t.split() for t in view.running.children if t.startswith("snmp-server ")]
    value = next((" ".join(w[2:]) for w in words if w[1] == m["what"]), "")
    if m["what"] == "chassis":
        value = view.dev.serial()
    key = {"chassis": "chassisId", "contact": "contact", "location": "location"}[m["what"]]
    return value, {key: value}


@show(r"show users accounts")
def users(view: View, m: re.Match[str]) -> Shown:
    found = {}
    for t in view.running.children:
        w = t.split()
        if w[0] == "username":
            found[w[1]] = {
                "username": w[1],
                "privLevel": int(w[3]) if len(w) > 3 and w[3].isdigit() else 1,
                "role": w[5] if len(w) > 5 and w[4] == "role" else "",
                "nopassword": False,
                "sshAuthorizedKey": "",
            }
    rows = [
        "User       Privilege Role              NOPASSWD SSH",
        "---------- --------- ----------------- -------- ---",
    ]
    rows += [f"{u:<10} {d['privLevel']:<9} {d['role']:<17} {'':<8}" for u, d in found.items()]
    return "\n".join(rows), {"users": found}
