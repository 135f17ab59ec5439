"""The lab twin of H3C Comware V7: CLI dialect (cli.py), show output (show.py), command reference
(commands.yaml), facts reader (facts.py), config renderer (render.py), factory config
(factory.py) and interface names (names.py)."""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources

from fabricctl.lab.config_tree import Node
from fabricctl.lab.devices.comware import factory, facts, gnmi, hardware, names, render
from fabricctl.lab.devices.comware.cli import ComwareCli
from fabricctl.lab.nos import LabNos, PortLayer
from fabricctl.lab.ports import int_or_none, interface_blocks, modal_port_lines, value_of


def _port_layer(node: Node, view: str, default: Callable[[str, list[str]], str | None]) -> PortLayer:
    """A front-panel port is bridged until `port link-mode route`; its frame limit is `jumboframe
    enable N` (the documented default where the port has none)."""
    routed = view != "if-eth" or value_of(node, "port", "link-mode") == "route"
    frame_default = default("if-eth", ["jumboframe", "enable"]) if view == "if-eth" else None
    frame = int_or_none(value_of(node, "jumboframe", "enable")) or int_or_none(frame_default)
    return PortLayer(
        routed=routed,
        vrf=value_of(node, "ip", "binding", "vpn-instance"),
        max_frame=frame,
        **modal_port_lines(node),
    )


def _system_description(model: str) -> tuple[str, ...]:
    return (
        f"H3C Comware Platform Software, Software Version {render.COMWARE_VERSION}",
        f"H3C {model}",
        "Copyright (c) 2004-2024 New H3C Technologies Co., Ltd. All rights reserved.",
    )


NOS = LabNos(
    name="comware",
    default_model="S9825-64D",
    models=hardware.MODELS,
    interface_types=names.INTERFACE_TYPES,
    port_views=(
        ("FourHundredGigE", "if-eth"),
        ("TwoHundredGigE", "if-eth"),
        ("Vsi-interface", "if-vsi"),
        ("LoopBack", "if-lo"),
        ("M-GigabitEthernet", "if-mgmt"),
        ("", "if-eth"),  # the rest: an Ethernet interface view's commands
    ),
    mtu_at=lambda port, view: (view, ["mtu"]),  # `mtu` in the interface view
    port_layer=_port_layer,
    port_nodes=interface_blocks,
    reference_text=lambda: resources.files(__name__).joinpath("commands.yaml").read_text(encoding="utf-8"),
    read_facts=facts.read_facts,
    render=lambda tree, hostname, model: render.render_comware(tree),
    factory=factory.factory,
    hardware=factory.hardware,
    ztp_factory=factory.ztp_factory,
    # Comware runs the configuration file it downloads over its defaults, without a reboot.
    ztp_boot=lambda url, text, fetch: (text, False),
    mac_prefix="0000",
    system_description=_system_description,
    cli=ComwareCli,
    front_panel=("FourHundredGigE", "TwoHundredGigE"),
    gnmi=gnmi.TARGET,
)
