"""CONFIG_DB JSON -> the JSON-IETF instance of sonic-net's YANG models, validated by libyang.

The translation is sonic-yang-mgmt's (sonic-buildimage src/sonic-yang-mgmt/sonic_yang_ext.py,
`_xlateConfigDBtoYang`): a table is the container of that name inside a model's top container
`sonic-<model>:sonic-<model>`; a key `a|b` fills the keys of the container's list with as many
keys; a field is a leaf (or a leaf-list) of that list, its string value typed by the leaf's YANG
type; a table whose rows are maps (DSCP_TO_TC_MAP, CABLE_LENGTH) fills the list nested in the
row's list, key then value. The models are vendored per release under tests/data/sonic-yang/
<release>/ (UPSTREAM.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import libyang

YANG_DIR = Path(__file__).parent / "data" / "sonic-yang"
#: The releases whose models are vendored (fabricctl.platforms.sonic.RELEASES).
RELEASES = ("202511", "202505")

_INTS = {
    libyang.Type.INT8,
    libyang.Type.INT16,
    libyang.Type.INT32,
    libyang.Type.UINT8,
    libyang.Type.UINT16,
    libyang.Type.UINT32,
}


class ConfigDbError(ValueError):
    """CONFIG_DB that the YANG models refuse (or that names no table or field of theirs)."""


def _models(folder: Path) -> list[str]:
    return sorted(p.stem for p in folder.glob("sonic-*.yang"))


class SonicYang:
    """A release's vendored models in one libyang context; `validate` checks one CONFIG_DB."""

    def __init__(self, release: str) -> None:
        folder = YANG_DIR / release
        self.ctx = libyang.Context(str(folder))
        self.tables: dict[str, tuple[str, libyang.SContainer]] = {}
        names = _models(folder)
        for name in names:  # every model first: loading one recompiles the schema nodes of all
            self.ctx.load_module(name)
        for name in names:
            module = self.ctx.get_module(name)
            for top in module.children():
                if not isinstance(top, libyang.SContainer):
                    continue
                for table in top.children():
                    if isinstance(table, libyang.SContainer):
                        self.tables[table.name()] = (f"{name}:{top.name()}", table)

    def _value(self, leaf: libyang.SNode, value: Any) -> Any:
        if isinstance(leaf, libyang.SLeafList):
            items = value if isinstance(value, list) else str(value).split(",")
            return [self._scalar(leaf, v) for v in items]
        return self._scalar(leaf, value)

    @staticmethod
    def _scalar(leaf: libyang.SNode, value: Any) -> Any:
        if not isinstance(leaf, (libyang.SLeaf, libyang.SLeafList)):
            raise ConfigDbError(f"{leaf.name()}: not a leaf")
        base = leaf.type().base()
        if base in _INTS and str(value).lstrip("-").isdigit():
            return int(value)  # anything else goes as a string, for libyang to refuse
        if base == libyang.Type.BOOL:
            return str(value).lower() == "true"
        return str(value)

    def _row(
        self, table: str, lists: list[libyang.SList], key: str, fields: Mapping[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        parts = key.split("|")
        found = [ls for ls in lists if len(list(ls.keys())) == len(parts)]
        if not found:
            raise ConfigDbError(f"{table}|{key}: no list of {table} has {len(parts)} keys")
        ls = found[0]
        leaves = {c.name(): c for c in ls.children()}
        entry: dict[str, Any] = {k.name(): self._scalar(k, p) for k, p in zip(ls.keys(), parts, strict=True)}
        nested = [c for c in ls.children() if isinstance(c, libyang.SList)]
        for field, value in fields.items():
            if field in leaves and not isinstance(leaves[field], libyang.SList):
                entry[field] = self._value(leaves[field], value)
            elif nested:  # a map row: DSCP_TO_TC_MAP|AZURE {"0": "1"}, CABLE_LENGTH|AZURE {port: len}
                inner = nested[0]
                (k,) = inner.keys()
                (v,) = [c for c in inner.children() if c.name() != k.name()]
                entry.setdefault(inner.name(), []).append(
                    {k.name(): self._scalar(k, field), v.name(): self._scalar(v, value)}
                )
            else:
                raise ConfigDbError(f"{table}|{key}: {field} is no field of {ls.name()}")
        return ls.name(), entry

    def instance(self, db: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> dict[str, Any]:
        """The JSON-IETF document of `db` (see the module docstring)."""
        out: dict[str, dict[str, Any]] = {}
        for table, rows in db.items():
            if table not in self.tables:
                raise ConfigDbError(f"{table}: no vendored YANG model has this table")
            top, schema = self.tables[table]
            body = out.setdefault(top, {}).setdefault(table, {})
            lists = [c for c in schema.children() if isinstance(c, libyang.SList)]
            if not lists:  # DEVICE_METADATA: containers by name
                for name, fields in rows.items():
                    leaves = {c.name(): c for c in schema.children() if c.name() == name}
                    if name not in leaves:
                        raise ConfigDbError(f"{table}|{name}: no such container")
                    inner = {c.name(): c for c in leaves[name].children()}  # type: ignore[attr-defined]
                    for field in fields:
                        if field not in inner:
                            raise ConfigDbError(f"{table}|{name}: {field} is no field of it")
                    body[name] = {f: self._value(inner[f], v) for f, v in fields.items()}
                continue
            for key, fields in rows.items():
                name, entry = self._row(table, lists, key, fields)
                body.setdefault(name, []).append(entry)
        return out

    def validate(self, db: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> None:
        """Raise ConfigDbError with libyang's words when the models refuse `db`."""
        text = json.dumps(self.instance(db))
        try:
            node = self.ctx.parse_data_mem(text, "json", strict=True, validate_present=True)
        except libyang.LibyangError as exc:
            raise ConfigDbError(str(exc)) from None
        if node is not None:
            node.free()
