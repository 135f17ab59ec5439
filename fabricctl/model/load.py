"""Load inventory/ and tenants/ into typed models, turning every mistake into a located Problem."""

from __future__ import annotations

import datetime as dt
import difflib
import functools
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from fabricctl.model.bounds import MAX_INVENTORY_FILE_BYTES, MAX_TENANT_FILE_BYTES, MAX_TENANT_FILES
from fabricctl.model.fabric import FabricSettings, Switch
from fabricctl.model.inventory import check_inventory, load_inventory, value_origin
from fabricctl.model.maintenance import NOTHING_DRAINED, Maintenance
from fabricctl.model.problems import ProblemLog, kind_of
from fabricctl.model.tenant import Tenant
from fabricctl.model.yamlsource import YamlDoc, dotted, inside_root, load_yaml, validated
from fabricctl.platforms import PLATFORMS

M = TypeVar("M", bound=BaseModel)


@dataclass
class Fabric:
    """The switches and fabric-wide settings of one fabric repository."""

    root: Path
    settings: FabricSettings
    switches: list[Switch]
    settings_doc: YamlDoc | None = field(default=None, repr=False)
    #: maintenance.yaml: what is out of the forwarding path (compile/build.py reads and checks it).
    maintenance: Maintenance = field(default=NOTHING_DRAINED, repr=False)

    def settings_line(self, *path: str | int) -> int:
        """Line in inventory/fabric.yaml of a settings field (or its nearest written parent)."""
        return self.settings_doc.line_of(path) if self.settings_doc is not None else 0

    @property
    def spines(self) -> list[Switch]:
        return [s for s in self.switches if s.role == "spine"]

    @property
    def leaves(self) -> list[Switch]:
        return [s for s in self.switches if s.role == "leaf"]

    @property
    def superspines(self) -> list[Switch]:
        return [s for s in self.switches if s.role == "superspine"]

    @property
    def pods(self) -> list[int | None]:
        """The pods of the fabric in order ([None] for a 2-tier fabric: one pod, unnumbered)."""
        return sorted({s.pod for s in self.switches if s.role != "superspine"}, key=lambda p: p or 0)

    def switch(self, name: str) -> Switch | None:
        return self._by_name.get(name)

    @property
    def multipod(self) -> bool:
        """A 3-tier fabric (`pods:` in fabric.yaml); a 2-tier fabric is one unnumbered pod."""
        return self.settings.pods is not None

    def pod_of(self, names: Iterable[str]) -> dict[str, int | None]:
        """Switch -> its pod as hosts.yaml gives it (None: a super-spine, or any switch of a 2-tier
        fabric); one place for apply's batches and the reports' per-pod rows. Unknown names are left out."""
        return {n: sw.pod for n in names if (sw := self.switch(n)) is not None}

    def in_pod(self, role: str, pod: int | None) -> list[Switch]:
        """The leaves or spines of one pod (of the whole fabric when it has no pods), in order."""
        return self._groups.get((role, pod, None), [])

    def in_plane(self, role: str, plane: int) -> list[Switch]:
        """Super-spines of plane k, or spines of plane k (spine index k of every pod), in order."""
        return self._groups.get((role, None, plane), [])

    @functools.cached_property
    def _groups(self) -> dict[tuple[str, int | None, int | None], list[Switch]]:
        out: dict[tuple[str, int | None, int | None], list[Switch]] = {}
        for s in self.switches:
            if s.role == "superspine":
                out.setdefault((s.role, None, s.plane), []).append(s)
            else:
                out.setdefault((s.role, s.pod, None), []).append(s)
            if s.role == "spine":
                out.setdefault((s.role, None, s.index), []).append(s)
        return out

    @functools.cached_property
    def _by_name(self) -> dict[str, Switch]:
        return {s.name: s for s in self.switches}


@dataclass
class TenantDoc:
    """A validated tenant and where it came from, for errors found later by cross-checks."""

    tenant: Tenant
    doc: YamlDoc
    file: str

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


_dotted = dotted


def show(value: Any) -> str:
    """A user's value as it may appear in an error: quoted text, plain numbers, never a repr."""
    if value is None:
        return "an empty value"
    if isinstance(value, str):
        text = value if len(value) <= 60 else value[:57] + "..."
        return repr(text)
    if isinstance(value, (bool, int, float)):
        return str(value).lower() if isinstance(value, bool) else str(value)
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return f"a value of type {type(value).__name__}"


def _describe_char(char: str) -> str:
    if char == "\n" or char == "\r":
        return "a line break"
    if char == "\t":
        return "a tab"
    if char == " ":
        return "a space"
    if not char.isprintable():
        return f"the control character U+{ord(char):04X}"
    return f"'{char}'"


def _bad_chars(value: str, pattern: str) -> list[str]:
    """Characters of `value` that no character class of `pattern` accepts."""
    classes = [re.compile(c) for c in re.findall(r"\[(?:\\.|[^\]])+\]", pattern)]
    if not classes:
        return []
    return [c for c in dict.fromkeys(value) if not any(k.fullmatch(c) for k in classes)]


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
        # Never quote the value: a file that is not a mapping may be anything (a symlinked
        # /etc/passwd reads as one long string), and its contents must not reach the terminal.
        message = (
            "the file is empty" if doc.data is None else f"must be a mapping of keys, not {kind_of(doc.data)}"
        )
        log.add(doc.file, 1, "", message, ", ".join(model.model_fields))
        return None
    try:
        return model.model_validate(doc.data, context=context)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        # A misspelt key also makes its intended field "missing": report only the typo.
        typos = set()
        for err in errors:
            if err["type"] == "extra_forbidden":
                loc = tuple(err["loc"])
                close = difflib.get_close_matches(str(loc[-1]), _fields_at(model, loc[:-1]), n=1)
                if close:
                    typos.add((*loc[:-1], close[0]))
        for err in errors:
            loc = tuple(err["loc"])
            if err["type"] == "missing" and loc in typos:
                continue
            path, message, allowed = _explain(model, doc.data, loc, err)
            log.add(doc.file, doc.line_of(path), _dotted(path), message, allowed)
        return None


def _explain(
    model: type[BaseModel], data: Any, loc: tuple[Any, ...], err: Any
) -> tuple[tuple[str | int, ...], str, str]:
    """One pydantic error -> (data path, message, allowed) in the user's terms."""
    path = _data_path(data, loc)
    kind = err["type"]
    value = err.get("input")
    ctx = err.get("ctx", {})
    allowed = ""
    if kind == "extra_forbidden":
        names = _fields_at(model, loc[:-1])
        close = difflib.get_close_matches(str(loc[-1]), names, n=1)
        message = "unknown key" + (f"; did you mean '{close[0]}'?" if close else "")
        allowed = ", ".join(names)
    elif kind == "literal_error":
        message = f"{show(value)} is not a valid choice"
        allowed = str(ctx.get("expected", "")).replace("'", "")
    elif kind == "string_pattern_mismatch":
        bad = _bad_chars(value, str(ctx.get("pattern", ""))) if isinstance(value, str) else []
        if bad:
            chars = ", ".join(_describe_char(c) for c in bad)
            message = f"{show(value)} contains {chars}, which {'is' if len(bad) == 1 else 'are'} not allowed"
        else:
            message = f"{show(value)} does not have the allowed form"
        allowed = _pattern_help(model, loc)
    elif kind in ("string_too_long", "string_too_short"):
        size = len(value) if isinstance(value, str) else 0
        message = f"{show(value)} is {size} character{'s' if size != 1 else ''} long"
        allowed = _pattern_help(model, loc) or err["msg"].replace("String should have ", "")
    elif kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        message = f"{show(value)} is out of range"
        allowed = err["msg"].replace("Input should be ", "")
    elif kind == "too_long" and "max_length" in ctx:
        # Counted and capped before anything is expanded (model/bounds.py): name the cap.
        message = f"has {ctx.get('actual_length', 'too many')} items"
        allowed = f"at most {ctx['max_length']}"
    elif kind in ("too_short", "too_long"):
        message = err["msg"].replace("Value should", "must").replace("List should", "must")
    elif kind == "value_error":
        message = str(err["msg"]).removeprefix("Value error, ")
        # Cross-field rules name the field they are about first: point at that field's line.
        first = message.split(" ", 1)[0].strip("`'")
        node = _node_at(data, path)
        if isinstance(node, dict) and first in node:
            path = (*path, first)
    elif kind == "missing":
        message = _MESSAGES[kind]
    elif kind in _MESSAGES:
        scalar = value is not None and not isinstance(value, (dict, list))
        message = f"{show(value)} {_MESSAGES[kind]}" if scalar else f"{_MESSAGES[kind]}, not {show(value)}"
    else:
        message = err["msg"]
    return path, message, allowed


def _node_at(data: Any, path: tuple[str | int, ...]) -> Any:
    node = data
    for part in path:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return None
    return node


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
    docs = check_inventory(root, log)
    path = root / "inventory" / "fabric.yaml"
    exists = path.is_file() or path.is_symlink()
    fabric_doc = load_yaml(path, log, max_bytes=MAX_INVENTORY_FILE_BYTES) if exists else None
    if not exists:
        log.add(path, 0, "", "file is missing")
    if docs is None or fabric_doc is None:
        return None
    settings = validate_doc(fabric_doc, FabricSettings, log)
    switches = _switches(root, docs, log)
    if settings is None or switches is None:
        return None
    if not _pods_match(settings, switches, docs, log):
        return None
    return Fabric(root=root, settings=settings, switches=switches, settings_doc=fabric_doc)


def _switches(root: Path, docs: dict[str, YamlDoc], log: ProblemLog) -> list[Switch] | None:
    """Each host's role, platform, index and model as Nornir resolves them (groups, nesting, defaults)."""
    hosts = docs["hosts"]
    try:
        inventory = load_inventory(root)
    except Exception as exc:  # what the located checks let through and Nornir still refused
        # The type only: Nornir's message may quote the files (and their passwords).
        log.add(hosts.file, 1, "", f"Nornir cannot read the inventory ({type(exc).__name__})")
        return None
    out: list[Switch] = []
    # A bad value a group (or defaults) gives is one problem at its line, naming every host.
    shared = _SharedProblems(hosts, log)
    for name, host in inventory.hosts.items():
        record = {
            "name": str(name),
            "role": host.get("role"),
            "platform": host.platform,
            "index": host.get("index"),
            "pod": host.get("pod"),
            "plane": host.get("plane"),
            "model": host.get("model") if host.get("model") is not None else "",
            "os_version": host.get("os_version") if host.get("os_version") is not None else "",
            "hostname": host.hostname if isinstance(host.hostname, str) else "",
            "file": log.relative(hosts.file),
            "line": hosts.line_of((name,)),
        }
        try:
            sw = Switch.model_validate(record)
        except ValidationError as exc:
            groups = [g.name for g in host.groups]
            for err in exc.errors(include_url=False):
                _switch_problem(docs, shared, str(name), groups, record, err)
            continue
        platform = PLATFORMS[sw.platform]
        models = platform.model_names
        if sw.model and sw.model not in models:
            doc, path = value_origin(docs, sw.name, "data.model") or (hosts, (sw.name,))
            shared.add(
                doc,
                path,
                sw.name,
                f"{show(sw.model)} is a model fabricctl has no capabilities for",
                f"{', '.join(models)} ({platform.title}), or no model",
            )
            continue
        if sw.os_version and sw.os_version not in platform.release_names:
            doc, path = value_origin(docs, sw.name, "data.os_version") or (hosts, (sw.name,))
            shared.add(
                doc,
                path,
                sw.name,
                f"{show(sw.os_version)} is a release fabricctl does not render {platform.title} for",
                f"{', '.join(platform.release_names)} ({platform.title}), or no os_version (the newest)",
            )
            continue
        out.append(sw.model_copy(update={"os_version": sw.os_version or platform.release().name}))
    shared.log_all()
    seen: dict[tuple[str, int | None, int | None, int], str] = {}
    for sw in out:
        key = (sw.role, sw.pod, sw.plane, sw.index)
        if key in seen:
            where = f" of pod {sw.pod}" if sw.pod else f" of plane {sw.plane}" if sw.plane else ""
            log.add(
                hosts.file,
                hosts.line_of((sw.name, "data", "index")),
                f"{sw.name}.data.index",
                f"index {sw.index} already used by {seen[key]}",
                f"a unique index per {sw.role}{where}",
            )
        seen[key] = sw.name
    return sorted(out, key=switch_order)


#: Fabric order: super-spines (by plane), then spines, then leaves, each by pod and index.
_ROLE_ORDER = {"superspine": 0, "spine": 1, "leaf": 2}


def switch_order(sw: Switch) -> tuple[int, int, int, int]:
    """The sort key of the fabric's switch list (a 2-tier fabric: spines, then leaves, by index)."""
    return (_ROLE_ORDER[sw.role], sw.pod or 0, sw.plane or 0, sw.index)


def _pods_match(
    settings: FabricSettings, switches: list[Switch], docs: dict[str, YamlDoc], log: ProblemLog
) -> bool:
    """Every leaf and spine of a multi-pod fabric names its pod, every super-spine its plane;
    a 2-tier fabric has neither (nor super-spines)."""
    shared = _SharedProblems(docs["hosts"], log)

    def add(sw: Switch, key: str, message: str, allowed: str) -> None:
        doc, path = value_origin(docs, sw.name, f"data.{key}") or (docs["hosts"], (sw.name, "data", key))
        shared.add(doc, path, sw.name, message, allowed)

    pods = settings.pods
    for sw in switches:
        if pods is None:
            if sw.role == "superspine":
                add(
                    sw,
                    "role",
                    "a super-spine needs a multi-pod fabric (fabric.yaml has no pods:)",
                    "spine or leaf",
                )
            elif sw.pod is not None or sw.plane is not None:
                key = "pod" if sw.pod is not None else "plane"
                add(
                    sw,
                    key,
                    f"{key} is set but fabric.yaml has no pods: (a 2-tier fabric is one pod)",
                    "no pod or plane",
                )
        elif sw.role == "superspine":
            if sw.plane is None:
                add(
                    sw,
                    "plane",
                    "a super-spine needs its plane (spine k of every pod uplinks to plane k)",
                    "a whole number, 1-4096",
                )
            if sw.pod is not None:
                add(sw, "pod", "a super-spine belongs to no pod (it joins the pods)", "no pod; plane: N")
        else:
            if sw.pod is None:
                add(
                    sw,
                    "pod",
                    f"a {sw.role} of a multi-pod fabric needs its pod",
                    f"a whole number, 1-{pods.max_pods}",
                )
            elif sw.pod > pods.max_pods:
                add(
                    sw,
                    "pod",
                    f"pod {sw.pod} is above pods.max_pods {pods.max_pods}",
                    f"a whole number, 1-{pods.max_pods}",
                )
            if sw.plane is not None:
                add(sw, "plane", f"a {sw.role} has no plane (a spine's index is its plane)", "no plane")
    shared.log_all()
    return not shared.found


class _SharedProblems:
    """Problems of switches by where the bad value is written: a host's own line names it; a
    group's or defaults' line, written once, names every host it reaches (in one problem)."""

    def __init__(self, hosts: YamlDoc, log: ProblemLog) -> None:
        self.hosts, self.log = hosts, log
        self.found: dict[tuple[int, tuple[str, ...], str, str], tuple[YamlDoc, list[str]]] = {}

    def add(self, doc: YamlDoc, path: tuple[str, ...], host: str, message: str, allowed: str) -> None:
        self.found.setdefault((id(doc), path, message, allowed), (doc, []))[1].append(host)

    def log_all(self) -> None:
        for (_, path, message, allowed), (doc, names) in self.found.items():
            given = "" if doc is self.hosts else f" (given to {', '.join(names)})"
            self.log.add(doc.file, doc.line_of(path), ".".join(path), message + given, allowed)


def _switch_problem(
    docs: dict[str, YamlDoc],
    shared: _SharedProblems,
    name: str,
    host_groups: list[Any],
    record: dict[str, Any],
    err: Any,
) -> None:
    """A switch whose role, platform, index or name is missing or invalid, at the line that sets
    it: the host's, or the group's or defaults' that gave it the value."""
    hosts = docs["hosts"]
    field_name = str(err["loc"][0]) if err["loc"] else ""
    value = record.get(field_name)
    key = "platform" if field_name == "platform" else f"data.{field_name}"
    found = value_origin(docs, name, key) if field_name != "name" else None
    if found is not None:
        doc, path = found
    else:
        doc, path = hosts, ((name,) if field_name == "name" else (name, "groups"))
    if value is None:
        via = ", ".join(str(g) for g in host_groups) or "none"
        message = f"no {field_name}: neither the host nor its groups ({via}) set it"
    else:
        message = f"{show(value)} is not a valid {field_name}"
    allowed = str(err.get("ctx", {}).get("expected", "")).replace("'", "")
    if field_name == "index":
        allowed = "a whole number, 1-4096"
    if not allowed:
        allowed = err["msg"].replace("Input should be ", "").replace("String should match ", "")
    shared.add(doc, path, name, message, allowed)


#: Suffixes of tenant files, compared case-insensitively (alpha.YAML is a tenant file too).
TENANT_SUFFIXES = (".yaml", ".yml")


def tenant_files(folder: Path) -> list[Path]:
    """The tenant files of tenants/, sorted: *.yaml and *.yml in any case, nothing else
    (a glob such as *.y*ml would read index.y.html, and *.yaml alone would drop alpha.YAML)."""
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in TENANT_SUFFIXES)


def load_tenants(root: Path, log: ProblemLog) -> list[TenantDoc]:
    """tenants/*.yaml, one tenant per file, sorted by id (deterministic everywhere downstream)."""
    out: list[TenantDoc] = []
    folder = root / "tenants"
    if not folder.is_dir() and not folder.is_symlink():
        return out
    if inside_root(folder, log) is None:
        return out
    try:
        paths = tenant_files(folder)
    except OSError as exc:
        log.add(folder, 0, "", f"cannot read the folder: {exc.strerror or type(exc).__name__}")
        return out
    if len(paths) > MAX_TENANT_FILES:
        log.add(
            folder,
            0,
            "",
            f"{len(paths)} tenant files, more than tenant ids can number",
            f"at most {MAX_TENANT_FILES} files",
        )
        return out
    for path in paths:
        td = read_tenant(path, log)
        if td is not None:
            out.append(td)
    for path in nested_tenant_files(folder):
        log.add(
            path,
            0,
            "",
            "a tenant file in a sub-folder of tenants/ is not read, so its tenant would be removed from the switches",
            "tenant files directly in tenants/ (move it up, or out of tenants/)",
        )
    return sorted(out, key=lambda t: t.tenant.id)


def nested_tenant_files(folder: Path) -> list[Path]:
    """Files named like tenant files anywhere below the sub-folders of tenants/, and the linked
    folders in it (never followed); the walk stops after MAX_TENANT_FILES entries."""
    found: list[Path] = []
    seen = 0
    for top in sorted(p for p in folder.iterdir() if p.is_dir()):
        if top.is_symlink():
            found.append(top)
            continue
        for base, dirs, files in os.walk(top, onerror=lambda exc: None):
            dirs.sort()
            seen += len(files) + len(dirs)
            found += [Path(base) / f for f in sorted(files) if f.lower().endswith(TENANT_SUFFIXES)]
            if seen > MAX_TENANT_FILES:
                return found
    return found


def read_tenant(path: Path, log: ProblemLog) -> TenantDoc | None:
    """One tenant file, read and validated on its own (cross-tenant checks come later)."""
    doc = load_yaml(path, log, max_bytes=MAX_TENANT_FILE_BYTES)
    if doc is None:
        return None
    tenant = validate_doc(doc, Tenant, log)
    if tenant is None:
        return None
    if path.stem != tenant.name:
        log.add(
            path,
            doc.line_of(("name",)),
            "name",
            f"file is named {path.name} but the tenant is {tenant.name!r}",
            f"{tenant.name}.yaml",
        )
    return TenantDoc(tenant=tenant, doc=validated(doc), file=log.relative(path))
