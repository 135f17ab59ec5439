"""The SONiC twin over SSH (netmiko's `linux` driver: the admin's bash prompt): CONFIG_DB read
with `show runningconfiguration all`, changed by `config apply-patch` under the Generic Config
Updater's checks (a table without a YANG model, a field or value the models refuse, an empty
table: each refused with nothing applied), kept and restored by `config checkpoint` / `config
rollback`, saved by `config save -y`; FRR configured and read through vtysh; the show output in
sonic-utilities' layouts (tests/captures/sonic/) read by the product's own readers; its facts
give the lab two cabled switches' link and BGP session.

The twin is found through its entry point; where fabricctl is not installed with it, the test
registers it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from netmiko import ConnectHandler
from netmiko.base_connection import BaseConnection

from fabricctl.lab import DeviceSpec, LabClock, LabFabric
from fabricctl.lab.devices.sonic import NOS
from fabricctl.lab.devices.sonic.render import parse, render
from fabricctl.lab.fabric_state import Cabling
from fabricctl.lab.nos import known, register, unregister
from fabricctl.platforms.sonic.counters import COUNTERS, INTERFACES, PFC, QUEUES, SHOW_CLOCK
from fabricctl.platforms.sonic.document import split
from fabricctl.platforms.sonic.health import BGP, HEALTH, LLDP, STATUS
from fabricctl.platforms.sonic.identity import IDENTITY, VERSION
from fabricctl.platforms.sonic.parse import parse_sonic
from tests.conftest import GOLDEN, send_text
from tests.lab.conftest import PASSWORD, USER

LEAF_PATCH: list[dict[str, Any]] = [
    {"op": "replace", "path": "/PORT/Ethernet0/admin_status", "value": "up"},
    {"op": "add", "path": "/INTERFACE", "value": {"Ethernet0": {}, "Ethernet0|10.0.0.0/31": {}}},
    {"op": "add", "path": "/LOOPBACK_INTERFACE", "value": {"Loopback0": {}, "Loopback0|10.0.255.11/32": {}}},
]
SPINE_PATCH: list[dict[str, Any]] = [
    {"op": "replace", "path": "/PORT/Ethernet0/admin_status", "value": "up"},
    {"op": "add", "path": "/INTERFACE", "value": {"Ethernet0": {}, "Ethernet0|10.0.0.1/31": {}}},
]


def _bgp(asn: int, router_id: str, peer: str, peer_as: int, desc: str) -> str:
    lines = [
        "configure terminal",
        f"router bgp {asn}",
        f"bgp router-id {router_id}",
        "no bgp ebgp-requires-policy",
        f"neighbor {peer} remote-as {peer_as}",
        f"neighbor {peer} description {desc}",
        "address-family ipv4 unicast",
        f"neighbor {peer} activate",
        "exit-address-family",
    ]
    return "vtysh " + " ".join(f'-c "{line}"' for line in lines)


@pytest.fixture
def sonic_lab(tmp_path: Path) -> Iterator[LabFabric]:
    ours = "sonic" not in known()  # its entry point registers it once installed
    if ours:
        register(NOS)
    cabling = Cabling()
    cabling.add(("leaf1", "Ethernet0"), ("spine1", "Ethernet0"))
    specs = [
        DeviceSpec("leaf1", "sonic", mgmt_ip="192.0.2.11", ports=4),
        DeviceSpec("spine1", "sonic", mgmt_ip="192.0.2.1", ports=4),
    ]
    try:
        with LabFabric(specs, state_dir=tmp_path / "state", clock=LabClock.frozen(), cabling=cabling) as lab:
            yield lab
    finally:
        if ours:
            unregister("sonic")


def connect(lab: LabFabric, name: str) -> BaseConnection:
    ep = lab.endpoints()[name]
    return ConnectHandler(
        device_type="linux", host=ep.host, port=ep.ssh_port, username=USER, password=PASSWORD
    )


def _patch(conn: BaseConnection, ops: list[dict[str, Any]], path: str = "/tmp/fabricctl.json") -> str:
    assert send_text(conn, f"echo '{json.dumps(ops)}' > {path}") == ""
    return send_text(conn, f"sudo config apply-patch {path}")


def _db(conn: BaseConnection) -> dict[str, Any]:
    """CONFIG_DB as `show runningconfiguration all` prints it, FRR's `bgpraw` taken out."""
    db: dict[str, Any] = json.loads(send_text(conn, "show runningconfiguration all"))
    assert db.pop("bgpraw").startswith("Building configuration...")
    return db


def test_a_patch_a_checkpoint_and_a_rollback(sonic_lab: LabFabric) -> None:
    conn = connect(sonic_lab, "leaf1")
    factory = _db(conn)
    assert json.loads(send_text(conn, "sudo sonic-cfggen -d --print-data")) == factory
    assert factory["PORT"]["Ethernet8"]["lanes"] == "8,9,10,11,12,13,14,15"
    assert factory["DEVICE_METADATA"]["localhost"]["docker_routing_config_mode"] == "split-unified"
    assert "Checkpoint created successfully." in send_text(conn, "sudo config checkpoint before")
    assert "Patch applied successfully." in _patch(conn, LEAF_PATCH)
    db = _db(conn)
    assert db["PORT"]["Ethernet0"]["admin_status"] == "up"
    assert db["PORT"]["Ethernet0"]["alias"] == "etp1"  # a field the patch does not name stays
    assert set(db["INTERFACE"]) == {"Ethernet0", "Ethernet0|10.0.0.0/31"}
    assert "Rollback completed successfully." in send_text(conn, "sudo config rollback before")
    assert _db(conn) == factory
    assert "does not exist" in send_text(conn, "sudo config rollback never-taken")


@pytest.mark.parametrize(
    ("ops", "error"),
    [
        (
            [{"op": "add", "path": "/NOT_A_TABLE", "value": {"x": {"a": "b"}}}],
            "Error: Given patch is not valid because it has changes to tables without YANG models",
        ),
        (
            [{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "jumbo"}],
            'Error: Given patch will produce invalid config. Error: Data Loading Failed\nValue "jumbo"',
        ),
        (
            [{"op": "add", "path": "/PORT/Ethernet0/colour", "value": "blue"}],
            "Error: Given patch will produce invalid config. Error: Data Loading Failed",
        ),
        (
            [{"op": "remove", "path": "/MGMT_INTERFACE/eth0|192.0.2.11~124"}],
            "Error: Given config has empty tables. Table: MGMT_INTERFACE",
        ),
        (
            [{"op": "remove", "path": "/VLAN/Vlan100"}],
            "Error: can't apply patch: member 'VLAN' not found",
        ),
    ],
)
def test_a_patch_the_models_refuse_changes_nothing(
    sonic_lab: LabFabric, ops: list[dict[str, Any]], error: str
) -> None:
    conn = connect(sonic_lab, "leaf1")
    before = _db(conn)
    out = _patch(conn, ops)
    assert "Failed to apply patch" in out
    assert error in out
    assert "Usage: config apply-patch [OPTIONS] PATCH_FILE_PATH" in out
    assert _db(conn) == before


def test_frr_through_vtysh_and_the_link_and_session_it_gives(sonic_lab: LabFabric) -> None:
    leaf, spine = connect(sonic_lab, "leaf1"), connect(sonic_lab, "spine1")
    assert "Patch applied successfully." in _patch(leaf, LEAF_PATCH)
    assert "Patch applied successfully." in _patch(spine, SPINE_PATCH)
    assert send_text(leaf, _bgp(65101, "10.0.255.11", "10.0.0.1", 65001, "spine1 underlay")) == ""
    assert send_text(spine, _bgp(65001, "10.0.255.1", "10.0.0.0", 65101, "leaf1 underlay")) == ""
    frr = send_text(leaf, 'vtysh -c "show running-config"')
    assert "router bgp 65101\n bgp router-id 10.0.255.11\n" in frr
    assert (
        " !\n address-family ipv4 unicast\n  neighbor 10.0.0.1 activate\n exit-address-family\nexit\n!\nend"
        in frr
    )
    assert "% Unknown command" in send_text(
        leaf, 'vtysh -c "configure terminal" -c "router bgp 65101" -c "neighbor 10.0.0.1 colour blue"'
    )
    summary = json.loads(send_text(leaf, 'vtysh -c "show bgp summary json"'))["ipv4Unicast"]
    assert summary["as"] == 65101
    assert summary["peers"]["10.0.0.1"]["state"] == "Established"
    status = send_text(leaf, "show interfaces status").splitlines()
    assert status[0].split()[:4] == ["Interface", "Lanes", "Speed", "MTU"]
    assert status[2].split()[0] == "Ethernet0" and status[2].split()[7:9] == ["up", "up"]
    lldp = send_text(leaf, "show lldp table")
    assert [line.split()[:3] for line in lldp.splitlines() if line.startswith("Ethernet0")] == [
        ["Ethernet0", "spine1", "Ethernet0"]
    ]
    # `no` removes a line
    assert (
        send_text(
            leaf,
            'vtysh -c "configure terminal" -c "router bgp 65101" -c "no neighbor 10.0.0.1 description spine1 underlay"',
        )
        == ""
    )
    assert "description" not in send_text(leaf, 'vtysh -c "show running-config"')


def test_save_makes_the_running_config_the_startup_config(sonic_lab: LabFabric) -> None:
    conn = connect(sonic_lab, "leaf1")
    _patch(conn, LEAF_PATCH)
    send_text(conn, "sudo config save -y")
    dev = sonic_lab.devices["leaf1"]
    assert parse(dev.startup).children == dev.running.children


def test_the_product_reads_back_what_the_twin_prints() -> None:
    """The golden SONiC configs the product renders (tests/golden/sonic-small/) load into the
    twin and print back as the same CONFIG_DB and frr.conf, which the product parses alike."""
    for path in sorted((GOLDEN / "sonic-small").glob("*.cfg")):
        text = path.read_text(encoding="utf-8")
        printed = render(parse(text), path.stem, "SN5600")
        db, frr, _ = split(path.stem, text)
        db2, frr2, _ = split(path.stem, printed)
        assert db2 == db, path.name
        assert frr2 == frr, path.name
        assert parse_sonic(path.stem, printed) == parse_sonic(path.stem, text)


def test_the_products_readers_read_the_twins_show_output(sonic_lab: LabFabric) -> None:
    """fabricctl's SONiC health, identity and interface-counter readers (written against
    sonic-utilities' captures) read what the twin prints."""
    leaf, spine = connect(sonic_lab, "leaf1"), connect(sonic_lab, "spine1")
    _patch(leaf, LEAF_PATCH)
    _patch(spine, SPINE_PATCH)
    send_text(leaf, _bgp(65101, "10.0.255.11", "10.0.0.1", 65001, "spine1 underlay"))
    send_text(spine, _bgp(65001, "10.0.255.1", "10.0.0.0", 65101, "leaf1 underlay"))
    health = HEALTH.parse(
        {
            STATUS: send_text(leaf, STATUS),
            LLDP: send_text(leaf, LLDP),
            BGP: json.loads(send_text(leaf, BGP)),
        }
    )
    assert health.ports["Ethernet0"] == (True, True)
    assert health.ports["Ethernet8"] == (False, False)
    assert health.speeds is not None and health.speeds["Ethernet0"] == 800
    assert health.lldp["Ethernet0"] == ("spine1", "Ethernet0")
    assert health.bgp == {"10.0.0.1": "Established"}
    identity = IDENTITY.parse({VERSION: send_text(leaf, VERSION)})
    assert "SN5600" in identity.model and identity.serial
    counters = COUNTERS.parse(
        {
            SHOW_CLOCK: send_text(leaf, SHOW_CLOCK),
            INTERFACES: send_text(leaf, INTERFACES),
            PFC: send_text(leaf, PFC),
            QUEUES: json.loads(send_text(leaf, f"{QUEUES} --json")),
        }
    )
    assert counters.clock is not None
    assert set(counters.ports) == {"Ethernet0", "Ethernet8", "Ethernet16", "Ethernet24"}
    assert counters.ports["Ethernet0"].pfc == dict.fromkeys(range(8), (0, 0))
    assert counters.ports["Ethernet0"].queue_sent == dict.fromkeys(range(8), 0)


def test_day0_runs_the_configdb_json_plugin_of_a_ztp_json() -> None:
    """SONiC ZTP (sonic-net/SONiC doc/ztp/ztp.md): the boot file's `configdb-json` section names
    the CONFIG_DB the switch boots with; a plugin the twin lacks, or a file that is not a ZTP JSON,
    is refused."""
    db = {"DEVICE_METADATA": {"localhost": {"hostname": "leaf9"}}, "PORT": {"Ethernet0": {"mtu": "9100"}}}
    files = {"http://192.0.2.250/leaf9/config_db.json": json.dumps(db)}
    boot = {"ztp": {"01-configdb-json": {"url": {"source": "http://192.0.2.250/leaf9/config_db.json"}}}}
    text, startup = NOS.ztp_boot("http://192.0.2.250/ztp.json", json.dumps(boot), files.__getitem__)
    assert startup
    tree = parse(text)
    assert split("leaf9", render(tree, "leaf9", "SN5600"))[0] == db
    assert "hostname leaf9" in render(tree, "leaf9", "SN5600")
    with pytest.raises(ValueError, match="configdb-json plugin only"):
        NOS.ztp_boot("u", json.dumps({"ztp": {"snmp": {"communities-ro": ["public"]}}}), files.__getitem__)
    with pytest.raises(ValueError, match="not a ZTP JSON"):
        NOS.ztp_boot("u", "#!/bin/sh\n", files.__getitem__)
