"""NVIDIA Cumulus Linux (NVUE): port names, the read-back parser on NVIDIA's own startup.yaml and on
the rendered example, the health reader, day 0."""

from __future__ import annotations

import json
from ipaddress import IPv4Interface, IPv4Network
from pathlib import Path

import pytest
import yaml

from fabricctl.compile.build import Compiled
from fabricctl.platforms import get_platform
from fabricctl.platforms.nvue import port_name, port_position
from fabricctl.platforms.nvue.health import BGP, INTERFACES, LLDP, parse
from fabricctl.platforms.nvue.parse import NvueConfigError, parse_nvue
from fabricctl.platforms.nvue.terminal import pending
from fabricctl.platforms.nvue.ztp import dhcp_options, files
from tests.conftest import NVUE_SMALL, render_one

CAPTURES = Path(__file__).resolve().parent / "captures" / "nvue"


def test_breakout_lanes_are_s0_based() -> None:
    """`link breakout 4x` on swp1 makes swp1s0-3 (Switch Port Attributes)."""
    assert [port_name(1, lane) for lane in (None, 1, 2, 3, 4)] == [
        "swp1",
        "swp1s0",
        "swp1s1",
        "swp1s2",
        "swp1s3",
    ]
    assert port_position("swp64s3") == (64, 4) and port_position("swp7") == (7, None)
    assert port_position("swp1s") is None and port_position("lo") is None and port_position("vlan112") is None


def test_reserved_names_include_nvues_own() -> None:
    nvue = get_platform("nvue")
    for name in ("mgmt", "default", "all", "none", "Auto"):
        assert nvue.reserved(name) is not None, name
    assert nvue.reserved("team-llm") is None
    assert nvue.reserved("team-training") == (
        "NVIDIA Cumulus Linux (NVUE) takes VRF names of at most 15 characters (tnt-team-training has 17)"
    )


def test_nvidias_startup_yaml_reads_back() -> None:
    """border01 of NVIDIA's EVPN symmetric-routing example (captures/nvue): VRFs with their L3VNIs,
    the VRR gateways, VLAN ranges as segments, `dhcp` and the management VRF left alone."""
    cfg = parse_nvue("border01", (CAPTURES / "border01-startup.yaml").read_text())
    assert {n: v.vni.value for n, v in cfg.vrfs.items() if v.vni} == {"RED": 4001, "BLUE": 4002}
    svi = cfg.interfaces["vlan101"]
    assert (
        svi.vrf is not None and svi.vrf.value == "RED" and svi.vrf.src.text == "interface vlan101 ip vrf RED"
    )
    assert [a.value for a in svi.ipv4] == [IPv4Interface("10.1.101.64/24"), IPv4Interface("10.1.101.1/24")]
    assert sorted(cfg.segments) == ["101", "102"]
    assert cfg.segments["102"].gateway is not None and cfg.segments["102"].gateway.value == "vlan102"
    assert cfg.interfaces["eth0"].ipv4 == []  # `address: dhcp`
    assert cfg.bgp.asn is not None and cfg.bgp.asn.value == 65253
    assert cfg.bgp_neighbors == {}  # unnumbered peers in a peer group with `remote-as external`
    assert cfg.dscp_map == {}  # no RoCE profile on this switch
    assert cfg.interfaces["swp51"].qos.pfc_enabled is None
    assert cfg.interfaces["bond3"].mtu is not None and cfg.interfaces["bond3"].mtu.value == 9000


def test_rendered_leaf_reads_back(nvue_small: Compiled) -> None:
    intent = nvue_small.intents["leaf1"]
    cfg = parse_nvue("leaf1", render_one(intent, NVUE_SMALL))
    gpu = cfg.interfaces["swp9s0"]
    assert gpu.vrf is not None and gpu.vrf.value == "tnt-team-llm"
    assert gpu.acl_in is not None and gpu.acl_in.value == "tnt-team-llm-in"
    assert (
        gpu.qos.no_drop.keys() == {3} and gpu.qos.watchdog is not None and gpu.qos.strict_queues.keys() == {6}
    )
    assert cfg.dscp_map[26].value == 3 and cfg.dscp_map[48].value == 6
    assert cfg.dscp_map[26].src.text == "qos roce mode lossless"  # the profile maps 24-31 to 3
    assert cfg.queue_of(3) == 3 and cfg.queue_of(6) == 6 and cfg.queue_of(1) == 0
    assert cfg.interfaces["swp9s1"].shutdown is not None  # an unassigned lane is shut down
    acl = cfg.acls["tnt-team-llm-in"].ordered()
    assert [(r.seq, r.action) for r in acl] == [(10, "permit"), (1090, "permit"), (65000, "deny")]
    assert acl[0].source == IPv4Network("172.21.11.0/27") and acl[-1].source is None
    seg = cfg.segments["112"]
    assert (
        seg.vni is not None and seg.vni.value == 10012 and [t.value for t in seg.imports] == ["65300:10012"]
    )
    assert seg.gateway is not None and seg.gateway.value == "vlan112"
    vrf = cfg.vrfs["tnt-storage"]
    assert vrf.vni is not None and vrf.vni.value == 50090
    assert {t.value for t in vrf.imports} == {"65300:50090", "65300:50011", "65300:50012"}
    assert cfg.bgp_neighbors["10.65.8.0"].value == 65300 and "10.65.0.1" not in cfg.bgp.ipv4_peers
    assert cfg.bgp.max_paths is not None and cfg.bgp.max_paths.value == 8
    assert cfg.bgp.relax is not None and cfg.bgp.relax.value is True
    assert (
        cfg.watchdog_timers is not None and cfg.watchdog_timers.value == "polling-interval 100 robustness 3"
    )


def test_rendered_config_is_yaml_nvue_reads_with_free_text_quoted(nvue_small: Compiled) -> None:
    """Every description and remark is one YAML string: a tenant description cannot open a key."""
    text = render_one(nvue_small.intents["leaf1"], NVUE_SMALL)
    data = yaml.load(text, Loader=yaml.BaseLoader)
    assert [next(iter(part)) for part in data] == ["header", "set"]
    swp = data[1]["set"]["interface"]["swp9s0"]
    assert swp["description"] == "node01 nic0 tenant team-llm"
    assert data[1]["set"]["interface"]["swp9"]["link"]["breakout"] == {"2x": {}}


def test_not_yaml_is_a_clear_error() -> None:
    with pytest.raises(NvueConfigError, match="leaf1: config is not NVUE YAML"):
        parse_nvue("leaf1", "- set:\n  interface: [\n")


def test_pending_sees_an_unsaved_apply() -> None:
    running = "- header:\n    rev-id: 2\n- set:\n    qos:\n      roce:\n        mode: lossless\n"
    saved_same = "- header:\n    rev-id: 1\n- set:\n    qos:\n      roce:\n        mode: lossless\n"
    assert pending(running, saved_same, None) is None  # only the header differs
    assert pending(running, "- set:\n    qos: {}\n", None) is not None


def test_health_reads_nvue_json() -> None:
    """The objects `nv show ... -o json` returns (NVUE object model: interface `link` admin-status,
    oper-status and speed; LLDP neighbor chassis system-name and port name; BGP neighbor state)."""
    rows = {
        INTERFACES: {
            "swp1": {"type": "swp", "link": {"admin-status": "up", "oper-status": "up", "speed": "800G"}},
            "swp9s1": {"type": "swp", "link": {"admin-status": "down", "oper-status": "down"}},
            "lo": {"type": "loopback", "link": {"admin-status": "up", "oper-status": "up"}},
        },
        # NVIDIA's `nv show interface swp51 lldp neighbor spine01` (Show Commands > LLDP), trimmed
        LLDP: {
            "swp51": {
                "lldp": {
                    "neighbor": {
                        "spine01": {
                            "age": 323055,
                            "chassis": {"chassis-id": "44:38:39:22:01:82", "system-name": "spine01"},
                            "port": {"description": "swp1", "name": "swp1", "ttl": 120, "type": "ifname"},
                        }
                    }
                }
            }
        },
        BGP: {"10.65.8.0": {"state": "established"}, "10.65.8.2": {"state": "idle"}},
    }
    health = parse(rows)
    assert health.ports == {"swp1": (True, True), "swp9s1": (False, False)}
    assert health.speeds == {"swp1": 800}
    assert health.lldp == {"swp51": ("spine01", "swp1")}
    assert health.bgp == {"10.65.8.0": "Established", "10.65.8.2": "Idle"}
    assert parse({}).ports == {}


def test_ztp_script_and_option_239() -> None:
    made = files("leaf5", "- set: {}\n", "http://192.0.2.5:8080/leaf5")
    script = made["leaf5.ztp.sh"]
    assert "CUMULUS-AUTOPROVISIONING" in script and "nv config replace /tmp/leaf5.nvue.yaml" in script
    (option,) = dhcp_options("http://192.0.2.5:8080/leaf5/leaf5.ztp.sh", "192.0.2.5")
    assert option["code"] == 239 and option["csv-format"] is False
    assert bytes.fromhex(str(option["data"])).decode() == "http://192.0.2.5:8080/leaf5/leaf5.ztp.sh"
    json.dumps(option)


def _tree(text: str) -> list[dict[str, object]]:
    loaded: list[dict[str, object]] = yaml.load(text, Loader=yaml.BaseLoader)
    return loaded


def _text(parts: list[dict[str, object]]) -> str:
    return yaml.safe_dump(parts, sort_keys=False)


@pytest.fixture(scope="module")
def leaf1_text() -> str:
    from fabricctl import pipeline

    return render_one(pipeline.compile(NVUE_SMALL).intents["leaf1"], NVUE_SMALL)


def test_remediation_is_nv_set_and_unset_within_the_owned_scope(leaf1_text: str, tmp_path: Path) -> None:
    """The switch runs leaf1 as rendered plus what fabricctl does not own (hostname, eth0, the
    management VRF, an operator's ACL and an unmarked look-alike, a port outside the cabling plan)
    and an old MTU; the intent drops tenant storage. The plan unsets the storage ACL and VRF
    (their rules carry the fabric's mark), sets the MTU, touches nothing foreign."""
    from fabricctl import pipeline
    from fabricctl.config.diff import diff_device
    from tests.conftest import copy_fabric

    running = _tree(leaf1_text)
    tree = running[1]["set"]
    assert isinstance(tree, dict)
    tree["system"] = {"hostname": "leaf1"}
    tree["interface"]["eth0"] = {"ip": {"address": {"192.0.2.111/24": {}}, "vrf": "mgmt"}, "type": "eth"}
    tree["interface"]["swp40"] = {"description": "ops link", "type": "swp"}
    tree["interface"]["swp1"]["link"]["mtu"] = "9000"
    tree["vrf"]["mgmt"] = {"table": "auto"}
    tree["acl"]["ops-in"] = {"rule": {"10": {"action": {"permit": {}}}}, "type": "ipv4"}
    tree["acl"]["tnt-snmp-in"] = {"rule": {"10": {"action": {"deny": {}}, "remark": "snmp"}}, "type": "ipv4"}
    root = copy_fabric(NVUE_SMALL, tmp_path / "fabric")
    (root / "tenants" / "storage.yaml").unlink()
    for name in ("team-llm", "team-hpc"):  # no longer shared with storage
        path = root / "tenants" / f"{name}.yaml"
        path.write_text(path.read_text().replace("shared_with: [storage]\n", ""))
    intended = render_one(pipeline.compile(root).intents["leaf1"], root)

    dialect = get_platform("nvue").dialect.for_fabric("nvue-small")
    plan = diff_device("leaf1", _text(running), intended, dialect)
    assert "nv set interface swp1 link mtu 9216" in plan.commands
    assert "nv unset interface swp1 link mtu" not in plan.commands  # a value is replaced, not removed
    assert "nv unset acl tnt-storage-in" in plan.commands and "nv unset vrf tnt-storage" in plan.commands
    assert plan.commands.index("nv unset vrf tnt-storage") > plan.commands.index(
        "nv unset interface swp16s0 acl"
    )  # objects go after what refers to them
    touched = " ".join(plan.commands)
    for foreign in ("system", "eth0", "swp40", "mgmt", "ops-in", "tnt-snmp-in"):
        assert foreign not in touched, foreign
    assert plan.lookalikes == ["acl tnt-snmp-in"]
    assert all(c.startswith(("nv set ", "nv unset ")) for c in plan.commands)
    assert not diff_device("leaf1", intended, intended, dialect).changed


def test_a_breakout_change_flaps_the_port(leaf1_text: str) -> None:
    from fabricctl.config.diff import diff_device
    from fabricctl.deploy.disruption import _flapping_ports

    running = _tree(leaf1_text)
    tree = running[1]["set"]
    assert isinstance(tree, dict)
    tree["interface"]["swp9"]["link"]["breakout"] = {"4x": {}}
    dialect = get_platform("nvue").dialect.for_fabric("nvue-small")
    plan = diff_device("leaf1", _text(running), leaf1_text, dialect)
    assert plan.commands == ["nv set interface swp9 link breakout 2x"]  # a choice: set replaces 4x
    assert _flapping_ports(plan.diff, dialect) == {"swp9"}


@pytest.mark.parametrize("example", ["nvue-small", "mixed-pods"])
def test_examples_validate_render_and_verify(
    example: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The NVUE example and the mixed fabric (an NVUE pod beside Comware pods under Comware
    super-spines) through the CLI: every proof holds across the vendors."""
    from tests.conftest import REPO, copy_fabric, run_cli

    def cli(*argv: str) -> tuple[int, str, str]:
        try:
            return run_cli([*argv, "--root", str(root)], capsys)
        except SystemExit as exc:  # commands that end through click's exit
            out, err = capsys.readouterr()
            return int(exc.code or 0), out, err

    root = copy_fabric(REPO / "examples" / example, tmp_path / example)
    assert cli("validate")[0] == 0
    code, out, err = cli("render", "--out", str(tmp_path / "out"))
    assert code == 0, err
    code, out, err = cli("verify")
    assert code == 0, out + err
    assert "isolation, lossless consistency, ECMP width and capacity hold" in out
    nvue = [p for p in (tmp_path / "out").glob("*.cfg") if p.read_text().startswith("- header:")]
    assert nvue, "the NVUE switches render NVUE YAML"


@pytest.mark.parametrize(
    ("watchdog", "on"), [("{}", True), ("{state: enabled}", True), ("{state: disabled}", False)]
)
def test_pfc_watchdog_as_nvue_writes_it(watchdog: str, on: bool) -> None:
    """`nv set interface swp1 qos pfc-watchdog` (QoS > PFC Watchdog) leaves an empty object."""
    text = "- set:\n    qos: {roce: {mode: lossless}}\n    interface:\n      swp1: {type: swp, qos: {pfc-watchdog: %s}}\n"
    cfg = parse_nvue("leaf1", text % watchdog)
    assert (cfg.interfaces["swp1"].qos.watchdog is not None) is on
