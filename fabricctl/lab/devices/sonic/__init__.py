"""SONiC's lab twin, as one LabNos: its CONFIG_DB and FRR knowledge (commands.yaml, every table
and field cited to sonic-net's CONFIG_DB manual and YANG models, every FRR line to FRR's user
guide), its shell (cli.py: show, config apply-patch / checkpoint / rollback / save, vtysh), the
Generic Config Updater's checks (commit.py), show output in sonic-utilities' layouts
(show.py), its tree (render.py: CONFIG_DB then frr.conf, and back), facts (facts.py), hardware
(hardware.py), factory config and day 0 (factory.py: ZTP JSON's configdb-json plugin).

It is not registered under `fabricctl.lab_devices` yet: a NOS is registered on both sides at once
and the product side has no `PLATFORM`; a test registers it (`lab.nos.register`).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources

from fabricctl.lab.config_tree import Node
from fabricctl.lab.nos import LabNos, PortLayer

from . import factory, facts, hardware, render
from .cli import SonicCli


def _port_layer(node: Node, view: str, default: Callable[[str, list[str]], str | None]) -> PortLayer:
    """A SONiC port's layer is CONFIG_DB's (facts.py reads it); the lab asks no line of it."""
    return PortLayer(routed=True, vrf=None, max_frame=None)


NOS = LabNos(
    name="sonic",
    default_model="SN5600",
    models=hardware.MODELS,
    interface_types={"Ethernet": "Eth", "Loopback": "Lo", "Vlan": "Vlan"},
    port_views=(("", "configdb"),),  # every interface is a CONFIG_DB row: one view for all
    mtu_at=lambda port, view: (view, ["PORT", port, "mtu"]),  # the PORT table's `mtu` field
    port_layer=_port_layer,
    reference_text=lambda: resources.files(__name__).joinpath("commands.yaml").read_text(encoding="utf-8"),
    read_facts=facts.read_facts,
    render=render.render,
    factory=factory.factory,
    hardware=factory.hardware,
    ztp_factory=factory.factory,
    ztp_boot=factory.ztp_boot,
    mac_prefix="b8ce",
    system_description=lambda model: (f"SONiC Software Version: SONiC.202505 - HwSku: ACS-{model}",),
    cli=SonicCli,
    front_panel=("Ethernet",),
    parse_config=render.parse,
)
