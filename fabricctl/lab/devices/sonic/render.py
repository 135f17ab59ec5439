"""How the SONiC twin holds a switch's configuration: CONFIG_DB and frr.conf in one tree.

The tree's `configdb` block holds one node per CONFIG_DB row (`<TABLE>|<key>`, sonic-net's
Configuration.md "Config DB Schema": a row's Redis key is the table name, `|`, then its key), each
field a child (`<field> <value>`, the value as JSON: a string or a list of strings). Its `frr`
block holds frr.conf's lines as FRR nests them, without the lines that only close a block
(`exit`, `exit-address-family`, `exit-vni`, `exit-vrf`, `!`, `end`): `render` writes them again.
"""

from __future__ import annotations

import json
from typing import Any

from fabricctl.lab.config_tree import Node

ConfigDb = dict[str, dict[str, dict[str, Any]]]

DB = "configdb"
FRR = "frr"
#: frr.conf's closing lines (FRR user guide, "VTY shell" / vtysh's `show running-config`).
_CLOSERS = frozenset({"exit", "exit-address-family", "exit-vni", "exit-vrf", "!", "end"})


def empty() -> Node:
    root = Node("", block=True)
    root.children[DB] = Node(DB, block=True)
    root.children[FRR] = Node(FRR, block=True)
    return root


def db_of(root: Node) -> ConfigDb:
    """The CONFIG_DB document the tree holds."""
    out: ConfigDb = {}
    block = root.children.get(DB)
    for row in block.children.values() if block is not None else ():
        table, _, key = row.text.partition("|")
        fields: dict[str, Any] = {}
        for leaf in row.children.values():
            name, value = json.loads(leaf.text)
            fields[name] = value
        out.setdefault(table, {})[key] = fields
    return out


def set_db(root: Node, db: ConfigDb) -> None:
    """Make the tree's CONFIG_DB block hold exactly `db`."""
    block = Node(DB, block=True)
    for table in sorted(db):
        for key in sorted(db[table]):
            row = Node(f"{table}|{key}", block=True)
            for name, value in sorted(db[table][key].items()):
                text = json.dumps([name, value])
                row.children[text] = Node(text)
            block.children[row.text] = row
    root.children[DB] = block


def frr_lines(root: Node) -> list[str]:
    """frr.conf as `vtysh -c "show running-config"` prints it."""
    out: list[str] = []
    block = root.children.get(FRR)
    for node in block.children.values() if block is not None else ():
        if node.block and out and out[-1] != "!":
            out.append("!")
        out += _print(node, 0)
        if node.block:
            out.append("!")
    return [*out, "end"]


def _closer(text: str) -> str | None:
    words = text.split()
    if words[:1] == ["vrf"]:
        return "exit-vrf"
    if words[:2] == ["router", "bgp"]:
        return "exit"
    if words[:1] == ["address-family"]:
        return "exit-address-family"
    if words[:1] == ["vni"] and len(words) == 2:
        return "exit-vni"
    return None


def _print(node: Node, depth: int) -> list[str]:
    pad = " " * depth
    out = [pad + node.text]
    closer = _closer(node.text) if node.block else None
    for child in node.children.values():
        if child.text.startswith("address-family"):
            out.append(pad + " !")
        out += _print(child, depth + 1)
    if closer is not None:
        out.append(pad + closer)
    return out


def parse_frr(text: str) -> Node:
    """frr.conf text -> the `frr` block (nesting read from the indentation, closers dropped)."""
    top = Node(FRR, block=True)
    stack: list[tuple[int, Node]] = [(-1, top)]
    for raw in text.splitlines():
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped or stripped in _CLOSERS:
            continue
        depth = len(line) - len(line.lstrip(" "))
        while stack[-1][0] >= depth:
            stack.pop()
        parent = stack[-1][1]
        # `vni <n>` opens a block under `address-family l2vpn evpn` only (a VRF's is one line)
        opens = _closer(stripped) is not None and (
            not stripped.startswith("vni ") or parent.text.startswith("address-family")
        )
        node = Node(stripped, block=opens)
        parent.children.setdefault(stripped, node)
        stack.append((depth, parent.children[stripped]))
    return top


def render(root: Node, hostname: str, model: str) -> str:
    """CONFIG_DB (as `show runningconfiguration all` prints it) then frr.conf: the text the
    product side's SONiC document holds (one JSON document, then the FRR lines)."""
    return json.dumps(db_of(root), indent=4, sort_keys=True) + "\n" + "\n".join(frr_lines(root)) + "\n"


def parse(text: str) -> Node:
    """The printed text back to the tree (ValueError: not a CONFIG_DB document then frr.conf)."""
    db, end = json.JSONDecoder().raw_decode(text.lstrip())
    if not isinstance(db, dict) or not all(isinstance(rows, dict) for rows in db.values()):
        raise ValueError("CONFIG_DB is not an object of tables")
    root = empty()
    set_db(root, db)
    root.children[FRR] = parse_frr(text.lstrip()[end:])
    return root
