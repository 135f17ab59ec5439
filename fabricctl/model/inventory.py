"""The Nornir inventory of a fabric root, resolved by Nornir itself (SimpleInventory), for every use.

validate reads switches from it, deploy runs Nornir on it, the lab builds its devices from it:
groups, nested groups and defaults mean exactly what they mean to Nornir. fabricctl's own YAML
reader sees the same files first, only to point at file and line when something is wrong, and to
refuse what would make Nornir itself fail (a missing or looping group, a list where a mapping
belongs) with a located error instead of a traceback.
"""

from __future__ import annotations

import difflib
import ipaddress
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fabricctl.model.bounds import MAX_INVENTORY_FILE_BYTES
from fabricctl.model.problems import ProblemLog, kind_of
from fabricctl.model.yamlsource import YamlDoc, dotted, load_yaml

if TYPE_CHECKING:
    from nornir.core.inventory import Inventory

FILES = {"host_file": "hosts.yaml", "group_file": "groups.yaml", "defaults_file": "defaults.yaml"}
#: Keys Nornir reads from a host, group or defaults entry (anything else is ignored by Nornir).
ENTRY_KEYS = ("hostname", "port", "username", "password", "platform", "groups", "data", "connection_options")


def inventory_options(root: Path) -> dict[str, str]:
    """SimpleInventory's options for `<root>/inventory` (groups and defaults only when present)."""
    inv = Path(root) / "inventory"
    return {
        key: str(inv / name) for key, name in FILES.items() if key == "host_file" or (inv / name).is_file()
    }


def load_inventory(root: Path) -> Inventory:
    """Nornir's own reading of the inventory (call `check_inventory` first for located errors)."""
    import logging

    from nornir.plugins.inventory.simple import SimpleInventory

    # An empty hosts.yaml is a pod before its first rack (racks/, docs/day0.md): validate names
    # what is missing; Nornir's warning about it would repeat once per reading.
    logging.getLogger("nornir.plugins.inventory.simple").setLevel(logging.ERROR)
    return SimpleInventory(**inventory_options(root)).load()


def check_inventory(root: Path, log: ProblemLog) -> dict[str, YamlDoc] | None:
    """Read hosts/groups/defaults with line numbers and refuse, located, what Nornir cannot load.

    Returns the documents by file stem, or None when a problem was logged.
    """
    inv = Path(root) / "inventory"
    docs: dict[str, YamlDoc] = {}
    problems = len(log.problems)
    for name in ("hosts", "groups", "defaults"):
        path = inv / f"{name}.yaml"
        if not path.is_file() and not path.is_symlink():
            if name != "defaults":
                log.add(path, 0, "", "file is missing")
            continue
        doc = load_yaml(path, log, max_bytes=MAX_INVENTORY_FILE_BYTES)
        if doc is not None:
            docs[name] = doc
    if len(log.problems) > problems or "hosts" not in docs or "groups" not in docs:
        return None
    groups = docs["groups"].data or {}
    for name, doc in docs.items():
        if doc.data is not None and not isinstance(doc.data, dict):
            log.add(doc.file, 1, "", f"{name}.yaml must be a mapping of keys", _allowed(name))
    if len(log.problems) > problems:
        return None
    if "defaults" in docs:
        _check_entry(docs["defaults"], (), docs["defaults"].data or {}, log, groups)
    for key in ("groups", "hosts"):
        doc = docs[key]
        for name, entry in (doc.data or {}).items():
            if not isinstance(entry, dict):
                log.add(
                    doc.file,
                    doc.line_of((name,)),
                    str(name),
                    "must be a mapping of keys",
                    ", ".join(ENTRY_KEYS),
                )
                continue
            _check_entry(doc, (str(name),), entry, log, groups)
    _check_group_loops(docs["groups"], groups, log)
    if len(log.problems) == problems:
        _check_one_value_per_host(docs, log)
    return docs if len(log.problems) == problems else None


#: Entry keys Nornir passes on as text, and what each holds.
_TEXT_KEYS = {
    "hostname": "an address or DNS name",
    "username": "a user name",
    "platform": "a platform name",
}
#: Where credentials come from instead of the repository (deploy/credentials).
CREDENTIALS_HINT = "no password in the repository: FABRICCTL_PASSWORD or FABRICCTL_SECRETS_FILE at run time"
#: A DNS name (RFC 1123 labels: letters, digits, '-' inside; dots between; at most 253 characters).
_HOST_NAME = re.compile(r"(?=.{1,253}\.?$)(?!-)[A-Za-z0-9-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*\.?")


def is_host(value: str) -> bool:
    """An IPv4 or IPv6 address, or a DNS name, as a management `hostname` must be."""
    try:
        ipaddress.ip_address(value)
        return True
    except ValueError:
        return _HOST_NAME.fullmatch(value) is not None and not value.replace(".", "").isdigit()


def _shown(value: Any) -> str:
    """A number-like value in an error: true/false, short text quoted, anything else by its kind."""
    if isinstance(value, bool):
        return str(value).lower()
    return repr(value) if isinstance(value, str) and len(value) <= 20 else kind_of(value)


def _allowed(name: str) -> str:
    return "host names" if name == "hosts" else "group names" if name == "groups" else ", ".join(ENTRY_KEYS)


def _check_entry(
    doc: YamlDoc, at: tuple[str, ...], entry: dict[str, Any], log: ProblemLog, groups: dict[str, Any]
) -> None:
    def add(path: tuple[str | int, ...], message: str, allowed: str) -> None:
        log.add(doc.file, doc.line_of((*at, *path)), dotted((*at, *path)), message, allowed)

    for key, value in entry.items():
        if key not in ENTRY_KEYS:
            close = difflib.get_close_matches(str(key), ENTRY_KEYS, n=1)
            add(
                (key,),
                "unknown key" + (f"; did you mean '{close[0]}'?" if close else ""),
                ", ".join(ENTRY_KEYS),
            )
        elif key in ("data", "connection_options") and value is not None and not isinstance(value, dict):
            add((key,), "must be a mapping of keys", f"{key} as key: value lines")
        elif key == "data" and isinstance(value, dict):
            _check_data(value, lambda path, message, allowed: add(("data", *path), message, allowed))
        elif key == "groups" and value is not None:
            if not isinstance(value, list):
                add((key,), "must be a list", "names of groups in groups.yaml")
                continue
            for i, group in enumerate(value):
                if not isinstance(group, str):
                    add(
                        (key, i),
                        f"a group name is text, not {kind_of(group)}",
                        ", ".join(str(g) for g in groups),
                    )
                elif group not in groups:
                    close = difflib.get_close_matches(group, [str(g) for g in groups], n=1)
                    hint = f"; did you mean '{close[0]}'?" if close else ""
                    add((key, i), f"unknown group {_shown(group)}{hint}", ", ".join(str(g) for g in groups))
        elif key == "connection_options" and isinstance(value, dict):
            for plugin, options in value.items():
                if not isinstance(options, dict):
                    add(
                        (key, plugin),
                        "must be a mapping of keys",
                        "hostname, port, username, platform, extras",
                    )
                elif options.get("password") is not None:
                    add((key, plugin, "password"), "a password in the repository", CREDENTIALS_HINT)
        elif key == "password" and value is not None:
            add(
                (key,),
                "a password in the repository: every clone and CI log of it has the password",
                CREDENTIALS_HINT,
            )
        elif key == "port" and value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            add((key,), f"{_shown(value)} must be a whole number", "a TCP port, 1-65535")
        elif key == "port" and isinstance(value, int) and not 1 <= value <= 65535:
            add((key,), f"{value} is out of range", "a TCP port, 1-65535")
        elif key in _TEXT_KEYS and value is not None and not isinstance(value, str):
            add((key,), f"must be text, not {kind_of(value)}", _TEXT_KEYS[key])
        elif key == "hostname" and isinstance(value, str) and not is_host(value):
            add(
                (key,),
                f"{_shown(value)} is neither an IP address nor a host name",
                "an IPv4 or IPv6 address, or a DNS name: letters, digits, '-' and '.'",
            )


def _check_data(data: dict[str, Any], add: Any) -> None:
    """The data keys fabricctl reads, typed where they are written (a group, defaults, a host),
    not where Nornir's inheritance lands them: `index: true` is not 1, a list is no model."""
    for key, value in data.items():
        if value is None:
            continue
        if key in ("role", "model") and not isinstance(value, str):
            add(
                (key,),
                f"must be text, not {kind_of(value)}",
                "spine, leaf or superspine" if key == "role" else "a model name",
            )
        elif key == "os_version" and not isinstance(value, str):
            # YAML reads 5.10 as the number 5.1: a release is text
            what = (
                f"{value} is read as a number (YAML reads 5.10 as 5.1)"
                if isinstance(value, (int, float)) and not isinstance(value, bool)
                else f"must be text, not {kind_of(value)}"
            )
            add((key,), what, "the release in quotes, such as '5.17'")
        elif key in ("index", "pod", "plane") and (isinstance(value, bool) or not isinstance(value, int)):
            add((key,), f"{_shown(value)} must be a whole number", "a whole number, 1-4096")


def group_chain(entry: dict[str, Any], groups: dict[str, Any]) -> list[str]:
    """The groups an entry inherits from, in the order Nornir reads them: each of its groups,
    then that group's own groups, depth first (the first that sets a value gives it)."""
    out: list[str] = []

    def visit(name: object) -> None:
        if not isinstance(name, str) or name in out or not isinstance(groups.get(name), dict):
            return
        out.append(name)
        for parent in groups[name].get("groups") or []:
            visit(parent)

    for name in entry.get("groups") or []:
        visit(name)
    return out


def value_origin(docs: dict[str, YamlDoc], host: str, key: str) -> tuple[YamlDoc, tuple[str, ...]] | None:
    """Where a host's `key` (`platform`, or `data.<name>`) comes from as Nornir resolves it: the
    host itself, its groups in order, then defaults. None when nothing sets it."""
    path = tuple(key.split("."))
    hosts, groups = docs["hosts"].data or {}, docs["groups"].data or {}
    entry = hosts.get(host)
    if not isinstance(entry, dict):
        return None
    places: list[tuple[YamlDoc, tuple[str, ...], Any]] = [(docs["hosts"], (host,), entry)]
    places += [(docs["groups"], (g,), groups[g]) for g in group_chain(entry, groups)]
    if "defaults" in docs and isinstance(docs["defaults"].data, dict):
        places.append((docs["defaults"], (), docs["defaults"].data))
    for doc, at, data in places:
        node: Any = data
        for part in path:
            node = node.get(part) if isinstance(node, dict) else None
        if node is not None:
            return doc, (*at, *path)
    return None


#: Host values a group may give, which two of a host's groups must not give differently.
_ONE_VALUE = (
    "data.role",
    "platform",
    "data.model",
    "data.os_version",
    "data.index",
    "data.pod",
    "data.plane",
)


def _check_one_value_per_host(docs: dict[str, YamlDoc], log: ProblemLog) -> None:
    """A host in two groups that give it different roles (or platforms, models, ...): Nornir
    would silently take the first group's, so a spine in the leaf group stays a spine."""
    hosts, groups = docs["hosts"], docs["groups"].data or {}
    for name, entry in (hosts.data or {}).items():
        if not isinstance(entry, dict):
            continue
        chain = group_chain(entry, groups)
        for key in _ONE_VALUE:
            path = tuple(key.split("."))
            own: Any = entry
            for part in path:
                own = own.get(part) if isinstance(own, dict) else None
            if own is not None:  # the host's own value is the one Nornir takes
                continue
            given: dict[str, list[str]] = {}
            for group in chain:
                node: Any = groups[group]
                for part in path:
                    node = node.get(part) if isinstance(node, dict) else None
                if node is not None:
                    given.setdefault(repr(node), []).append(group)
            if len(given) > 1:
                said = "; ".join(f"{v} from {', '.join(g)}" for v, g in given.items())
                log.add(
                    hosts.file,
                    hosts.line_of((name, "groups")),
                    f"{name}.groups",
                    f"its groups give it different {path[-1]}s: {said}",
                    f"groups that agree on {path[-1]}, or {path[-1]} set on the host",
                )


def _check_group_loops(doc: YamlDoc, groups: dict[str, Any], log: ProblemLog) -> None:
    """A group that is its own ancestor would send Nornir's inheritance round in circles."""
    state: dict[str, int] = {}  # 1 visiting, 2 done

    def visit(name: str, trail: list[str]) -> None:
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            loop = [*trail[trail.index(name) :], name]
            log.add(
                doc.file,
                doc.line_of((name, "groups")),
                f"{name}.groups",
                f"groups loop: {' -> '.join(loop)}",
                "groups that do not include themselves",
            )
            return
        state[name] = 1
        entry = groups.get(name)
        for parent in (entry.get("groups") or []) if isinstance(entry, dict) else []:
            if isinstance(parent, str) and parent in groups:
                visit(parent, [*trail, name])
        state[name] = 2

    for name in groups:
        visit(str(name), [])
