"""`fabricctl rack add`: a rack file and its inventory entries from a rack template and the
factory's serial list.

The template (YAML) says what a rack of this kind holds: its switches by role (leaves: one per
rail of a rail group; spines: `count` of them), how they are named, their Nornir groups and
model, and whether the rail group's servers come with it. The serial list (CSV, one line per
item in template order: `<role>,<serial>,<mac>` for switches, `server,<serial>,<nic0 mac>,...`
for servers; `#` comments) is what the factory ships with the rack. Indexes follow the cabling
rules (the rail group's leaves, the next free spine indexes), management addresses come from
fabric.yaml ztp.pool, and the result is checked by the same validation as every input before
anything is written.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from ipaddress import IPv4Address
from pathlib import Path
from typing import Any

from pydantic import Field, StrictBool, StrictInt

from fabricctl.compile.racks import group_servers, plugs, rail_groups
from fabricctl.compile.topology import build_topology
from fabricctl.errors import StageError
from fabricctl.model.fabric import Role, Strict, Switch
from fabricctl.model.load import Fabric, load_fabric
from fabricctl.model.problems import ProblemLog
from fabricctl.model.yamlsource import load_yaml
from fabricctl.platforms import get_platform


class RackAddError(StageError):
    """The template, the serial list or the request does not fit the fabric (one line, what is allowed)."""


MAX_INDEX = 4096  # a switch's index (model/fabric.py Switch.index)


class TemplateSwitch(Strict):
    role: Role
    count: StrictInt | None = Field(
        default=None, ge=1, le=256, description="Leaves: one per rail when omitted"
    )
    name: str = Field(
        pattern=r"^[a-z][a-z0-9-]*\{index(:0?\d?d)?\}[a-z0-9-]*$", description="e.g. leaf{index:02d}"
    )
    groups: list[str] = Field(min_length=1)
    model: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$")


class RackTemplate(Strict):
    description: str = Field(default="", max_length=200)
    switches: list[TemplateSwitch] = Field(default_factory=list)
    servers: StrictBool = Field(default=True, description="The rail group's servers are in the rack")


@dataclass
class NewRack:
    rack_yaml: str
    hosts_yaml: str  # the entries appended to inventory/hosts.yaml
    switches: list[str]
    servers: list[str]


def load_template(path: Path, root: Path) -> RackTemplate:
    from fabricctl.model.load import validate_doc

    log = ProblemLog(root)
    doc = load_yaml(path, log)
    template = validate_doc(doc, RackTemplate, log) if doc is not None else None
    log.check()
    assert template is not None
    return template


def read_serials(path: Path) -> list[tuple[int, list[str]]]:
    """(line, fields) of every item line of the serial list."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RackAddError(f"--serials {path}: cannot read it ({type(exc).__name__})") from None
    out = []
    for n, row in enumerate(csv.reader(io.StringIO(text)), start=1):
        fields = [f.strip() for f in row]
        if fields and fields[0] and not fields[0].startswith("#"):
            out.append((n, fields))
    return out


#: (switch name, its template entry, index, serial, management MAC, management address)
SwitchRow = tuple[str, TemplateSwitch, int, str, str, IPv4Address]
#: (server name, serial, NIC MACs)
ServerRow = tuple[str, str, list[str]]
Serials = Iterator[tuple[int, list[str]]]


def new_rack(
    root: Path,
    name: str,
    template: RackTemplate,
    serials: list[tuple[int, list[str]]],
    serials_file: str,
    rail_group: int | None,
    pod: int | None,
    template_file: str = "the rack template",
) -> NewRack:
    log = ProblemLog(root)
    fabric = load_fabric(root, log)
    log.check()
    assert fabric is not None
    _check_request(root, name, fabric, template, pod, template_file)
    rail_group, planned = _plan_indexes(fabric, template, rail_group, pod)
    items = iter(serials)
    switch_rows = _switch_rows(fabric, planned, items, serials_file)
    servers: list[str] = []
    server_rows: list[ServerRow] = []
    if template.servers:
        servers = _rack_servers(root, fabric, switch_rows, rail_group, pod)
        server_rows = _server_rows(servers, fabric.settings.cabling.nics_per_server, items, serials_file)
    extra = next(items, None)
    if extra is not None:
        raise RackAddError(
            f"{serials_file}:{extra[0]}: more lines than the rack holds ({len(switch_rows)} switches, {len(server_rows)} servers)"
        )
    rack = _rack_yaml(fabric, name, template.description, switch_rows, server_rows, rail_group, pod)
    return NewRack(rack, _hosts_yaml(switch_rows, pod), [r[0] for r in switch_rows], servers)


def _check_request(
    root: Path, name: str, fabric: Fabric, template: RackTemplate, pod: int | None, template_file: str
) -> None:
    """The fabric can take a rack of this name and template: a ztp block, no such rack yet, a pod
    when there are pods, models the switches' platforms have."""
    if fabric.settings.ztp is None:
        raise RackAddError(
            "inventory/fabric.yaml: no ztp: block (allowed: ztp: with management, gateway, pool and server)"
        )
    if (root / "racks" / f"{name}.yaml").exists():
        raise RackAddError(f"racks/{name}.yaml exists (allowed: a rack name no rack file has)")
    if fabric.multipod and pod is None:
        raise RackAddError(
            f"--pod is needed in a multi-pod fabric (allowed: 1-{fabric.settings.pods.max_pods if fabric.settings.pods else 1})"
        )
    for i, t in enumerate(template.switches):
        platform = get_platform(_platform(fabric, t.groups))
        if t.model not in platform.model_names:
            raise RackAddError(
                f"{template_file}: switches[{i}].model: {t.model!r} is not a model of {platform.title} "
                f"(allowed: {', '.join(platform.model_names)})"
            )


def _plan_indexes(
    fabric: Fabric, template: RackTemplate, rail_group: int | None, pod: int | None
) -> tuple[int | None, list[tuple[TemplateSwitch, int]]]:
    """The rail group (the next free one when not given and the rack has leaves or servers) and
    every template switch's index: a leaf per rail of the group, other roles the next free ones."""
    n = fabric.settings.cabling.nics_per_server
    if any(t.role == "leaf" for t in template.switches) or template.servers:
        taken = [g for p, g in rail_groups(fabric) if p == pod]
        rail_group = rail_group or (max(taken, default=0) + 1)
    planned: list[tuple[TemplateSwitch, int]] = []  # (template entry, index)
    for t in template.switches:
        if t.role == "leaf":
            assert rail_group is not None
            planned += [(t, (rail_group - 1) * n + r + 1) for r in range(t.count or n)]
            if planned[-1][1] > MAX_INDEX:
                raise RackAddError(
                    f"--rail-group {rail_group}: its leaves would be indexes {(rail_group - 1) * n + 1}-"
                    f"{planned[-1][1]}, past the last switch index {MAX_INDEX} "
                    f"(allowed: rail groups 1-{MAX_INDEX // n} with {n} leaves each)"
                )
        else:
            used = {s.index for s in fabric.switches if s.role == t.role and s.pod == pod}
            free = [i for i in range(1, MAX_INDEX + 1) if i not in used][: t.count or 1]
            planned += [(t, i) for i in free]
    return rail_group, planned


def _switch_rows(
    fabric: Fabric, planned: list[tuple[TemplateSwitch, int]], items: Serials, serials_file: str
) -> list[SwitchRow]:
    """Each planned switch with its line of the serial list and a free management address."""
    ztp = fabric.settings.ztp
    assert ztp is not None
    rows: list[SwitchRow] = []
    addresses = _free_addresses(fabric)
    for t, index in planned:
        line, fields = next(items, (0, []))
        if not fields:
            raise RackAddError(
                f"--serials {serials_file}: ends before the {t.role} with index {index} (allowed: one line per switch, then the servers)"
            )
        if fields[0] != t.role or len(fields) != 3:
            raise RackAddError(
                f"{serials_file}:{line}: expected '{t.role},<serial>,<management mac>' for the {t.role} with index {index}, not {','.join(fields)[:60]!r}"
            )
        switch = t.name.format(index=index)
        if fabric.switch(switch) is not None:
            raise RackAddError(
                f"{switch} is already in inventory/hosts.yaml (allowed: a rack of new switches)"
            )
        address = next(addresses, None)
        if address is None:
            raise RackAddError(
                f"inventory/fabric.yaml ztp.pool {ztp.pool} has no free address left for {switch}"
            )
        rows.append((switch, t, index, fields[1], fields[2], address))
    return rows


def _hosts_yaml(rows: list[SwitchRow], pod: int | None) -> str:
    """The rack's entries of inventory/hosts.yaml."""
    return "".join(
        f"{sw}:\n  hostname: {addr}\n  groups: [{', '.join(t.groups)}]\n  data:\n"
        + (f"    pod: {pod}\n" if pod is not None else "")
        + f"    index: {index}\n"
        for sw, t, index, _serial, _mac, addr in rows
    )


def _rack_servers(
    root: Path, fabric: Fabric, rows: list[SwitchRow], rail_group: int | None, pod: int | None
) -> list[str]:
    """The servers the cabling rules give this rail group, known once its leaves exist."""
    draft = Fabric(fabric.root, fabric.settings, [*fabric.switches, *_drafts(fabric, rows, pod)])
    topo = build_topology(draft, ProblemLog(root))
    if topo is None:
        raise RackAddError(
            f"rail group {rail_group}: the cabling rules cannot cable it (run fabricctl validate after adding)"
        )
    return group_servers(topo, rail_groups(draft).get((pod, rail_group or 0), []))


def _server_rows(servers: list[str], nics: int, items: Serials, serials_file: str) -> list[ServerRow]:
    """Each server with its line of the serial list: a serial and a MAC per NIC."""
    rows: list[ServerRow] = []
    for server in servers:
        line, fields = next(items, (0, []))
        if not fields or fields[0] != "server" or len(fields) != 2 + nics:
            got = f"not {','.join(fields)[:60]!r}" if fields else "the list ends"
            raise RackAddError(
                f"{serials_file}:{line or 'end'}: expected 'server,<serial>,' and {nics} NIC MACs for {server}, {got}"
            )
        rows.append((server, fields[1], fields[2:]))
    return rows


def _rack_yaml(
    fabric: Fabric,
    name: str,
    description: str,
    switch_rows: list[SwitchRow],
    server_rows: list[ServerRow],
    rail_group: int | None,
    pod: int | None,
) -> str:
    """racks/<name>.yaml: where the rack plugs in, its switches and its servers."""
    draft = Fabric(fabric.root, fabric.settings, [*fabric.switches, *_drafts(fabric, switch_rows, pod)])
    leaves = [sw for sw in _drafts(fabric, switch_rows, pod) if sw.role == "leaf"]
    lines = [
        "# Written by fabricctl rack add from the factory's serial list; checked by fabricctl validate.",
        f"name: {name}",
    ]
    if description:
        lines.append(f"description: {_quote(description)}")
    lines.append("plugs_into:")
    if pod is not None:
        lines.append(f"  pod: {pod}")
    if rail_group is not None:
        lines.append(f"  rail_group: {rail_group}")
    if leaves:
        up, down = plugs(draft, leaves)
        lines += [f'  leaf_uplink_ports: "{up}"', f'  spine_ports: "{down}"']
    if len(lines) and lines[-1] == "plugs_into:":
        lines[-1] = "plugs_into: {}"
    lines.append("switches:")
    for sw, t, _index, serial, mac, addr in switch_rows:
        lines += [
            f"  - name: {sw}",
            f"    role: {t.role}",
            f"    model: {t.model}",
            f"    serial: {_quote(serial)}",
            f'    mac: "{mac}"',
            f"    address: {addr}",
        ]
    if server_rows:
        lines.append("servers:")
        for server, serial, macs in server_rows:
            lines += [
                f"  - name: {server}",
                f"    serial: {_quote(serial)}",
                "    nics: [" + ", ".join(f'"{m}"' for m in macs) + "]",
            ]
    return "\n".join(lines) + "\n"


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _drafts(fabric: Fabric, rows: list[Any], pod: int | None) -> list[Switch]:
    return [
        Switch(
            name=sw,
            role=t.role,
            platform=_platform(fabric, t.groups),
            index=index,
            pod=pod,
            model=t.model,
            hostname=str(addr),
        )
        for sw, t, index, _s, _m, addr in rows
    ]


def _platform(fabric: Fabric, groups: list[str]) -> str:
    from fabricctl.model.inventory import load_inventory

    inv = load_inventory(fabric.root)
    for g in groups:
        group = inv.groups.get(g)
        if group is not None and group.platform:
            return str(group.platform)
    raise RackAddError(f"template groups {groups}: none sets a platform in inventory/groups.yaml")


def _free_addresses(fabric: Fabric) -> Iterator[IPv4Address]:
    ztp = fabric.settings.ztp
    assert ztp is not None
    used = {s.hostname for s in fabric.switches}
    first, last = ztp.pool_range()
    for i in range(int(first), int(last) + 1):
        if str(IPv4Address(i)) not in used:
            yield IPv4Address(i)
