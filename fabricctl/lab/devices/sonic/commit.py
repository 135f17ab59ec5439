"""The twin's transaction: CONFIG_DB changed as the Generic Config Updater commits a change, a
JSON Patch (RFC 6902) applied to the running document, the result checked against the twin's YANG knowledge (commands.yaml, view
`configdb`) before anything is written, as sonic-utilities' generic_config_updater does
(patch_sorter.py StrictPatchSorter.sort: "Given patch is not valid because it has changes to
tables without YANG models", then "Given patch will produce invalid config. Error: ..." when the
simulated target fails validation; gu_common.py ConfigWrapper: CONFIG_DB holds no empty table)."""

from __future__ import annotations

import copy
from typing import Any

from fabricctl.lab.grammar import Grammar

from .render import ConfigDb


class PatchError(ValueError):
    """What GCU raises: its message is what `config apply-patch` prints after `Error: `."""


def _tokens(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise PatchError(f"Invalid JSON pointer: {path!r}")
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def _apply_one(doc: dict[str, Any], op: dict[str, Any]) -> None:
    kind = op.get("op")
    tokens = _tokens(str(op.get("path", "")))
    if not tokens or kind not in ("add", "remove", "replace"):
        raise PatchError(f"Unsupported operation: {op}")
    here: Any = doc
    for token in tokens[:-1]:
        if not isinstance(here, dict) or token not in here:
            raise PatchError(f"can't apply patch: member '{token}' not found in {op['path']}")
        here = here[token]
    last = tokens[-1]
    if not isinstance(here, dict):
        raise PatchError(f"can't apply patch: {op['path']} is not inside an object")
    if kind == "remove" or kind == "replace":
        if last not in here:
            raise PatchError(f"can't remove a non-existent object '{last}'")
        if kind == "remove":
            del here[last]
            return
    here[last] = copy.deepcopy(op["value"])


def simulate(running: ConfigDb, patch: list[dict[str, Any]]) -> ConfigDb:
    """The CONFIG_DB the patch makes (PatchError: an operation that does not apply)."""
    doc: dict[str, Any] = copy.deepcopy(running)
    for op in patch:
        if not isinstance(op, dict):
            raise PatchError(f"Unsupported operation: {op}")
        _apply_one(doc, op)
    return doc


def _accepts(grammar: Grammar, words: list[str]) -> bool:
    if grammar.find("configdb", words) is not None:
        return True
    return len(words) > 4 and grammar.find("configdb", [*words[:3], " ".join(words[3:])]) is not None


def _value(value: Any) -> str:
    return ",".join(str(v) for v in value) if isinstance(value, list) else str(value)


def validate(grammar: Grammar, patch: list[dict[str, Any]], target: ConfigDb) -> None:
    """PatchError: a table the YANG knowledge lacks, an empty table, a row or field it refuses."""
    known = {r.pattern.split()[0] for r in grammar.modes["configdb"].rules}
    touched = {_tokens(str(op.get("path", "")))[0] for op in patch if _tokens(str(op.get("path", "")))}
    if touched - known:
        raise PatchError("Given patch is not valid because it has changes to tables without YANG models")
    empty = sorted(t for t, rows in target.items() if not rows)
    if empty:
        raise PatchError(
            f"Given config has empty tables. Table{'s' if len(empty) != 1 else ''}: {', '.join(empty)}"
        )
    for table in sorted(touched):
        for key, row in sorted(target.get(table, {}).items()):
            if not isinstance(row, dict):
                raise PatchError(
                    f"Given patch will produce invalid config. Error: Data Loading Failed\n{table}|{key} is not an object"
                )
            if not row and not _accepts(grammar, [table, key]):
                raise PatchError(
                    f"Given patch will produce invalid config. Error: Data Loading Failed\nAll Keys are not parsed in {table}\ndict_keys(['{key}'])"
                )
            for name, value in sorted(row.items()):
                if not _accepts(grammar, [table, key, name, _value(value)]):
                    raise PatchError(
                        "Given patch will produce invalid config. Error: Data Loading Failed\n"
                        f'Value "{_value(value)}" of {table}|{key} field {name} is not valid'
                    )
