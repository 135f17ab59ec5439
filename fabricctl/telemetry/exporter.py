"""`fabricctl exporter`: the fabric's port counters as Prometheus metrics, labelled by tenant.

A poller reads every switch on an interval with bounded concurrency (one worker per switch at a
time, at most `concurrency` switches at once; a switch still being read when its turn comes again
is not read twice). Each read replaces that switch's snapshot. A scrape only formats the
snapshots: it never waits on a switch, however slow or dead. A switch that cannot be read keeps
its last counters out of the scrape and reports `fabricctl_switch_up 0`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from fabricctl.compile.build import Compiled
from fabricctl.platforms.counters import SwitchCounters
from fabricctl.telemetry.labels import LABELS, PortLabels, port_labels

#: Reads one switch's counters (deploy.counters over Nornir in the CLI; anything in tests).
Reader = Callable[[str], SwitchCounters | str]


@dataclass
class Snapshot:
    up: bool = False
    counters: SwitchCounters | None = None
    error: str = ""
    polled_at: float = 0.0  # this machine's time of the last read (success or not)
    duration: float = 0.0


class Poller:
    """Reads every switch every `interval` seconds, `concurrency` at a time, in the background."""

    def __init__(self, switches: Iterable[str], read: Reader, interval: float, concurrency: int) -> None:
        self.switches = sorted(switches)
        self.read, self.interval = read, interval
        self.snapshots = {name: Snapshot() for name in self.switches}
        self._lock = threading.Lock()
        self._busy: set[str] = set()
        self._pool = ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="fabricctl-poll")
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.rounds = 0  # poll rounds started

    def snapshot(self) -> dict[str, Snapshot]:
        with self._lock:
            return dict(self.snapshots)

    def _poll(self, name: str) -> None:
        started = time.monotonic()
        try:
            got = self.read(name)
        except Exception as exc:  # a reader that raises is an unreadable switch, never a dead poller
            got = f"{type(exc).__name__}: {exc}"
        snap = Snapshot(polled_at=time.time(), duration=time.monotonic() - started)
        if isinstance(got, SwitchCounters):
            snap.up, snap.counters = True, got
        else:
            snap.error = got
        with self._lock:
            self.snapshots[name] = snap
            self._busy.discard(name)

    def poll_round(self) -> None:
        """Queue a read of every switch not still being read."""
        with self._lock:
            todo = [n for n in self.switches if n not in self._busy]
            self._busy.update(todo)
        self.rounds += 1
        for name in todo:
            self._pool.submit(self._poll, name)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.poll_round()
            self._stop.wait(self.interval)

    def start(self) -> Poller:
        self._thread = threading.Thread(target=self._run, name="fabricctl-poller", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._pool.shutdown(wait=False, cancel_futures=True)


class FabricCollector(Collector):
    """The poller's snapshots as metric families; labels from the compiled intent."""

    def __init__(self, compiled: Compiled, poller: Poller) -> None:
        self.poller = poller
        self.labels = port_labels(compiled)
        #: switch -> (lossless class, CNP class): the queues' `class` label, so rules need no number.
        self.classes = {
            n: (i.qos.lossless_class, i.qos.cnp_class) for n, i in compiled.intents.items() if i.qos
        }

    def _port_labels(self, switch: str, port: str) -> list[str]:
        pl = self.labels.get((switch, port), PortLabels("other"))
        return [switch, port, pl.role, pl.tenant, pl.leaf, pl.server, pl.nic, pl.peer]

    def collect(self) -> Iterator[Metric]:
        snaps = self.poller.snapshot()
        up = GaugeMetricFamily(
            "fabricctl_switch_up", "1 when the last poll read the switch, else 0", labels=["switch"]
        )
        polled = GaugeMetricFamily(
            "fabricctl_switch_last_poll_timestamp_seconds",
            "When the switch was last polled",
            labels=["switch"],
        )
        took = GaugeMetricFamily(
            "fabricctl_switch_poll_duration_seconds",
            "How long the last poll of the switch took",
            labels=["switch"],
        )
        for name, snap in sorted(snaps.items()):
            up.add_metric([name], 1.0 if snap.up else 0.0)
            polled.add_metric([name], snap.polled_at)
            took.add_metric([name], snap.duration)
        yield from (up, polled, took)
        yield from self._port_metrics(snaps)

    def _port_metrics(self, snaps: dict[str, Snapshot]) -> Iterator[Metric]:
        labels = list(LABELS)

        def counter(name: str, doc: str, extra: tuple[str, ...] = ()) -> CounterMetricFamily:
            return CounterMetricFamily(name, doc, labels=[*labels, *extra])

        def gauge(name: str, doc: str) -> GaugeMetricFamily:
            return GaugeMetricFamily(name, doc, labels=labels)

        errors = counter("fabricctl_port_errors", "Frames received or sent in error")
        discards = counter("fabricctl_port_discards", "Frames discarded in or out")
        pauses = counter("fabricctl_pfc_pause_frames", "PFC pause frames", ("priority", "direction"))
        per_queue = ("queue", "class")  # class: lossless | cnp | other, from the intent
        marked = counter(
            "fabricctl_queue_ecn_marked_packets", "ECN-marked packets per egress queue", per_queue
        )
        dropped = counter("fabricctl_queue_dropped_packets", "Packets dropped per egress queue", per_queue)
        sent = counter("fabricctl_queue_sent_packets", "Packets sent per egress queue", per_queue)
        changes = counter("fabricctl_port_link_changes", "Link up/down transitions")
        oper = gauge("fabricctl_port_up", "1 when the port's line protocol is up")
        flap_age = gauge("fabricctl_port_last_flap_age_seconds", "Seconds since the link last flapped")
        rx = gauge("fabricctl_optic_rx_power_dbm", "Receive power of the optic's weakest lane")
        warn = gauge("fabricctl_optic_rx_low_warning_dbm", "The optic's own low receive-power warning")
        alarm = gauge("fabricctl_optic_rx_low_alarm_dbm", "The optic's own low receive-power alarm")
        for switch, snap in sorted(snaps.items()):
            if snap.counters is None or not snap.up:
                continue
            lossless, cnp = self.classes.get(switch, (-1, -1))
            kind = {lossless: "lossless", cnp: "cnp"}
            for port, c in sorted(snap.counters.ports.items()):
                if (switch, port) not in self.labels:
                    continue  # management, loopbacks, ports outside the cabling plan
                at = self._port_labels(switch, port)
                if c.errors is not None:
                    errors.add_metric(at, c.errors)
                if c.discards is not None:
                    discards.add_metric(at, c.discards)
                for prio, (got, gave) in sorted(
                    (c.pfc or {}).items(), key=lambda kv: -1 if kv[0] is None else kv[0]
                ):
                    p = str(lossless if prio is None else prio)
                    pauses.add_metric([*at, p, "received"], got)
                    pauses.add_metric([*at, p, "sent"], gave)
                for family, queues in (
                    (marked, c.ecn_marked),
                    (dropped, c.queue_dropped),
                    (sent, c.queue_sent),
                ):
                    for q, n in sorted((queues or {}).items()):
                        family.add_metric([*at, str(q), kind.get(q, "other")], n)
                if c.link_changes is not None:
                    changes.add_metric(at, c.link_changes)
                if c.up is not None:
                    oper.add_metric(at, 1.0 if c.up else 0.0)
                if c.last_flap_ago is not None:
                    flap_age.add_metric(at, c.last_flap_ago)
                if c.optic is not None:
                    rx.add_metric(at, c.optic.rx_dbm)
                    if c.optic.rx_low_warn is not None:
                        warn.add_metric(at, c.optic.rx_low_warn)
                    if c.optic.rx_low_alarm is not None:
                        alarm.add_metric(at, c.optic.rx_low_alarm)
        yield from (errors, discards, pauses, marked, dropped, sent, changes, oper, flap_age, rx, warn, alarm)
