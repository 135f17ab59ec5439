"""Counters streamed over gNMI instead of polled: one Subscribe per switch, sampled every second.

A switch whose inventory data says `telemetry: gnmi` (on its platform's group, or on the host)
is streamed; every other one is polled over its CLI (`telemetry: cli`, the default). Each
streamed switch gets one STREAM subscription (grpcio, with the gNMI messages pygnmi ships): its
platform's counter paths SAMPLE every `SAMPLE_INTERVAL`, its port state ON_CHANGE
(platforms/<nos>/gnmi.py). Every response updates the latest value of each leaf; the platform's
`parse` makes the same `SwitchCounters` its CLI reader makes, and the exporter formats them as
after a poll. The trust rules are the poller's: the TLS certificate is verified (the lab's own
with --lab, else against the CA bundle FABRICCTL_GNMI_CA names; no file: an error before anything
is contacted), the login is the SSH login, sent as gRPC metadata; a value that cannot be read, a
stream that breaks or stays silent makes the switch `up 0` with the reason, and the stream is
opened again (1 s, doubling to 30 s between tries).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fabricctl.endpoints import GNMI_PORT, TLS_NAME, running_lab
from fabricctl.endpoints import lab_certificate as published_certificate
from fabricctl.errors import StageError
from fabricctl.platforms.counters import SwitchCounters
from fabricctl.platforms.gnmi import GnmiCounters, gnmi_counters
from fabricctl.telemetry.exporter import Reader, Snapshot

if TYPE_CHECKING:
    from nornir.core import Nornir

#: Seconds between two samples of a counter: the streams' resolution.
SAMPLE_INTERVAL = 1.0
#: A stream that sends nothing for this many sample intervals is dead: up 0, opened again.
SILENT_SAMPLES = 5
TELEMETRY = ("cli", "gnmi")
CA_ENV = "FABRICCTL_GNMI_CA"
INSTALL = "pip install 'fabricctl[gnmi]'"

Publish = Callable[[str, Snapshot], None]


class GnmiSetupError(StageError):
    """A switch cannot be streamed as the inventory asks: nothing is contacted."""


@dataclass(frozen=True)
class Target:
    """Where and how one switch is streamed."""

    name: str
    address: str
    port: int
    tls_name: str  # the name its certificate must carry
    ca: bytes  # PEM: the certificates its certificate must chain to
    username: str
    password: str
    counters: GnmiCounters


def _grpc() -> tuple[Any, Any, Any]:
    try:
        import grpc
        from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc
    except ImportError:
        raise GnmiSetupError(
            f"telemetry: gnmi needs grpcio and the gNMI protobuf modules: {INSTALL}; nothing was contacted"
        ) from None
    return grpc, gnmi_pb2, gnmi_pb2_grpc


def xpath(text: str) -> Any:
    """`/a/b[k=v]/c` -> gnmi.Path (a key value may hold `/`: `FourHundredGigE1/0/1`)."""
    _, gnmi_pb2, _ = _grpc()
    elems, depth, cur = [], 0, ""
    for ch in text.strip().strip("/") + "/":
        depth += (ch == "[") - (ch == "]")
        if ch == "/" and depth == 0:
            name, _, rest = cur.partition("[")
            keys = dict(kv.split("=", 1) for kv in ("[" + rest).strip("[]").split("][") if kv) if rest else {}
            elems.append(gnmi_pb2.PathElem(name=name, key=keys))
            cur = ""
        else:
            cur += ch
    return gnmi_pb2.Path(elem=elems)


def path_key(proto: Any) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    return tuple((e.name.split(":", 1)[-1], tuple(sorted(e.key.items()))) for e in proto.elem)


def scalar(value: Any) -> Any:
    """A TypedValue -> a Python value (JSON decoded); ValueError for JSON that does not parse."""
    kind = value.WhichOneof("value")
    if kind in ("json_val", "json_ietf_val"):
        try:
            return json.loads(getattr(value, kind))
        except ValueError as exc:
            raise ValueError(f"a {kind} that is not JSON: {exc}") from None
    if kind is None:
        raise ValueError("an update without a value")
    return getattr(value, kind)


class Stream:
    """One switch's subscription, kept open on its own thread; every response publishes a snapshot."""

    def __init__(self, target: Target, publish: Publish, interval: float = SAMPLE_INTERVAL) -> None:
        self.target, self.publish, self.interval = target, publish, interval
        self.leaves: dict[Any, Any] = {}
        self.last_seen = 0.0  # monotonic time of the last response
        self.connects = 0  # streams opened (the first, then every reconnect)
        self._stop = threading.Event()
        self._call: Any = None
        self._silent = False  # the watchdog cut the stream: it sent nothing for too long
        self._thread = threading.Thread(target=self._run, name=f"fabricctl-gnmi-{target.name}", daemon=True)

    def start(self) -> Stream:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        call = self._call
        if call is not None:
            call.cancel()
        self._thread.join(5)

    def _request(self) -> Any:
        _, gnmi_pb2, _ = _grpc()
        c = self.target.counters
        sample, change = (
            gnmi_pb2.SubscriptionMode.Value("SAMPLE"),
            gnmi_pb2.SubscriptionMode.Value("ON_CHANGE"),
        )
        subs = [
            gnmi_pb2.Subscription(path=xpath(p), mode=sample, sample_interval=int(self.interval * 1e9))
            for p in c.sampled
        ] + [gnmi_pb2.Subscription(path=xpath(p), mode=change) for p in c.on_change]
        return gnmi_pb2.SubscribeRequest(
            subscribe=gnmi_pb2.SubscriptionList(
                subscription=subs,
                mode=gnmi_pb2.SubscriptionList.Mode.Value("STREAM"),
                encoding=gnmi_pb2.Encoding.Value(c.encoding),
            )
        )

    def _run(self) -> None:
        grpc, _, gnmi_pb2_grpc = _grpc()
        t = self.target
        credentials = grpc.ssl_channel_credentials(root_certificates=t.ca)
        options = [("grpc.ssl_target_name_override", t.tls_name)]
        metadata = (("username", t.username), ("password", t.password))
        backoff = 1.0
        while not self._stop.is_set():
            started = time.monotonic()
            with grpc.secure_channel(f"{t.address}:{t.port}", credentials, options=options) as channel:
                self.connects += 1
                reason = self._follow(gnmi_pb2_grpc.gNMIStub(channel), metadata)
            if self._stop.is_set():
                return
            self._fail(reason)
            backoff = 1.0 if time.monotonic() - started > 30 else min(backoff * 2, 30.0)
            self._stop.wait(backoff)

    def _follow(self, stub: Any, metadata: Any) -> str:
        """Read the stream until it ends; the reason it ended."""
        grpc, _, _ = _grpc()
        self.leaves = {}
        synced = False
        clock = None  # the switch's time of its latest notification
        try:
            self._call = stub.Subscribe(iter([self._request()]), metadata=metadata)
            self.last_seen = time.monotonic()
            for response in self._call:
                self.last_seen = time.monotonic()
                if self._stop.is_set():
                    break
                if response.HasField("update"):
                    n = response.update
                    for u in n.update:
                        self.leaves[path_key(u.path)] = scalar(u.val)
                    for d in n.delete:
                        gone = path_key(d)
                        self.leaves = {p: v for p, v in self.leaves.items() if p[: len(gone)] != gone}
                    clock = n.timestamp / 1e9 if n.timestamp else clock
                elif response.sync_response:
                    synced = True
                else:
                    continue
                if synced:
                    self._emit(clock)
            return "the switch ended the stream"
        except grpc.RpcError as exc:
            if exc.code() == grpc.StatusCode.CANCELLED and self._silent:
                return f"no sample for {SILENT_SAMPLES * self.interval:g} s"
            return f"gNMI {exc.code().name}: {exc.details()}"
        except ValueError as exc:  # a value that cannot be read: never a counter
            return f"gNMI answer unreadable: {exc}"
        finally:
            self._silent = False
            call, self._call = self._call, None
            if call is not None:
                call.cancel()

    def _emit(self, clock: float | None) -> None:
        counters: SwitchCounters = self.target.counters.parse(self.leaves)
        counters.clock = clock
        self.publish(self.target.name, Snapshot(up=True, counters=counters, polled_at=time.time()))

    def _fail(self, reason: str) -> None:
        self.publish(self.target.name, Snapshot(error=reason, polled_at=time.time()))

    def check_silence(self) -> None:
        """A stream that sent nothing for SILENT_SAMPLES intervals is cut (and opened again)."""
        call = self._call
        if call is not None and time.monotonic() - self.last_seen > SILENT_SAMPLES * self.interval:
            self._silent = True
            call.cancel()


class Streams:
    """Every streamed switch's Stream, and one watchdog thread for silent streams."""

    def __init__(self, targets: list[Target], publish: Publish, interval: float = SAMPLE_INTERVAL) -> None:
        self.streams = {t.name: Stream(t, publish, interval) for t in targets}
        self._stop = threading.Event()
        self._watchdog = threading.Thread(target=self._watch, name="fabricctl-gnmi-watchdog", daemon=True)

    def start(self) -> Streams:
        for stream in self.streams.values():
            stream.start()
        self._watchdog.start()
        return self

    def _watch(self) -> None:
        while not self._stop.wait(min(1.0, SAMPLE_INTERVAL)):
            for stream in self.streams.values():
                stream.check_silence()

    def stop(self) -> None:
        self._stop.set()
        for stream in self.streams.values():
            stream.stop()


def telemetry_of(host: Any) -> str:
    """The host's `telemetry` (its own data, else its groups', else the defaults'; cli when unset)."""
    mode = host.get("telemetry") or "cli"
    if mode not in TELEMETRY:
        raise GnmiSetupError(
            f"inventory: host {host.name}: telemetry: {mode!r} is not allowed (allowed: {', '.join(TELEMETRY)}); "
            "nothing was contacted"
        )
    return str(mode)


def lab_certificate(root: Path) -> bytes:
    """The certificate(s) the running lab's switches serve, as its lab.json publishes them."""
    live = running_lab(root)
    pem = published_certificate(live) if live is not None else None
    if pem is None:
        raise GnmiSetupError(
            f"telemetry: gnmi verifies the lab's TLS certificate and no running lab for {root} publishes one; "
            "nothing was contacted (allowed: a running lab: fabricctl lab up --detach)"
        )
    return pem


def targets(nr: Nornir, root: Path, lab: bool) -> list[Target]:
    """The switches of `nr` to stream, checked before any is contacted."""
    chosen = [h for h in nr.inventory.hosts.values() if telemetry_of(h) == "gnmi"]
    if not chosen:
        return []
    _grpc()
    ca_file = None
    if not lab:
        named = os.environ.get(CA_ENV)
        if not named or not Path(named).expanduser().is_file():
            raise GnmiSetupError(
                f"telemetry: gnmi verifies the switches' TLS certificates and there is no CA file: "
                f"{CA_ENV}={named or '(not set)'}; nothing was contacted (allowed: {CA_ENV} naming a PEM "
                "file with the certificates that signed the switches' gNMI certificates)"
            )
        ca_file = Path(named).expanduser()
    live = running_lab(root) if lab else None
    ports = {d["name"]: d.get("gnmi_port") for d in (live or {}).get("devices", [])}
    where = []
    for host in sorted(chosen, key=lambda h: h.name):
        platform = str(host.platform)
        counters = gnmi_counters(platform)
        if counters is None:
            raise GnmiSetupError(
                f"inventory: host {host.name}: telemetry: gnmi, but fabricctl streams no counters from "
                f"{platform} switches (no documented gNMI paths for their PFC and queue counters; allowed: "
                "telemetry: cli); nothing was contacted"
            )
        if lab:
            port = ports.get(host.name) or int(os.environ.get("FABRICCTL_LAB_GNMI_PORT", GNMI_PORT))
            name = TLS_NAME
        else:
            port = int(host.get("gnmi_port") or counters.port)
            name = str(host.get("gnmi_tls_name") or host.hostname)
        where.append((host, port, name, counters))
    # the lab's certificate, as it published it; a real fabric's CA file
    ca = lab_certificate(root) if ca_file is None else ca_file.read_bytes()
    return [
        Target(
            host.name, str(host.hostname), port, name, ca, str(host.username), str(host.password), counters
        )
        for host, port, name, counters in where
    ]


@contextlib.contextmanager
def feeds(
    root: Path, lab: bool, names: set[str], workers: int, timeout: float, publish: Publish
) -> Iterator[tuple[Reader, set[str]]]:
    """For the block: a reader for the switches polled over their CLI, and the set of switches
    streamed over gNMI (their snapshots go to `publish` as they come)."""
    from fabricctl.deploy.context import open_fabric
    from fabricctl.deploy.counters import read_counters

    with open_fabric(root, lab, names, workers=workers) as nr:
        streams = Streams(targets(nr, Path(root), lab), publish).start()

        def read(name: str) -> SwitchCounters | str:
            return read_counters(nr.filter(name=name), timeout, keep_open=True, sessions=True).get(
                name, "not read"
            )

        try:
            yield read, set(streams.streams)
        finally:
            streams.stop()
            nr.close_connections(on_good=True, on_failed=True)
