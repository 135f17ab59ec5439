"""The lab twin of Arista EOS: CLI dialect (cli.py) and eAPI (eapi.py), show output (show.py,
show_routing.py), command reference (commands.yaml), facts reader (facts.py), config renderer
(render.py), factory config (factory.py) and interface names (names.py)."""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources

from fabricctl.lab.config_tree import Node
from fabricctl.lab.devices.eos import eapi, factory, facts, gnmi, hardware, names, render, ztp
from fabricctl.lab.devices.eos.cli import EosCli
from fabricctl.lab.nos import LabNos, PortLayer
from fabricctl.lab.ports import interface_blocks, modal_port_lines, value_of


def _port_layer(node: Node, view: str, default: Callable[[str, list[str]], str | None]) -> PortLayer:
    """An Ethernet port is switched until `no switchport`; every other interface kind is routed."""
    return PortLayer(
        routed=view != "if-eth" or "no switchport" in node.children,
        vrf=value_of(node, "vrf"),
        max_frame=None,
        **modal_port_lines(node),
    )


def _system_description(model: str) -> tuple[str, ...]:
    return (f"Arista Networks EOS version {render.EOS_VERSION} running on an Arista Networks DCS-{model}",)


NOS = LabNos(
    name="eos",
    default_model="7060X5-64",
    models=hardware.MODELS,
    interface_types=names.INTERFACE_TYPES,
    port_views=(
        ("Ethernet", "if-eth"),
        ("Vlan", "if-vlan"),
        ("Loopback", "if-lo"),
        ("Vxlan", "if-vx"),
        ("Management", "if-mgmt"),
        ("", "if-eth"),  # Port-Channel and the rest: an Ethernet interface's commands
    ),
    mtu_at=lambda port, view: (view, ["mtu"]),  # `mtu` in the interface's mode
    port_layer=_port_layer,
    port_nodes=interface_blocks,
    reference_text=lambda: resources.files(__name__).joinpath("commands.yaml").read_text(encoding="utf-8"),
    read_facts=facts.read_facts,
    render=render.render_eos,
    factory=factory.factory,
    hardware=factory.hardware,
    ztp_factory=factory.hardware,  # out of the box: nothing but its ports
    ztp_boot=ztp.ztp_boot,
    mac_prefix="001c",  # Arista's OUI, 00:1c:73
    system_description=_system_description,
    cli=EosCli,
    front_panel=("Ethernet",),
    eapi=eapi.serve_connection,
    gnmi=gnmi.TARGET,
)
