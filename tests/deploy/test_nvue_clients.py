"""The NVUE lab as a Cumulus Linux user and their tools read it after `fabricctl apply`: NVUE's
show paths (`nv show ... -o json`), iproute2's JSON, FRR's vtysh JSON, over netmiko's
`cumulus_linux` driver, each call with the result the applied fabric implies.

One apply of nvue-small serves the module. `CALLS` lists every command with what it must return
(derived from fabricctl's compiled intent, never from the lab).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from ipaddress import IPv4Interface
from typing import Any

import pytest
from netmiko import ConnectHandler
from netmiko.base_connection import BaseConnection

from fabricctl import pipeline
from fabricctl.compile.build import Compiled
from fabricctl.compile.intent import DeviceIntent
from fabricctl.lab.nos import lab_nos
from fabricctl.lab.runtime import lab_credentials
from tests.conftest import NVUE_SMALL, send_text

from .conftest import LabRoot, _lab_root
from .test_eos_clients import apply

SWITCH = "leaf1"


@dataclass
class Applied:
    lab: LabRoot
    compiled: Compiled
    conn: BaseConnection

    @property
    def intent(self) -> DeviceIntent:
        return self.compiled.intents[SWITCH]

    def leaves(self) -> list[DeviceIntent]:
        return [i for i in self.compiled.intents.values() if i.role == "leaf"]


@pytest.fixture(scope="module")
def applied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Applied]:
    with pytest.MonkeyPatch.context() as mp:
        for lab in _lab_root(NVUE_SMALL, tmp_path_factory.mktemp("nvue-clients"), mp):
            assert apply(lab) == 0
            lab.lab.advance(3600)
            ep = lab.lab.endpoints()[SWITCH]
            user, password = lab_credentials()
            conn = ConnectHandler(
                device_type="cumulus_linux", host=ep.host, port=ep.ssh_port, username=user, password=password
            )
            try:
                yield Applied(lab, pipeline.compile(lab.root), conn)
            finally:
                conn.disconnect()


Check = Callable[[Any, Applied], None]


def _underlay(a: Applied) -> dict[str, str]:
    """Underlay peer -> the local port its /31 is on."""
    ports = {IPv4Interface(x.ipv4).network: x.name for x in a.intent.interfaces if x.ipv4}
    return {
        n.ip: next(p for net, p in ports.items() if IPv4Interface(f"{n.ip}/31").network == net)
        for n in a.intent.bgp.neighbors
        if n.kind == "underlay"
    }


def _loopbacks(i: DeviceIntent) -> set[str]:
    return {lo.ipv4.split("/")[0] for lo in i.loopbacks}


def _vteps(a: Applied, vni: int) -> set[str]:
    """The VTEPs of the other leaves that carry an L2 VNI."""
    return {
        o.vtep.source_ip.split("/")[0]
        for o in a.leaves()
        if o.name != SWITCH and o.vtep and any(v.l2vni == vni for v in o.vlans)
    }


# --- NVUE --------------------------------------------------------------------------------------------


def system(r: Any, a: Applied) -> None:
    assert (r["hostname"], r["product-name"]) == (SWITCH, "Cumulus Linux") and r["uptime"] >= 3600
    assert r["version"]["product-release"] == r["build"].split()[-1]


def system_version(r: Any, a: Applied) -> None:
    assert set(r) >= {"onie", "kernel", "base-os", "product-release", "image"}


def platform(r: Any, a: Applied) -> None:
    assert r["serial-number"] == a.lab.lab.device(SWITCH).raw.serial() and r["asic-model"] == "Spectrum-4"


def fans(r: Any, a: Applied) -> None:
    box = lab_nos(a.intent.platform).hardware_facts(a.intent.model)
    assert len(r) == box.fan_trays * box.fans_per_tray + box.psus and all(
        f["state"] == "ok" for f in r.values()
    )


def psus(r: Any, a: Applied) -> None:
    assert len(r) == lab_nos(a.intent.platform).hardware_facts(a.intent.model).psus and all(
        p["state"] == "ok" for p in r.values()
    )


def transceivers(r: Any, a: Applied) -> None:
    assert set(r) == {x.name for x in a.intent.interfaces if x.peer}


def interfaces(r: Any, a: Applied) -> None:
    ports = {x.name: x for x in a.intent.interfaces}
    assert set(ports) <= set(r)
    assert all(r[n]["link"]["oper-status"] == "up" for n, x in ports.items() if x.role == "uplink")


def lldp(r: Any, a: Applied) -> None:
    far = a.intent.interfaces[0].peer
    assert far is not None
    name, port = far.split()
    assert r["neighbor"][name]["port"]["name"] == port


def ip_address(r: Any, a: Applied) -> None:
    assert list(r) == [a.intent.interfaces[0].ipv4]


def bgp_neighbor(r: Any, a: Applied) -> None:
    n = a.intent.bgp.neighbors[0]
    assert (r["state"], r["remote-as"], r["bfd"]["status"]) == ("established", n.asn, "up")


def bfd(r: Any, a: Applied) -> None:
    want = {n.ip for n in a.intent.bgp.neighbors if n.bfd}
    assert {p["peer"] for p in r.values()} == want and all(p["state"] == "up" for p in r.values())


def evpn_vnis(r: Any, a: Applied) -> None:
    vlan = a.intent.vlans[0]
    assert r[str(vlan.l2vni)]["type"] == "L2"
    assert set(r[str(vlan.l2vni)]["remote-vtep"]) == _vteps(a, vlan.l2vni)
    assert {str(v.l3vni) for v in a.intent.vrfs} <= set(r)


def bgp_info(r: Any, a: Applied) -> None:
    vlan = a.intent.vlans[0]
    assert (r["rd"], list(r["import-route-target"])) == (vlan.rd, [vlan.route_target])


def evpn_routes(r: Any, a: Applied) -> None:
    """Type 3 from every VTEP of the VNI (this one too), type 2 of the NICs in it, type 5 of
    every tenant subnet the VRFs import."""
    vlan = a.intent.vlans[0]
    imet = {k.rsplit(":", 1)[-1].strip("[]") for k, v in r.items() if v["route-type"] == 3}
    assert imet == _vteps(a, vlan.l2vni) | {a.intent.vtep.source_ip.split("/")[0]}  # type: ignore[union-attr]
    assert any(v["route-type"] == 2 for v in r.values()) and any(v["route-type"] == 5 for v in r.values())


# --- Linux --------------------------------------------------------------------------------------------


def ip_addr(r: Any, a: Applied) -> None:
    by_name = {d["ifname"]: {f"{x['local']}/{x['prefixlen']}" for x in d["addr_info"]} for d in r}
    assert {lo.ipv4 for lo in a.intent.loopbacks} <= by_name["lo"]
    assert all(x.ipv4 in by_name[x.name] for x in a.intent.interfaces if x.ipv4)


def ip_route(r: Any, a: Applied) -> None:
    """Every other leaf's loopbacks over every uplink (a nexthop group), each /31 connected."""
    routes = {e["dst"]: e for e in r}
    uplinks = set(_underlay(a))
    for o in a.leaves():
        if o.name == SWITCH:
            continue
        for lo in _loopbacks(o):
            assert {h["gateway"] for h in routes[lo]["nexthops"]} == uplinks, lo
    assert all(
        str(IPv4Interface(x.ipv4).network) in routes
        for x in a.intent.interfaces
        if x.role == "uplink" and x.ipv4
    )


def ip_neigh(r: Any, a: Applied) -> None:
    seen = {e["dst"]: e["dev"] for e in r}
    assert all(seen[ip] == port for ip, port in _underlay(a).items())
    nics = sum(1 for x in a.intent.interfaces if x.role == "gpu" and x.enabled and x.tenant)
    assert len(seen) == len(_underlay(a)) + nics


def ip_vrf(r: Any, a: Applied) -> None:
    assert {v["name"] for v in r} == {"mgmt", *(v.name for v in a.intent.vrfs)}


def frr_bgp_summary(r: Any, a: Applied) -> None:
    v4, evpn = r["ipv4Unicast"]["peers"], r["l2VpnEvpn"]["peers"]
    assert set(v4) == set(_underlay(a)) and all(p["state"] == "Established" for p in v4.values())
    assert set(evpn) == {n.ip for n in a.intent.bgp.neighbors if n.kind == "overlay"}
    assert all(p["pfxRcd"] > 0 for p in [*v4.values(), *evpn.values()])


def frr_evpn_vni(r: Any, a: Applied) -> None:
    vlan = a.intent.vlans[0]
    l2 = r[str(vlan.l2vni)]
    assert (l2["type"], set(l2["remoteVteps"])) == ("L2", _vteps(a, vlan.l2vni))
    assert {str(v.l3vni): v.name for v in a.intent.vrfs} == {
        k: d["tenantVrf"] for k, d in r.items() if d["type"] == "L3"
    }


def frr_bfd(r: Any, a: Applied) -> None:
    assert {p["peer"]: p["interface"] for p in r} == _underlay(a) and all(p["status"] == "up" for p in r)


CALLS: list[tuple[str, Check]] = [
    ("nv show system -o json", system),
    ("nv show system version -o json", system_version),
    ("nv show platform -o json", platform),
    ("nv show platform environment fan -o json", fans),
    ("nv show platform environment psu -o json", psus),
    ("nv show platform transceiver -o json", transceivers),
    ("nv show interface -o json", interfaces),
    ("nv show interface swp1 lldp -o json", lldp),
    ("nv show interface swp1 ip address -o json", ip_address),
    ("nv show vrf default router bgp neighbor 10.65.8.0 -o json", bgp_neighbor),
    ("nv show vrf default router bfd peers -o json", bfd),
    ("nv show evpn vni -o json", evpn_vnis),
    ("nv show evpn vni 10012 bgp-info -o json", bgp_info),
    ("nv show vrf default router bgp address-family l2vpn-evpn route -o json", evpn_routes),
    ("ip -j addr show", ip_addr),
    ("ip -j route show", ip_route),
    ("ip -j neigh show", ip_neigh),
    ("ip -j vrf show", ip_vrf),
    ("vtysh -c 'show bgp summary json'", frr_bgp_summary),
    ("vtysh -c 'show evpn vni json'", frr_evpn_vni),
    ("vtysh -c 'show bfd peers json'", frr_bfd),
]


@pytest.mark.parametrize(("command", "check"), CALLS, ids=[c for c, _ in CALLS])
def test_nvue_and_linux_call(applied: Applied, command: str, check: Check) -> None:
    text = send_text(applied.conn, command, read_timeout=60)
    check(json.loads(text), applied)
