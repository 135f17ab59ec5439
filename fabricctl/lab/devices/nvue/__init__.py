"""The lab twin of NVIDIA Cumulus Linux with NVUE (Spectrum-4 SN5600): the NVUE CLI over SSH
(cli.py) and the NVUE REST API over HTTPS (api.py), revisions with apply and confirm
(revisions.py), the object reference (commands.yaml), show answers (show.py), facts reader
(facts.py), YAML renderer (render.py) and factory config (factory.py)."""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources

from fabricctl.lab.config_tree import Node
from fabricctl.lab.devices.nvue import api, factory, facts, gnmi, hardware, render
from fabricctl.lab.devices.nvue.cli import NvueCli
from fabricctl.lab.devices.nvue.tree import NVUE_RELEASE
from fabricctl.lab.editor import InvalidInput
from fabricctl.lab.nos import LabNos, PortLayer

#: Interface kinds and how NVUE's tables print them (the names as they are), in its order.
INTERFACE_TYPES = {"swp": "swp", "bond": "bond", "lo": "lo", "vlan": "vlan", "eth": "eth"}


def _port_layer(node: Node, view: str, default: Callable[[str, list[str]], str | None]) -> PortLayer:
    """A port is routed unless it is in a bridge domain; its VRF is `vrf` (default: default)."""
    vrf = node.children.get("vrf")
    link = node.children.get("link")
    mtu = link.children.get("mtu") if link is not None else None
    return PortLayer(
        routed="bridge" not in node.children,
        vrf=next(iter(vrf.children)) if vrf is not None else None,
        max_frame=int(next(iter(mtu.children))) if mtu is not None else None,
    )


def _ztp_boot(url: str, text: str, fetch: Callable[[str], str]) -> tuple[str, bool]:
    """A startup.yaml handed over at day 0 boots as the applied configuration."""
    try:
        render.parse(text)
    except InvalidInput as exc:
        raise ValueError(f"not an NVUE configuration NVUE would take: {' '.join(exc.words)}") from None
    return text, True


def _system_description(model: str) -> tuple[str, ...]:
    return (f"Cumulus Linux version {NVUE_RELEASE} running on NVIDIA {model}",)


NOS = LabNos(
    name="nvue",
    default_model=factory.MODEL,
    models=hardware.MODELS,
    interface_types=INTERFACE_TYPES,
    port_views=(("", "set"),),
    mtu_at=lambda port, view: (view, ["interface", port, "link", "mtu"]),  # the object path `link mtu`
    port_layer=_port_layer,
    reference_text=lambda: resources.files(__name__).joinpath("commands.yaml").read_text(encoding="utf-8"),
    read_facts=facts.read_facts,
    render=render.render,
    factory=factory.factory,
    hardware=factory.hardware,
    ztp_factory=factory.ztp_factory,
    ztp_boot=_ztp_boot,
    mac_prefix="1c34",  # NVIDIA (Mellanox) OUI 1c:34:da
    system_description=_system_description,
    cli=NvueCli,
    front_panel=("swp",),
    eapi=api.serve_connection,
    parse_config=render.parse,
    gnmi=gnmi.TARGET,
)
