"""Running CONFIG_DB vs intended -> the JSON Patch (RFC 6902) SONiC's Generic Config Updater
applies (`config apply-patch <file>`: sonic-utilities generic_config_updater, SONiC
doc/config-generic-update-rollback/Json_Change_Application_Design.md), over what fabricctl owns
only. GCU orders the operations itself and validates the result with the YANG models.

What fabricctl owns, and so may change or remove:
  - every row the intended CONFIG_DB has (it sets those fields; other fields of the row, the
    platform's own such as a PORT's `index` or `alias`, are left as they are);
  - rows it marked: an ACL_TABLE whose `policy_desc` carries the fabric's mark (config/rules.py), with its
    ACL_RULE rows; a VLAN whose `description` carries it, with its VLAN_MEMBER,
    VLAN_INTERFACE and VXLAN_TUNNEL_MAP rows and the VRF its SVI routes into;
  - the per-port QoS rows (PORT_QOS_MAP, QUEUE, BUFFER_PG, PFC_WD) and INTERFACE rows of the
    ports the intended PORT table names (the cabling plan's ports).
A row of any other table, or unmarked, is never removed: a foreign key stays.
"""

from __future__ import annotations

from typing import Any

from fabricctl.config.rules import carries_mark
from fabricctl.platforms.sonic.configdb import ConfigDb

#: Tables whose rows are per port (key "<port>" or "<port>|<index>").
PORT_TABLES = ("INTERFACE", "PORT_QOS_MAP", "QUEUE", "BUFFER_PG", "PFC_WD")

Op = dict[str, Any]


def pointer(*parts: str) -> str:
    """A JSON Pointer (RFC 6901): `~` as `~0`, `/` as `~1` (an IP prefix in a key)."""
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts)


def _marked(running: ConfigDb, mark: str) -> set[tuple[str, str]]:
    """The running rows fabricctl's mark claims (see the module docstring)."""
    out: set[tuple[str, str]] = set()
    acls = {
        k
        for k, row in running.get("ACL_TABLE", {}).items()
        if carries_mark(str(row.get("policy_desc", "")), mark)
    }
    out |= {("ACL_TABLE", k) for k in acls}
    out |= {("ACL_RULE", k) for k in running.get("ACL_RULE", {}) if k.partition("|")[0] in acls}
    vlans = {
        k for k, row in running.get("VLAN", {}).items() if carries_mark(str(row.get("description", "")), mark)
    }
    out |= {("VLAN", k) for k in vlans}
    for table in ("VLAN_MEMBER", "VLAN_INTERFACE"):
        out |= {(table, k) for k in running.get(table, {}) if k.partition("|")[0] in vlans}
    out |= {
        ("VXLAN_TUNNEL_MAP", k)
        for k, row in running.get("VXLAN_TUNNEL_MAP", {}).items()
        if row.get("vlan") in vlans
    }
    vrfs = {
        str(running["VLAN_INTERFACE"][v].get("vrf_name"))
        for v in vlans
        if v in running.get("VLAN_INTERFACE", {})
    }
    out |= {("VRF", k) for k in running.get("VRF", {}) if k in vrfs}
    return out


def _owned(running: ConfigDb, intended: ConfigDb, mark: str) -> set[tuple[str, str]]:
    ports = set(intended.get("PORT", {}))
    out = _marked(running, mark)
    for table in PORT_TABLES:
        out |= {(table, k) for k in running.get(table, {}) if k.partition("|")[0] in ports}
    return out


def json_patch(running: ConfigDb, intended: ConfigDb, mark: str) -> list[Op]:
    """The operations that make `running` carry `intended` and drop what fabricctl owns but no
    longer intends; removals first, each table and key in sorted order."""
    removes: list[Op] = []
    changes: list[Op] = []
    owned = _owned(running, intended, mark)
    for table, rows in sorted(running.items()):
        gone = sorted(k for k in rows if (table, k) in owned and k not in intended.get(table, {}))
        if gone and len(gone) == len(rows) and not intended.get(table):
            # the table goes with its last row: CONFIG_DB holds no empty table (sonic-utilities'
            # generic_config_updater tests, EMPTYING_A_CONFIGDB_TABLE__FAILURE)
            removes.append({"op": "remove", "path": pointer(table)})
        else:
            removes += [{"op": "remove", "path": pointer(table, k)} for k in gone]
    for table, rows in sorted(intended.items()):
        if table not in running:
            changes.append({"op": "add", "path": pointer(table), "value": rows})
            continue
        for key, fields in sorted(rows.items()):
            have = running[table].get(key)
            if have is None:
                changes.append({"op": "add", "path": pointer(table, key), "value": fields})
                continue
            for field, value in sorted(fields.items()):
                if have.get(field) != value:
                    op = "replace" if field in have else "add"
                    changes.append({"op": op, "path": pointer(table, key, field), "value": value})
    return removes + changes
