"""What a lab port is running, derived from its config and the command reference's defaults.

A real switch answers `display interface` / `show interfaces` from its state, not from the
lines it was given: a port without an `mtu` line still has an IP MTU (the documented default),
and says so. The values here come from the config tree and lab/commands/<platform>.yaml only.
"""

from __future__ import annotations

from dataclasses import dataclass

from fabricctl.lab.config_tree import Node
from fabricctl.lab.reference import reference

#: The view (command reference) of each interface kind, by name prefix.
_VIEWS = {
    "comware": (
        ("FourHundredGigE", "if-eth"),
        ("TwoHundredGigE", "if-eth"),
        ("Vsi-interface", "if-vsi"),
        ("LoopBack", "if-lo"),
        ("M-GigabitEthernet", "if-mgmt"),
    ),
    "eos": (
        ("Ethernet", "if-eth"),
        ("Vlan", "if-vlan"),
        ("Loopback", "if-lo"),
        ("Vxlan", "if-vx"),
        ("Management", "if-mgmt"),
    ),
}


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


def _value(node: Node, *prefix: str) -> str | None:
    """The word after `prefix` in the port's one line starting with it."""
    n = len(prefix)
    for text in node.children:
        words = text.split()
        if words[:n] == list(prefix) and len(words) > n:
            return " ".join(words[n:])
    return None


def _int(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() else None


def port_state(platform: str, running: Node, name: str) -> PortState | None:
    """The port `name` as the switch shows it, or None when no such interface exists."""
    node = running.children.get(f"interface {name}")
    if node is None:
        return None
    view = next((v for prefix, v in _VIEWS[platform] if name.startswith(prefix)), "if-eth")
    ref = reference(platform)
    if platform == "comware":
        routed = name.startswith(("Vsi-interface", "LoopBack", "M-GigabitEthernet")) or (
            _value(node, "port", "link-mode") == "route"
        )
        vrf = _value(node, "ip", "binding", "vpn-instance")
        frame_default = ref.default("if-eth", ["jumboframe", "enable"]) if view == "if-eth" else None
        frame = _int(_value(node, "jumboframe", "enable")) or _int(frame_default)
    else:
        routed = view != "if-eth" or "no switchport" in node.children
        vrf = _value(node, "vrf")
        frame = None
    ip = _value(node, "ip", "address")
    mtu_default = ref.default(view, ["mtu"])
    ip_mtu = (_int(_value(node, "mtu")) or _int(mtu_default)) if routed else None
    return PortState(
        name=name,
        admin_up="shutdown" not in node.children,
        description=_value(node, "description"),
        routed=routed,
        ipv4=ip,
        vrf=vrf,
        ip_mtu=ip_mtu,
        max_frame=frame,
    )


def display_interface_comware(state: PortState) -> str:
    """`display interface <name>` in Comware V7 wording (H3C S6520X command reference 1.1.9)."""
    up = "UP" if state.admin_up else "Administratively DOWN"
    lines = [
        state.name,
        f"Current state: {up}",
        f"Line protocol state: {'UP' if state.admin_up else 'DOWN'}",
        f"Description: {state.description or state.name + ' Interface'}",
    ]
    if state.routed:
        if state.ip_mtu is not None:
            lines.append(f"Maximum transmission unit: {state.ip_mtu}")
        if state.ipv4:
            address, _, mask = state.ipv4.partition(" ")
            lines.append(f"Internet address: {address}/{_prefix(mask)} (primary)")
        else:
            lines.append("Internet protocol processing: Disabled")
        if state.max_frame is not None:
            lines += ["Allow jumbo frames to pass", f"The maximum frame length is {state.max_frame}"]
    elif state.max_frame is not None:
        lines += [f"Maximum frame length: {state.max_frame}", "Allow jumbo frame to pass"]
    return "\n".join(lines)


def _prefix(mask: str) -> int:
    try:
        return sum(bin(int(octet)).count("1") for octet in mask.split("."))
    except ValueError:
        return 32


def show_interfaces_eos(state: PortState) -> tuple[str, dict[str, object]]:
    """`show interfaces <name>`: the text EOS prints and the eAPI JSON fields (interfaces.<name>)."""
    status = "up" if state.admin_up else "administratively down"
    lines = [f"{state.name} is {status}, line protocol is {'up' if state.admin_up else 'down'}"]
    if state.description:
        lines.append(f"  Description: {state.description}")
    if state.ipv4:
        lines.append(f"  Internet address is {state.ipv4}")
    if state.ip_mtu is not None:
        lines.append(f"  IP MTU {state.ip_mtu} bytes")
    data: dict[str, object] = {
        "name": state.name,
        "description": state.description or "",
        "interfaceStatus": "connected" if state.admin_up else "disabled",
        "lineProtocolStatus": "up" if state.admin_up else "down",
        "forwardingModel": "routed" if state.routed else "bridged",
    }
    if state.ip_mtu is not None:
        data["mtu"] = state.ip_mtu
    return "\n".join(lines), data
