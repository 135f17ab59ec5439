"""The JSON Patch fabricctl hands SONiC's Generic Config Updater (platforms/sonic/patch.py),
applied here with the library GCU itself applies patches with (jsonpatch): owned rows only, a
removed tenant's rows gone, foreign rows and the platform's own fields kept, and the result
still valid by sonic-net's YANG models (GCU's post-update validation)."""

from __future__ import annotations

import copy
import shutil
from typing import Any

import jsonpatch
import pytest

from fabricctl import pipeline
from fabricctl.compile.build import Compiled
from fabricctl.config.rules import fabric_mark
from fabricctl.platforms.sonic.configdb import ConfigDb, config_db
from fabricctl.platforms.sonic.patch import json_patch, pointer
from tests.conftest import NVUE_SMALL
from tests.test_sonic import RELEASES, as_sonic, sonic_yang

MARK = fabric_mark("nvue-small")

#: Rows fabricctl did not make: an unmarked ACL table and VLAN, the platform's own PORT fields.
FOREIGN: ConfigDb = {
    "ACL_TABLE": {
        "DATAACL": {"policy_desc": "DATAACL", "type": "L3", "stage": "ingress", "ports": ["Ethernet128"]}
    },
    "ACL_RULE": {"DATAACL|RULE_1": {"PRIORITY": "9999", "PACKET_ACTION": "DROP", "SRC_IP": "10.0.0.0/8"}},
    "VLAN": {"Vlan50": {"vlanid": "50", "description": "lab"}},
    "PORT": {
        "Ethernet128": {"lanes": "128,129,130,131,132,133,134,135", "speed": "800000", "admin_status": "up"}
    },
}


def _merge(base: ConfigDb, extra: ConfigDb) -> ConfigDb:
    out = copy.deepcopy(base)
    for table, rows in extra.items():
        out.setdefault(table, {}).update(copy.deepcopy(rows))
    return out


@pytest.fixture(scope="module")
def without_hpc(tmp_path_factory: pytest.TempPathFactory) -> Compiled:
    """nvue-small after its l2 tenant team-hpc is removed."""
    root = tmp_path_factory.mktemp("fabric") / "nvue-small"
    shutil.copytree(NVUE_SMALL, root)
    (root / "tenants" / "team-hpc.yaml").unlink()
    storage = root / "tenants" / "storage.yaml"
    text = storage.read_text(encoding="utf-8")
    storage.write_text(
        text.replace("shared_with: [team-llm, team-hpc]", "shared_with: [team-llm]"), encoding="utf-8"
    )
    return pipeline.compile(root)


def _db(compiled: Compiled, switch: str) -> ConfigDb:
    return config_db(as_sonic(compiled.intents[switch]))


def _applied(running: ConfigDb, ops: list[dict[str, Any]]) -> ConfigDb:
    result = jsonpatch.apply_patch(running, ops)
    assert isinstance(result, dict)
    return result


def test_nothing_to_do_is_an_empty_patch(nvue_small: Compiled) -> None:
    db = _db(nvue_small, "leaf1")
    assert json_patch(_merge(db, FOREIGN), db, MARK) == []


def test_a_removed_tenant_leaves_and_foreign_rows_stay(nvue_small: Compiled, without_hpc: Compiled) -> None:
    before, after = _db(nvue_small, "leaf1"), _db(without_hpc, "leaf1")
    running = _merge(before, FOREIGN)
    running["PORT"]["Ethernet0"]["index"] = "1"  # the platform's own field of an owned row
    ops = json_patch(running, after, MARK)
    removed = [op["path"] for op in ops if op["op"] == "remove"]
    assert pointer("ACL_TABLE", "tnt-team-hpc-in") in removed and pointer("VLAN", "Vlan112") in removed
    assert (
        pointer("VRF", "Vrf-team-hpc") in removed
        and pointer("VLAN_INTERFACE", "Vlan112|172.21.12.1/27") in removed
    )
    result = _applied(running, ops)
    for table, rows in after.items():
        for key, fields in rows.items():
            assert {f: result[table][key][f] for f in fields} == fields, (table, key)
    for table, rows in FOREIGN.items():
        for key, fields in rows.items():
            assert result[table][key] == fields, (table, key)
    assert result["PORT"]["Ethernet0"]["index"] == "1"
    assert not any("team-hpc" in key for rows in result.values() for key in rows)


@pytest.mark.parametrize("release", RELEASES)
def test_the_patched_config_db_is_valid(release: str, nvue_small: Compiled, without_hpc: Compiled) -> None:
    running = _merge(_db(nvue_small, "leaf1"), FOREIGN)
    result = _applied(running, json_patch(running, _db(without_hpc, "leaf1"), MARK))
    sonic_yang(release).validate(result)


def test_a_table_emptied_goes_whole(nvue_small: Compiled) -> None:
    """CONFIG_DB holds no empty table: the last owned row's removal removes the table."""
    running = _db(nvue_small, "leaf1")
    intended = {t: rows for t, rows in running.items() if t not in ("ACL_TABLE", "ACL_RULE")}
    ops = json_patch(running, intended, MARK)
    assert {"op": "remove", "path": "/ACL_TABLE"} in ops and {"op": "remove", "path": "/ACL_RULE"} in ops
    assert "ACL_TABLE" not in _applied(running, ops)


def test_another_fabrics_rows_are_not_claimed(nvue_small: Compiled) -> None:
    running = _merge(
        _db(nvue_small, "leaf1"), {"VLAN": {"Vlan60": {"vlanid": "60", "description": MARK + "er"}}}
    )
    ops = json_patch(running, _db(nvue_small, "leaf1"), MARK)
    assert ops == []


def test_a_pointer_escapes_a_prefix() -> None:
    assert pointer("INTERFACE", "Ethernet0|10.0.0.1/31") == "/INTERFACE/Ethernet0|10.0.0.1~131"
    assert pointer("X", "a~b") == "/X/a~0b"
