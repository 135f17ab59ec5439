"""The lab prints what real switches print: ntc-templates parse every table it serves into the
records the fabric implies, with every field real captures always fill.

Three converged fabrics (rendered configs loaded straight into the lab, one per module): eos-small
on EOS (leaf1: 8 uplinks to 2 spines, 8 GPU ports, an l2 tenant on VLAN 112), the reference
fabric on Comware (leaf01: 32 uplinks to 16 spines, 32 GPU ports) and nvue-small on Cumulus
Linux (leaf1, its Linux shell read with ntc-templates' linux templates). What each count must be
comes from fabricctl's compiled intent of the switch and its neighbors, never from the lab.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from ipaddress import IPv4Interface
from pathlib import Path
from typing import Any

import pytest
import yaml
from ntc_templates.parse import parse_output

from fabricctl import pipeline
from fabricctl.compile.build import Compiled
from fabricctl.compile.intent import DeviceIntent
from fabricctl.lab import LabFabric
from fabricctl.lab.nos import lab_nos
from fabricctl.platforms import get_platform
from tests.conftest import EOS_SMALL, NVUE_SMALL, REFERENCE, send_text
from tests.lab.conftest import connect, loaded_lab

CAPTURES = Path(__file__).parent.parent / "captures" / "ntc-templates"
#: The rows a table must parse to (None: some, where the count is the box's, not the fabric's).
Expect = Callable[[DeviceIntent, Compiled], int | None]


class Fabric:
    """One loaded lab, one SSH session to the switch under test, the compiled fabric."""

    def __init__(self, lab: LabFabric, root: Path, switch: str) -> None:
        self.lab, self.switch = lab, switch
        self.compiled = pipeline.compile(root)
        self.intent = self.compiled.intents[switch]
        self.conn = connect(lab, switch)
        self.platform = {"eos": "arista_eos", "comware": "hp_comware", "nvue": "linux"}[self.intent.platform]

    def rows(self, command: str) -> list[dict[str, Any]]:
        text = send_text(self.conn, command, read_timeout=120)
        rows: list[dict[str, Any]] = parse_output(platform=self.platform, command=command, data=text)
        return rows


def _fabric(src: Path, platform: str | None, switch: str, tmp: Path) -> Iterator[Fabric]:
    lab, root = loaded_lab(src, tmp, platform)
    try:
        fabric = Fabric(lab, root, switch)
        yield fabric
        fabric.conn.disconnect()
    finally:
        lab.stop()


@pytest.fixture(scope="module")
def eos(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fabric]:
    yield from _fabric(EOS_SMALL, None, "leaf1", tmp_path_factory.mktemp("eos"))


@pytest.fixture(scope="module")
def nvue(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fabric]:
    yield from _fabric(NVUE_SMALL, None, "leaf1", tmp_path_factory.mktemp("nvue"))


@pytest.fixture(scope="module")
def comware(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fabric]:
    yield from _fabric(REFERENCE, None, "leaf01", tmp_path_factory.mktemp("comware"))


# --- what the fabric implies ----------------------------------------------------------------------


def uplinks(i: DeviceIntent, c: Compiled) -> int:
    return sum(1 for x in i.interfaces if x.role == "uplink")


def spines(i: DeviceIntent, c: Compiled) -> int:
    return sum(1 for n in i.bgp.neighbors if n.kind == "overlay")


def tenant_nics(i: DeviceIntent, c: Compiled) -> int:
    """GPU NICs on enabled tenant ports: each answers ARP."""
    return sum(1 for x in i.interfaces if x.role == "gpu" and x.tenant and x.enabled)


def arp_entries(i: DeviceIntent, c: Compiled) -> int:
    """The GPU NICs and the far end of every uplink (the BGP neighbor on its /31)."""
    return tenant_nics(i, c) + uplinks(i, c)


def cabled(i: DeviceIntent, c: Compiled) -> int:
    return sum(1 for x in i.interfaces if x.role in ("uplink", "downlink", "gpu"))


def ports(i: DeviceIntent, c: Compiled) -> int:
    """Every front-panel port (cabled or not, as a switch lists them) and the management port."""
    return get_platform(i.platform).model().ports + 1


def all_interfaces(i: DeviceIntent, c: Compiled) -> int:
    """Ports, management, loopbacks, VLAN interfaces and Vxlan1 (EOS)."""
    return ports(i, c) + len(i.loopbacks) + len(i.vlans) + (1 if i.vtep else 0)


def routed_interfaces(i: DeviceIntent, c: Compiled) -> int:
    """Routed interfaces not shut down: the template reads a one-word status, so an `admin down`
    row is skipped, on a real switch's output as on the lab's."""
    return sum(1 for x in i.interfaces if x.routed and x.enabled) + 1 + len(i.loopbacks) + len(i.vlans)


def default_routes(i: DeviceIntent, c: Compiled) -> int:
    """Connected (fabric links, loopbacks, management), the static default, and every other
    switch's advertised loopbacks (BGP)."""
    learned = {n for o in c.intents.values() if o.name != i.name for n in o.bgp.networks}
    return uplinks(i, c) + len(i.loopbacks) + 1 + 1 + len(learned)


def l2_macs(i: DeviceIntent, c: Compiled) -> int:
    """The NICs of every VLAN this leaf stretches: its own, and the other leaves' over EVPN."""
    vlans = {v.id for v in i.vlans}
    return sum(
        1
        for o in c.intents.values()
        for x in o.interfaces
        if x.access_vlan in vlans and x.enabled and x.tenant
    )


def one(i: DeviceIntent, c: Compiled) -> int:
    return 1


def none(i: DeviceIntent, c: Compiled) -> int:
    """A table the fabric leaves empty (no port-channel, no IPv6 session)."""
    return 0


def some(i: DeviceIntent, c: Compiled) -> None:
    """The box's own rows (processes, file systems, flash files): at least one."""
    return None


def bgp_paths(i: DeviceIntent, c: Compiled) -> int:
    """Paths in the BGP table: the switch's own networks, each spine's (or leaf's) over the links
    to it, every other leaf's over every uplink (ECMP, up to maximum-paths)."""
    links = Counter(x.peer.split()[0] for x in i.interfaces if x.role in ("uplink", "downlink") and x.peer)
    total = len(i.bgp.networks)
    for other in c.intents.values():
        if other.name == i.name or (other.role == i.role and i.role != "leaf"):
            continue
        paths = links[other.name] if other.name in links else min(uplinks(i, c), i.bgp.max_paths)
        total += paths * len(other.bgp.networks)
    return total


#: The entries of the control-plane ACL EOS installs on every switch (the capture's).
CONTROL_PLANE_ACL_ENTRIES = 6


def acl_entries(i: DeviceIntent, c: Compiled) -> int:
    """The control-plane ACL's entries and the tenants' (their remarks are not entries)."""
    return CONTROL_PLANE_ACL_ENTRIES + sum(len(acl.entries) for acl in i.acls)


def fans(i: DeviceIntent, c: Compiled) -> int:
    box = lab_nos(i.platform).hardware_facts(i.model)
    return box.fan_trays * box.fans_per_tray + box.psus


def inventory(i: DeviceIntent, c: Compiled) -> int:
    """The chassis, its power supplies and fan trays (the model's fixed facts), and (EOS) one
    row per port type: management and switched."""
    box = lab_nos(i.platform).hardware_facts(i.model)
    return 1 + box.psus + box.fan_trays + (2 if i.platform == "eos" else 0)


EOS_TABLES: list[tuple[str, Expect]] = [
    ("show lldp neighbors", uplinks),
    ("show lldp neighbors detail", uplinks),
    ("show interfaces status", ports),
    ("show interfaces description", all_interfaces),
    ("show interfaces", all_interfaces),
    ("show ip interface brief", routed_interfaces),
    ("show ip bgp summary", uplinks),
    ("show bgp evpn summary", spines),
    ("show ip route", default_routes),
    ("show ip arp vrf all", arp_entries),
    ("show mac address-table", l2_macs),
    ("show vlan", lambda i, c: 1 + len(i.vlans)),
    ("show vrf", lambda i, c: 1 + len(i.vrfs)),
    ("show interfaces transceiver", cabled),
    ("show version", one),
    ("show hostname", one),
    ("show clock", one),
    ("show reload cause", one),
    ("show inventory", inventory),
    ("show environment power", lambda i, c: lab_nos(i.platform).hardware_facts(i.model).psus),
    ("show environment temperature", lambda i, c: len(lab_nos(i.platform).hardware_facts(i.model).sensors)),
    ("show environment cooling", fans),
    ("show interfaces transceiver detail", lambda i, c: 5 * cabled(i, c)),  # five DOM sensors each
    ("show ip bgp", bgp_paths),
    ("show ip bgp detail", bgp_paths),
    ("show ip access-lists", acl_entries),
    ("show ipv6 bgp summary", none),
    ("show port-channel summary", none),
    ("show snmp community", one),
    ("show boot-config", one),
    ("show processes top once", some),
    ("bash df -h", some),
    ("dir", some),
]
COMWARE_TABLES: list[tuple[str, Expect]] = [
    ("display lldp neighbor-information list", uplinks),
    ("display lldp neighbor-information verbose", uplinks),
    ("display interface brief", lambda i, c: ports(i, c) + len(i.loopbacks) + len(i.vrfs) + len(i.vlans)),
    ("display interface", lambda i, c: ports(i, c) + len(i.loopbacks) + len(i.vrfs) + len(i.vlans)),
    ("display bgp peer ipv4", uplinks),
    ("display ip vpn-instance", lambda i, c: len(i.vrfs)),
    ("display vlan all", one),
    ("display vlan brief", one),
    ("display arp", arp_entries),
    ("display link-aggregation verbose", none),
    ("display link-aggregation member-port", none),
    ("display route-policy", none),
    ("display device manuinfo", inventory),
    ("display clock", one),
]


def kernel_links(i: DeviceIntent, c: Compiled) -> int:
    """What a Cumulus switch's kernel holds: lo, eth0, every front-panel port (a split one as its
    lanes), the bridge and an SVI per VLAN, the VXLAN device, a VRF device per VRF and mgmt."""
    ports = get_platform(i.platform).model().ports
    lanes = sum(int(b.mode.split("x")[0]) - 1 for b in i.breakouts)
    vlans = 1 + len(i.vlans) if i.vlans else 0
    return 2 + ports + lanes + vlans + (1 if i.vtep else 0) + 1 + len(i.vrfs)


NVUE_TABLES: list[tuple[str, Expect]] = [
    ("ip address show", kernel_links),
    ("ip link show", kernel_links),
    ("ip vrf show", lambda i, c: 1 + len(i.vrfs)),
    ("arp -a", arp_entries),
]


#: Fields the captures always fill that this fabric leaves empty, and why.
NOT_HERE = {
    ("arista_eos", "show environment temperature"): {"module"},  # the capture's Supervisor/Linecard sections
    # the underlay sends no communities; the switch's own networks have no next hop or neighbor
    ("arista_eos", "show ip bgp detail"): {"community", "neighbor", "next_hop"},
}


def _check(fabric: Fabric, command: str, expect: Expect) -> None:
    rows = fabric.rows(command)
    assert isinstance(rows, list), rows  # a string: the template could not parse the output
    want = expect(fabric.intent, fabric.compiled)
    assert len(rows) == want if want is not None else rows, (command, rows[:3])
    captured = _always_filled(fabric.platform, command) - NOT_HERE.get((fabric.platform, command), set())
    empty = sorted({k for r in rows for k in captured if r.get(k) in ("", [], None)})
    assert not empty, f"{command}: fields every real capture fills are empty here: {empty}"


def _always_filled(platform: str, command: str) -> set[str]:
    """The fields every record of every real capture of `command` fills."""
    folder = CAPTURES / platform / command.replace(" ", "_")
    samples = [yaml.safe_load(f.read_text())["parsed_sample"] for f in sorted(folder.glob("*.yml"))]
    records = [r for s in samples for r in s]
    if not records:
        return set()
    return {k for k in records[0] if all(r.get(k) not in ("", [], None) for r in records)}


@pytest.mark.parametrize(("command", "expect"), EOS_TABLES, ids=[c for c, _ in EOS_TABLES])
def test_eos_tables_parse_to_the_fabric(eos: Fabric, command: str, expect: Expect) -> None:
    _check(eos, command, expect)


@pytest.mark.parametrize(("command", "expect"), NVUE_TABLES, ids=[c for c, _ in NVUE_TABLES])
def test_nvue_linux_tables_parse_to_the_fabric(nvue: Fabric, command: str, expect: Expect) -> None:
    """ntc-templates has no Cumulus platform: a Cumulus user parses the Linux shell's tables with
    its linux templates."""
    _check(nvue, command, expect)


def test_nvue_routes_parse_but_for_nexthop_groups(nvue: Fabric) -> None:
    """ntc-templates' linux `ip route show` template reads one next hop per line, so the ECMP
    routes a Cumulus switch installs (a nexthop group: `nhid N` and a `nexthop via` line per
    path, kernel 6.1 under FRR) fail it on a real switch too; every other route parses, the
    fabric links as connected."""
    text = send_text(nvue.conn, "ip route show", read_timeout=60)
    with pytest.raises(Exception, match="nhid"):
        parse_output(platform="linux", command="ip route show", data=text)
    single = "\n".join(ln for ln in text.splitlines() if "nhid" not in ln and "nexthop" not in ln)
    rows = parse_output(platform="linux", command="ip route show", data=single)
    links = {
        str(IPv4Interface(x.ipv4).network) for x in nvue.intent.interfaces if x.role == "uplink" and x.ipv4
    }
    assert links <= {r["network"] for r in rows if r["protocol"] == "kernel"}


@pytest.mark.parametrize(("command", "expect"), COMWARE_TABLES, ids=[c for c, _ in COMWARE_TABLES])
def test_comware_tables_parse_to_the_fabric(comware: Fabric, command: str, expect: Expect) -> None:
    _check(comware, command, expect)


def test_ecmp_next_hops_of_the_underlay(eos: Fabric, comware: Fabric) -> None:
    """Every other leaf's loopbacks over every uplink, each spine's over the links to it: the
    equal-cost paths of a leaf-spine fabric, as the routing tables print them."""
    for fabric, command in ((eos, "show ip route"), (comware, "display ip routing-table")):
        rows = fabric.rows(command)
        key = "next_hop" if fabric.platform == "arista_eos" else "nexthop_ip"
        hops: Counter[str] = Counter()
        for r in rows:
            hops[f"{r['network']}/{r['prefix_length']}"] += len(r[key]) if isinstance(r[key], list) else 1
        links = Counter(x.peer.split()[0] for x in fabric.intent.interfaces if x.role == "uplink" and x.peer)
        for other in fabric.compiled.intents.values():
            if other.name == fabric.switch:
                continue
            want = uplinks(fabric.intent, fabric.compiled) if other.role == "leaf" else links[other.name]
            for network in other.bgp.networks:
                assert hops[network] == want, (fabric.switch, other.name, network)


def test_comware_vpn_instance_parses_but_for_its_rd(comware: Fabric) -> None:
    """ntc-templates reads a route distinguisher as ASN:number only, so a real switch's output of
    this fabric's RDs (<router-id>:<tenant>, RFC 4364 type 1) fails its template too; with the RD
    in that form, the rest parses to the instance's name, interfaces and EVPN route targets."""
    vrf = comware.intent.vrfs[0]
    text = send_text(comware.conn, f"display ip vpn-instance instance-name {vrf.name}")
    assert f"Route Distinguisher : {vrf.rd}" in text
    with pytest.raises(Exception, match="Route Distinguisher"):
        parse_output(platform="hp_comware", command="display ip vpn-instance instance-name", data=text)
    rows = parse_output(
        platform="hp_comware",
        command="display ip vpn-instance instance-name",
        data=text.replace(vrf.rd, "65000:1"),
    )
    ports = {x.name for x in comware.intent.interfaces if x.vrf == vrf.name and x.enabled}
    assert [r["name"] for r in rows] == [vrf.name] and ports <= set(rows[0]["interfaces"])
    assert set(rows[0]["ipv4_export_rts"]) == set(vrf.route_targets_export)
    assert set(rows[0]["ipv4_import_rts"]) == set(vrf.route_targets_import)
