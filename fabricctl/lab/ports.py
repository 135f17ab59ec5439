"""What a lab port is running, derived from its config and the command reference's defaults.

A real switch answers `display interface` / `show interfaces` from its state, not from the
lines it was given: a port without an `mtu` line still has an IP MTU (the documented default),
and says so. The values here come from the config tree and lab/devices/<platform>/commands.yaml
only; which lines make a port routed, and which view of the command reference its lines are in,
are the NOS's (`LabNos.port_views`, `LabNos.port_layer`: the lines a port's state is read from),
and so are which config nodes are ports (`LabNos.port_nodes`) and where its reference documents
a port's default IP MTU (`LabNos.mtu_at`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fabricctl.lab.config_tree import Node
from fabricctl.lab.fabric_state import FabricState
from fabricctl.lab.nos import lab_nos
from fabricctl.lab.reference import reference


@dataclass(frozen=True)
class PortState:
    name: str
    admin_up: bool
    description: str | None
    routed: bool
    ipv4: str | None  # as configured ("10.0.0.1 255.255.255.254" or "10.0.0.1/31")
    vrf: str | None
    ip_mtu: int | None  # None where the port has no IP MTU (Layer 2, loopback without default)
    max_frame: int | None  # the frame limit where the NOS sets one apart from the IP MTU
    oper_up: bool  # line protocol: admin up and, for a cabled port, the far end up too


def value_of(node: Node, *prefix: str) -> str | None:
    """The word after `prefix` in the port's one line starting with it."""
    n = len(prefix)
    for text in node.children:
        words = text.split()
        if words[:n] == list(prefix) and len(words) > n:
            return " ".join(words[n:])
    return None


def int_or_none(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() else None


def modal_port_lines(node: Node) -> dict[str, Any]:
    """What a modal CLI's port block says in the lines EOS and Comware share (`shutdown`,
    `description`, `ip address`, `mtu`): PortLayer's fields of the same names."""
    return {
        "admin_up": "shutdown" not in node.children,
        "description": value_of(node, "description"),
        "ipv4": value_of(node, "ip", "address"),
        "ip_mtu": int_or_none(value_of(node, "mtu")),
    }


def interface_blocks(running: Node) -> dict[str, Node]:
    """A modal CLI's ports (`LabNos.port_nodes`): each `interface <name>` block, in config order."""
    return {text.split()[1]: node for text, node in running.children.items() if text.startswith("interface ")}


def port_state(
    platform: str, name: str, node: Node, fabric: FabricState | None = None, device: str = ""
) -> PortState:
    """The port `name` (its config `node`) as the switch shows it."""
    nos = lab_nos(platform)
    view = nos.port_view(name)
    ref = reference(platform)
    layer = nos.port_layer(node, view, ref.default)
    mtu_default = ref.default(*nos.mtu_at(name, view))
    return PortState(
        name=name,
        admin_up=layer.admin_up,
        description=layer.description,
        routed=layer.routed,
        ipv4=layer.ipv4,
        vrf=layer.vrf,
        ip_mtu=(layer.ip_mtu or int_or_none(mtu_default)) if layer.routed else None,
        max_frame=layer.max_frame,
        oper_up=fabric.oper_up(device, name)
        if fabric is not None and device in fabric.facts
        else layer.admin_up,
    )


def port_states(platform: str, running: Node, fabric: FabricState, device: str) -> list[PortState]:
    """Every port of `running` the NOS lists (`LabNos.port_nodes`), in config order, as the
    switch shows it."""
    nodes = lab_nos(platform).port_nodes(running)
    return [port_state(platform, name, node, fabric, device) for name, node in nodes.items()]


def chassis_digits(name: str) -> str:
    """Eight hex digits stable per switch name: the low half of the chassis MAC LLDP advertises."""
    return f"{sum(ord(c) * 31**i for i, c in enumerate(name)) % 16**8:08x}"
