"""The Linux shell under NVUE, as a Cumulus Linux user reaches for it: iproute2 (`ip [-j]
address|link|route|neighbor|vrf`), net-tools `arp -a`, and FRR's `vtysh -c '<show command>'`.

The kernel view follows from the switch's applied configuration and the fabric, like NVUE's own
answers: every front-panel port `swpN` (its breakout lanes `swpNsM` instead once split), the
loopback `lo`, the management port `eth0` in the `mgmt` VRF, the bridge `br_default` with an SVI
`vlanN` per VLAN that has an address, the single VXLAN device `vxlan48`, and a VRF device per
VRF (Linux VRFs, tables from 1001 up). Routes of the default VRF are the main table's; BGP's
ECMP routes are nexthop groups (`nhid`, one `nexthop via` line per path), as kernel 6.1 under
FRR installs them. Layouts: iproute2's text and `-j` JSON (the fields ntc-templates' linux
captures show, tests/captures), FRR's JSON (field names as FRR's `show bgp summary json` and
`show evpn vni json` print them, e.g. the real replies recorded in tynany/frr_exporter's tests).
"""

from __future__ import annotations

import json
import re
import shlex
import zlib
from dataclasses import dataclass, field
from ipaddress import IPv4Address, IPv4Interface
from typing import Any

from fabricctl.lab.devices.nvue.show import DEFAULT_MTU
from fabricctl.lab.dialect import CliError
from fabricctl.lab.routing import Route
from fabricctl.lab.view import Shown, View, registry
from fabricctl.macs import mac_as

SHOWS, show = registry()

PORTS = 64  # SN5600: 64 OSFP front-panel ports
VXLAN_DEVICE = "vxlan48"  # NVUE's single VXLAN device (one device for every VNI)
FIRST_TABLE = 1001  # the routing table of the first VRF (mgmt)
BGP_METRIC = 20  # the metric zebra installs BGP routes with


@dataclass
class Link:
    """One network device as `ip link` shows it."""

    ifindex: int
    name: str
    kind: str  # loopback | ether | bridge | vlan | vxlan | vrf
    up: bool  # administratively
    carrier: bool
    mtu: int
    mac: str
    master: str | None = None
    parent: str | None = None  # an SVI's bridge (`vlan112@br_default`)
    addresses: list[IPv4Interface] = field(default_factory=list)
    table: int | None = None  # a VRF device's routing table


def _vrfs(view: View) -> list[str]:
    return ["mgmt", *sorted(v for v in view.facts.rds if v != "default")]


def links(view: View) -> list[Link]:
    """Every device the switch's kernel holds, in ifindex order."""
    facts = view.facts
    mac = mac_as(view.mac_digits(), "MAC_COLON_TWO")
    out = [Link(1, "lo", "loopback", True, True, 65536, "00:00:00:00:00:00")]
    out[0].addresses = [
        IPv4Interface("127.0.0.1/8"),
        *(facts.ports["lo"].addresses if "lo" in facts.ports else []),
    ]
    eth0 = facts.ports.get("eth0")
    out.append(
        Link(
            2,
            "eth0",
            "ether",
            True,
            True,
            1500,
            mac_as("1c34da" + view.mac_digits()[6:], "MAC_COLON_TWO"),
            "mgmt",
        )
    )
    out[-1].addresses = list(eth0.addresses) if eth0 else [IPv4Interface(f"{view.dev.spec.mgmt_ip}/24")]
    names = [f"swp{n}" for n in range(1, PORTS + 1)]
    lanes = sorted((p for p in facts.ports if re.fullmatch(r"swp\d+s\d+", p)), key=_port_key)
    for lane in lanes:  # a split port is replaced by its lanes
        parent = "swp" + lane[3:].split("s")[0]
        if parent in names:
            at = names.index(parent)
            names[at : at + 1] = [n for n in lanes if n.startswith(parent + "s")]
    for name in dict.fromkeys(names):
        port = facts.ports.get(name)
        up = port is not None and port.admin_up
        link = Link(len(out) + 1, name, "ether", up, view.state.oper_up(view.name, name), DEFAULT_MTU, mac)
        if port is not None:
            link.mtu = port.mtu or DEFAULT_MTU
            link.addresses = list(port.addresses)
            if port.segment is not None:
                link.master = "br_default"
            elif port.vrf != "default":
                link.master = port.vrf
        out.append(link)
    if any(p.segment for p in facts.ports.values()) or facts.vnis:
        out.append(Link(len(out) + 1, "br_default", "bridge", True, True, DEFAULT_MTU, mac))
    for name, port in sorted(facts.ports.items(), key=lambda x: _port_key(x[0])):
        if name.startswith("vlan"):
            svi = Link(
                len(out) + 1,
                name,
                "vlan",
                port.admin_up,
                True,
                port.mtu or DEFAULT_MTU,
                mac,
                parent="br_default",
            )
            svi.addresses = list(port.addresses)
            svi.master = port.vrf if port.vrf != "default" else None
            out.append(svi)
    if facts.vtep is not None:
        out.append(Link(len(out) + 1, VXLAN_DEVICE, "vxlan", True, True, DEFAULT_MTU, mac, "br_default"))
    for i, vrf in enumerate(_vrfs(view)):
        out.append(Link(len(out) + 1, vrf, "vrf", True, True, 65575, mac, table=FIRST_TABLE + i))
    return out


def _port_key(name: str) -> tuple[object, ...]:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))


def _flags(link: Link) -> list[str]:
    if link.kind == "loopback":
        return ["LOOPBACK", "UP", "LOWER_UP"]
    if link.kind == "vrf":
        return ["NOARP", "MASTER", "UP", "LOWER_UP"]
    if not link.up:
        return ["BROADCAST", "MULTICAST"]
    if not link.carrier:
        return ["NO-CARRIER", "BROADCAST", "MULTICAST", "UP"]
    return ["BROADCAST", "MULTICAST", "UP", "LOWER_UP"]


def _state(link: Link) -> str:
    if link.kind in ("loopback", "vlan"):
        return "UNKNOWN" if link.kind == "loopback" else ("UP" if link.up else "DOWN")
    return "UP" if link.up and link.carrier else "DOWN"


def _link_json(link: Link) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "ifindex": link.ifindex,
        "ifname": link.name,
        "flags": _flags(link),
        "mtu": link.mtu,
        "qdisc": "noqueue" if link.kind in ("loopback", "bridge", "vlan", "vxlan", "vrf") else "mq",
    }
    if link.parent:
        entry["link"] = link.parent
    if link.master:
        entry["master"] = link.master
    entry |= {
        "operstate": _state(link),
        "linkmode": "DEFAULT",
        "group": "default",
        "txqlen": 1000,
        "link_type": "loopback" if link.kind == "loopback" else "ether",
        "address": link.mac,
        "broadcast": "00:00:00:00:00:00" if link.kind == "loopback" else "ff:ff:ff:ff:ff:ff",
    }
    return entry


def _addr_info(link: Link) -> list[dict[str, Any]]:
    out = []
    for a in link.addresses:
        info: dict[str, Any] = {
            "family": "inet",
            "local": str(a.ip),
            "prefixlen": a.network.prefixlen,
        }
        if a.network.prefixlen < 31:
            info["broadcast"] = str(a.network.broadcast_address)
        info |= {
            "scope": "host" if a.ip.is_loopback else "global",
            "label": link.name,
            "valid_life_time": 4294967295,
            "preferred_life_time": 4294967295,
        }
        out.append(info)
    return out


def _link_line(link: Link, mode: bool) -> list[str]:
    name = f"{link.name}@{link.parent}" if link.parent else link.name
    master = f" master {link.master}" if link.master else ""
    qdisc = _link_json(link)["qdisc"]
    mode_text = " mode DEFAULT" if mode else ""
    head = (
        f"{link.ifindex}: {name}: <{','.join(_flags(link))}> mtu {link.mtu} qdisc {qdisc}{master} "
        f"state {_state(link)}{mode_text} group default qlen 1000"
    )
    kind = "loopback" if link.kind == "loopback" else "ether"
    brd = "00:00:00:00:00:00" if link.kind == "loopback" else "ff:ff:ff:ff:ff:ff"
    return [head, f"    link/{kind} {link.mac} brd {brd}"]


def _wanted(view: View, dev: str | None) -> list[Link]:
    found = links(view)
    if dev is None:
        return found
    picked = [ln for ln in found if ln.name == dev]
    if not picked:
        raise _error(f'Device "{dev}" does not exist.')
    return picked


def _error(text: str) -> Exception:
    return CliError(text)


_IP = r"ip(?P<opts>(?: -(?:j|json|4|p|pretty|br|brief|d|details|s|stats|c|color))*)"


@show(_IP + r" (?:a|addr|address)(?: (?:show|list|sh|ls))?(?: dev (?P<dev>\S+))?")
def ip_address(view: View, m: re.Match[str]) -> Shown:
    """`ip [-j] address [show] [dev IF]`."""
    found = _wanted(view, m["dev"])
    if "j" in (m["opts"] or ""):
        return _json([_link_json(ln) | {"addr_info": _addr_info(ln)} for ln in found], m["opts"])
    rows = []
    for ln in found:
        rows += _link_line(ln, mode=False)
        for a in _addr_info(ln):
            brd = f" brd {a['broadcast']}" if "broadcast" in a else ""
            rows.append(f"    inet {a['local']}/{a['prefixlen']}{brd} scope {a['scope']} {ln.name}")
            rows.append("       valid_lft forever preferred_lft forever")
    return "\n".join(rows), None


@show(_IP + r" (?:l|link)(?: (?:show|list|sh|ls))?(?: dev (?P<dev>\S+))?")
def ip_link(view: View, m: re.Match[str]) -> Shown:
    """`ip [-j] link [show] [dev IF]`."""
    found = _wanted(view, m["dev"])
    if "j" in (m["opts"] or ""):
        return _json([_link_json(ln) for ln in found], m["opts"])
    return "\n".join(line for ln in found for line in _link_line(ln, mode=True)), None


@show(_IP + r" vrf(?: (?:show|list|sh|ls))?")
def ip_vrf(view: View, m: re.Match[str]) -> Shown:
    """`ip [-j] vrf show`: each VRF device and its table."""
    vrfs = [ln for ln in links(view) if ln.kind == "vrf"]
    if "j" in (m["opts"] or ""):
        return _json([{"name": v.name, "table": v.table} for v in vrfs], m["opts"])
    rows = ["Name              Table", "-----------------------"]
    rows += [f"{v.name:<18}{v.table:>5}" for v in vrfs]
    return "\n".join(rows), None


def _json(data: Any, opts: str | None) -> Shown:
    pretty = opts is not None and ("-p" in opts.split() or "-pretty" in opts.split())
    return (json.dumps(data, indent=4) if pretty else json.dumps(data, separators=(",", ":"))), None


# --- routes -------------------------------------------------------------------------------------------


def _routes(view: View, vrf: str) -> list[dict[str, Any]]:
    """The kernel routes of one VRF's table, as `ip -j route` gives them."""
    out: list[dict[str, Any]] = []
    if vrf == "mgmt":
        eth0 = next(ln for ln in links(view) if ln.name == "eth0")
        net = eth0.addresses[0]
        gateway = str(next(net.network.hosts()))
        return [
            {"dst": "default", "gateway": gateway, "dev": "eth0", "flags": []},
            {
                "dst": str(net.network),
                "dev": "eth0",
                "protocol": "kernel",
                "scope": "link",
                "prefsrc": str(net.ip),
                "flags": [],
            },
        ]
    for r in view.routing.routes(view.name).get(vrf, {}).values():
        if r.kind == "connected":
            here = view.facts.ports[r.hops[0].interface]
            if here.name == "lo":
                continue
            src = next(a.ip for a in here.addresses if a.network == r.prefix)
            out.append(
                {
                    "dst": str(r.prefix),
                    "dev": here.name,
                    "protocol": "kernel",
                    "scope": "link",
                    "prefsrc": str(src),
                    "flags": [],
                }
            )
        else:
            out.append(_learned(r))
    return out


def _dst(r: Route) -> str:
    return str(r.prefix.network_address) if r.prefix.prefixlen == 32 else str(r.prefix)


def _learned(r: Route) -> dict[str, Any]:
    """A BGP (or static) route: one next hop, or a nexthop group of several. An EVPN route
    rides the VRF's L3 VNI SVI to the remote VTEP (`onlink`)."""
    protocol = "static" if r.kind == "static" else "bgp"
    hops = [
        {
            "gateway": str(h.vtep if h.vtep is not None else h.address),
            "dev": h.interface or VXLAN_DEVICE,
            "weight": 1,
            "flags": ["onlink"] if h.vtep else [],
        }
        for h in sorted(r.hops, key=lambda h: _port_key(h.interface))
    ]
    entry: dict[str, Any] = {"dst": _dst(r)}
    if len(hops) == 1:
        entry |= {
            "gateway": hops[0]["gateway"],
            "dev": hops[0]["dev"],
            "protocol": protocol,
            "metric": BGP_METRIC,
            "flags": hops[0]["flags"],
        }
    else:
        group = zlib.crc32(" ".join(str(h["gateway"]) for h in hops).encode()) % 900
        entry |= {
            "nhid": 100 + group,
            "protocol": protocol,
            "metric": BGP_METRIC,
            "flags": [],
            "nexthops": hops,
        }
    return entry


def _route_text(entry: dict[str, Any]) -> list[str]:
    if "nexthops" in entry:
        head = f"{entry['dst']} nhid {entry['nhid']} proto {entry['protocol']} metric {entry['metric']} "
        return [head] + [
            f"\tnexthop via {h['gateway']} dev {h['dev']} weight {h['weight']}{' onlink' if h['flags'] else ''} "
            for h in entry["nexthops"]
        ]
    parts = [entry["dst"]]
    if "gateway" in entry:
        parts += ["via", entry["gateway"]]
    parts += ["dev", entry["dev"]]
    if "protocol" in entry:
        parts += ["proto", entry["protocol"]]
    if "scope" in entry:
        parts += ["scope", entry["scope"]]
    if "prefsrc" in entry:
        parts += ["src", entry["prefsrc"]]
    if "metric" in entry:
        parts += ["metric", str(entry["metric"])]
    parts += entry["flags"]
    return [" ".join(parts)]


@show(_IP + r" (?:r|ro|route)(?: (?:show|list|sh|ls))?(?: vrf (?P<vrf>\S+))?")
def ip_route(view: View, m: re.Match[str]) -> Shown:
    """`ip [-j] route [show] [vrf NAME]`: the main table (the default VRF) or a VRF's."""
    vrf = m["vrf"] or "default"
    if vrf != "default" and vrf not in _vrfs(view):
        raise _error(f'Cannot find device "{vrf}"')
    entries = _routes(view, vrf)
    if "j" in (m["opts"] or ""):
        return _json(entries, m["opts"])
    return "\n".join(line for e in entries for line in _route_text(e)), None


@show(
    _IP
    + r" (?:n|neigh|neighbor|neighbour)(?: (?:show|list|sh|ls))?(?: vrf (?P<vrf>\S+))?(?: dev (?P<dev>\S+))?"
)
def ip_neigh(view: View, m: re.Match[str]) -> Shown:
    """`ip [-j] neigh [show]`: the ARP entries of every VRF (a VRF's alone with `vrf NAME`)."""
    entries = []
    for e in view.routing.arp(view.name):
        if (m["vrf"] and e.vrf != m["vrf"]) or (m["dev"] and e.interface != m["dev"]):
            continue
        entries.append({"dst": str(e.address), "dev": e.interface, "lladdr": e.mac, "state": ["REACHABLE"]})
    if "j" in (m["opts"] or ""):
        return _json(entries, m["opts"])
    return "\n".join(f"{e['dst']} dev {e['dev']} lladdr {e['lladdr']} REACHABLE" for e in entries), None


@show(r"arp -a(?:n)?")
def arp(view: View, m: re.Match[str]) -> Shown:
    """net-tools `arp -a`: the same entries, in its layout."""
    rows = [f"? ({e.address}) at {e.mac} [ether] on {e.interface}" for e in view.routing.arp(view.name)]
    return "\n".join(rows), None


# --- FRR: vtysh -----------------------------------------------------------------------------------------


def _bgp_peers(view: View, family: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for ip, s in sorted(view.state.sessions.get(view.name, {}).items()):
        if family not in s.families:
            continue
        up = s.state == "Established"
        owner = view.state._owner(ip)
        received, sent = _prefixes(view, ip, family) if up else (0, 0)
        msgs = int(view.uptime // 3) + 3 if up else 0
        out[str(ip)] = {
            "hostname": view.state.facts[owner[0]].hostname if owner and up else "",
            "remoteAs": s.remote_as,
            "localAs": view.facts.asn,
            "version": 4,
            "msgRcvd": msgs,
            "msgSent": msgs,
            "tableVersion": 0,
            "outq": 0,
            "inq": 0,
            "peerUptime": _frr_uptime(view.uptime) if up else "never",
            "peerUptimeMsec": int(view.uptime * 1000) if up else 0,
            "pfxRcd": received,
            "pfxSnt": sent,
            "state": s.state,
            "peerState": "OK" if up else "Idle",
            "connectionsEstablished": 1 if up else 0,
            "connectionsDropped": 0,
            "desc": s.description,
            "idType": "ipv4",
        }
    return out


def _frr_uptime(seconds: float) -> str:
    """FRR's peer uptime: `01:02:03` within a day, `1d00h24m` within a week, then `2w3d04h`."""
    total = int(seconds)
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days == 0:
        return f"{hours:02d}:{minutes:02d}:{secs:02d}"
    if days < 7:
        return f"{days}d{hours:02d}h{minutes:02d}m"
    return f"{days // 7:02d}w{days % 7}d{hours:02d}h"


def _prefixes(view: View, peer: IPv4Address, family: str) -> tuple[int, int]:
    """(received, sent) prefixes of an Established session: IPv4 routes with a path through
    the peer and the switch's own networks; EVPN routes the peer holds and this switch imports,
    and the switch's own EVPN routes."""
    if family == "ipv4":
        routes = view.routing.routes(view.name).get("default", {}).values()
        return sum(1 for r in routes if any(h.address == peer for h in r.hops)), len(view.facts.networks)
    owner = view.state._owner(peer)
    return view.routing.evpn_exchanged(view.name, owner[0]) if owner else (0, 0)


def bgp_summary(view: View) -> dict[str, Any]:
    """FRR's `show bgp summary json`: per address family its peers."""
    out: dict[str, Any] = {}
    for family, key in (("ipv4", "ipv4Unicast"), ("evpn", "l2VpnEvpn")):
        peers = _bgp_peers(view, family)
        if not peers:
            continue
        out[key] = {
            "routerId": str(view.facts.router_id or "0.0.0.0"),
            "as": view.facts.asn,
            "vrfId": 0,
            "vrfName": "default",
            "tableVersion": len(view.routing.routes(view.name).get("default", {})),
            "ribCount": len(view.routing.routes(view.name).get("default", {})),
            "ribMemory": 184 * len(view.routing.routes(view.name).get("default", {})),
            "peerCount": len(peers),
            "peerMemory": 23232 * len(peers),
            "peers": peers,
            "failedPeers": sum(1 for p in peers.values() if p["state"] != "Established"),
            "displayedPeers": len(peers),
            "totalPeers": len(peers),
            "dynamicPeers": 0,
            "bestPath": {"multiPathRelax": "true" if view.facts.multipath_relax else "false"},
        }
    return out


def _bgp_summary_text(data: dict[str, Any]) -> str:
    blocks = []
    names = {"ipv4Unicast": "IPv4 Unicast", "l2VpnEvpn": "L2VPN EVPN"}
    for key, af in data.items():
        rows = [
            f"{names[key]} Summary (VRF default):",
            f"BGP router identifier {af['routerId']}, local AS number {af['as']} vrf-id 0",
            f"BGP table version {af['tableVersion']}",
            f"RIB entries {af['ribCount']}, using {af['ribMemory']} bytes of memory",
            f"Peers {af['peerCount']}, using {af['peerMemory'] // 1024} KiB of memory",
            "",
            "Neighbor        V         AS   MsgRcvd   MsgSent   TblVer  InQ OutQ  Up/Down State/PfxRcd   PfxSnt Desc",
        ]
        for ip, p in af["peers"].items():
            state = p["pfxRcd"] if p["state"] == "Established" else p["state"]
            rows.append(
                f"{ip:<15} 4 {p['remoteAs']:>10} {p['msgRcvd']:>9} {p['msgSent']:>9} {0:>8} {0:>4} {0:>4} "
                f"{p['peerUptime']:>8} {state!s:>12} {p['pfxSnt']:>8} {p['desc']}"
            )
        rows += ["", f"Total number of neighbors {af['totalPeers']}"]
        blocks.append("\n".join(rows))
    return "\n\n".join(blocks)


def evpn_vnis(view: View) -> dict[str, Any]:
    """FRR's `show evpn vni json`: each VNI, its kind, MAC/ARP counts and remote VTEPs."""
    remote = view.state.remote_vteps(view.name)
    hosts = view.routing.hosts(view.name)
    remote_macs = view.routing.remote_macs(view.name)
    out: dict[str, Any] = {}
    for vni, owner in sorted(view.facts.vnis.items()):
        if owner[0] == "vrf":
            out[str(vni)] = {
                "vni": vni,
                "type": "L3",
                "vxlanIf": VXLAN_DEVICE,
                "numMacs": "",
                "numArpNd": "",
                "numRemoteVteps": "n/a",
                "tenantVrf": owner[1],
                "remoteVteps": "",
            }
            continue
        local = [h for h in hosts if h.segment == owner]
        far = [m for m in remote_macs if m[0] == owner]
        svi = view.facts.gateways.get(owner)
        out[str(vni)] = {
            "vni": vni,
            "type": "L2",
            "vxlanIf": VXLAN_DEVICE,
            "numMacs": len(local) + len(far),
            "numArpNd": sum(1 for h in local if h.address) + len(far),
            "numRemoteVteps": len(remote.get(vni, ())),
            "tenantVrf": view.facts.ports[svi].vrf if svi in view.facts.ports else "default",
            "remoteVteps": [str(v) for v in sorted(remote.get(vni, ()))],
        }
    return out


def _evpn_vni_text(data: dict[str, Any]) -> str:
    rows = ["VNI        Type VxLAN IF              # MACs   # ARPs   # Remote VTEPs  Tenant VRF"]
    rows += [
        f"{vni:<10} {d['type']:<4} {d['vxlanIf']:<21} {d['numMacs']!s:<8} {d['numArpNd']!s:<8} {d['numRemoteVteps']!s:<15} {d['tenantVrf']}"
        for vni, d in data.items()
    ]
    return "\n".join(rows)


def bfd_peers(view: View) -> list[dict[str, Any]]:
    """FRR bfdd's `show bfd peers json`: one session per BGP peer with BFD."""
    out = []
    for i, b in enumerate(view.routing.bfd(view.name), start=1):
        out.append(
            {
                "multihop": not b.interface,
                "peer": str(b.peer),
                "local": str(b.local),
                "vrf": "default",
                **({"interface": b.interface} if b.interface else {}),
                "id": i,
                "remote-id": i + 1000 if b.up else 0,
                "passive-mode": False,
                "status": "up" if b.up else "down",
                "uptime": int(view.uptime) if b.up else 0,
                "diagnostic": "ok",
                "remote-diagnostic": "ok",
                "receive-interval": 300,
                "transmit-interval": 300,
                "echo-receive-interval": 50,
                "echo-transmit-interval": 0,
                "detect-multiplier": 3,
                "remote-receive-interval": 300 if b.up else 1000,
                "remote-transmit-interval": 300 if b.up else 1000,
                "remote-echo-receive-interval": 50 if b.up else 0,
                "remote-detect-multiplier": 3,
            }
        )
    return out


def _vtysh(view: View, command: str) -> str:
    words = " ".join(command.split())
    as_json = words.endswith(" json")
    base = words.removesuffix(" json")
    if base in ("show bgp summary", "show ip bgp summary", "show bgp vrf default summary"):
        data = bgp_summary(view)
        return json.dumps(data, indent=2) if as_json else _bgp_summary_text(data)
    if base in ("show bgp ipv4 unicast summary", "show bgp l2vpn evpn summary"):
        key = "ipv4Unicast" if "ipv4" in base else "l2VpnEvpn"
        af = bgp_summary(view).get(key, {})
        return json.dumps(af, indent=2) if as_json else _bgp_summary_text({key: af} if af else {})
    if base == "show evpn vni":
        vnis = evpn_vnis(view)
        return json.dumps(vnis, indent=2) if as_json else _evpn_vni_text(vnis)
    if base == "show bfd peers" and as_json:
        return json.dumps(bfd_peers(view), indent=2)
    return f"% Unknown command: {command}"


@show(r"sudo vtysh -c (?P<cmd>.+)")
@show(r"vtysh -c (?P<cmd>.+)")
def vtysh(view: View, m: re.Match[str]) -> Shown:
    """`vtysh -c '<command>'`: FRR's answer for BGP summaries, EVPN VNIs and BFD peers."""
    try:
        words = shlex.split(m["cmd"])
    except ValueError:
        raise _error("vtysh: unterminated quote") from None
    return _vtysh(view, words[0] if words else ""), None
