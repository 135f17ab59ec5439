"""TinyOS's lab twin, as one LabNos (entry point `fabricctl.lab_devices` `tinyos`): its command
reference (commands.yaml), CLI (cli.py), JSON shows (show.py), facts reader (facts.py), hardware per model (hardware.py), renderer
(render.py), factory config (factory.py) and interface names (names.py)."""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources

from fabricctl.lab.config_tree import Node
from fabricctl.lab.nos import LabNos, PortLayer

from . import factory, facts, hardware, names, render
from .cli import TinyCli


def _port_layer(node: Node, view: str, default: Callable[[str, list[str]], str | None]) -> PortLayer:
    """Every TinyOS interface is routed; its VRF is its `vrf` leaf."""
    vrf = next((line.split()[-1] for line in node.children if line.split()[:1] == ["vrf"]), None)
    return PortLayer(routed=True, vrf=vrf, max_frame=None)


NOS = LabNos(
    name="tinyos",
    default_model="T-16",
    models=hardware.MODELS,
    interface_types=names.INTERFACE_TYPES,
    port_views=(("port", "global"), ("lo", "global")),
    mtu_at=lambda port, view: (view, ["set", "interface", port, "mtu"]),
    port_layer=_port_layer,
    reference_text=lambda: resources.files(__name__).joinpath("commands.yaml").read_text(encoding="utf-8"),
    read_facts=facts.read_facts,
    render=render.render,
    factory=factory.factory,
    hardware=factory.hardware,
    ztp_factory=factory.hardware,
    ztp_boot=factory.ztp_boot,
    mac_prefix="0002",
    system_description=lambda model: (f"TinyOS 1.0 on a {model}",),
    cli=TinyCli,
    front_panel=("port",),
    parse_config=render.parse,
)
