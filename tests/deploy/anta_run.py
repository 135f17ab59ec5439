"""ANTA, Arista's test framework, against the EOS lab: a catalogue written from the compiled
fabric (what each switch must show) and a run of it over the lab's eAPI.

Every input comes from fabricctl's compiled intent and topology (which neighbor on which port,
which peers, VNIs, VTEPs, MTUs, the virtual router MAC), never from the lab, so a test that
fails names a difference between the fabric as planned and the fabric as the switches report it.
"""

from __future__ import annotations

import asyncio
from collections import Counter
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


def _only(name: str) -> dict[str, Any]:
    return {"filters": {"tags": [name]}}


def _switch_tests(i: DeviceIntent, c: Compiled) -> list[dict[str, Any]]:
    peers = {x.name: x.peer.split() for x in i.interfaces if x.role in ("uplink", "downlink") and x.peer}
    underlay = [n.ip for n in i.bgp.neighbors if n.kind == "underlay"]
    overlay = [n.ip for n in i.bgp.neighbors if n.kind == "overlay"]
    tenant_ports = [x.name for x in i.interfaces if x.role == "gpu" and x.tenant and x.enabled]
    mtus = [{x.name: x.mtu} for x in i.interfaces if x.routed and x.mtu]
    tests: list[dict[str, Any]] = [
        {"anta.tests.services": [{"VerifyHostname": {"hostname": i.name, **_only(i.name)}}]},
        {
            "anta.tests.connectivity": [
                {
                    "VerifyLLDPNeighbors": {
                        "neighbors": [
                            {"port": port, "neighbor_device": far[0], "neighbor_port": far[1]}
                            for port, far in peers.items()
                        ],
                        **_only(i.name),
                    }
                }
            ]
        },
        {
            "anta.tests.interfaces": [
                {
                    "VerifyInterfacesStatus": {
                        "interfaces": [{"name": p, "status": "up"} for p in [*peers, *tenant_ports]],
                        **_only(i.name),
                    }
                },
                {"VerifyLoopbackCount": {"number": len(i.loopbacks), **_only(i.name)}},
                {
                    "VerifyL3MTU": {
                        "mtu": 1500,
                        "specific_mtu": mtus,
                        "ignored_interfaces": ["Loopback", "Management", "Vxlan", "Vlan"],
                        **_only(i.name),
                    }
                },
                {
                    "VerifyInterfacesSpeed": {
                        "interfaces": [{"name": p, "speed": 400} for p in peers],
                        **_only(i.name),
                    }
                },
            ]
        },
        {
            "anta.tests.routing.bgp": [
                {
                    "VerifyBGPPeerCount": {
                        "address_families": [
                            {
                                "afi": "ipv4",
                                "safi": "unicast",
                                "num_peers": len(underlay),
                                "check_peer_state": True,
                            },
                            {"afi": "evpn", "num_peers": len(overlay), "check_peer_state": True},
                        ],
                        **_only(i.name),
                    }
                },
                {
                    "VerifyBGPSpecificPeers": {
                        "address_families": [
                            {"afi": "ipv4", "safi": "unicast", "peers": underlay},
                            {"afi": "evpn", "peers": overlay},
                        ],
                        **_only(i.name),
                    }
                },
            ]
        },
    ]
    if i.role != "leaf":
        return tests
    uplink_peers = sorted({n.ip for n in i.bgp.neighbors if n.kind == "underlay"})
    other_leaves = [o for o in c.intents.values() if o.role == "leaf" and o.name != i.name]
    assert i.vtep is not None
    bindings: dict[str, Any] = {str(v.l2vni): v.id for v in i.vlans}
    bindings |= {str(v.l3vni): v.name for v in i.vrfs}
    tests += [
        {
            "anta.tests.vxlan": [
                {"VerifyVxlanConfigSanity": _only(i.name)},
                {"VerifyVxlan1Interface": _only(i.name)},
                {"VerifyVxlanVniBinding": {"bindings": bindings, **_only(i.name)}},
                {
                    "VerifyVxlanVtep": {
                        "vteps": [o.vtep.source_ip.split("/")[0] for o in other_leaves if o.vtep],
                        **_only(i.name),
                    }
                },
                {
                    "VerifyVxlan1ConnSettings": {
                        "source_interface": f"Loopback{i.vtep.source_interface}",
                        "udp_port": i.vtep.udp_port,
                        **_only(i.name),
                    }
                },
            ]
        },
        {
            "anta.tests.routing.generic": [
                {
                    "VerifyIPv4RouteNextHops": {
                        "route_entries": [
                            {"prefix": net, "vrf": "default", "strict": True, "nexthops": uplink_peers}
                            for o in other_leaves
                            for net in o.bgp.networks
                        ],
                        **_only(i.name),
                    }
                }
            ]
        },
    ]
    if i.anycast_gateway_mac:
        tests.append(
            {
                "anta.tests.interfaces": [
                    {"VerifyIpVirtualRouterMac": {"mac_address": i.anycast_gateway_mac, **_only(i.name)}}
                ]
            }
        )
    return tests


#: Tests every switch runs with the same inputs: counters, health, hardware, routing model.
COMMON: list[dict[str, Any]] = [
    {
        "anta.tests.interfaces": [
            {"VerifyInterfaceErrors": None},
            {"VerifyInterfaceDiscards": None},
            {"VerifyInterfaceErrDisabled": None},
            {"VerifyInterfaceUtilization": {"threshold": 70.0}},
            {"VerifyInterfacesPFCCounters": {"counters_threshold": 0}},
            {"VerifyInterfacesECNCounters": {"counters_threshold": 0}},
        ]
    },
    {
        "anta.tests.routing.bgp": [
            {
                "VerifyBGPPeersHealth": {
                    "address_families": [{"afi": "ipv4", "safi": "unicast"}, {"afi": "evpn"}],
                }
            }
        ]
    },
    {"anta.tests.routing.generic": [{"VerifyRoutingProtocolModel": {"model": "multi-agent"}}]},
    {
        "anta.tests.system": [
            {"VerifyUptime": {"minimum": 60}},
            {"VerifyReloadCause": None},
            {"VerifyCPUUtilization": None},
            {"VerifyMemoryUtilization": None},
            {"VerifyNTP": None},
            {"VerifyCoredump": None},
        ]
    },
    {
        "anta.tests.hardware": [
            {"VerifyTemperature": {"check_temp_sensors": True}},
            {"VerifyTransceiversTemperature": None},
            {"VerifyEnvironmentSystemCooling": None},
            {"VerifyEnvironmentCooling": {"states": ["ok"]}},
            {"VerifyEnvironmentPower": {"states": ["ok"]}},
            {"VerifyTransceiversManufacturers": {"manufacturers": MANUFACTURERS, "allow_not_present": True}},
        ]
    },
]


def catalogue(compiled: Compiled) -> AntaCatalog:
    """One catalogue for the fabric: per-switch tests pinned to the switch by its name tag."""
    merged: dict[str, list[dict[str, Any]]] = {}
    for part in [*COMMON, *(t for i in compiled.intents.values() for t in _switch_tests(i, compiled))]:
        for module, tests in part.items():
            merged.setdefault(module, []).extend(tests)
    return AntaCatalog.from_dict(merged)


def run(lab: LabFabric, catalog: AntaCatalog) -> ResultManager:
    """Run the catalogue against every lab switch (its eAPI, as ANTA would reach a switch)."""
    user, password = lab_credentials()
    inventory = AntaInventory()
    for name, ep in lab.endpoints().items():
        inventory.add_device(
            AsyncEOSDevice(
                host=ep.host,
                port=ep.eapi_port,
                username=user,
                password=password,
                name=name,
                tags={name},
                timeout=60,
                disable_cache=True,
            )
        )
    manager = ResultManager()
    asyncio.run(anta_main(manager, inventory, catalog, disconnect=True))
    return manager


def outcome(manager: ResultManager) -> tuple[Counter[str], dict[tuple[str, str], list[str]]]:
    """(status -> count, (switch, test) -> messages of every test that did not succeed)."""
    statuses: Counter[str] = Counter()
    failed: dict[tuple[str, str], list[str]] = {}
    for result in manager.results:
        status = str(result.result.value if hasattr(result.result, "value") else result.result)
        statuses[status] += 1
        if status != "success":
            failed[(result.name, result.test)] = [*result.messages, status]
    return statuses, failed
