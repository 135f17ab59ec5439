"""Load inventory/ and tenants/ into typed models, turning every mistake into a located Problem."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from fabricctl.model.fabric import FabricSettings, Switch
from fabricctl.model.problems import ProblemLog
from fabricctl.model.tenant import Tenant
from fabricctl.model.yamlsource import PathKey, YamlDoc, load_yaml

M = TypeVar("M", bound=BaseModel)


@dataclass
class Fabric:
    """The switches and fabric-wide settings of one fabric repository."""

    root: Path
    settings: FabricSettings
    switches: list[Switch]

    @property
    def spines(self) -> list[Switch]:
        return [s for s in self.switches if s.role == "spine"]

    @property
    def leaves(self) -> list[Switch]:
        return [s for s in self.switches if s.role == "leaf"]

    def switch(self, name: str) -> Switch | None:
        return self._by_name.get(name)

    @property
    def _by_name(self) -> dict[str, Switch]:
        cache = self.__dict__.get("_cache")
        if cache is None:
            cache = self.__dict__["_cache"] = {s.name: s for s in self.switches}
        return cache


@dataclass
class TenantDoc:
    """A validated tenant and where it came from, for errors found later by cross-checks."""

    tenant: Tenant
    doc: YamlDoc
    file: str
    lines: dict[PathKey, int] = field(repr=False, default_factory=dict)

    def line(self, *path: str | int) -> int:
        return self.doc.line_of(path)


def _fields_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """Field names allowed at `loc` inside `model`, for 'unknown key' hints."""
    current: Any = model
    for part in loc:
        if isinstance(part, int) or not (isinstance(current, type) and issubclass(current, BaseModel)):
            continue
        info = current.model_fields.get(part)
        if info is None:
            break
        current = _model_in(info.annotation)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return list(current.model_fields)
    return []


def _model_in(annotation: Any) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _data_path(data: Any, loc: tuple[Any, ...]) -> tuple[str | int, ...]:
    """Keep the parts of a pydantic loc that exist in the data (drops union branch tags)."""
    path: list[str | int] = []
    node = data
    for part in loc:
        if (isinstance(node, dict) and part in node) or (
            isinstance(node, list) and isinstance(part, int) and part < len(node)
        ):
            node = node[part]
            path.append(part)
        elif (isinstance(node, dict) and not path and part not in node) or isinstance(node, dict):
            path.append(part)
            break
    return tuple(path)


def _dotted(path: tuple[str | int, ...]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


_MESSAGES = {
    "missing": "required field is missing",
    "int_parsing": "must be a whole number",
    "int_type": "must be a whole number",
    "int_from_float": "must be a whole number",
    "bool_parsing": "must be true or false",
    "bool_type": "must be true or false",
    "string_type": "must be a string",
    "list_type": "must be a list",
    "model_type": "must be a mapping of keys",
    "dict_type": "must be a mapping of keys",
    "float_parsing": "must be a number",
    "ip_v4_network": "must be an IPv4 network such as 10.1.0.0/22 (no host bits set)",
}


def validate_doc(
    doc: YamlDoc, model: type[M], log: ProblemLog, context: dict[str, Any] | None = None
) -> M | None:
    """Validate one YAML document; every pydantic error becomes a Problem with file and line."""
    if not isinstance(doc.data, dict):
        log.add(doc.file, 1, "", "must be a mapping of keys", ", ".join(model.model_fields))
        return None
    try:
        return model.model_validate(doc.data, context=context)
    except ValidationError as exc:
        for err in exc.errors(include_url=False):
            loc = tuple(err["loc"])
            path = _data_path(doc.data, loc)
            line = doc.line_of(path)
            kind = err["type"]
            allowed = ""
            if kind == "extra_forbidden":
                names = _fields_at(model, loc[:-1])
                close = difflib.get_close_matches(str(loc[-1]), names, n=1)
                message = "unknown key" + (f"; did you mean '{close[0]}'?" if close else "")
                allowed = ", ".join(names)
            elif kind == "literal_error":
                message = f"{err['input']!r} is not a valid choice"
                allowed = str(err.get("ctx", {}).get("expected", "")).replace("'", "")
            elif kind == "string_pattern_mismatch":
                message = f"{err['input']!r} has a character or form that is not allowed"
                allowed = _pattern_help(model, loc)
            elif kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
                message = f"{err['input']!r} is out of range"
                allowed = err["msg"].replace("Input should be ", "")
            elif kind in ("too_short", "too_long"):
                message = err["msg"].replace("Value should", "must").replace("List should", "must")
            elif kind == "value_error":
                message = str(err["msg"]).removeprefix("Value error, ")
            elif kind in _MESSAGES:
                message = _MESSAGES[kind]
                if kind not in ("missing",) and "input" in err and not isinstance(err["input"], (dict, list)):
                    message = f"{err['input']!r} {message}"
            else:
                message = err["msg"]
            log.add(doc.file, line, _dotted(path), message, allowed)
        return None


def _pattern_help(model: type[BaseModel], loc: tuple[Any, ...]) -> str:
    current: Any = model
    info = None
    for part in loc:
        if isinstance(part, int):
            continue
        if isinstance(current, type) and issubclass(current, BaseModel):
            info = current.model_fields.get(str(part))
            if info is None:
                break
            current = _model_in(info.annotation) or info
    if info is not None and info.description:
        return info.description.split(";")[0]
    for meta in getattr(info, "metadata", []) if info else []:
        pattern = getattr(meta, "pattern", None)
        if pattern:
            return f"pattern {pattern}"
    return ""


def load_fabric(root: Path, log: ProblemLog) -> Fabric | None:
    """inventory/{hosts,groups,defaults,fabric}.yaml -> Fabric (None after logging problems)."""
    inv = root / "inventory"
    docs = {}
    for name in ("hosts", "groups", "fabric"):
        path = inv / f"{name}.yaml"
        if not path.is_file():
            log.add(path, 0, "", "file is missing")
            continue
        docs[name] = load_yaml(path, log)
    if any(d is None for d in docs.values()) or len(docs) < 3:
        return None
    settings = validate_doc(docs["fabric"], FabricSettings, log)
    switches = _switches(docs["hosts"], docs["groups"], log)
    if settings is None or switches is None:
        return None
    return Fabric(root=root, settings=settings, switches=switches)


def _switches(hosts: YamlDoc, groups: YamlDoc, log: ProblemLog) -> list[Switch] | None:
    """Resolve role/platform/model through groups, the way Nornir's inheritance does."""
    if not isinstance(hosts.data, dict) or not isinstance(groups.data, dict):
        log.add(hosts.file, 1, "", "hosts.yaml and groups.yaml must be mappings")
        return None
    out: list[Switch] = []
    for name, host in hosts.data.items():
        line = hosts.line_of((name,))
        if not isinstance(host, dict):
            log.add(hosts.file, line, str(name), "must be a mapping of keys")
            continue
        merged: dict[str, Any] = {}
        for group in host.get("groups") or []:
            g = groups.data.get(group)
            if not isinstance(g, dict):
                log.add(
                    hosts.file,
                    hosts.line_of((name, "groups")),
                    f"{name}.groups",
                    f"unknown group {group!r}",
                    ", ".join(groups.data),
                )
                continue
            if g.get("platform") and "platform" not in merged:
                merged["platform"] = g["platform"]
            for key, value in (g.get("data") or {}).items():
                merged.setdefault(key, value)
        if host.get("platform"):
            merged["platform"] = host["platform"]
        merged.update(host.get("data") or {})
        record = {
            "name": str(name),
            "role": merged.get("role"),
            "platform": merged.get("platform"),
            "index": merged.get("index"),
            "model": str(merged.get("model", "")),
            "file": log.relative(hosts.file),
            "line": line,
        }
        try:
            out.append(Switch.model_validate(record))
        except ValidationError as exc:
            for err in exc.errors(include_url=False):
                field_name = str(err["loc"][0]) if err["loc"] else ""
                message = "role/platform/index missing or invalid: " + err["msg"]
                allowed = str(err.get("ctx", {}).get("expected", "")).replace("'", "")
                log.add(hosts.file, line, f"{name}.{field_name}", message, allowed)
    seen: dict[tuple[str, int], str] = {}
    for sw in out:
        key = (sw.role, sw.index)
        if key in seen:
            log.add(
                hosts.file,
                sw.line,
                f"{sw.name}.data.index",
                f"index {sw.index} already used by {seen[key]}",
                f"a unique index per {sw.role}",
            )
        seen[key] = sw.name
    return sorted(out, key=lambda s: (s.role != "spine", s.index))


def load_tenants(root: Path, log: ProblemLog) -> list[TenantDoc]:
    """tenants/*.yaml, one tenant per file, sorted by id (deterministic everywhere downstream)."""
    out: list[TenantDoc] = []
    folder = root / "tenants"
    if not folder.is_dir():
        return out
    for path in sorted(folder.glob("*.y*ml")):
        doc = load_yaml(path, log)
        if doc is None:
            continue
        tenant = validate_doc(doc, Tenant, log)
        if tenant is not None:
            out.append(TenantDoc(tenant=tenant, doc=doc, file=log.relative(path)))
            if path.stem != tenant.name:
                log.add(
                    path,
                    doc.line_of(("name",)),
                    "name",
                    f"file is named {path.name} but the tenant is {tenant.name!r}",
                    f"{tenant.name}.yaml",
                )
    return sorted(out, key=lambda t: t.tenant.id)
