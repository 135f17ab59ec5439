"""`fabricctl exporter`: the fabric's port counters as Prometheus metrics, labelled by tenant.

A poller reads every switch on an interval with bounded concurrency (one worker per switch at a
time, at most `concurrency` switches at once; a switch still being read when its turn comes again
is not read twice). Each read replaces that switch's series, formatted once (Exposition). A
scrape joins the switches' texts: it never waits on a switch, however slow or dead. A switch that
cannot be read, or whose answer is in no documented form or holds a count that is none (the
platforms' counter readers are strict), drops its port series (none is exported stale as if
fresh) and reports `fabricctl_switch_up 0` with a `reason` label; each failed read counts in
`fabricctl_switch_read_errors_total` by reason. Clients are served by httpserve.py's bounded
server: read timeouts, a capped number of connections, a fixed pool of workers.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector

from fabricctl.compile.build import Compiled
from fabricctl.httpserve import BoundedHttpServer, Limits, Request, Response
from fabricctl.platforms.counters import SwitchCounters, Unread
from fabricctl.telemetry.labels import LABELS, SESSION_LABELS, port_labels, session_labels

#: Reads one switch's counters (deploy.counters over Nornir in the CLI; anything in tests).
Reader = Callable[[str], SwitchCounters | str]


@dataclass
class Snapshot:
    up: bool = False
    counters: SwitchCounters | None = None
    error: str = ""
    reason: str = ""  # why the last read failed, one word (platforms/counters.py Unread); "" when up
    polled_at: float = 0.0  # this machine's time of the last read (success or not)
    duration: float = 0.0
    errors: dict[str, int] = field(default_factory=dict)  # failed reads since start, by reason


class Poller:
    """Reads every switch every `interval` seconds, `concurrency` at a time, in the background."""

    def __init__(
        self,
        switches: Iterable[str],
        read: Reader,
        interval: float,
        concurrency: int,
        on_update: Callable[[str, Snapshot], None] = lambda name, snap: None,
    ) -> None:
        self.switches = sorted(switches)
        self.read, self.interval, self.on_update = read, interval, on_update
        self.snapshots = {name: Snapshot() for name in self.switches}
        self._lock = threading.Lock()
        self._busy: set[str] = set()
        self._errors: dict[str, dict[str, int]] = {name: {} for name in self.switches}
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
            got = Unread(f"{type(exc).__name__}: {exc}")
        snap = Snapshot(polled_at=time.time(), duration=time.monotonic() - started)
        if isinstance(got, SwitchCounters):
            snap.up, snap.counters = True, got
        else:
            snap.error, snap.reason = str(got), getattr(got, "reason", "error")
            with self._lock:
                errors = self._errors[name]
                errors[snap.reason] = errors.get(snap.reason, 0) + 1
        with self._lock:
            snap.errors = dict(self._errors[name])
        try:
            self.on_update(name, snap)
        finally:
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


class _Families(Collector):
    """A fixed list of metric families (one switch's), for prometheus-client to format."""

    def __init__(self, families: list[Metric]) -> None:
        self.families = families

    def collect(self) -> Iterator[Metric]:
        yield from self.families


def _split(text: str) -> tuple[dict[str, str], dict[str, str]]:
    """prometheus-client's exposition of some families -> (family -> its HELP/TYPE lines,
    family -> its sample lines)."""
    headers: dict[str, str] = {}
    samples: dict[str, list[str]] = {}
    family = ""
    for line in text.splitlines(keepends=True):
        if line.startswith("# HELP "):
            family = line.split(" ", 3)[2]
            headers[family] = line
            samples[family] = []
        elif line.startswith("# TYPE "):
            headers[family] += line
        elif family:
            samples[family].append(line)
    return headers, {name: "".join(lines) for name, lines in samples.items()}


class Exposition:
    """The /metrics text, kept per switch: each read formats that switch's series once (with
    prometheus-client, in the poller's thread), so a scrape only joins the switches' texts. At
    thousands of switches a scrape that formatted every sample would take seconds of CPU; this
    takes a join, and never waits on a read in progress."""

    def __init__(self, compiled: Compiled) -> None:
        self.labels = port_labels(compiled)
        #: switch -> (lossless class, CNP class): the queues' `class` label, so rules need no number.
        self.classes = {n: (i.qos.lossless_class, i.qos.cnp_class) for n, i in compiled.intents.items()}
        self.sessions = session_labels(compiled)
        self._lock = threading.Lock()
        self._headers: dict[str, str] = {}
        self._order: list[str] = []
        self._parts: dict[str, dict[str, str]] = {}  # switch -> family -> sample lines

    def update(self, switch: str, snap: Snapshot) -> None:
        """Format `switch`'s series from its latest snapshot (the poller calls this after each read)."""
        registry = CollectorRegistry(auto_describe=False)
        registry.register(_Families(list(self.families(switch, snap))))
        headers, parts = _split(generate_latest(registry).decode())
        with self._lock:
            for name, header in headers.items():
                if name not in self._headers:
                    self._headers[name] = header
                    self._order.append(name)
            self._parts[switch] = parts

    def render(self) -> bytes:
        with self._lock:
            parts = list(self._parts.items())
            order, headers = list(self._order), dict(self._headers)
        chunks = []
        for name in order:
            chunks.append(headers[name])
            chunks += [mine.get(name, "") for _, mine in sorted(parts)]
        return "".join(chunks).encode()

    def _port_labels(self, switch: str, port: str) -> list[str]:
        pl = self.labels[(switch, port)]
        return [switch, port, pl.role, pl.tenant, pl.leaf, pl.server, pl.nic]

    def families(self, switch: str, snap: Snapshot) -> Iterator[Metric]:
        """One switch's series: whether it was read, then its ports' counters."""
        on = ["switch"]
        up = GaugeMetricFamily(
            "fabricctl_switch_up",
            "1 when the last poll read the switch, else 0 with why (reason: unparsable, timeout, auth, ...)",
            labels=["switch", "reason"],
        )
        failed = CounterMetricFamily(
            "fabricctl_switch_read_errors",
            "Polls that did not read the switch, by reason",
            labels=["switch", "reason"],
        )
        polled = GaugeMetricFamily(
            "fabricctl_switch_last_poll_timestamp_seconds", "When the switch was last polled", labels=on
        )
        took = GaugeMetricFamily(
            "fabricctl_switch_poll_duration_seconds", "How long the last poll of the switch took", labels=on
        )
        up.add_metric([switch, "" if snap.up else snap.reason or "not read yet"], 1.0 if snap.up else 0.0)
        for reason, n in sorted(snap.errors.items()):
            failed.add_metric([switch, reason], n)
        polled.add_metric([switch], snap.polled_at)
        took.add_metric([switch], snap.duration)
        yield from (up, failed, polled, took)
        yield from self._port_families(switch, snap)
        yield self._session_family(switch, snap)

    def _session_family(self, switch: str, snap: Snapshot) -> Metric:
        """Every BGP session the intent gives the switch: 1 when Established. A session the
        switch does not list at all is down too (a peer it does not know)."""
        family = GaugeMetricFamily(
            "fabricctl_bgp_session_up",
            "1 when the BGP session the intent plans is Established, else 0",
            labels=list(SESSION_LABELS),
        )
        seen = snap.counters.sessions if snap.up and snap.counters is not None else None
        if seen is not None:
            for s in self.sessions.get(switch, []):
                state = seen.get(s.peer, "")
                family.add_metric(
                    [switch, s.peer, s.neighbor, s.kind, s.port], 1.0 if state == "Established" else 0.0
                )
        return family

    # long: a table: every per-port metric family with its help text and labels, then one row per port
    def _port_families(self, switch: str, snap: Snapshot) -> Iterator[Metric]:
        labels = list(LABELS)

        def counter(name: str, doc: str, extra: tuple[str, ...] = ()) -> CounterMetricFamily:
            return CounterMetricFamily(name, doc, labels=[*labels, *extra])

        def gauge(name: str, doc: str, extra: tuple[str, ...] = ()) -> GaugeMetricFamily:
            return GaugeMetricFamily(name, doc, labels=[*labels, *extra])

        info = gauge("fabricctl_port_info", "What the port is in the intent: 1, with its far end", ("peer",))
        errors = counter("fabricctl_port_errors", "Frames received or sent in error")
        discards = counter("fabricctl_port_discards", "Frames discarded in or out")
        pauses = counter("fabricctl_pfc_pause_frames", "PFC pause frames", ("priority", "direction"))
        per_queue = ("queue", "class")  # the lossless and CNP queues only: class lossless | cnp
        marked = counter(
            "fabricctl_queue_ecn_marked_packets", "ECN-marked packets per egress queue", per_queue
        )
        dropped = counter("fabricctl_queue_dropped_packets", "Packets dropped per egress queue", per_queue)
        sent = counter("fabricctl_queue_sent_packets", "Packets sent per egress queue", per_queue)
        changes = counter("fabricctl_port_link_changes", "Link up/down transitions")
        oper = gauge("fabricctl_port_up", "1 when the port's line protocol is up")
        admin = gauge("fabricctl_port_admin_up", "1 when the port is not shut down (0: meant to be dark)")
        flap_age = gauge("fabricctl_port_last_flap_age_seconds", "Seconds since the link last flapped")
        rx = gauge("fabricctl_optic_rx_power_dbm", "Receive power of the optic's weakest lane")
        floor = gauge(
            "fabricctl_optic_rx_low_threshold_dbm",
            "The optic's own low receive-power threshold: its warning where it prints one, else its alarm",
            ("level",),
        )
        families = (
            info,
            errors,
            discards,
            pauses,
            marked,
            dropped,
            sent,
            changes,
            oper,
            admin,
            flap_age,
            rx,
            floor,
        )
        if snap.counters is None or not snap.up:
            yield from families
            return
        lossless, cnp = self.classes.get(switch, (-1, -1))
        kind = {lossless: "lossless", cnp: "cnp"}
        for port, c in sorted(snap.counters.ports.items()):
            if (switch, port) not in self.labels:
                continue  # management, loopbacks, ports outside the cabling plan
            at = self._port_labels(switch, port)
            info.add_metric([*at, self.labels[(switch, port)].peer], 1.0)
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
            for family, queues in ((marked, c.ecn_marked), (dropped, c.queue_dropped), (sent, c.queue_sent)):
                for q, n in sorted((queues or {}).items()):
                    if q in kind:
                        family.add_metric([*at, str(q), kind[q]], n)
            if c.link_changes is not None:
                changes.add_metric(at, c.link_changes)
            if c.up is not None:
                oper.add_metric(at, 1.0 if c.up else 0.0)
            if c.admin_up is not None:
                admin.add_metric(at, 1.0 if c.admin_up else 0.0)
            if c.last_flap_ago is not None:
                flap_age.add_metric(at, c.last_flap_ago)
            if c.optic is not None:
                rx.add_metric(at, c.optic.rx_dbm)
                if c.optic.rx_low_warn is not None:
                    floor.add_metric([*at, "warning"], c.optic.rx_low_warn)
                elif c.optic.rx_low_alarm is not None:
                    floor.add_metric([*at, "alarm"], c.optic.rx_low_alarm)
        yield from families


def serve(exposition: Exposition, listen: str, port: int, limits: Limits | None = None) -> BoundedHttpServer:
    """Serve `exposition` on http://listen:port/metrics (text format 0.0.4), started; the caller
    stops it. The server bounds what clients can take (httpserve.py)."""

    def metrics(request: Request) -> Response:
        if request.path.split("?")[0] not in ("/", "/metrics"):
            return Response(404, b"not found: /metrics serves the metrics\n")
        return Response(200, exposition.render(), {"Content-Type": CONTENT_TYPE_LATEST})

    return BoundedHttpServer(metrics, listen, port, limits).start()
