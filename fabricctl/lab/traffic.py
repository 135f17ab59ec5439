"""What the lab's ports count, as a function of the lab clock and the counter faults.

The lab carries no traffic of its own: every counter here stays flat on a healthy fabric, so a
counter that grows is a fault a test set (faults.py), and its rate is the constant below; or the
tenants' workload a test started (`Workload`), whose packets follow the switches' routes. Each
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
#: A marginal link (faults crc_errors, optic_low): FCS errors per second it receives, and the
#: receive power of a weak optic, between its low warning and its low alarm.
MARGINAL_FCS_PER_SECOND = 20
MARGINAL_RX_DBM = -8.5
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
    tx_packets: int = 0  # unicast packets of a running workload (Workload), sent
    rx_packets: int = 0  # and received


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
    if up and state.onset(device, "optic_low", port) is not None:
        rx = MARGINAL_RX_DBM
    marginal = state.onset(device, "crc_errors", port)
    if up and marginal is not None:
        errors += int(max(now - max(marginal, boot), 0.0) * MARGINAL_FCS_PER_SECOND)
    if up and degrade_since is not None:
        minutes = max(now - degrade_since, 0.0) / 60.0
        rx = max(RX_NOMINAL_DBM - DEGRADE_DB_PER_MINUTE * minutes, RX_DARK_DBM)
        below = (RX_NOMINAL_DBM - RX_LOW_ALARM_DBM) / DEGRADE_DB_PER_MINUTE * 60.0  # seconds to the alarm
        errors += int(max(now - max(degrade_since + below, boot), 0.0) * DEGRADED_FCS_PER_SECOND)
    workload = state.derived.get("workload")
    sent, received = workload.packets(device, port, now) if isinstance(workload, Workload) else (0, 0)
    return PortTraffic(
        tx_packets=sent,
        rx_packets=received,
        ecn_marked=int(CONGESTION_ECN_PPS * congested),
        cnp_sent=int(CONGESTION_CNP_PPS * returned),
        lossless_dropped=int(LOSSLESS_DROP_PPS * dropping),
        fcs_errors=errors,
        link_changes=cabled + 2 * flaps + (2 if bounced else 0),
        last_flap=last_flap,
        rx_dbm=round(rx, 2),
    )


#: Bytes of one workload packet: a 4096-byte RDMA payload with its RoCEv2 headers (the byte
#: counters a show command prints next to the packet counts).
ROCE_FRAME_BYTES = 4096 + 62
#: Tenant traffic a running workload sends, per pair of leaves (each leaf to every other leaf's
#: VTEP), in packets per second: RoCE in the lossless class.
WORKLOAD_PPS = 10_000


class Workload:
    """Tenants at work (`LabFabric.set_workload`): every leaf sends `pps` packets per second to
    every other leaf's VTEP, spread over its ECMP next hops as its routes say, and so on hop by
    hop to the leaf that holds the VTEP. Each port counts the packets it sends and receives since
    the workload started; the counts integrate the rates in force over time, so a drain (routes
    change) moves traffic off the drained links from that moment, and what was counted stays."""

    def __init__(self, pps: float, now: float) -> None:
        self.pps = pps
        self.at = now
        self.counted: dict[tuple[str, str], tuple[float, float]] = {}  # (switch, port) -> (tx, rx)
        self.rates: dict[tuple[str, str], tuple[float, float]] = {}
        self.state: FabricState | None = None

    def follow(self, state: FabricState, now: float) -> None:
        """Counts up to `now` at the rates of the state before; then the rates of `state`."""
        if state is self.state:
            return
        self.settle(now)
        self.state = state
        self.rates = workload_rates(state, self.pps)

    def settle(self, now: float) -> None:
        seconds = max(now - self.at, 0.0)
        for key, (tx, rx) in self.rates.items():
            was = self.counted.get(key, (0.0, 0.0))
            self.counted[key] = (was[0] + tx * seconds, was[1] + rx * seconds)
        self.at = max(now, self.at)

    def packets(self, device: str, port: str, now: float) -> tuple[int, int]:
        """(sent, received) unicast packets of the port at lab time `now`."""
        tx, rx = self.counted.get((device, port), (0.0, 0.0))
        rate = self.rates.get((device, port), (0.0, 0.0))
        seconds = max(now - self.at, 0.0)
        return int(tx + rate[0] * seconds), int(rx + rate[1] * seconds)


def workload_rates(state: FabricState, pps: float) -> dict[tuple[str, str], tuple[float, float]]:
    """(switch, port) -> (sent, received) packets per second of the workload over `state`'s routes."""
    from ipaddress import IPv4Network

    from fabricctl.lab.routing import routing

    rib = routing(state)
    vteps = {name: f.vtep for name, f in state.facts.items() if f.vtep is not None}
    owner = {v: name for name, v in vteps.items()}
    rates: dict[tuple[str, str], list[float]] = {}
    for src in vteps:
        for dst, vtep in vteps.items():
            if dst == src:
                continue
            target = IPv4Network(f"{vtep}/32")
            todo = [(src, pps)]
            for _ in range(8):  # a Clos is at most 5 switches deep
                nxt: list[tuple[str, float]] = []
                for here, amount in todo:
                    if owner.get(vtep) == here:
                        continue
                    route = rib.routes(here).get("default", {}).get(target)
                    hops = [h for h in route.hops if h.interface] if route is not None else []
                    for hop in hops:
                        share = amount / len(hops)
                        rates.setdefault((here, hop.interface), [0.0, 0.0])[0] += share
                        far = state.far_end(here, hop.interface)
                        if far is not None and far[0] in state.facts:
                            rates.setdefault(far, [0.0, 0.0])[1] += share
                            nxt.append((far[0], share))
                todo = nxt
                if not todo:
                    break
    return {key: (tx, rx) for key, (tx, rx) in rates.items()}
