"""What each port is, from the compiled intent: the labels every series of the exporter carries.

A GPU port is its tenant's server and NIC on its leaf; a fabric port is the link's two ends (the
leaf it belongs to or faces). Tenants share fabric links, so those carry no tenant label: a
query that groups by tenant reads GPU ports, where the tenant is known.
"""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import ip_address, ip_interface

from fabricctl.compile.build import Compiled

#: The labels of every port series; the far end (`peer`) is on fabricctl_port_info only, to
#: keep the scrape small at thousands of switches.
LABELS = ("switch", "port", "role", "tenant", "leaf", "server", "nic")


@dataclass(frozen=True)
class PortLabels:
    role: str  # gpu | fabric
    tenant: str = ""
    leaf: str = ""
    server: str = ""
    nic: str = ""
    peer: str = ""  # the far end: "spine1 Ethernet1" or "node01 nic0"


def port_labels(compiled: Compiled) -> dict[tuple[str, str], PortLabels]:
    """(switch, port) -> labels, for every GPU port (held or free) and both ends of every link."""
    out: dict[tuple[str, str], PortLabels] = {}
    for leaf, ports in compiled.topology.gpu_ports.items():
        for gp in ports:
            owner = compiled.allocation.port_owner.get((leaf, gp.name))
            tenant = owner[0].tenant.name if owner else ""
            out[(leaf, gp.name)] = PortLabels(
                "gpu", tenant, leaf, gp.server, str(gp.nic), f"{gp.server} nic{gp.nic}"
            )
    for ln in compiled.topology.links:
        leaf = ln.leaf if ln.tier == "leaf-spine" else ""
        out[(ln.leaf, ln.leaf_port)] = PortLabels("fabric", leaf=leaf, peer=f"{ln.spine} {ln.spine_port}")
        out[(ln.spine, ln.spine_port)] = PortLabels("fabric", leaf=leaf, peer=f"{ln.leaf} {ln.leaf_port}")
    return out


#: The labels of `fabricctl_bgp_session_up`: the peer's address, the neighbor the intent names
#: ("spine1"), the session's kind (underlay | overlay) and, for an underlay session, the port
#: its link is on ("" for a session between loopbacks).
SESSION_LABELS = ("switch", "peer", "neighbor", "kind", "port")


@dataclass(frozen=True)
class SessionLabels:
    peer: str
    neighbor: str
    kind: str
    port: str = ""


def session_labels(compiled: Compiled) -> dict[str, list[SessionLabels]]:
    """switch -> the BGP sessions its intent plans, each with the port of its link (underlay)."""
    out: dict[str, list[SessionLabels]] = {}
    for name, intent in compiled.intents.items():
        subnets = [
            (ip_interface(i.ipv4).network, i.name)
            for i in intent.interfaces
            if i.ipv4 and i.role in ("uplink", "downlink")
        ]
        for n in intent.bgp.neighbors:
            port = (
                next((p for net, p in subnets if ip_address(n.ip) in net), "") if n.kind == "underlay" else ""
            )
            neighbor = n.description.rsplit(" ", 1)[0]  # "spine1 underlay", "spine1 evpn"
            out.setdefault(name, []).append(SessionLabels(n.ip, neighbor, n.kind, port))
    return out
