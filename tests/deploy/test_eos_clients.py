"""Third-party clients against the EOS lab after `fabricctl apply`: ANTA's catalogue, every
NAPALM eos getter and pyeapi, each call with the result the applied fabric implies.

One apply of eos-small serves the module. `CALLS` lists every client x call with what it must
return (derived from fabricctl's compiled intent, never from the lab), so a regression in the
lab or in a client's reading of it is a failing row.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from ipaddress import IPv4Interface
from typing import Any

import pyeapi
import pytest

from fabricctl import pipeline
from fabricctl.cli import main
from fabricctl.compile.build import Compiled
from fabricctl.compile.intent import DeviceIntent
from fabricctl.lab import LabFabric
from fabricctl.lab.nos import lab_nos
from fabricctl.lab.runtime import lab_credentials
from tests.conftest import EOS_SMALL
from tests.deploy import anta_run
from tests.lab.conftest import napalm_eos

from .conftest import LabRoot, _lab_root

SWITCH = "leaf1"


@dataclass
class Applied:
    lab: LabRoot
    compiled: Compiled
    napalm: Any
    eapi: Any

    @property
    def intent(self) -> DeviceIntent:
        return self.compiled.intents[SWITCH]


def apply(lab: LabRoot) -> int:
    """`fabricctl apply --lab --auto-approve` in this process (its output dropped)."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            return main(["apply", "--lab", "--auto-approve", "--root", str(lab.root)])
        except SystemExit as end:
            return int(end.code or 0)


def eapi_node(lab: LabFabric, name: str) -> Any:
    """pyeapi's node for a lab switch, over HTTPS as on a switch."""
    ep = lab.endpoints()[name]
    user, password = lab_credentials()
    return pyeapi.connect(
        transport="https", host=ep.host, port=ep.eapi_port, username=user, password=password, return_node=True
    )


@pytest.fixture(scope="module")
def applied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Applied]:
    with pytest.MonkeyPatch.context() as mp:
        for lab in _lab_root(EOS_SMALL, tmp_path_factory.mktemp("eos-clients"), mp):
            assert apply(lab) == 0
            lab.lab.advance(3600)  # an hour of lab time: up long enough for uptime checks
            eapi = eapi_node(lab.lab, SWITCH)
            driver = napalm_eos(lab.lab, SWITCH, timeout=60)
            try:
                yield Applied(lab, pipeline.compile(lab.root), driver, eapi)
            finally:
                driver.close()


# --- ANTA -------------------------------------------------------------------------------------------


def _unexpected(failed: dict[tuple[str, str], list[str]]) -> dict[tuple[str, str], list[str]]:
    """The failures that are not the catalogue's known findings (anta_run.FINDINGS)."""
    return {k: v for k, v in failed.items() if k[1] not in anta_run.FINDINGS}


def test_anta_catalogue_passes_on_the_applied_fabric(applied: Applied) -> None:
    """Every test of the wide catalogue runs on every switch it targets (none skipped, none in
    error) and passes, but for the findings the catalogue names, each on every switch: at least
    95% pass."""
    statuses, failed = anta_run.outcome(anta_run.run(applied.lab.lab, anta_run.catalogue(applied.compiled)))
    switches = set(applied.compiled.intents)
    assert set(failed) == {(s, t) for s in switches for t in anta_run.FINDINGS}, failed
    assert set(statuses) == {"success", "failure"}, statuses
    assert statuses["success"] >= 0.95 * sum(statuses.values()), statuses
    assert statuses["success"] >= 90 * len(switches), statuses


#: What a pulled cable fails on both ends: the port, its neighbor, its optic (dark), the BGP
#: session over it and everything read from it (capabilities, routes exchanged), its BFD session
#: and a ping across it.
LINK_TESTS = {
    "VerifyLLDPNeighbors",
    "VerifyInterfacesStatus",
    "VerifyInterfacesOpticsReceivePower",
    "VerifyReachability",
    "VerifyBGPPeerCount",
    "VerifyBGPSpecificPeers",
    "VerifyBGPPeersHealth",
    "VerifyBGPPeerSession",
    "VerifyBGPPeerMPCaps",
    "VerifyBGPPeerASNCap",
    "VerifyBGPPeerRouteRefreshCap",
    "VerifyBGPNlriAcceptance",
    "VerifyBGPExchangedRoutes",
    "VerifyBFDSpecificPeers",
    "VerifyBFDPeersHealth",
}
#: And on the leaf, the routes to the other leaves lose the path over it.
ECMP_TESTS = {"VerifyBGPRouteECMP", "VerifyBGPRoutePaths", "VerifyIPv4RouteNextHops"}


def test_anta_names_a_pulled_cable_and_a_pause_storm(applied: Applied) -> None:
    """A pulled cable between leaf1 and spine1 fails exactly the tests that look at that link on
    both ends (and leaf1's ECMP paths); a GPU NIC that storms pauses fails leaf1's PFC counter
    test and nothing else."""
    lab, catalog = applied.lab.lab, anta_run.catalogue(applied.compiled)
    lab.set_faults("spine1", links_down=["Ethernet1"])
    try:
        _, failed = anta_run.outcome(anta_run.run(lab, catalog))
    finally:
        lab.clear_faults()
    assert set(_unexpected(failed)) == {(s, t) for s in ("leaf1", "spine1") for t in LINK_TESTS} | {
        ("leaf1", t) for t in ECMP_TESTS
    }, _unexpected(failed)
    assert (
        "Port: Ethernet1 Neighbor: spine1 Neighbor Port: Ethernet1 - No LLDP neighbors"
        in failed[("leaf1", "VerifyLLDPNeighbors")]
    )
    assert (
        "Peer: 10.64.8.0 VRF: default Interface: Ethernet1 - Session not properly established - "
        "State: down Remote Discriminator: 0" in failed[("leaf1", "VerifyBFDSpecificPeers")]
    )

    lab.set_faults("leaf1", pfc_storm=["Ethernet9"])
    lab.advance(10)
    try:
        _, failed = anta_run.outcome(anta_run.run(lab, catalog))
    finally:
        lab.clear_faults()
    assert list(_unexpected(failed)) == [("leaf1", "VerifyInterfacesPFCCounters")], failed
    assert (
        "Interface: Ethernet9 - Counters above threshold"
        in failed[("leaf1", "VerifyInterfacesPFCCounters")][0]
    )


# --- every client x call ------------------------------------------------------------------------------

Check = Callable[[Any, Applied], None]


def _ports(a: Applied, *roles: str) -> list[str]:
    return [x.name for x in a.intent.interfaces if x.role in roles]


def _far(a: Applied) -> dict[str, tuple[str, str]]:
    return {x.name: tuple(x.peer.split()) for x in a.intent.interfaces if x.role == "uplink" and x.peer}  # type: ignore[misc]


def _nic_addresses(a: Applied) -> set[str]:
    """The GPU NICs of routed tenant ports: the other address of each port's /31."""
    out = set()
    for x in a.intent.interfaces:
        if x.role == "gpu" and x.enabled and x.ipv4:
            port = IPv4Interface(x.ipv4)
            out |= {str(h) for h in port.network if h != port.ip}
    return out


def facts(r: Any, a: Applied) -> None:
    assert (r["hostname"], r["vendor"], r["model"]) == (SWITCH, "Arista", f"DCS-{a.intent.model}")
    # (NAPALM takes uptime as its own wall clock minus the switch's boot time: the lab's clock
    # was moved on an hour, so only its sign is a fact here)
    assert r["serial_number"] == a.lab.lab.device(SWITCH).raw.serial() and r["uptime"] >= 0
    assert set(_ports(a, "uplink", "gpu", "unused")) | {"Loopback0", "Loopback1", "Vxlan1"} <= set(
        r["interface_list"]
    )


def interfaces(r: Any, a: Applied) -> None:
    assert all(r[p]["is_up"] and r[p]["speed"] == 400_000 for p in _ports(a, "uplink"))
    shut = [x.name for x in a.intent.interfaces if not x.enabled]
    assert shut and not any(r[p]["is_enabled"] for p in shut)
    assert len({r[p]["mac_address"] for p in _ports(a, "uplink")}) == 1  # the system MAC


def lldp(r: Any, a: Applied) -> None:
    assert r == {p: [{"hostname": far, "port": port}] for p, (far, port) in _far(a).items()}


def lldp_detail(r: Any, a: Applied) -> None:
    assert {p: n[0]["remote_system_name"] for p, n in r.items()} == {
        p: far for p, (far, _) in _far(a).items()
    }
    chassis = {n[0]["remote_system_name"]: n[0]["remote_chassis_id"] for n in r.values()}
    assert len(set(chassis.values())) == len(chassis) == 2  # one MAC per spine, distinct


def bgp(r: Any, a: Applied) -> None:
    peers = r["global"]["peers"]
    assert {ip: p["remote_as"] for ip, p in peers.items()} == {n.ip: n.asn for n in a.intent.bgp.neighbors}
    assert all(p["is_up"] and p["is_enabled"] for p in peers.values())
    assert {v.name for v in a.intent.vrfs} <= set(r)


def bgp_detail(r: Any, a: Applied) -> None:
    sessions = [s for by_as in r["default"].values() for s in by_as]
    assert len(sessions) == len(a.intent.bgp.neighbors) and all(s["up"] for s in sessions)


def bgp_config(r: Any, a: Applied) -> None:
    groups = {
        g: set(d["neighbors"]) for g, d in r.items() if d["neighbors"]
    }  # "_": neighbors outside a group
    kinds = {"UNDERLAY": "underlay", "EVPN-OVERLAY": "overlay"}
    assert groups == {g: {n.ip for n in a.intent.bgp.neighbors if n.kind == k} for g, k in kinds.items()}


def environment(r: Any, a: Applied) -> None:
    box = lab_nos(a.intent.platform).hardware_facts(a.intent.model)
    assert len(r["fans"]) == box.fan_trays and all(f["status"] for f in r["fans"].values())
    assert len(r["power"]) == box.psus and all(p["status"] for p in r["power"].values())
    assert r["temperature"] and not any(t["is_alert"] for t in r["temperature"].values())
    assert r["memory"]["available_ram"] > 0 and r["cpu"]


def arp(r: Any, a: Applied) -> None:
    """The GPU NICs (routed and bridged) and the spine end of every uplink /31."""
    seen = {e["ip"]: e["interface"] for e in r}
    uplinks = {n.ip for n in a.intent.bgp.neighbors if n.kind == "underlay"}
    assert _nic_addresses(a) | uplinks <= set(seen)
    nics = sum(1 for x in a.intent.interfaces if x.role == "gpu" and x.enabled and x.tenant)
    assert len(seen) == nics + len(uplinks)
    ports = {str(IPv4Interface(x.ipv4).network): x.name for x in a.intent.interfaces if x.ipv4}
    assert all(seen[ip] == ports[str(IPv4Interface(f"{ip}/31").network)] for ip in uplinks)


def interfaces_ip(r: Any, a: Applied) -> None:
    want = {x.name: x.ipv4.split("/")[0] for x in a.intent.interfaces if x.ipv4 and x.enabled}
    want |= {f"Loopback{lo.number}": lo.ipv4.split("/")[0] for lo in a.intent.loopbacks}
    assert {p: ip for p, ip in want.items() if ip in r.get(p, {}).get("ipv4", {})} == want


def macs(r: Any, a: Applied) -> None:
    vlans = {v.id for v in a.intent.vlans}
    local = {x.name for x in a.intent.interfaces if x.access_vlan in vlans and x.enabled}
    assert {e["interface"] for e in r} == local | {"Vxlan1"}  # remote NICs of the VLAN over the tunnel
    everywhere = sum(
        1
        for o in a.compiled.intents.values()
        for x in o.interfaces
        if x.access_vlan in vlans and x.enabled and x.tenant
    )
    assert len(r) == everywhere


def route_to(r: Any, a: Applied) -> None:
    hops = {p["next_hop"] for routes in r.values() for p in routes}
    assert hops == {n.ip for n in a.intent.bgp.neighbors if n.kind == "underlay"}  # ECMP over every uplink


def optics(r: Any, a: Applied) -> None:
    assert set(r) == set(_ports(a, "uplink", "gpu"))


def vlans(r: Any, a: Applied) -> None:
    assert set(r) == {"1", *(str(v.id) for v in a.intent.vlans)}
    for v in a.intent.vlans:
        ports = {x.name for x in a.intent.interfaces if x.access_vlan == v.id and x.enabled}
        assert r[str(v.id)]["name"] == v.name and ports <= set(r[str(v.id)]["interfaces"])


def config(r: Any, a: Applied) -> None:
    assert r["running"].strip() == a.lab.running(SWITCH).strip() and r["startup"].strip()


def network_instances(r: Any, a: Applied) -> None:
    assert {"default", *(v.name for v in a.intent.vrfs)} <= set(r)


def counters(r: Any, a: Applied) -> None:
    assert set(_ports(a, "uplink", "gpu", "unused")) <= set(r)


def show_version(r: Any, a: Applied) -> None:
    assert (
        r["modelName"] == f"DCS-{a.intent.model}"
        and r["serialNumber"] == a.lab.lab.device(SWITCH).raw.serial()
    )


def eapi_interfaces(r: Any, a: Applied) -> None:
    """Every port, its description and admin state (`no shutdown` of `show running-config all`)."""
    want = {x.name: x for x in a.intent.interfaces}
    assert set(want) <= set(r)
    assert all(
        r[n]["description"] == x.description and r[n]["shutdown"] is not x.enabled for n, x in want.items()
    )


def eapi_interface(name: str, kind: str) -> Check:
    def check(r: Any, a: Applied) -> None:
        assert r["name"] == name and r["type"] == kind and r["shutdown"] is False

    return check


def eapi_vxlan(r: Any, a: Applied) -> None:
    assert a.intent.vtep is not None
    assert (r["source_interface"], r["udp_port"]) == (
        f"Loopback{a.intent.vtep.source_interface}",
        a.intent.vtep.udp_port,
    )
    assert {v: d["vni"] for v, d in r["vlans"].items()} == {str(v.id): str(v.l2vni) for v in a.intent.vlans}


def eapi_ipinterfaces(r: Any, a: Applied) -> None:
    want = {x.name: (x.ipv4, x.mtu) for x in a.intent.interfaces if x.ipv4}
    assert {n: (d["address"], d["mtu"]) for n, d in r.items() if n in want} == want


def eapi_switchports(r: Any, a: Applied) -> None:
    """The bridged ports: the tenants' access ports in their VLAN, the unused ones in VLAN 1."""
    tenant = {x.name: str(x.access_vlan) for x in a.intent.interfaces if x.access_vlan}
    assert {n: d["access_vlan"] for n, d in r.items() if n in tenant} == tenant
    assert all(d["mode"] == "access" and d["trunk_allowed_vlans"] == "1-4094" for d in r.values())
    assert not set(r) & {x.name for x in a.intent.interfaces if x.routed}


def eapi_vlans(r: Any, a: Applied) -> None:
    """pyeapi reads the `vlan` blocks of `show running-config all`: the configured VLANs."""
    assert set(r) == {str(v.id) for v in a.intent.vlans}
    assert all(r[str(v.id)]["name"] == v.name and r[str(v.id)]["state"] == "active" for v in a.intent.vlans)


def eapi_vrfs(r: Any, a: Applied) -> None:
    """pyeapi takes a VRF name as `\\w+`: `tnt-team-llm` is read as `tnt`, which no block names
    (the same on a switch; pyeapi's `get` by full name works)."""
    assert r == {"tnt": None}


def eapi_vrf(r: Any, a: Applied) -> None:
    vrf = a.intent.vrfs[0]
    assert r == {
        "vrf_name": vrf.name,
        "rd": None,  # EOS 4.31 keeps the RD under `router bgp`
        "description": vrf.description,
        "ipv4_routing": True,
        "ipv6_routing": False,
    }


def eapi_bgp(r: Any, a: Applied) -> None:
    b = a.intent.bgp
    assert (r["bgp_as"], r["router_id"], r["maximum_paths"], r["shutdown"]) == (
        b.asn,
        b.router_id.split("/")[0],
        b.max_paths,
        False,
    )
    assert {f"{n['prefix']}/{n['masklen']}" for n in r["networks"]} == set(b.networks)


def eapi_bgp_neighbors(r: Any, a: Applied) -> None:
    """Peer groups and neighbors: only the overlay sends communities (EVPN needs its route targets)."""
    want = {n.ip: n for n in a.intent.bgp.neighbors}
    assert set(r) == set(want) | {"UNDERLAY", "EVPN-OVERLAY"}
    for ip, n in want.items():
        assert (r[ip]["remote_as"], r[ip]["send_community"]) == (str(n.asn), n.kind == "overlay")
    assert r["EVPN-OVERLAY"]["send_community"] and not r["UNDERLAY"]["send_community"]


def eapi_bgp_neighbor(r: Any, a: Applied) -> None:
    n = a.intent.bgp.neighbors[0]
    assert (r["peer_group"], r["remote_as"], r["description"], r["shutdown"]) == (
        "UNDERLAY",
        str(n.asn),
        n.description,
        False,
    )


def eapi_acls(r: Any, a: Applied) -> None:
    assert r["standard"] == {} and set(r["extended"]) == {acl.name for acl in a.intent.acls}


def eapi_acl(r: Any, a: Applied) -> None:
    acl = a.intent.acls[0]
    assert {int(k): e["action"] for k, e in r["entries"].items()} == {e.seq: e.action for e in acl.entries}


def eapi_stp_interfaces(r: Any, a: Applied) -> None:
    """Every Ethernet port, none with portfast or BPDU guard set (EOS's auto edge detection)."""
    assert {x.name for x in a.intent.interfaces} <= set(r)
    assert all(not d["portfast"] and not d["bpduguard"] for d in r.values())


def eapi_users(r: Any, a: Applied) -> None:
    assert (r["admin"]["privilege"], r["admin"]["role"], r["admin"]["format"]) == (
        "15",
        "network-admin",
        "sha512",
    )


def eapi_varp(r: Any, a: Applied) -> None:
    """The anycast MAC; the SVIs hold `ip address virtual`, not VARP's `ip virtual-router address`."""
    assert r["mac_address"] == a.intent.anycast_gateway_mac
    assert set(r["interfaces"]) == {f"Vlan{v.id}" for v in a.intent.vlans}


def eapi_mlag(r: Any, a: Applied) -> None:
    assert r == {
        "config": {
            "domain_id": None,
            "local_interface": None,
            "peer_address": None,
            "peer_link": None,
            "shutdown": False,
        },
        "interfaces": {},
    }


def eapi_bgp_summary(r: Any, a: Applied) -> None:
    peers = r["vrfs"]["default"]["peers"]
    underlay = {n.ip for n in a.intent.bgp.neighbors if n.kind == "underlay"}
    assert set(peers) == underlay and all(p["peerState"] == "Established" for p in peers.values())


def bgp_section(r: Any, a: Applied) -> None:
    assert r.startswith(f"router bgp {a.intent.bgp.asn}\n") and "neighbor EVPN-OVERLAY" in r


def ntp_servers(r: Any, a: Applied) -> None:
    assert list(r) == ["192.0.2.250"]


def ntp_stats(r: Any, a: Applied) -> None:
    assert [(s["remote"], s["synchronized"]) for s in r] == [("192.0.2.250", True)]


def snmp(r: Any, a: Applied) -> None:
    assert (r["location"], list(r["community"])) == ("lab", ["fabricctl-ro"])
    assert r["chassis_id"] == a.lab.lab.device(SWITCH).raw.serial()


def users(r: Any, a: Applied) -> None:
    assert (r["admin"]["level"], r["admin"]["role"]) == (15, "network-admin")


def _equals(value: Any) -> Callable[[Any, object], None]:
    """A check that the answer is `value`, for any applied fabric (the Comware tests share it)."""

    def check(r: Any, a: object) -> None:
        assert r == value

    return check


def _not_implemented(r: Any, a: Applied) -> None:
    raise AssertionError("the call returned instead of raising NotImplementedError")


#: (client, call, what the applied fabric makes it return)
CALLS: list[tuple[str, str, Check]] = [
    ("napalm-eos", "get_facts", facts),
    ("napalm-eos", "get_interfaces", interfaces),
    ("napalm-eos", "get_interfaces_counters", counters),
    ("napalm-eos", "get_lldp_neighbors", lldp),
    ("napalm-eos", "get_lldp_neighbors_detail", lldp_detail),
    ("napalm-eos", "get_bgp_neighbors", bgp),
    ("napalm-eos", "get_bgp_neighbors_detail", bgp_detail),
    ("napalm-eos", "get_bgp_config", bgp_config),
    ("napalm-eos", "get_environment", environment),
    ("napalm-eos", "get_arp_table", arp),
    ("napalm-eos", "get_interfaces_ip", interfaces_ip),
    ("napalm-eos", "get_mac_address_table", macs),
    ("napalm-eos", "get_route_to", route_to),
    ("napalm-eos", "get_ntp_servers", ntp_servers),
    ("napalm-eos", "get_ntp_stats", ntp_stats),
    ("napalm-eos", "get_snmp_information", snmp),
    ("napalm-eos", "get_optics", optics),
    ("napalm-eos", "get_users", users),
    ("napalm-eos", "get_config", config),
    ("napalm-eos", "get_network_instances", network_instances),
    ("napalm-eos", "get_vlans", vlans),
    ("napalm-eos", "is_alive", _equals({"is_alive": True})),
    # not implemented by the eos driver (napalm 5.x): calling them raises NotImplementedError
    *[
        ("napalm-eos", g, _not_implemented)
        for g in (
            "get_firewall_policies",
            "get_ipv6_neighbors_table",
            "get_ntp_peers",
            "get_probes_config",
            "get_probes_results",
        )
    ],
    ("pyeapi", "show version", show_version),
    ("pyeapi", "show ip bgp summary", eapi_bgp_summary),
    ("pyeapi", "show running-config | section router bgp (text)", bgp_section),
    ("pyeapi", "node.version", _equals("4.31.2F")),
    ("pyeapi", "node.version_number", _equals("4.31.2")),
    ("pyeapi", "node.model", _equals("7060")),
    ("pyeapi", "node.running_config", lambda r, a: _holds(a.lab.running(SWITCH))(r, a)),
    (
        "pyeapi",
        "node.startup_config",
        lambda r, a: _equals(a.lab.lab.device(SWITCH).raw.startup.rstrip("\n"))(r, a),
    ),
    (
        "pyeapi",
        "api('system').get()",
        lambda r, a: _equals(
            {"hostname": SWITCH, "iprouting": True, "banner_motd": None, "banner_login": None}
        )(r, a),
    ),
    ("pyeapi", "api('interfaces').getall()", eapi_interfaces),
    ("pyeapi", "api('interfaces').get('Ethernet1')", eapi_interface("Ethernet1", "ethernet")),
    ("pyeapi", "api('interfaces').get('Loopback0')", eapi_interface("Loopback0", "generic")),
    ("pyeapi", "api('interfaces').get('Vlan112')", eapi_interface("Vlan112", "generic")),
    ("pyeapi", "api('interfaces').get('Vxlan1')", eapi_vxlan),
    ("pyeapi", "api('ipinterfaces').getall()", eapi_ipinterfaces),
    (
        "pyeapi",
        "api('ipinterfaces').get('Ethernet1')",
        lambda r, a: _equals(
            {"name": "Ethernet1", "address": a.intent.interfaces[0].ipv4, "mtu": a.intent.qos.mtu}
        )(r, a),
    ),
    ("pyeapi", "api('switchports').getall()", eapi_switchports),
    (
        "pyeapi",
        "api('switchports').get('Ethernet13')",
        lambda r, a: _equals(
            {
                "name": "Ethernet13",
                "mode": "access",
                "access_vlan": "112",
                "trunk_native_vlan": "1",
                "trunk_allowed_vlans": "1-4094",
                "trunk_groups": [],
            }
        )(r, a),
    ),
    ("pyeapi", "api('switchports').get('Ethernet1')", _equals(None)),
    ("pyeapi", "api('vlans').getall()", eapi_vlans),
    (
        "pyeapi",
        "api('vlans').get('112')",
        lambda r, a: _equals(
            {"vlan_id": "112", "name": a.intent.vlans[0].name, "state": "active", "trunk_groups": []}
        )(r, a),
    ),
    ("pyeapi", "api('vrfs').getall()", eapi_vrfs),
    ("pyeapi", "api('vrfs').get('tnt-team-llm')", eapi_vrf),
    ("pyeapi", "api('bgp').get()", eapi_bgp),
    ("pyeapi", "api('bgp').neighbors.getall()", eapi_bgp_neighbors),
    ("pyeapi", "api('bgp').neighbors.get('10.64.8.0')", eapi_bgp_neighbor),
    ("pyeapi", "api('acl').getall()", eapi_acls),
    ("pyeapi", "api('acl').get('tnt-team-llm-in')", eapi_acl),
    (
        "pyeapi",
        "api('staticroute').getall()",
        _equals({}),
    ),  # the management default route: EOS prints it under `ip route`, pyeapi reads `ip route` with a next hop interface
    ("pyeapi", "api('stp').interfaces.getall()", eapi_stp_interfaces),
    ("pyeapi", "api('stp').instances.getall()", _equals({})),
    ("pyeapi", "api('users').getall()", lambda r, a: eapi_users(r, a)),
    ("pyeapi", "api('users').get('admin')", lambda r, a: eapi_users({"admin": r}, a)),
    ("pyeapi", "api('ntp').get()", _equals({"source_interface": None, "servers": [{"192.0.2.250": None}]})),
    ("pyeapi", "api('varp').get()", eapi_varp),
    (
        "pyeapi",
        "api('varp').interfaces.getall()",
        lambda r, a: _equals({f"Vlan{v.id}": {"addresses": []} for v in a.intent.vlans})(r, a),
    ),
    ("pyeapi", "api('mlag').get()", eapi_mlag),
    ("pyeapi", "api('routemaps').getall()", _equals({})),
    ("pyeapi", "api('ospf').get()", _equals(None)),
    ("pyeapi", "api('vrrp').getall()", _equals({})),
]


_PYEAPI = re.compile(r"api\('(?P<api>\w+)'\)(?:\.(?P<sub>\w+))?\.(?P<method>\w+)\((?:'(?P<arg>[^']*)')?\)")


def _holds(config: str) -> Check:
    """pyeapi's `running_config` is `show running-config all`: every line of the config, and the
    defaults; its `startup_config` is the saved config as stored."""

    def check(r: Any, a: Applied) -> None:
        lines = set(r.splitlines())
        assert all(ln in lines for ln in config.splitlines())

    return check


def _call(a: Applied, client: str, call: str) -> Any:
    if client == "napalm-eos":
        if call == "get_route_to":
            other = next(o for o in a.compiled.intents.values() if o.role == "leaf" and o.name != SWITCH)
            return a.napalm.get_route_to(other.bgp.networks[0])
        return getattr(a.napalm, call)()
    if call.startswith("node."):
        found = getattr(a.eapi, call[len("node.") :])
        return found() if callable(found) else found
    if (m := _PYEAPI.fullmatch(call)) is not None:
        api = a.eapi.api(m["api"])
        if m["sub"]:
            api = getattr(api, m["sub"])
        return getattr(api, m["method"])(*([m["arg"]] if m["arg"] is not None else []))
    if call.endswith("(text)"):
        return a.eapi.run_commands([call[: -len(" (text)")]], encoding="text")[0]["output"]
    return a.eapi.enable(call)[0]["result"]


@pytest.mark.parametrize(("client", "call", "check"), CALLS, ids=[f"{c}:{m}" for c, m, _ in CALLS])
def test_client_call(applied: Applied, client: str, call: str, check: Check) -> None:
    if check is _not_implemented:
        with pytest.raises(NotImplementedError):
            _call(applied, client, call)
        return
    result = _call(applied, client, call)
    if client != "pyeapi":  # pyeapi answers None or {} for what the switch does not run
        assert result not in (None, {}, [], ""), f"{client} {call} returned nothing"
    check(result, applied)


def test_every_switch_resolves_its_bgp_neighbors(applied: Applied) -> None:
    """Each switch's ARP table holds the far end of every up /31 (the spines' too), at the MAC
    that switch's LLDP advertises as its chassis."""
    for name, intent in applied.compiled.intents.items():
        node = eapi_node(applied.lab.lab, name)
        arp, lldp = node.enable(["show ip arp", "show lldp neighbors detail"])
        seen = {e["address"]: (e["interface"], e["hwAddress"]) for e in arp["result"]["ipV4Neighbors"]}
        chassis = {
            port: info["lldpNeighborInfo"][0]["chassisId"]
            for port, info in lldp["result"]["lldpNeighbors"].items()
            if info["lldpNeighborInfo"]
        }
        for n in intent.bgp.neighbors:
            if n.kind != "underlay":
                continue
            port, mac = seen[n.ip]
            assert mac.replace(":", "") == chassis[port].replace(".", ""), (name, n.ip)
