"""Comware's gNMI target (gRPC dial-in, `grpc enable`): what H3C documents, and no more.

H3C's Telemetry configuration guides (gRPC configuration: "Configuring the gRPC dial-in mode",
"Appendix: Methods and attributes for gNMI operations"; e.g. S6805 & S6825 & S6850 & S9850
Release 66xx, S12500R R36xx) document gNMI dial-in with Capabilities, Get, Set and Subscribe and a
gRPC user logging in with a username and password. No public H3C list of gNMI paths for PFC, ECN
or queue counters was found, so the lab's Comware switch serves OpenConfig interface state and
counters only, with the values `display interface` and `display counters inbound|outbound
interface` print at the same lab time (input errors and CRC are the FCS errors of a failing
optic; output drops the lossless queue's). H3C's guides name no gNMI version or model versions:
Capabilities leaves them empty.
"""

from __future__ import annotations

from fabricctl.lab.gnmi.model import (
    GnmiTarget,
    Leaves,
    Model,
    interface,
    interface_state,
    last_change,
    under,
)
from fabricctl.lab.traffic import port_traffic
from fabricctl.lab.view import View

OC_IF = "openconfig-interfaces"
OC_ETH = "openconfig-if-ethernet"
_PHYSICAL = ("FourHundredGigE", "TwoHundredGigE")


def leaves(view: View, roots: frozenset[str]) -> Leaves:
    out: Leaves = {}
    if roots and "interfaces" not in roots:
        return out
    for s in view.ports:
        if not s.name.startswith(_PHYSICAL):
            continue
        t = port_traffic(view.state, view.name, s.name, view.now)
        base = interface(s.name)
        state = interface_state(out, s.name, s.oper_up, s.admin_up, last_change(view, s.name, t.last_flap))
        for leaf, value in (
            ("in-errors", t.fcs_errors),
            ("in-discards", 0),
            ("out-errors", 0),
            ("out-discards", t.lossless_dropped),
            ("carrier-transitions", t.link_changes),
        ):
            out[under(state, "counters", leaf)] = (OC_IF, value)
        out[under(base, "ethernet", "state", "counters", "in-fcs-errors")] = (OC_ETH, t.fcs_errors)
    return out


TARGET = GnmiTarget(
    gnmi_version="",
    models=(
        Model("openconfig-interfaces", "OpenConfig working group"),
        Model("openconfig-if-ethernet", "OpenConfig working group"),
    ),
    encodings=("JSON",),
    leaves=leaves,
    trees=frozenset({"interfaces"}),
)
