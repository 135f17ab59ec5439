"""ANTA, Arista's test framework, against the EOS lab: the catalogue an engineer running this
EVPN/RoCE fabric writes, and a run of it over the lab's eAPI.

Every input comes from fabricctl's compiled intent and topology (which neighbor on which port,
which peers and peer groups, VNIs, VTEPs, MTUs, ACL entries, the virtual router MAC) or from the
management plane the switches are delivered with (`MANAGEMENT`: NTP, syslog, SNMP), never from
the lab, so a test that fails names a difference between the fabric as planned and the fabric
as the switches report it. `FINDINGS` lists the tests that fail on a healthy fabric and why: each
is a fact about the fabric's configuration, not a gap of the lab.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
from collections import Counter
from ipaddress import IPv4Address, IPv4Interface
from pathlib import Path
from typing import Any

from anta.catalog import AntaCatalog
from anta.device import AsyncEOSDevice
from anta.inventory import AntaInventory
from anta.result_manager import ResultManager
from anta.runner import main as anta_main

from fabricctl.compile.build import Compiled
from fabricctl.compile.intent import DeviceIntent
from fabricctl.lab import LabFabric
from fabricctl.lab.runtime import lab_credentials

#: Transceiver makers the fleet buys from (a port without an optic is not a finding).
MANUFACTURERS = ["Arista Networks"]
#: The EOS release the fleet runs.
EOS_RELEASES = ["4.31.2F"]
#: What the switches are delivered with (their management plane, outside fabricctl's intent).
MANAGEMENT = {"ntp": "192.0.2.250", "syslog": "192.0.2.251", "snmp_location": "lab"}
#: BGP's timers as EOS runs them by default; BFD's as fabricctl sets them (multihop) and EOS
#: runs them by default (single hop).
BGP_HOLD, BGP_KEEPALIVE = 180, 60
BFD_INTERVAL_MS, BFD_MULTIPLIER = 300, 3

#: Tests that fail on the healthy lab fabric, each a true finding (the configuration lacks what
#: the test asks for), with why. Nothing here is a gap of the lab.
FINDINGS = {
    "VerifyLoggingPersistent": "the switches keep their logs in RAM only (no `logging persistent`): "
    "a reload loses the log of what led to it",
    "VerifyLoggingTimestamp": "the switches log with EOS's traditional timestamp (no year, no time "
    "zone, whole seconds; no `logging format timestamp high-resolution`): logs of two switches "
    "cannot be ordered to the millisecond",
    "VerifyPtpModeStatus": "fabricctl configures no PTP (RoCE does not need it; a fabric that "
    "timestamps collective operations would run PTP boundary clocks)",
}


def _only(name: str) -> dict[str, Any]:
    return {"filters": {"tags": [name]}}


def _peer_group(kind: str) -> str:
    return {"underlay": "UNDERLAY", "overlay": "EVPN-OVERLAY"}[kind]


def _bgp_peers(i: DeviceIntent, **extra: Any) -> list[dict[str, Any]]:
    return [{"peer_address": n.ip, "vrf": "default", **extra} for n in i.bgp.neighbors]


def _bgp(i: DeviceIntent, c: Compiled) -> list[dict[str, Any]]:
    underlay = [n for n in i.bgp.neighbors if n.kind == "underlay"]
    overlay = [n for n in i.bgp.neighbors if n.kind == "overlay"]
    caps = {"underlay": ["ipv4Unicast"], "overlay": ["l2VpnEvpn"]}
    families: list[dict[str, Any]] = [
        {"afi": "ipv4", "safi": "unicast", "num_peers": len(underlay), "check_peer_state": True}
    ]
    if overlay:
        families.append({"afi": "evpn", "num_peers": len(overlay), "check_peer_state": True})
    own = [str(IPv4Interface(net).network) for net in i.bgp.networks]
    tests: list[dict[str, Any]] = [
        {"VerifyBGPPeerCount": {"address_families": families}},
        {
            "VerifyBGPSpecificPeers": {
                "address_families": [
                    {"afi": "ipv4", "safi": "unicast", "peers": [n.ip for n in underlay]},
                    *([{"afi": "evpn", "peers": [n.ip for n in overlay]}] if overlay else []),
                ]
            }
        },
        {"VerifyBGPPeerSession": {"bgp_peers": _bgp_peers(i), "minimum_established_time": 60}},
        {
            "VerifyBGPPeerMPCaps": {
                "bgp_peers": [
                    {"peer_address": n.ip, "capabilities": caps[n.kind], "strict": True}
                    for n in i.bgp.neighbors
                ]
            }
        },
        {"VerifyBGPPeerASNCap": {"bgp_peers": _bgp_peers(i)}},
        {"VerifyBGPPeerRouteRefreshCap": {"bgp_peers": _bgp_peers(i)}},
        {
            "VerifyBGPPeerGroup": {
                "bgp_peers": [
                    {"peer_address": n.ip, "peer_group": _peer_group(n.kind)} for n in i.bgp.neighbors
                ]
            }
        },
        {
            "VerifyBGPPeerRouteLimit": {
                "bgp_peers": [
                    {"peer_address": n.ip, "maximum_routes": 256000 if n.kind == "underlay" else 0}
                    for n in i.bgp.neighbors
                ]
            }
        },
        {"VerifyBGPTimers": {"bgp_peers": _bgp_peers(i, hold_time=BGP_HOLD, keep_alive_time=BGP_KEEPALIVE)}},
        {"VerifyBGPPeerDropStats": {"bgp_peers": _bgp_peers(i)}},
        {"VerifyBGPPeerUpdateErrors": {"bgp_peers": _bgp_peers(i)}},
        {
            "VerifyBGPPeerTtlMultiHops": {
                "bgp_peers": [
                    {
                        "peer_address": n.ip,
                        "ttl": 1 if n.kind == "underlay" else 3,
                        "max_ttl_hops": 1 if n.kind == "underlay" else 3,
                    }
                    for n in i.bgp.neighbors
                ]
            }
        },
        {
            "VerifyBGPNlriAcceptance": {
                "bgp_peers": [{"peer_address": n.ip, "capabilities": caps[n.kind]} for n in i.bgp.neighbors]
            }
        },
        {
            "VerifyBGPExchangedRoutes": {
                "bgp_peers": [{"peer_address": n.ip, "advertised_routes": own} for n in underlay]
            }
        },
        {
            "VerifyBGPPeersHealth": {
                "address_families": [
                    {"afi": f["afi"], **({"safi": f["safi"]} if "safi" in f else {})} for f in families
                ]
            }
        },
    ]
    if overlay:
        tests.append(
            {
                "VerifyBGPAdvCommunities": {
                    "bgp_peers": [
                        {"peer_address": n.ip, "advertised_communities": ["standard", "extended"]}
                        for n in overlay
                    ]
                }
            }
        )
    if i.role == "leaf":
        others = [o for o in c.intents.values() if o.role == "leaf" and o.name != i.name]
        routes = [{"prefix": net, "ecmp_count": len(underlay)} for o in others for net in o.bgp.networks]
        tests.append({"VerifyBGPRouteECMP": {"route_entries": routes}})
        tests.append(
            {
                "VerifyBGPRoutePaths": {
                    "route_entries": [
                        {
                            "prefix": r["prefix"],
                            "paths": [{"nexthop": n.ip, "origin": "Igp"} for n in underlay],
                        }
                        for r in routes
                    ]
                }
            }
        )
        if i.vrfs:
            tests.append(
                {
                    "VerifyBGPRedistribution": {
                        "vrfs": [
                            {
                                "vrf": v.name,
                                "address_families": [
                                    {"afi_safi": "v4u", "redistributed_routes": [{"proto": "Connected"}]}
                                ],
                            }
                            for v in i.vrfs
                        ]
                    }
                }
            )
    return [{name: {**args, **_only(i.name)}} for t in tests for name, args in t.items()]


def _evpn(i: DeviceIntent, c: Compiled) -> list[dict[str, Any]]:
    """Type-2 routes of the NICs that sit in this leaf's VLANs on other leaves, type-5 routes of
    every tenant subnet this leaf's VRFs import."""
    tests: list[dict[str, Any]] = []
    prefixes = []
    for v in i.vrfs:
        for o in c.intents.values():
            for x in o.interfaces:
                if x.role == "gpu" and x.enabled and x.vrf == v.name and x.ipv4 and o.name != i.name:
                    prefixes.append({"address": str(IPv4Interface(x.ipv4).network), "vni": v.l3vni})
    if prefixes:
        tests.append({"VerifyEVPNType5Routes": {"prefixes": prefixes[:8], **_only(i.name)}})
    return tests


def _bfd(i: DeviceIntent) -> list[dict[str, Any]]:
    """BFD on every peer that registers it: single hop ones on the /31's port, multihop ones
    (the overlay, between loopbacks) without one."""
    ports = {IPv4Interface(x.ipv4).network: x.name for x in i.interfaces if x.ipv4}
    peers = []
    for n in i.bgp.neighbors:
        if n.bfd or (n.kind == "overlay" and i.bgp.overlay_bfd):
            port = next((p for net, p in ports.items() if IPv4Address(n.ip) in net), None)
            peers.append({"peer_address": n.ip, **({"interface": port} if port else {})})
    if not peers:
        return []
    timers = {"tx_interval": BFD_INTERVAL_MS, "rx_interval": BFD_INTERVAL_MS, "multiplier": BFD_MULTIPLIER}
    return [
        {"VerifyBFDSpecificPeers": {"bfd_peers": peers, **_only(i.name)}},
        {"VerifyBFDPeersIntervals": {"bfd_peers": [{**p, **timers} for p in peers], **_only(i.name)}},
        {
            "VerifyBFDPeersRegProtocols": {
                "bfd_peers": [{**p, "protocols": ["bgp"]} for p in peers],
                **_only(i.name),
            }
        },
    ]


def _learned_from(i: DeviceIntent, c: Compiled) -> list[DeviceIntent]:
    """The switches whose loopbacks this one learns over eBGP: every switch of the other tier,
    and on a leaf the other leaves too (a spine drops the other spines' routes: its own AS is
    in their path)."""
    return [o for o in c.intents.values() if o.name != i.name and (o.role != i.role or i.role == "leaf")]


def _switch_tests(i: DeviceIntent, c: Compiled) -> dict[str, list[dict[str, Any]]]:
    """module -> tests of one switch, pinned to it by its name tag."""
    peers = {x.name: x.peer.split() for x in i.interfaces if x.role in ("uplink", "downlink") and x.peer}
    tenant_ports = [x.name for x in i.interfaces if x.role == "gpu" and x.tenant and x.enabled]
    mtus = [{x.name: x.mtu} for x in i.interfaces if x.routed and x.mtu]
    fabric_links = [x for x in i.interfaces if x.role in ("uplink", "downlink") and x.ipv4]
    tag = _only(i.name)
    out: dict[str, list[dict[str, Any]]] = {
        "anta.tests.services": [{"VerifyHostname": {"hostname": i.name, **tag}}],
        "anta.tests.connectivity": [
            {
                "VerifyLLDPNeighbors": {
                    "neighbors": [
                        {"port": port, "neighbor_device": far[0], "neighbor_port": far[1]}
                        for port, far in peers.items()
                    ],
                    **tag,
                }
            },
            {
                "VerifyReachability": {
                    "hosts": [
                        {
                            "source": str(IPv4Interface(x.ipv4).ip),
                            "destination": n.ip,
                            "vrf": "default",
                            "size": i.qos.mtu,
                            "df_bit": True,
                            "repeat": 2,
                        }
                        for x in fabric_links
                        for n in i.bgp.neighbors
                        if n.kind == "underlay" and IPv4Address(n.ip) in IPv4Interface(x.ipv4).network
                    ]
                    + [
                        {
                            "source": "Loopback0",
                            "destination": o.loopbacks[0].ipv4.split("/")[0],
                            "vrf": "default",
                            "repeat": 2,
                        }
                        for o in c.intents.values()
                        if o.name != i.name and o.role == "leaf" and i.role == "leaf"
                    ],
                    **tag,
                }
            },
        ],
        "anta.tests.interfaces": [
            {
                "VerifyInterfacesStatus": {
                    "interfaces": [{"name": p, "status": "up"} for p in [*peers, *tenant_ports]],
                    **tag,
                }
            },
            {"VerifyLoopbackCount": {"number": len(i.loopbacks), **tag}},
            {
                "VerifyL3MTU": {
                    "mtu": 1500,
                    "specific_mtu": mtus,
                    "ignored_interfaces": ["Loopback", "Management", "Vxlan", "Vlan"],
                    **tag,
                }
            },
            {"VerifyInterfacesSpeed": {"interfaces": [{"name": p, "speed": 400} for p in peers], **tag}},
            {
                "VerifyInterfaceIPv4": {
                    "interfaces": [
                        {"name": x.name, "primary_ip": x.ipv4}
                        for x in i.interfaces
                        if x.ipv4 and x.enabled and x.role in ("uplink", "downlink", "gpu")
                    ],
                    **tag,
                }
            },
        ],
        "anta.tests.routing.bgp": _bgp(i, c),
        "anta.tests.bfd": _bfd(i),
        "anta.tests.routing.generic": [
            {
                "VerifyRoutingTableEntry": {
                    "routes": [o.loopbacks[0].ipv4.split("/")[0] for o in _learned_from(i, c)],
                    "collect": "all",
                    **tag,
                }
            },
            {
                "VerifyIPv4RouteType": {
                    "routes_entries": [
                        {"prefix": lo.ipv4, "vrf": "default", "route_type": "connected"} for lo in i.loopbacks
                    ]
                    + [
                        {"prefix": net, "vrf": "default", "route_type": "eBGP"}
                        for o in _learned_from(i, c)
                        for net in o.bgp.networks
                    ],
                    **tag,
                }
            },
        ],
        "anta.tests.security": [],
    }
    if i.acls:
        out["anta.tests.security"].append(
            {
                "VerifyIPv4ACL": {
                    "ipv4_access_lists": [
                        {
                            "name": acl.name,
                            "entries": [{"sequence": 1, "action": f"remark {acl.description}"}]
                            + [
                                {
                                    "sequence": e.seq,
                                    "action": f"{e.action} ip {e.source or 'any'} {e.destination or 'any'}",
                                }
                                for e in acl.entries
                            ],
                        }
                        for acl in i.acls
                    ],
                    **tag,
                }
            }
        )
    if i.role != "leaf":
        return out
    uplink_peers = sorted({n.ip for n in i.bgp.neighbors if n.kind == "underlay"})
    other_leaves = [o for o in c.intents.values() if o.role == "leaf" and o.name != i.name]
    assert i.vtep is not None
    bindings: dict[str, Any] = {str(v.l2vni): v.id for v in i.vlans}
    bindings |= {str(v.l3vni): v.name for v in i.vrfs}
    out["anta.tests.vxlan"] = [
        {"VerifyVxlanConfigSanity": tag},
        {"VerifyVxlan1Interface": tag},
        {"VerifyVxlanVniBinding": {"bindings": bindings, **tag}},
        {
            "VerifyVxlanVtep": {
                "vteps": [o.vtep.source_ip.split("/")[0] for o in other_leaves if o.vtep],
                **tag,
            }
        },
        {
            "VerifyVxlan1ConnSettings": {
                "source_interface": f"Loopback{i.vtep.source_interface}",
                "udp_port": i.vtep.udp_port,
                **tag,
            }
        },
    ]
    out["anta.tests.evpn"] = _evpn(i, c)
    out["anta.tests.routing.generic"].append(
        {
            "VerifyIPv4RouteNextHops": {
                "route_entries": [
                    {"prefix": net, "vrf": "default", "strict": True, "nexthops": uplink_peers}
                    for o in other_leaves
                    for net in o.bgp.networks
                ],
                **tag,
            }
        }
    )
    if i.anycast_gateway_mac:
        out["anta.tests.interfaces"].append(
            {"VerifyIpVirtualRouterMac": {"mac_address": i.anycast_gateway_mac, **tag}}
        )
    if i.vlans:
        vids = [v.id for v in i.vlans]
        out["anta.tests.interfaces"].append({"VerifySVI": tag})
        out["anta.tests.vlan"] = [
            {"VerifyVlanStatus": {"vlans": [{"vlan_id": v, "status": "active"} for v in vids], **tag}},
            {"VerifyDynamicVlanSource": {"sources": ["evpn"], **tag}},
        ]
        out["anta.tests.stp"] = [
            {"VerifySTPMode": {"mode": "mstp", "vlans": vids, **tag}},
            {"VerifySTPForwardingPorts": {"vlans": vids, **tag}},
        ]
        macs = [
            {"address": nic_mac, "vni": v.l2vni} for v in i.vlans for nic_mac in _remote_nic_macs(c, i, v.id)
        ]
        if macs:
            out["anta.tests.routing.bgp"].append(
                {"VerifyEVPNType2Route": {"vxlan_endpoints": macs[:4], **tag}}
            )
    return out


def _remote_nic_macs(c: Compiled, i: DeviceIntent, vlan: int) -> list[str]:
    """The MACs of the GPU NICs in `vlan` on other leaves, as the lab's servers carry them (the
    one input the lab makes up: a NIC's MAC, stable per server and NIC)."""
    from fabricctl.lab.routing import nic_mac

    out = []
    for o in c.intents.values():
        if o.name == i.name:
            continue
        for x in o.interfaces:
            if x.access_vlan == vlan and x.enabled and x.peer:
                server, nic = x.peer.split()
                out.append(nic_mac(server, nic))
    return out


#: Tests every switch runs with the same inputs: counters, health, hardware, management plane.
COMMON: dict[str, list[dict[str, Any]]] = {
    "anta.tests.interfaces": [
        {"VerifyInterfaceErrors": None},
        {"VerifyInterfaceDiscards": None},
        {"VerifyInterfaceErrDisabled": None},
        {"VerifyInterfaceUtilization": {"threshold": 70.0}},
        {"VerifyInterfacesPFCCounters": {"counters_threshold": 0}},
        {"VerifyInterfacesECNCounters": {"counters_threshold": 0}},
        {"VerifyInterfacesEgressQueueDrops": {"traffic_classes": ["TC3"], "queue_types": ["unicast"]}},
        {"VerifyInterfacesOpticsReceivePower": {"ignore_shutdown_interfaces": True}},
        {"VerifyInterfacesOpticsTemperature": None},
        {"VerifyInterfacesCounterDetails": None},
        {"VerifyInterfacesBER": None},
        {"VerifyL2MTU": {"mtu": 9214}},
    ],
    "anta.tests.routing.bgp": [],
    "anta.tests.bfd": [{"VerifyBFDPeersHealth": {"down_threshold": 2}}],
    "anta.tests.routing.generic": [
        {"VerifyRoutingProtocolModel": {"model": "multi-agent"}},
        {"VerifyRoutingTableSize": {"minimum": 2, "maximum": 20000}},
    ],
    "anta.tests.system": [
        {"VerifyUptime": {"minimum": 60}},
        {"VerifyReloadCause": None},
        {"VerifyCPUUtilization": None},
        {"VerifyMemoryUtilization": None},
        {"VerifyFileSystemUtilization": None},
        {"VerifyNTP": None},
        {
            "VerifyNTPAssociations": {
                "ntp_servers": [{"server_address": MANAGEMENT["ntp"], "preferred": True, "stratum": 2}]
            }
        },
        {"VerifyCoredump": None},
        {"VerifyAgentLogs": None},
        {"VerifyMaintenance": None},
    ],
    "anta.tests.hardware": [
        {"VerifyTemperature": {"check_temp_sensors": True}},
        {"VerifyTransceiversTemperature": None},
        {"VerifyEnvironmentSystemCooling": None},
        {"VerifyEnvironmentCooling": {"states": ["ok"]}},
        {"VerifyEnvironmentPower": {"states": ["ok"]}},
        {"VerifyTransceiversManufacturers": {"manufacturers": MANUFACTURERS, "allow_not_present": True}},
        {"VerifyInventory": {"requirements": {"power_supplies": "all", "fan_trays": "all"}}},
        {
            "VerifyPCIeErrors": {
                "thresholds": {"correctable_errors": 0, "non_fatal_errors": 0, "fatal_errors": 0}
            }
        },
        {"VerifyHardwareCapacityUtilization": {"capacity_utilization_threshold": 90}},
    ],
    "anta.tests.logging": [
        {"VerifyLoggingHosts": {"hosts": [MANAGEMENT["syslog"]], "vrf": "default"}},
        {"VerifySyslogLogging": None},
        {"VerifyLoggingLogsGeneration": None},
        {"VerifyLoggingHostname": None},
        {"VerifyLoggingTimestamp": None},
        {"VerifyLoggingErrors": None},
        {"VerifyLoggingPersistent": None},
    ],
    "anta.tests.snmp": [
        {"VerifySnmpStatus": {"vrf": "default"}},
        {"VerifySnmpLocation": {"location": MANAGEMENT["snmp_location"]}},
        {"VerifySnmpErrorCounters": None},
    ],
    "anta.tests.security": [
        {"VerifyTelnetStatus": None},
        {"VerifyAPIHttpStatus": None},
    ],
    "anta.tests.software": [
        {"VerifyEOSVersion": {"versions": EOS_RELEASES}},
        {"VerifyEOSExtensions": None},
    ],
    "anta.tests.stp": [
        {"VerifySTPBlockedPorts": None},
        {"VerifySTPCounters": None},
        {"VerifySTPRootPriority": {"priority": 32768, "instances": [0]}},
        {"VerifyStpTopologyChanges": {"threshold": 10}},
    ],
    "anta.tests.vlan": [
        {"VerifyVlanInternalPolicy": {"policy": "ascending", "start_vlan_id": 1006, "end_vlan_id": 4094}}
    ],
    "anta.tests.configuration": [
        {"VerifyZeroTouch": None},
        {"VerifyRunningConfigDiffs": None},
        {
            "VerifyRunningConfigLines": {
                "regex_patterns": ["^service routing protocols model multi-agent$", "^router bgp \\d+$"]
            }
        },
    ],
    "anta.tests.ptp": [{"VerifyPtpModeStatus": None}],
}


def catalogue(compiled: Compiled) -> dict[str, list[dict[str, Any]]]:
    """One catalogue for the fabric (ANTA's catalogue layout: module -> tests): every switch's
    tests pinned to it by its name tag, and the tests every switch runs."""
    merged: dict[str, list[dict[str, Any]]] = {k: list(v) for k, v in COMMON.items()}
    for i in compiled.intents.values():
        for module, tests in _switch_tests(i, compiled).items():
            merged.setdefault(module, []).extend(tests)
    return {k: v for k, v in merged.items() if v}


#: Tests ANTA runs at once (its default is 50,000): a run the size of a small fabric's, whose
#: requests reach a switch as they would from a host running ANTA, not queued behind its HTTP
#: client's connection pool.
CONCURRENCY = 24

#: One test's result: (switch, test, status, messages).
Result = tuple[str, str, str, list[str]]


def run(lab: LabFabric, catalog: dict[str, list[dict[str, Any]]]) -> list[Result]:
    """Run the catalogue against every lab switch over its eAPI, from a process of its own as
    ANTA runs against switches (its client then never waits on the lab's interpreter lock)."""
    user, password = lab_credentials()
    job = {
        "catalog": catalog,
        "devices": [
            {"name": name, "host": ep.host, "port": ep.eapi_port} for name, ep in lab.endpoints().items()
        ],
        "username": user,
        "password": password,
    }
    done = subprocess.run(
        [sys.executable, "-m", "tests.deploy.anta_run"],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
        env={**os.environ, "ANTA_MAX_CONCURRENCY": str(CONCURRENCY)},
    )
    return [tuple(r) for r in json.loads(done.stdout.splitlines()[-1])]


def _run_here(job: dict[str, Any]) -> list[Result]:
    inventory = AntaInventory()
    for d in job["devices"]:
        inventory.add_device(
            AsyncEOSDevice(
                host=d["host"],
                port=d["port"],
                username=job["username"],
                password=job["password"],
                name=d["name"],
                tags={d["name"]},
                timeout=60,
                disable_cache=True,
            )
        )
    manager = ResultManager()
    catalog = AntaCatalog.from_dict(job["catalog"])
    asyncio.run(anta_main(manager, inventory, catalog, disconnect=True))
    return [
        (r.name, r.test, str(r.result.value if hasattr(r.result, "value") else r.result), list(r.messages))
        for r in manager.results
    ]


def outcome(results: list[Result]) -> tuple[Counter[str], dict[tuple[str, str], list[str]]]:
    """(status -> count, (switch, test) -> messages of every test that did not succeed)."""
    statuses: Counter[str] = Counter()
    failed: dict[tuple[str, str], list[str]] = {}
    for name, test, status, messages in results:
        statuses[status] += 1
        if status != "success":
            failed[(name, test)] = [*messages, status]
    return statuses, failed


if __name__ == "__main__":  # the ANTA process `run` starts: a job on stdin, the results on stdout
    logging.disable(logging.WARNING)
    print(json.dumps(_run_here(json.load(sys.stdin))))
