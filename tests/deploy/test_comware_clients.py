"""napalm-h3c-comware against the Comware lab after `fabricctl apply`: every getter the driver
implements, each with the result the applied fabric implies.

One apply of eos-small on Comware serves the module. `CALLS` lists each getter with what it must
return (from fabricctl's compiled intent). Three getters answer empty on this fabric, and say why:
its tenant segments are VSIs (whose MACs Comware lists under `display l2vpn mac-address`, which
the driver does not read), no MAC ever moved, and a standalone S9825 has no IRF ports.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from ipaddress import IPv4Interface
from typing import Any

import pytest
from napalm import get_network_driver

from fabricctl import pipeline
from fabricctl.compile.build import Compiled
from fabricctl.compile.intent import DeviceIntent
from fabricctl.lab.nos import lab_nos
from fabricctl.lab.runtime import lab_credentials
from fabricctl.platforms import get_platform
from tests.conftest import EOS_SMALL

from .conftest import LabRoot, _lab_root
from .test_eos_clients import _equals, apply

SWITCH = "leaf1"


@dataclass
class Applied:
    lab: LabRoot
    compiled: Compiled
    driver: Any

    @property
    def intent(self) -> DeviceIntent:
        return self.compiled.intents[SWITCH]


@pytest.fixture(scope="module")
def applied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Applied]:
    with pytest.MonkeyPatch.context() as mp:
        for lab in _lab_root(EOS_SMALL, tmp_path_factory.mktemp("comware-clients"), mp, "comware"):
            assert apply(lab) == 0
            lab.lab.advance(3600)
            ep = lab.lab.endpoints()[SWITCH]
            user, password = lab_credentials()
            driver = get_network_driver("h3c_comware")(
                ep.host, user, password, timeout=60, optional_args={"port": ep.ssh_port}
            )
            driver.open()
            try:
                yield Applied(lab, pipeline.compile(lab.root), driver)
            finally:
                driver.close()


Check = Callable[[Any, Applied], None]


def _ports(a: Applied, *roles: str) -> list[str]:
    return [x.name for x in a.intent.interfaces if x.role in roles]


def facts(r: Any, a: Applied) -> None:
    assert (r["hostname"], r["vendor"], r["model"]) == (SWITCH, "H3C", a.intent.model)
    assert r["serial_number"] == a.lab.lab.device(SWITCH).raw.serial() and r["uptime"] >= 3600
    assert set(_ports(a, "uplink", "gpu", "unused")) <= set(r["interface_list"])


def interfaces(r: Any, a: Applied) -> None:
    assert all(r[p]["is_up"] and r[p]["mtu"] == a.intent.qos.mtu for p in _ports(a, "uplink"))
    shut = [x.name for x in a.intent.interfaces if not x.enabled]
    assert shut and not any(r[p]["is_enabled"] for p in shut)


def lldp(r: Any, a: Applied) -> None:
    want = {x.name: x.peer.split() for x in a.intent.interfaces if x.role == "uplink" and x.peer}
    assert r == {p: [{"hostname": far, "port": port}] for p, (far, port) in want.items()}


def lldp_detail(r: Any, a: Applied) -> None:
    want = {x.name: x.peer.split()[0] for x in a.intent.interfaces if x.role == "uplink" and x.peer}
    assert {p: n[0]["remote_system_name"] for p, n in r.items()} == want
    assert len({n[0]["remote_chassis_id"] for n in r.values()}) == 2  # one MAC per spine


def environment(r: Any, a: Applied) -> None:
    box = lab_nos(a.intent.platform).hardware_facts(a.intent.model)
    assert len(r["fans"]) == box.fan_trays and all(f["status"] for f in r["fans"].values())
    assert len(r["power"]) == box.psus and all(p["status"] for p in r["power"].values())
    assert len(r["temperature"]) == len(box.sensors) and not any(
        t["is_alert"] for t in r["temperature"].values()
    )
    assert r["memory"]["available_ram"] > 0 and r["cpu"]


def arp(r: Any, a: Applied) -> None:
    """The GPU NICs (routed and bridged) and the spine end of every uplink /31."""
    routed = set()
    for x in a.intent.interfaces:
        if x.role == "gpu" and x.enabled and x.ipv4:
            port = IPv4Interface(x.ipv4)
            routed |= {str(h) for h in port.network if h != port.ip}
    uplinks = {n.ip for n in a.intent.bgp.neighbors if n.kind == "underlay"}
    seen = {e["ip"] for e in r}
    assert routed | uplinks <= seen
    nics = sum(1 for x in a.intent.interfaces if x.role == "gpu" and x.enabled and x.tenant)
    assert len(seen) == nics + len(uplinks)


def interfaces_ip(r: Any, a: Applied) -> None:
    want = {x.name: x.ipv4.split("/")[0] for x in a.intent.interfaces if x.ipv4 and x.enabled}
    want |= {f"LoopBack{lo.number}": lo.ipv4.split("/")[0] for lo in a.intent.loopbacks}
    assert {p: ip for p, ip in want.items() if ip in r.get(p, {}).get("ipv4", {})} == want


def config(r: Any, a: Applied) -> None:
    assert r["running"].strip() == a.lab.running(SWITCH).strip() and r["startup"].strip()


def vlans(r: Any, a: Applied) -> None:
    """Tenant segments are VSIs: VLAN 1 holds every bridged port, the tenants' GPU ports too, and
    the ports outside the cabling plan, which keep the factory's bridge mode."""
    bridged = {x.name for x in a.intent.interfaces if not x.routed}
    routed = {x.name for x in a.intent.interfaces if x.routed}
    members = set(r[1]["interfaces"])
    assert list(r) == [1] and bridged <= members and not members & routed
    assert len(members) == get_platform("comware").model().ports - len(routed)


#: (getter, what the applied fabric makes it return)
CALLS: list[tuple[str, Check]] = [
    ("get_facts", facts),
    ("get_interfaces", interfaces),
    ("get_lldp_neighbors", lldp),
    ("get_lldp_neighbors_detail", lldp_detail),
    ("get_environment", environment),
    ("get_arp_table", arp),
    ("get_interfaces_ip", interfaces_ip),
    ("get_config", config),
    ("get_vlans", vlans),
    ("is_alive", _equals({"is_alive": True})),
    # empty, as the switch shows them (module docstring)
    ("get_mac_address_table", _equals([])),
    ("get_mac_address_move_table", _equals([])),
    ("get_irf_config", _equals({})),
    # declared by the driver (0.1.5) with no body: they return None
    ("get_bgp_neighbors", _equals(None)),
    ("get_network_instances", _equals(None)),
    ("get_route_to", _equals(None)),
]
#: Left to NAPALM's base class by the driver: calling them raises NotImplementedError.
NOT_IMPLEMENTED = [
    "get_bgp_config",
    "get_bgp_neighbors_detail",
    "get_interfaces_counters",
    "get_ntp_servers",
    "get_ntp_stats",
    "get_optics",
    "get_snmp_information",
    "get_users",
]


@pytest.mark.parametrize(("call", "check"), CALLS, ids=[c for c, _ in CALLS])
def test_napalm_h3c_comware_call(applied: Applied, call: str, check: Check) -> None:
    check(getattr(applied.driver, call)(), applied)


@pytest.mark.parametrize("call", NOT_IMPLEMENTED)
def test_napalm_h3c_comware_leaves_to_napalm(applied: Applied, call: str) -> None:
    with pytest.raises(NotImplementedError):
        getattr(applied.driver, call)()
