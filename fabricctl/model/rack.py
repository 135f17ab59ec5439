"""racks/<rack>.yaml: a rack as the factory delivers it, and the acceptance records that free it.

A rack file names the rack's switches (role, model, serial number, management MAC and address),
its servers with the MAC of every GPU NIC, and where the rack plugs into the fabric (pod, rail
group, the leaf and spine ports its cables take). It is input like a tenant file: validated
field by field with file and line, then checked against the inventory and the cabling rules
(compile/racks.py). `fabricctl rack add` writes it; `fabricctl ztp render` serves its switches;
`fabricctl rack accept` writes `racks/<rack>.acceptance.json` next to it, and only then are the
rack's GPUs placeable.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from ipaddress import IPv4Address
from pathlib import Path
from typing import Annotated, Any

from netutils.mac import mac_to_int
from pydantic import AfterValidator, Field, StrictInt, model_validator

from fabricctl.macs import mac_as
from fabricctl.model.bounds import MAX_INVENTORY_FILE_BYTES
from fabricctl.model.fabric import PortRange, Role, Strict
from fabricctl.model.problems import ProblemLog
from fabricctl.model.yamlsource import YamlDoc, inside_root, load_yaml

RACKS = "racks"
#: At most this many rack files: a 100,000-GPU fabric has a few hundred racks.
MAX_RACK_FILES = 4096


def _mac(value: str) -> str:
    """A MAC as vendors print it (00:e0:fc:12:34:56, 00-E0-FC-12-34-56, 00e0.fc12.3456) ->
    lower case with colons; a multicast or all-zero address is no NIC's."""
    try:
        mac = mac_as(value.strip(), "MAC_COLON_TWO")
    except ValueError:
        raise ValueError(f"{value!r} is not a MAC address such as 00:e0:fc:12:34:56") from None
    if mac_to_int(mac) & (1 << 40) or mac_to_int(mac) == 0:
        raise ValueError(f"{value!r} is a multicast or zero MAC, not a NIC's")
    return mac


Mac = Annotated[str, AfterValidator(_mac)]
Serial = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9-]{3,39}$")]
#: The name of a rack, or of a switch or server in it (`rack add` and `rack accept` take it too).
NAME_PATTERN = r"[a-z][a-z0-9-]{0,31}"
Name = Annotated[str, Field(pattern=f"^{NAME_PATTERN}$")]


class RackSwitch(Strict):
    """One switch of the rack, as the factory labels it."""

    name: Name
    role: Role
    model: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$")
    serial: Serial
    mac: Mac = Field(description="The management port's MAC: the DHCP server reserves its address by it")
    address: IPv4Address = Field(description="Management address (inside fabric.yaml ztp.management)")


class RackServer(Strict):
    """One GPU server: its NICs' MACs in NIC order (NIC r faces the leaf of rail r)."""

    name: Name
    serial: Serial
    nics: list[Mac] = Field(min_length=1, max_length=16)


class PlugsInto(Strict):
    """Where the rack's cables go. Ports are the cabling rules' (fabric.yaml cabling:), written
    out for the people who cable the rack; validate proves they are the rules'."""

    pod: StrictInt | None = Field(default=None, ge=1, le=256)
    rail_group: StrictInt | None = Field(default=None, ge=1, le=4096)
    leaf_uplink_ports: PortRange | None = Field(default=None, description="On each leaf: to the spines")
    spine_ports: PortRange | None = Field(
        default=None, description="On each spine of the pod: to this rack's leaves"
    )


class Rack(Strict):
    """racks/<name>.yaml."""

    name: Name
    description: str = Field(default="", max_length=200)
    plugs_into: PlugsInto = Field(default_factory=PlugsInto)
    switches: list[RackSwitch] = Field(default_factory=list, max_length=256)
    servers: list[RackServer] = Field(default_factory=list, max_length=1024)

    @model_validator(mode="after")
    def _something(self) -> Rack:
        if not self.switches and not self.servers:
            raise ValueError("switches: a rack holds switches, servers or both (both lists are empty)")
        return self

    def identity(self) -> str:
        """Hash of what makes the rack this rack (switches and servers with serials and MACs, where
        it plugs in): an acceptance holds for the rack it was taken on, not a re-cabled or
        re-stocked one. The description may change freely."""
        data = self.model_dump(mode="json", exclude={"description"})
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


@dataclass
class RackDoc:
    rack: Rack
    doc: YamlDoc
    file: str

    def line(self, *path: str | int) -> int:
        return self.doc.line_of(path)


def rack_files(root: Path) -> list[Path]:
    folder = root / RACKS
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in (".yaml", ".yml") and p.is_file())


def load_racks(root: Path, log: ProblemLog) -> list[RackDoc]:
    """racks/*.yaml, each validated on its own (the fabric-wide checks are compile/racks.py's)."""
    from fabricctl.model.load import validate_doc

    folder = root / RACKS
    if not folder.is_dir() or inside_root(folder, log) is None:
        return []
    paths = rack_files(root)
    if len(paths) > MAX_RACK_FILES:
        log.add(folder, 0, "", f"{len(paths)} rack files", f"at most {MAX_RACK_FILES}")
        return []
    out = []
    for path in paths:
        doc = load_yaml(path, log, max_bytes=MAX_INVENTORY_FILE_BYTES)
        if doc is None:
            continue
        rack = validate_doc(doc, Rack, log)
        if rack is None:
            continue
        if path.stem != rack.name:
            log.add(
                path,
                doc.line_of(("name",)),
                "name",
                f"file is named {path.name} but the rack is {rack.name!r}",
                f"{rack.name}.yaml",
            )
            continue
        out.append(RackDoc(rack, doc, log.relative(path)))
    return out


def acceptance_path(root: Path, rack: str) -> Path:
    return root / RACKS / f"{rack}.acceptance.json"


def read_acceptance(root: Path, rack: str) -> dict[str, Any] | None:
    """The rack's acceptance record, or None (absent or unreadable: not accepted)."""
    try:
        data = json.loads(acceptance_path(root, rack).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def accepted(root: Path, rd: RackDoc) -> tuple[bool, str]:
    """(accepted?, why): a record that passed, taken on this very rack (same identity)."""
    record = read_acceptance(root, rd.rack.name)
    if record is None:
        return False, "not accepted yet"
    if record.get("rack_identity") != rd.rack.identity():
        return (
            False,
            "its acceptance was taken before the rack file changed (serials, MACs or ports): accept it again",
        )
    if record.get("result") != "pass":
        return False, f"its last acceptance failed ({record.get('finished', '?')})"
    return True, f"accepted {record.get('finished', '')}".strip()
