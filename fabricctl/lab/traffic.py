"""What the lab's ports count, as a function of the lab clock and the counter faults.

The lab carries no traffic of its own: every counter here stays flat on a healthy fabric, so a
counter that grows is a fault a test set (faults.py), and its rate is the constant below. Each
fault counts from the lab time it was set on the port (FabricState.onset), so two reads a window
apart give that rate whatever the machine's speed. A switch counts from its last boot, as a real
one does: a reboot starts its counters again, and its neighbors see their links go down and up.
"""

from __future__ import annotations

from dataclasses import dataclass

from fabricctl.lab.fabric_state import FabricState

#: ECN-marked packets per second on a congested lossless queue (an incast that fills the queue
#: past the ECN minimum threshold), and the CNPs per second the receivers return for them.
CONGESTION_ECN_PPS = 50_000
CONGESTION_CNP_PPS = 5_000
#: Packets per second the lossless queue drops under the lossless_drops fault.
LOSSLESS_DROP_PPS = 1_000
#: A flapping port goes down and up again once every this many lab seconds.
FLAP_PERIOD = 30.0
#: The lab optic: receive power when healthy, the thresholds its DOM reports, how fast a
#: degrading one loses power, and the FCS errors per second once it is below its low alarm.
RX_NOMINAL_DBM = -1.2
RX_DARK_DBM = -40.0
RX_LOW_WARN_DBM = -7.0
RX_LOW_ALARM_DBM = -10.0
DEGRADE_DB_PER_MINUTE = 1.0
DEGRADED_FCS_PER_SECOND = 1_000
#: The queue CNPs travel in: the CNP class both platforms' QoS defaults give them.
CNP_QUEUE = 6


@dataclass(frozen=True)
class PortTraffic:
    """One port's counters at one lab time (since the lab started)."""

    ecn_marked: int = 0  # on the lossless queue
    cnp_sent: int = 0  # CNPs leaving on the CNP queue
    lossless_dropped: int = 0
    fcs_errors: int = 0
    link_changes: int = 0  # link up/down transitions since the lab started
    last_flap: float | None = None  # lab time of the last transition (None: never since boot)
    rx_dbm: float = RX_NOMINAL_DBM


def _elapsed(since: float | None, now: float) -> float:
    """Seconds a fault has run; one second when first read, as a storm (counters never read 0)."""
    return 0.0 if since is None else max(now - since, 0.0) + 1.0


def _counted(onset: float | None, boot: float) -> float | None:
    """From when a switch counts a fault: its onset, or the switch's boot if that came later
    (a reboot starts every counter again)."""
    return None if onset is None else max(onset, boot)


def port_traffic(state: FabricState, device: str, port: str, now: float) -> PortTraffic:
    up = state.link_up(device, port)
    far = state.far_end(device, port)
    boot = state.booted(device)
    congested = _elapsed(_counted(state.onset(device, "congestion", port), boot), now) if up else 0.0
    # CNPs flow back toward the senders: the far end of a congested link sends them into it.
    returned = _elapsed(_counted(state.onset(far[0], "congestion", far[1]), boot), now) if far and up else 0.0
    dropping = _elapsed(_counted(state.onset(device, "lossless_drops", port), boot), now) if up else 0.0
    flap_since = _counted(state.onset(device, "flapping", port), boot)
    flaps = int(max(now - flap_since, 0.0) // FLAP_PERIOD) + 1 if flap_since is not None else 0
    last_flap = flap_since + (flaps - 1) * FLAP_PERIOD if flaps and flap_since is not None else None
    # A lab switch at the far end that rebooted since this one booted took the link down and
    # up once: two link changes here, and the last flap at its boot.
    bounced = far is not None and far[0] in state.facts and state.booted(far[0]) > boot
    if bounced and far is not None:
        last_flap = max(last_flap if last_flap is not None else boot, state.booted(far[0]))
    cabled = 1 if far is not None else 0
    degrade_since = state.onset(device, "optic_degrading", port)
    rx = RX_NOMINAL_DBM if up else RX_DARK_DBM
    errors = 0
    if up and degrade_since is not None:
        minutes = max(now - degrade_since, 0.0) / 60.0
        rx = max(RX_NOMINAL_DBM - DEGRADE_DB_PER_MINUTE * minutes, RX_DARK_DBM)
        below = (RX_NOMINAL_DBM - RX_LOW_ALARM_DBM) / DEGRADE_DB_PER_MINUTE * 60.0  # seconds to the alarm
        errors = int(max(now - max(degrade_since + below, boot), 0.0) * DEGRADED_FCS_PER_SECOND)
    return PortTraffic(
        ecn_marked=int(CONGESTION_ECN_PPS * congested),
        cnp_sent=int(CONGESTION_CNP_PPS * returned),
        lossless_dropped=int(LOSSLESS_DROP_PPS * dropping),
        fcs_errors=errors,
        link_changes=cabled + 2 * flaps + (2 if bounced else 0),
        last_flap=last_flap,
        rx_dbm=round(rx, 2),
    )
