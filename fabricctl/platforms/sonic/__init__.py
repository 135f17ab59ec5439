"""SONiC (community release, on NVIDIA Spectrum-4 SN5600): a NOS whose configuration is a database.

A SONiC switch's configuration is two documents: CONFIG_DB, the JSON `sonic-cfggen -d
--print-data` prints and `config load` / `config apply-patch` take (configdb.py), and FRR's
`frr.conf`, which holds BGP and EVPN when the switch runs FRR in `split-unified` mode (frr.py).
Every table and field is one of sonic-net's own YANG models (sonic-buildimage
src/sonic-yang-models/yang-models, the models `sonic-yang-mgmt` validates CONFIG_DB with) and its
CONFIG_DB manual (src/sonic-yang-models/doc/Configuration.md), cited on the release branches
switch.py names. The rendered text is the CONFIG_DB JSON document followed by the frr.conf text
(document.py; parse.py reads it back for the proofs). patch.py makes the JSON Patch the Generic
Config Updater applies, plan.py the plan (that patch and FRR's lines through vtysh), push.py and
terminal.py read and change a switch under a `config checkpoint`; counters.py, health.py and identity.py read sonic-utilities' `show`
commands (tables.py reads their text tables); ztp.py is day 0 (a ZTP JSON whose configdb-json section installs the CONFIG_DB), boot.py
what waits for a boot (nothing). Releases are data, like every NOS's: `RELEASES`. switch.py holds what the
other modules read (switch model, port names, releases, VRF names); `PLATFORM` assembles it all.

Its render goes through templates/sonic/device.j2 like every NOS's, but the template only writes lines:
the CONFIG_DB tables are data built in Python (filters.py `configuration`), never JSON written by
string templating, and dumped in sonic-cfggen's layout.
"""

from __future__ import annotations

from fabricctl.platforms.base import Capabilities, Platform
from fabricctl.platforms.sonic.boot import BOOT_SETTINGS
from fabricctl.platforms.sonic.counters import COUNTERS
from fabricctl.platforms.sonic.filters import FILTERS
from fabricctl.platforms.sonic.health import HEALTH
from fabricctl.platforms.sonic.identity import IDENTITY
from fabricctl.platforms.sonic.parse import parse_sonic
from fabricctl.platforms.sonic.plan import sonic_diff
from fabricctl.platforms.sonic.qos import SonicQosTuning
from fabricctl.platforms.sonic.rules import DIALECT
from fabricctl.platforms.sonic.switch import (
    BRANCH_202505,
    BRANCH_202511,
    BREAKOUT_MODES,
    BUILDIMAGE,
    CONFIG_DB_MANUAL,
    L3VNI_VLAN_BASE,
    L3VNI_VLANS,
    LANES_PER_PORT,
    MAX_VRF_NAME,
    MODELS,
    RELEASES,
    SONIC_DOCS,
    VRF_PREFIX,
    YANG,
    fabric_vrf,
    port_lanes,
    port_name,
    port_position,
    vrf_name,
)
from fabricctl.platforms.sonic.terminal import FETCH, REFUSAL, pending
from fabricctl.platforms.sonic.ztp import DAY0

__all__ = [
    "BRANCH_202505",
    "BRANCH_202511",
    "BREAKOUT_MODES",
    "BUILDIMAGE",
    "CONFIG_DB_MANUAL",
    "L3VNI_VLANS",
    "L3VNI_VLAN_BASE",
    "LANES_PER_PORT",
    "MAX_VRF_NAME",
    "MODELS",
    "PLATFORM",
    "RELEASES",
    "SONIC_DOCS",
    "VRF_PREFIX",
    "YANG",
    "fabric_vrf",
    "port_lanes",
    "port_name",
    "port_position",
    "vrf_name",
]

PLATFORM = Platform(
    name="sonic",
    title="SONiC",
    capabilities=Capabilities(
        pfc=True,  # PORT_QOS_MAP pfc_enable (sonic-port-qos-map.yang)
        pfc_watchdog=True,  # PFC_WD (sonic-pfcwd.yang)
        ecn_per_queue=True,  # WRED_PROFILE ecn on the lossless queue (sonic-wred-profile.yang)
        strict_priority_queue=True,  # SCHEDULER type STRICT (sonic-scheduler.yang)
        evpn_type5=True,  # an L3VNI per VRF: VRF vni and VXLAN_TUNNEL_MAP (EVPN VXLAN HLD)
        evpn_symmetric_irb=True,  # the EVPN VXLAN HLD's symmetric IRB, on the L3VNI
        # SONiC's commit-confirm is `config checkpoint` before the change and `config rollback`
        # (CONFIG_DB back exactly) on any failure of the apply, read-back or health gate (push.py).
        # No timer runs on the switch: a push cut off midway is judged by recover at the next run.
        commit_confirm=True,
        max_ip_mtu=9216,  # sonic-port.yang PORT mtu: range 1312..9216
    ),
    models=MODELS,
    cnp_class=6,
    protocol_class=None,  # the CPU's own trap queues (COPP_TABLE), not a front-panel queue
    port_name=port_name,
    port_position=port_position,
    qos_tuning=SonicQosTuning,
    filters=FILTERS,
    parse=parse_sonic,
    dialect=DIALECT,
    fetch=FETCH,
    health=HEALTH,
    identity=IDENTITY,
    counters=COUNTERS,
    pending=pending,
    push_module="fabricctl.platforms.sonic.push",
    day0=DAY0,
    releases=RELEASES,
    refusal=REFUSAL,
    differ=sonic_diff,
    multihop_bfd=False,
    # sonic-vrf.yang: a VRF is named Vrf<...>, "default" and "mgmt" are the system's own.
    reserved_names=("default", "mgmt"),
    max_vrf_name=MAX_VRF_NAME,
    reserved_vlans=(L3VNI_VLANS,),
    boot_settings=BOOT_SETTINGS,
    reboot=None,
    headroom="cable-length",  # CABLE_LENGTH per port: SONiC's buffer manager sizes the headroom
)
