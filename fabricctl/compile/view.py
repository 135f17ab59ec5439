"""The model as the compiler reads it: read once, then only looked up.

`read_fabric` turns the loaded `Fabric` into a `FabricView`: the switches by name and by role,
the pods, every port list of the cabling rules expanded, each switch's model and the cable
lengths, computed once before topology, allocation and intents are built. Compile's modules
take the view and never go back to the model's own queries (`expand_ports`, `cable_meters`,
the role lists `Fabric` computes on each call, the platform registry per switch).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from fabricctl.model.fabric import FabricSettings, Switch, cable_meters, expand_ports
from fabricctl.model.load import Fabric
from fabricctl.model.maintenance import Maintenance
from fabricctl.platforms import get_platform
from fabricctl.platforms.base import SwitchModel


@dataclass(frozen=True)
class CablingPorts:
    """Every port list of fabric.yaml's cabling rules, expanded once (`1-32,40` -> ports)."""

    leaf_uplinks: tuple[int, ...]
    leaf_gpu_ports: tuple[int, ...]
    spine_downlinks: tuple[int, ...]
    spine_uplinks: tuple[int, ...]  # to the super-spines (a multi-pod fabric; else empty)
    superspine_downlinks: tuple[int, ...]


@dataclass(frozen=True)
class FabricView:
    """One fabric as compile reads it. `fabric` is the model it was read from (its settings,
    root and file positions for messages)."""

    fabric: Fabric
    switches: tuple[Switch, ...]
    spines: tuple[Switch, ...]
    leaves: tuple[Switch, ...]
    superspines: tuple[Switch, ...]
    pods: tuple[int | None, ...]
    by_name: Mapping[str, Switch]
    models: Mapping[str, SwitchModel]  # switch name -> its model (`data.model`, else the platform's)
    ports: CablingPorts
    uplink_meters: int  # cabling.uplink_cable
    gpu_meters: int  # cabling.gpu_cable
    pod_uplink_meters: int  # pods.uplink_cable (a multi-pod fabric; else cabling.uplink_cable)
    #: (role, pod, None): the leaves or spines of a pod; (role, None, plane): a plane's super-spines
    #: or spines (spine index k of every pod)
    groups: Mapping[tuple[str, int | None, int | None], tuple[Switch, ...]]

    @property
    def root(self) -> Path:
        return self.fabric.root

    @property
    def settings(self) -> FabricSettings:
        return self.fabric.settings

    @property
    def maintenance(self) -> Maintenance:
        return self.fabric.maintenance

    @property
    def multipod(self) -> bool:
        return self.fabric.multipod

    def switch(self, name: str) -> Switch | None:
        return self.by_name.get(name)

    def model(self, sw: Switch) -> SwitchModel:
        """A switch's model: looked up for the fabric's own, read from its platform for another
        (a draft of `rack add`)."""
        found = self.models.get(sw.name)
        return found if found is not None and self.by_name.get(sw.name) is sw else switch_model(sw)

    def settings_line(self, *path: str | int) -> int:
        return self.fabric.settings_line(*path)

    def in_pod(self, role: str, pod: int | None) -> list[Switch]:
        """The leaves or spines of one pod (of the whole fabric when it has no pods), in order."""
        return list(self.groups.get((role, pod, None), ()))

    def in_plane(self, role: str, plane: int) -> list[Switch]:
        """Super-spines of plane k, or spines of plane k (spine index k of every pod), in order."""
        return list(self.groups.get((role, None, plane), ()))


def switch_model(sw: Switch) -> SwitchModel:
    """The switch's model (`data.model`, else its platform's default): ports, speeds, limits."""
    return get_platform(sw.platform).model(sw.model)


def read_fabric(fabric: Fabric | FabricView) -> FabricView:
    """The view compile works from (a view is returned as it is)."""
    if isinstance(fabric, FabricView):
        return fabric
    settings = fabric.settings
    cab, pods = settings.cabling, settings.pods
    switches = tuple(fabric.switches)
    return FabricView(
        fabric=fabric,
        switches=switches,
        spines=tuple(s for s in switches if s.role == "spine"),
        leaves=tuple(s for s in switches if s.role == "leaf"),
        superspines=tuple(s for s in switches if s.role == "superspine"),
        pods=tuple(fabric.pods),
        by_name=MappingProxyType({s.name: s for s in switches}),
        models=MappingProxyType({s.name: switch_model(s) for s in switches}),
        ports=CablingPorts(
            leaf_uplinks=tuple(expand_ports(cab.leaf_uplink_ports)),
            leaf_gpu_ports=tuple(expand_ports(cab.leaf_gpu_ports)),
            spine_downlinks=tuple(expand_ports(cab.spine_downlink_ports)),
            spine_uplinks=tuple(expand_ports(pods.spine_uplink_ports)) if pods else (),
            superspine_downlinks=tuple(expand_ports(pods.superspine_downlink_ports)) if pods else (),
        ),
        uplink_meters=cable_meters(cab.uplink_cable),
        gpu_meters=cable_meters(cab.gpu_cable),
        pod_uplink_meters=cable_meters(pods.uplink_cable) if pods else cable_meters(cab.uplink_cable),
        groups=MappingProxyType(_groups(switches)),
    )


def _groups(switches: tuple[Switch, ...]) -> dict[tuple[str, int | None, int | None], tuple[Switch, ...]]:
    out: dict[tuple[str, int | None, int | None], list[Switch]] = {}
    for s in switches:
        if s.role == "superspine":
            out.setdefault((s.role, None, s.plane), []).append(s)
        else:
            out.setdefault((s.role, s.pod, None), []).append(s)
        if s.role == "spine":
            out.setdefault((s.role, None, s.index), []).append(s)
    return {k: tuple(v) for k, v in out.items()}
