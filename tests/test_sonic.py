"""SONiC (fabricctl/platforms/sonic): CONFIG_DB validated by sonic-net's own YANG models with
libyang, goldens of the rendered text, and the read-back the proofs run on.

SONiC is not a registered platform yet (no lab twin), so no fabric compiles for it: its intents
here are the nvue-small fabric's, the same SN5600 switches, with each port named as SONiC names
it (platforms' own namers: NVUE's swp<p>s<l> -> SONiC's Ethernet<first SerDes lane>) and the
SONiC QoS values. The proofs (isolation, lossless, ECMP) run on the SONiC text read back, its
ports named back, and must find exactly what they find on the NVUE configs of the same fabric.
"""

from __future__ import annotations

import copy
import re
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from fabricctl import pipeline
from fabricctl.artifacts import intent_yaml
from fabricctl.compile.build import Compiled
from fabricctl.compile.intent import DeviceIntent
from fabricctl.config.readback import SwitchConfig
from fabricctl.platforms import nvue
from fabricctl.platforms.sonic import BREAKOUT_MODES, MODELS, port_lanes, port_name, port_position, vrf_name
from fabricctl.platforms.sonic import RELEASES as SONIC_RELEASES
from fabricctl.platforms.sonic.configdb import config_db, dumps
from fabricctl.platforms.sonic.document import SonicConfigError, render, split
from fabricctl.platforms.sonic.frr import frr_conf
from fabricctl.platforms.sonic.parse import parse_sonic
from fabricctl.platforms.sonic.qos import SonicQosTuning
from fabricctl.verify.ecmp import check_ecmp
from fabricctl.verify.facts import Facts
from fabricctl.verify.isolation import check_isolation
from fabricctl.verify.lossless import check_lossless
from tests.conftest import GOLDEN, assert_golden

if TYPE_CHECKING:
    from tests.sonic_yang import SonicYang

SWITCHES = ["spine1", "leaf1", "leaf2"]
#: The releases fabricctl renders for, each with its YANG models vendored (tests/data/sonic-yang/).
RELEASES = tuple(r.name for r in SONIC_RELEASES)
YANG_DIR = Path(__file__).parent / "data" / "sonic-yang"
NO_LIBYANG = (
    "libyang's Python bindings are not installed: the `yang` extra, built on Debian's "
    "libyang2-dev (.ci/run installs both)"
)


def sonic_yang(release: str) -> SonicYang:
    """The release's own YANG models in libyang (the test skips, saying why, without it)."""
    pytest.importorskip("libyang", reason=NO_LIBYANG)
    from tests.sonic_yang import SonicYang

    return SonicYang(release)


_SWP = re.compile(r"swp\d+(?:s\d+)?")


def _ways(intent: DeviceIntent) -> dict[int, int]:
    out: dict[int, int] = {}
    for b in intent.breakouts:
        pos = nvue.port_position(b.port)
        assert pos is not None
        out[pos[0]] = int(b.mode.partition("x")[0])
    return out


def _renamer(intent: DeviceIntent) -> dict[str, str]:
    """NVUE port name -> SONiC port name, for every port of the switch."""
    ways = _ways(intent)
    out: dict[str, str] = {}
    for i in intent.interfaces:
        pos = nvue.port_position(i.name)
        assert pos is not None, i.name
        port, lane = pos
        out[i.name] = port_name(port, lane, ways.get(port, 1)) if lane else port_name(port)
    return out


def as_sonic(intent: DeviceIntent, names: dict[str, str] | None = None) -> DeviceIntent:
    """The intent for the same switch running SONiC (see the module docstring)."""
    names = names or _renamer(intent)
    data: dict[str, Any] = intent.model_dump()

    def rename(text: str) -> str:
        return _SWP.sub(lambda m: names.get(m[0], m[0]), text)

    for i in data["interfaces"]:
        i["name"] = names[i["name"]]
        i["description"] = rename(i["description"])
        i["peer"] = rename(i["peer"]) if i["peer"] else None
    for b in data["breakouts"]:  # a broken-out port is named as its first lane
        b["port"] = port_name(int(b["port"].removeprefix("swp")))
    data.update(platform="sonic", os_version=SONIC_RELEASES[0].name)
    data["qos"]["tuning"] = SonicQosTuning().model_dump()
    return DeviceIntent.model_validate(data)


@pytest.fixture(scope="module", params=RELEASES)
def yang(request: pytest.FixtureRequest) -> SonicYang:
    """Each named release's own models (the test runs once per release)."""
    assert isinstance(request.param, str)
    return sonic_yang(request.param)


def test_the_vendored_models_are_the_releases_rendered_for() -> None:
    assert sorted(p.name for p in YANG_DIR.iterdir() if p.is_dir()) == sorted(RELEASES)


@pytest.fixture(scope="module")
def sonic(nvue_small: Compiled) -> dict[str, DeviceIntent]:
    return {name: as_sonic(intent) for name, intent in nvue_small.intents.items()}


def test_ports_are_named_by_their_first_serdes_lane() -> None:
    assert [port_name(1), port_name(64)] == ["Ethernet0", "Ethernet504"]
    assert [port_name(2, lane, 2) for lane in (1, 2)] == ["Ethernet8", "Ethernet12"]
    assert [port_name(2, lane, 4) for lane in (1, 2, 3, 4)] == [
        "Ethernet8",
        "Ethernet10",
        "Ethernet12",
        "Ethernet14",
    ]
    assert port_position("Ethernet12", 2) == (2, 2) and port_position("Ethernet8") == (2, None)
    assert port_position("Ethernet10", 2) is None and port_position("swp1") is None
    assert port_lanes(2, 2, 2) == [12, 13, 14, 15] and port_lanes(64) == list(range(504, 512))
    with pytest.raises(ValueError, match="lane 3"):
        port_name(1, 3, 2)
    model = MODELS[0]
    assert set(model.breakouts) <= set(BREAKOUT_MODES) and model.ports * 8 == 512


def test_vrf_names_fit_sonic() -> None:
    assert vrf_name("tnt-intern-01") == "Vrf-intern-01"


@pytest.mark.parametrize("switch", ["spine1", "spine2", "leaf1", "leaf2", "leaf3", "leaf4"])
def test_config_db_is_valid_by_sonic_yang_models(
    switch: str, sonic: dict[str, DeviceIntent], yang: SonicYang
) -> None:
    db = config_db(sonic[switch])
    yang.validate(db)
    assert {"PORT", "INTERFACE", "LOOPBACK_INTERFACE", "PORT_QOS_MAP", "PFC_WD", "WRED_PROFILE"} <= set(db)


def test_every_table_of_the_issue_is_written_and_valid(
    sonic: dict[str, DeviceIntent], yang: SonicYang
) -> None:
    db = config_db(sonic["leaf1"])
    wanted = {
        "PORT", "BREAKOUT_CFG", "VLAN", "VLAN_MEMBER", "VLAN_INTERFACE", "VRF", "VXLAN_TUNNEL",
        "VXLAN_TUNNEL_MAP", "VXLAN_EVPN_NVO", "ACL_TABLE", "ACL_RULE", "PORT_QOS_MAP", "DSCP_TO_TC_MAP",
        "TC_TO_QUEUE_MAP", "BUFFER_PG", "WRED_PROFILE", "PFC_WD", "QUEUE", "SCHEDULER", "CABLE_LENGTH",
    }  # fmt: skip
    assert wanted <= set(db), wanted - set(db)
    yang.validate(db)
    svi = db["VLAN_INTERFACE"]["Vlan112"]
    assert svi == {"mac_addr": "00:00:5e:00:01:01", "vrf_name": "Vrf-team-hpc"}  # the anycast MAC
    assert "Vlan112|172.21.12.1/27" in db["VLAN_INTERFACE"]  # the anycast address, the same on every leaf
    assert db["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] == "3"
    assert db["WRED_PROFILE"]["ROCE-LOSSLESS"]["ecn"] == "ecn_all"
    assert db["DSCP_TO_TC_MAP"]["ROCE-LOSSLESS"]["26"] == "3"
    queues = {k.partition("|")[2]: v for k, v in db["QUEUE"].items() if k.startswith("Ethernet0|")}
    assert queues == {
        "0": {"scheduler": "ROCE-LOSSLESS.lossy"},
        "3": {"scheduler": "ROCE-LOSSLESS.lossless", "wred_profile": "ROCE-LOSSLESS"},
        "6": {"scheduler": "ROCE-LOSSLESS.strict"},
    }
    weights = [int(row["weight"]) for row in db["SCHEDULER"].values() if row["type"] == "DWRR"]
    assert sum(weights) == 100


#: Wrong CONFIG_DB the models refuse: (table, key, field, value, what libyang says).
PLANTED = [
    ("PFC_WD", "Ethernet0", "detection_time", "50", 'value "50" is out of the allowed range'),  # 100..5000
    ("PORT", "Ethernet0", "speed", "fast", 'uint32 value "fast"'),
    ("PORT", "Ethernet0", "admin_status", "enabled", 'enumeration value "enabled"'),  # up|down
    ("WRED_PROFILE", "ROCE-LOSSLESS", "ecn", "ecn_blue", "ecn"),  # enumeration
    ("VLAN_MEMBER", "Vlan999|Ethernet96", "tagging_mode", "untagged", "Vlan999"),  # leafref: no such VLAN
    ("VXLAN_TUNNEL_MAP", "vtep1|map_1_Vlan5000", "vlan", "Vlan5000", "Vlan5000"),  # pattern
    ("PORT_QOS_MAP", "Ethernet0", "pfc_enable", "3,9", '"3,9" does not conform'),  # priorities 0-7
    ("VRF", "tnt-team-hpc", "vni", "50012", "Invalid VRF name"),  # a VRF name starts with Vrf
    ("ACL_RULE", "tnt-storage-in|RULE_10", "SRC_PORT_X", "1", "SRC_PORT_X"),  # no such field
]


@pytest.mark.parametrize(("table", "key", "field", "value", "said"), PLANTED)
def test_a_planted_wrong_field_is_refused(
    table: str, key: str, field: str, value: str, said: str, sonic: dict[str, DeviceIntent], yang: SonicYang
) -> None:
    db = copy.deepcopy(config_db(sonic["leaf1"]))
    yang.validate(db)
    row = db.setdefault(table, {}).setdefault(key, {})
    row[field] = value
    if table == "VXLAN_TUNNEL_MAP":
        row["vni"] = "1"
    from tests.sonic_yang import ConfigDbError  # libyang is there: the fixture `yang` is

    with pytest.raises(ConfigDbError) as refused:
        yang.validate(db)
    assert said in str(refused.value), refused.value


def test_a_dangling_reference_is_refused(sonic: dict[str, DeviceIntent], yang: SonicYang) -> None:
    from tests.sonic_yang import ConfigDbError  # libyang is there: the fixture `yang` is

    db = copy.deepcopy(config_db(sonic["leaf1"]))
    db["SAG"] = {"GLOBAL": {"gateway_mac": "00:00:5e:00:01:01"}}  # no model of the release has it
    with pytest.raises(ConfigDbError, match="SAG"):
        yang.validate(db)
    db = copy.deepcopy(config_db(sonic["leaf1"]))
    del db["VLAN"]["Vlan112"]  # still named by its members, its SVI and its VXLAN map
    with pytest.raises(ConfigDbError):
        yang.validate(db)
    db = copy.deepcopy(config_db(sonic["leaf1"]))
    del db["VRF"]["Vrf-team-hpc"]  # still named by its SVI and its ports
    with pytest.raises(ConfigDbError):
        yang.validate(db)


@pytest.mark.parametrize("switch", SWITCHES)
def test_rendered_golden(switch: str, sonic: dict[str, DeviceIntent]) -> None:
    """The config and, beside it as for every golden, the intent it was rendered from."""
    assert_golden(GOLDEN / "sonic-small" / f"{switch}.intent.yaml", intent_yaml(sonic[switch]))
    assert_golden(GOLDEN / "sonic-small" / f"{switch}.cfg", render(sonic[switch]))


def test_no_stale_sonic_goldens() -> None:
    """Every file under tests/golden/sonic-small/ is a switch's intent or config above."""
    found = {p.name for p in (GOLDEN / "sonic-small").iterdir()}
    assert found == {f"{s}{suffix}" for s in SWITCHES for suffix in (".intent.yaml", ".cfg")}


def test_the_text_is_config_db_then_frr(sonic: dict[str, DeviceIntent]) -> None:
    intent = sonic["leaf1"]
    db, frr, line = split("leaf1", render(intent))
    assert dumps(db) + frr == render(intent) and frr == frr_conf(intent)
    assert render(intent).splitlines()[line - 1] == "hostname leaf1"
    assert "vrf Vrf-team-hpc\n vni 50012\nexit-vrf" in frr
    with pytest.raises(SonicConfigError, match="leaf1"):
        split("leaf1", "hostname leaf1\n")


def _named_back(cfg: SwitchConfig, names: dict[str, str]) -> SwitchConfig:
    """The read-back with SONiC's port names replaced by the NVUE names the compiled fabric uses."""
    back = {sonic: nv for nv, sonic in names.items()}
    interfaces = {}
    for name, intf in cfg.interfaces.items():
        intf.name = back.get(name, name)
        interfaces[intf.name] = intf
    cfg.interfaces = interfaces
    return cfg


def _readback(compiled: Compiled) -> dict[str, SwitchConfig]:
    out = {}
    for name, intent in compiled.intents.items():
        names = _renamer(intent)
        out[name] = _named_back(parse_sonic(name, render(as_sonic(intent, names))), names)
    return out


def _proofs(compiled: Compiled, parsed: dict[str, SwitchConfig]) -> list[str]:
    iso, _ = check_isolation(compiled, parsed, Facts(compiled))
    lossless, _, _ = check_lossless(compiled, parsed)
    ecmp, _ = check_ecmp(compiled, parsed)
    return sorted(f"{v.check} {v.switch} {v.object}: {v.counterexample}" for v in iso + lossless + ecmp)


def test_the_proofs_hold_on_the_sonic_read_back(nvue_small: Compiled) -> None:
    """Every proof finds on the SONiC text what it finds on NVUE's, except the tunnel steps: the
    compiled fabric's switch model is NVUE's, whose encapsulation DSCP is a configuration line,
    while SONiC's VXLAN_TUNNEL has no such field (its model states every step unknown)."""
    nvue_configs = pipeline.render(nvue_small.intents)
    nvue_parsed = {n: nvue.PLATFORM.parse(n, text) for n, text in nvue_configs.items()}
    on_sonic = _proofs(nvue_small, _readback(nvue_small))
    assert [p for p in on_sonic if not p.startswith("tunnel-")] == _proofs(nvue_small, nvue_parsed) == []
    assert {p.split()[0] for p in on_sonic} <= {"tunnel-encap", "tunnel-decap", "tunnel-ecn", "tunnel-trust"}
    steps = MODELS[0].tunnel_qos
    assert {steps.marking.mode, steps.ecn.mode, steps.decap.mode} == {"unknown"}


def test_breaches_planted_in_config_db_are_found(nvue_small: Compiled) -> None:
    """Planted in the CONFIG_DB text itself: an ACL rule that accepts anything ahead of the
    tenant's rules, and PFC off on one of a tenant's lossless ports, each read back and proven."""
    parsed = _readback(nvue_small)
    intent = nvue_small.intents["leaf1"]
    names = _renamer(intent)
    sonic_intent = as_sonic(intent, names)
    db = config_db(sonic_intent)
    db["ACL_RULE"]["tnt-storage-in|RULE_1"] = {
        "PRIORITY": "999998",
        "PACKET_ACTION": "ACCEPT",
        "IP_TYPE": "IPV4ANY",
    }
    port = db["ACL_TABLE"]["tnt-team-hpc-in"]["ports"][0]
    del db["PORT_QOS_MAP"][port]["pfc_enable"]
    parsed["leaf1"] = _named_back(parse_sonic("leaf1", dumps(db) + frr_conf(sonic_intent)), names)
    found = [p for p in _proofs(nvue_small, parsed) if not p.startswith("tunnel-")]
    assert any(f.startswith("acl-") and "leaf1" in f for f in found), found
    assert any("pfc" in f and "leaf1" in f for f in found), found


def test_a_switch_in_the_traditional_buffer_model_sizes_no_headroom(sonic: dict[str, DeviceIntent]) -> None:
    """BUFFER_PG "NULL" is a headroom only in the dynamic buffer model; in the traditional one
    the lossless priority group has none, and the read-back says so."""
    intent = sonic["leaf1"]
    db = config_db(intent)
    assert parse_sonic("leaf1", render(intent)).interfaces["Ethernet0"].qos.headroom
    db["DEVICE_METADATA"]["localhost"]["buffer_model"] = "traditional"
    cfg = parse_sonic("leaf1", dumps(db) + frr_conf(intent))
    assert cfg.interfaces["Ethernet0"].qos.headroom == {}
    assert cfg.interfaces["Ethernet0"].qos.no_drop  # PFC itself is still on


VTYSH = shutil.which("vtysh")


def _dry_run(text: str, folder: Path) -> subprocess.CompletedProcess[str]:
    conf = folder / "frr.conf"
    conf.write_text(text, encoding="utf-8")
    assert VTYSH is not None
    return subprocess.run(
        [VTYSH, "-C", "-f", str(conf)], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.skipif(
    VTYSH is None, reason="FRR's vtysh is not installed (Debian's frr package; .ci/run installs it)"
)
@pytest.mark.parametrize("switch", ["spine1", "leaf1"])
def test_frr_conf_is_valid_by_frr_itself(switch: str, sonic: dict[str, DeviceIntent], tmp_path: Path) -> None:
    """`vtysh -C` (--dryrun) reads the file with FRR's own command definitions; a planted wrong
    line is refused, with its line number."""
    text = frr_conf(sonic[switch])
    good = _dry_run(text, tmp_path)
    assert good.returncode == 0, good.stdout + good.stderr
    bad = _dry_run(
        text.replace(" bgp bestpath as-path multipath-relax", " bgp bestpath as-path multipath-relaxed"),
        tmp_path,
    )
    assert bad.returncode != 0 and "Unknown command" in bad.stdout + bad.stderr
