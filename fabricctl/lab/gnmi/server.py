"""The lab's gNMI server: one gRPC server per switch on the lab's event loop (grpc.aio), over TLS
with the lab's certificate, logging in with the lab's SSH credentials as gRPC metadata
(`username` / `password`, or HTTP basic `authorization`), as gNMI servers take them.

RPCs follow the gNMI specification 0.10.0 (openconfig/reference rpc/gnmi/gnmi-specification.md):
Capabilities; Get (per-leaf updates, or one JSON / JSON_IETF tree for a container path); Subscribe
in STREAM mode with SAMPLE (every sample_interval of lab time, suppress_redundant and
heartbeat_interval), ON_CHANGE (when an event leaf changes: a port that goes down or up, a link
that flaps) and TARGET_DEFINED (event leaves on change, the rest sampled), updates_only, then
ONCE and POLL where the NOS takes them. Set is not served: the lab is configured over its CLI and
APIs. What each NOS serves is its GnmiTarget (lab/devices/<nos>/gnmi.py).

A lab clock frozen for a test moves only on `LabFabric.advance`: a sample falls due exactly then.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import errno
import hmac
import json
import math
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import grpc
from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

from fabricctl.lab.device import LabDevice
from fabricctl.lab.fabric_state import FabricState
from fabricctl.lab.gnmi.model import GnmiTarget, Leaf, Leaves, Path, Value, elem, matches, nanoseconds, text
from fabricctl.lab.runtime import lab_credentials
from fabricctl.lab.tls import certificate_pem, private_key_pem
from fabricctl.lab.traffic import FLAP_PERIOD
from fabricctl.lab.view import View

#: How often (wall seconds) the lab looks for a change that ON_CHANGE subscribers must hear of.
WATCH_INTERVAL = 0.05
#: Leaves whose 64-bit integers JSON_IETF writes as numbers (RFC 7951 6.1: only int64/uint64
#: are strings); these are small keys.
_SMALL_INTS = frozenset({"index", "priority"})
_ENCODINGS = {"JSON": 0, "BYTES": 1, "PROTO": 2, "ASCII": 3, "JSON_IETF": 4}


class Abort(Exception):
    """An RPC error to return: a gRPC status code and its message."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def to_path(proto: Any) -> Path:
    """A gnmi.Path (elem form, or the deprecated element strings) -> path."""
    if proto.elem:
        return tuple((e.name, tuple(sorted(e.key.items()))) for e in proto.elem)
    return tuple(elem(name) for name in proto.element)


def from_path(path: Path) -> Any:
    return gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name=name, key=dict(keys)) for name, keys in path])


def _plain(name: str, value: Value, ietf: bool) -> Any:
    """A leaf's value in JSON; JSON_IETF writes 64-bit integers and decimals as strings."""
    if not ietf or isinstance(value, (bool, str)):
        return value
    if isinstance(value, float):
        return f"{value:.2f}"
    return value if name in _SMALL_INTS else str(value)


def typed(path: Path, value: Value, encoding: int) -> Any:
    name = path[-1][0]
    if encoding == _ENCODINGS["JSON"]:
        return gnmi_pb2.TypedValue(json_val=json.dumps(_plain(name, value, False)).encode())
    if encoding == _ENCODINGS["JSON_IETF"]:
        return gnmi_pb2.TypedValue(json_ietf_val=json.dumps(_plain(name, value, True)).encode())
    if encoding == _ENCODINGS["ASCII"]:
        return gnmi_pb2.TypedValue(ascii_val=str(value))
    if isinstance(value, bool):
        return gnmi_pb2.TypedValue(bool_val=value)
    if isinstance(value, int):
        return gnmi_pb2.TypedValue(uint_val=value) if value >= 0 else gnmi_pb2.TypedValue(int_val=value)
    if isinstance(value, float):
        return gnmi_pb2.TypedValue(double_val=value)
    return gnmi_pb2.TypedValue(string_val=value)


def json_tree(leaves: Iterable[tuple[Path, Leaf]], ietf: bool) -> dict[str, Any]:
    """Leaves (paths relative to the container asked for) -> its JSON object: lists as arrays of
    entries holding their keys; in JSON_IETF, a member is named `module:name` at the top and
    wherever its module differs from its parent's."""
    root: dict[str, Any] = {}
    entries: dict[tuple[int, tuple[tuple[str, str], ...]], dict[str, Any]] = {}
    for rel, (module, value) in leaves:
        node, parent_module = root, None
        for i, (name, keys) in enumerate(rel):
            member = f"{module}:{name}" if ietf and module != parent_module else name
            parent_module = module
            if keys:
                items = node.setdefault(member, [])
                entry = entries.get((id(items), keys))
                if entry is None:
                    entry = dict(keys)
                    entries[(id(items), keys)] = entry
                    items.append(entry)
                node = entry
            elif i == len(rel) - 1:
                node[member] = _plain(name, value, ietf)
            else:
                node = node.setdefault(member, {})
    return root


@dataclass
class Watch:
    """Wakes ON_CHANGE subscribers when the lab's derived state changes (a fault set or cleared, a
    config change, a re-cabled rack): one poll of the state's identity for the whole lab."""

    state: Callable[[], FabricState]
    _changed: asyncio.Event | None = None
    _task: asyncio.Task[None] | None = None
    watchers: int = 0

    async def wait(self) -> None:
        if self._changed is None:
            self._changed = asyncio.Event()
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())
        await self._changed.wait()

    async def _run(self) -> None:
        seen: FabricState | None = None  # the first look wakes everyone once: nothing is missed
        while self.watchers > 0:
            await asyncio.sleep(WATCH_INTERVAL)
            now = self.state()
            if now is not seen and self._changed is not None:
                seen = now
                self._changed.set()
                self._changed = asyncio.Event()


@dataclass
class Sub:
    """One subscription of a SubscriptionList, resolved: its path, how it is sent, and, for a
    TARGET_DEFINED one, which half (event leaves, or the rest) it covers."""

    path: Path
    on_change: bool
    interval: float  # lab seconds between samples (SAMPLE)
    suppress_redundant: bool = False
    heartbeat: float = 0.0
    events_only: bool | None = None  # TARGET_DEFINED: True for event leaves, False for the rest
    sent: dict[Path, Value] = field(default_factory=dict)
    carriers: dict[Path, int] = field(default_factory=dict)  # oper-status leaf -> its port's transitions
    last_heartbeat: float = -math.inf

    def picks(self, path: Path, events: frozenset[str]) -> bool:
        if not matches(self.path, path):
            return False
        return self.events_only is None or (path[-1][0] in events) == self.events_only


class GnmiService(gnmi_pb2_grpc.gNMIServicer):  # type: ignore[misc]
    """The gNMI service of one lab switch."""

    def __init__(self, dev: LabDevice, watch: Watch) -> None:
        self.dev, self.watch = dev, watch
        self._paths: dict[Path, Any] = {}
        target = dev.nos.gnmi
        assert isinstance(target, GnmiTarget)
        self.target = target

    # --- helpers -------------------------------------------------------------------------
    def _login(self, context: Any) -> None:
        meta = {k.lower(): v for k, v in context.invocation_metadata() or ()}
        user, password = meta.get("username", ""), meta.get("password", "")
        basic = meta.get("authorization", "")
        if basic.lower().startswith("basic "):
            with contextlib.suppress(ValueError, UnicodeDecodeError):
                user, _, password = base64.b64decode(basic[6:].strip()).decode().partition(":")
        want_user, want_password = lab_credentials()
        ok = hmac.compare_digest(str(user), want_user) & hmac.compare_digest(str(password), want_password)
        if self.dev.faults.auth_failure or not ok:
            raise Abort(grpc.StatusCode.UNAUTHENTICATED, "authentication failed")

    def _encoding(self, encoding: int) -> int:
        names = {v: k for k, v in _ENCODINGS.items()}
        if names.get(encoding) not in self.target.encodings:
            raise Abort(
                grpc.StatusCode.UNIMPLEMENTED,
                f"unsupported encoding {names.get(encoding, encoding)} "
                f"(supported: {', '.join(self.target.encodings)})",
            )
        return encoding

    def _check(self, proto: Any, prefix: Any) -> Path:
        origin = proto.origin or prefix.origin
        if origin in self.target.refused_origins:
            raise Abort(
                grpc.StatusCode.UNIMPLEMENTED, f"origin {origin}: {self.target.refused_origins[origin]}"
            )
        return to_path(prefix) + to_path(proto)

    def leaves(self, paths: Iterable[Path]) -> Leaves:
        return self.target.leaves(View(self.dev), self.target.roots(paths))

    def _now(self) -> int:
        return nanoseconds(self.dev.clock.calendar())

    def _notification(self, updates: Iterable[tuple[Path, Value]], encoding: int) -> Any:
        return gnmi_pb2.Notification(
            timestamp=self._now(),
            update=[gnmi_pb2.Update(path=self._path(p), val=typed(p, v, encoding)) for p, v in updates],
        )

    def _path(self, path: Path) -> Any:
        """The gnmi.Path of a leaf, built once (a switch sends the same leaves every sample)."""
        found = self._paths.get(path)
        if found is None:
            found = self._paths[path] = from_path(path)
        return found

    # --- RPCs ----------------------------------------------------------------------------
    async def Capabilities(self, request: Any, context: Any) -> Any:
        try:
            self._login(context)
        except Abort as exc:
            await context.abort(exc.code, exc.message)
        return gnmi_pb2.CapabilityResponse(
            supported_models=[
                gnmi_pb2.ModelData(name=m.name, organization=m.organization, version=m.version)
                for m in self.target.models
            ],
            supported_encodings=[_ENCODINGS[e] for e in self.target.encodings],
            gNMI_version=self.target.gnmi_version,
        )

    async def Get(self, request: Any, context: Any) -> Any:
        try:
            return self._get(request, context)
        except Abort as exc:
            await context.abort(exc.code, exc.message)

    def _get(self, request: Any, context: Any) -> Any:
        self._login(context)
        if not self.target.get:
            raise Abort(grpc.StatusCode.UNIMPLEMENTED, "Get is not supported: use Subscribe")
        encoding = self._encoding(request.encoding)
        paths = [self._check(p, request.prefix) for p in request.path] or [to_path(request.prefix)]
        leaves = self.leaves(paths)
        notifications = []
        for path in paths:
            chosen = sorted((p, leaf) for p, leaf in leaves.items() if matches(path, p))
            if not chosen:
                raise Abort(grpc.StatusCode.NOT_FOUND, f"path {text(path)} not found")
            groups: dict[Path, list[tuple[Path, Leaf]]] = {}
            for p, leaf in chosen:
                groups.setdefault(p[: len(path)], []).append((p, leaf))
            updates = []
            for base, members in groups.items():
                if len(members) == 1 and members[0][0] == base:
                    updates.append(
                        gnmi_pb2.Update(path=from_path(base), val=typed(base, members[0][1][1], encoding))
                    )
                elif encoding in (_ENCODINGS["JSON"], _ENCODINGS["JSON_IETF"]):
                    ietf = encoding == _ENCODINGS["JSON_IETF"]
                    tree = json_tree(((p[len(base) :], leaf) for p, leaf in members), ietf)
                    raw = json.dumps(tree).encode()
                    val = (
                        gnmi_pb2.TypedValue(json_ietf_val=raw) if ietf else gnmi_pb2.TypedValue(json_val=raw)
                    )
                    updates.append(gnmi_pb2.Update(path=from_path(base), val=val))
                else:
                    updates += [
                        gnmi_pb2.Update(path=from_path(p), val=typed(p, leaf[1], encoding))
                        for p, leaf in members
                    ]
            notifications.append(gnmi_pb2.Notification(timestamp=self._now(), update=updates))
        return gnmi_pb2.GetResponse(notification=notifications)

    async def Set(self, request: Any, context: Any) -> Any:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, "Set is not served: configure over the CLI or API")

    async def Subscribe(self, request_iterator: Any, context: Any) -> AsyncIterator[Any]:
        try:
            async for response in self._subscribe(request_iterator, context):
                yield response
        except Abort as exc:
            await context.abort(exc.code, exc.message)

    def _subs(self, sl: Any) -> list[Sub]:
        subs = []
        floor = self.target.min_sample_seconds
        for s in sl.subscription:
            path = self._check(s.path, sl.prefix)
            interval = max(s.sample_interval / 1e9 if s.sample_interval else 1.0, floor, 0.001)
            heartbeat = s.heartbeat_interval / 1e9
            if s.mode == gnmi_pb2.SubscriptionMode.Value("ON_CHANGE"):
                subs.append(Sub(path, True, interval, heartbeat=heartbeat))
            elif s.mode == gnmi_pb2.SubscriptionMode.Value("SAMPLE"):
                subs.append(Sub(path, False, interval, s.suppress_redundant, heartbeat))
            else:  # TARGET_DEFINED: events on change, counters sampled
                subs.append(Sub(path, True, interval, events_only=True))
                subs.append(Sub(path, False, interval, events_only=False))
        if not subs:
            raise Abort(
                grpc.StatusCode.INVALID_ARGUMENT, "a SubscriptionList needs at least one subscription"
            )
        return subs

    async def _subscribe(self, request_iterator: Any, context: Any) -> AsyncIterator[Any]:
        self._login(context)
        requests = request_iterator.__aiter__()
        try:
            first = await requests.__anext__()
        except StopAsyncIteration:
            return
        if not first.HasField("subscribe"):
            raise Abort(
                grpc.StatusCode.INVALID_ARGUMENT, "the first SubscribeRequest must carry a SubscriptionList"
            )
        sl = first.subscribe
        mode = gnmi_pb2.SubscriptionList.Mode.Name(sl.mode)
        if mode != "STREAM" and not self.target.once_and_poll:
            raise Abort(
                grpc.StatusCode.UNIMPLEMENTED, f"subscription mode {mode} is not supported: use STREAM"
            )
        encoding = sl.encoding if sl.encoding in _ENCODINGS.values() else _ENCODINGS["JSON"]
        subs = self._subs(sl)
        events = self.target.event_leaves
        start = self.dev.clock.now()  # samples fall due from the lab time of the request
        leaves = self.leaves(s.path for s in subs)
        for s in subs:
            if not self.target.roots([s.path]) <= self.target.trees:
                raise Abort(grpc.StatusCode.NOT_FOUND, f"path {text(s.path)} not found")

        def everything(now: Leaves) -> list[tuple[Path, Value]]:
            return sorted((p, v) for p, (_, v) in now.items() if any(s.picks(p, events) for s in subs))

        if not sl.updates_only:
            yield gnmi_pb2.SubscribeResponse(update=self._notification(everything(leaves), encoding))
        for s in subs:
            s.sent = {p: v for p, (_, v) in leaves.items() if s.picks(p, events)}
            s.carriers = _carriers(s.sent, leaves)
        yield gnmi_pb2.SubscribeResponse(sync_response=True)
        if mode == "ONCE":
            return
        if mode == "POLL":
            async for request in requests:
                if request.HasField("poll"):
                    now = self.leaves(s.path for s in subs)
                    yield gnmi_pb2.SubscribeResponse(update=self._notification(everything(now), encoding))
                    yield gnmi_pb2.SubscribeResponse(sync_response=True)
            return
        out: asyncio.Queue[Any] = asyncio.Queue()
        jobs = [
            self._sample(group, interval, start + interval, encoding, out)
            for interval, group in _by_interval(subs)
        ]
        changes = [s for s in subs if s.on_change]
        if changes:
            jobs.append(self._changes(changes, encoding, out))
        tasks = [asyncio.create_task(_reporting(job, out)) for job in jobs]
        try:
            while True:
                response = await out.get()
                if isinstance(response, BaseException):
                    raise Abort(grpc.StatusCode.INTERNAL, f"{type(response).__name__}: {response}")
                yield response
        finally:
            for task in tasks:
                task.cancel()

    async def _sample(
        self, subs: list[Sub], interval: float, due: float, encoding: int, out: asyncio.Queue[Any]
    ) -> None:
        """SAMPLE: at each `due` lab time, then every `interval` (a jump of the lab clock past
        several is one sample, as a switch that was busy sends one)."""
        events = self.target.event_leaves
        clock = self.dev.clock
        owners: dict[Path, tuple[int, ...]] = {}  # leaf -> the subscriptions that pick it
        while True:
            await clock.sleep(due - clock.now())
            now = clock.now()
            due += interval * max(1, math.floor((now - due) / interval) + 1)
            leaves = self.leaves(s.path for s in subs)
            updates: dict[Path, Value] = {}
            picked: list[dict[Path, Value]] = [{} for _ in subs]
            for p, (_, v) in leaves.items():  # one look per leaf, whatever the number of paths
                who = owners.get(p)
                if who is None:
                    who = owners[p] = tuple(i for i, s in enumerate(subs) if s.picks(p, events))
                for i in who:
                    picked[i][p] = v
            for s, mine in zip(subs, picked, strict=True):
                beat = s.heartbeat > 0 and now - s.last_heartbeat >= s.heartbeat
                if s.suppress_redundant and not beat:
                    updates |= {p: v for p, v in mine.items() if s.sent.get(p) != v}
                else:
                    updates |= mine
                    s.last_heartbeat = now if beat else s.last_heartbeat
                s.sent = mine
            if updates:
                await out.put(
                    gnmi_pb2.SubscribeResponse(update=self._notification(sorted(updates.items()), encoding))
                )

    async def _changes(self, subs: list[Sub], encoding: int, out: asyncio.Queue[Any]) -> None:
        """ON_CHANGE: after any change of the lab's state, at the next flap of a flapping port in
        scope (lab time), and every lab second for counters asked on change: send what changed; a
        link that flapped since is sent as DOWN then UP."""
        events = self.target.event_leaves
        self.watch.watchers += 1
        seen: FabricState | None = None
        try:
            while True:
                if seen is not None:
                    await self._next_change(subs, seen)
                seen = self.dev.state()
                leaves = self.leaves(s.path for s in subs)
                flapped: list[tuple[Path, Value]] = []
                updates: dict[Path, Value] = {}
                for s in subs:
                    mine = {p: v for p, (_, v) in leaves.items() if s.picks(p, events)}
                    updates |= {p: v for p, v in mine.items() if s.sent.get(p) != v}
                    for p, count in _carriers(mine, leaves).items():
                        was = s.carriers.get(p)
                        if was is not None and count > was and mine[p] == "UP" and s.sent.get(p) == "UP":
                            flapped.append((p, "DOWN"))
                        s.carriers[p] = count
                    s.sent = mine
                if flapped:
                    await out.put(gnmi_pb2.SubscribeResponse(update=self._notification(flapped, encoding)))
                    updates |= dict.fromkeys((p for p, _ in flapped), "UP")
                if updates:
                    await out.put(
                        gnmi_pb2.SubscribeResponse(
                            update=self._notification(sorted(updates.items()), encoding)
                        )
                    )
        finally:
            self.watch.watchers -= 1

    async def _next_change(self, subs: list[Sub], seen: FabricState) -> None:
        if self.dev.state() is not seen:
            return
        waits = [asyncio.ensure_future(self.watch.wait())]
        events = self.target.event_leaves
        counters = any(s.events_only is None and s.path[-1][0] not in events for s in subs)  # on change
        state = self.dev.state()
        now = self.dev.clock.now()
        flaps = [
            since + (math.floor((now - since) / FLAP_PERIOD) + 1) * FLAP_PERIOD
            for port in state.facts[self.dev.name].ports
            if (since := state.onset(self.dev.name, "flapping", port)) is not None
            and any(matches(s.path[:2], (elem("interfaces"), elem("interface", name=port))) for s in subs)
        ]
        if flaps or counters:
            soonest = min([*flaps, now + 1.0]) if counters else min(flaps)
            waits.append(asyncio.ensure_future(self.dev.clock.sleep(soonest - now)))
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()


async def _reporting(job: Any, out: asyncio.Queue[Any]) -> None:
    """Run a stream's producer; an error it meets ends the stream with that error, never silently."""
    try:
        await job
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        await out.put(exc)


def _carriers(mine: dict[Path, Value], leaves: Leaves) -> dict[Path, int]:
    """oper-status leaf -> its port's carrier-transitions now (a flap between two looks at the
    port leaves it UP, with more transitions)."""
    out = {}
    for p in mine:
        if p[-1][0] == "oper-status":
            count = leaves.get((*p[:-1], elem("counters"), elem("carrier-transitions")), ("", None))[1]
            if isinstance(count, int):
                out[p] = count
    return out


def _by_interval(subs: list[Sub]) -> list[tuple[float, list[Sub]]]:
    groups: dict[float, list[Sub]] = {}
    for s in subs:
        if not s.on_change:
            groups.setdefault(s.interval, []).append(s)
    return sorted(groups.items())


class _Listener:
    """A grpc.aio server with the close() / wait_closed() of the lab's other listeners."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self._stopping: asyncio.Task[Any] | None = None

    def close(self) -> None:
        self._stopping = asyncio.ensure_future(self.server.stop(0))

    async def wait_closed(self) -> None:
        if self._stopping is not None:
            await self._stopping


class GnmiServers:
    """The gNMI servers of one LabFabric (one per switch, on its address and the lab's gNMI port)."""

    def __init__(self, state: Callable[[], FabricState]) -> None:
        self.watch = Watch(state)

    async def listen(self, dev: LabDevice, address: str, port: int) -> _Listener:
        server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
        gnmi_pb2_grpc.add_gNMIServicer_to_server(GnmiService(dev, self.watch), server)
        credentials = grpc.ssl_server_credentials([(private_key_pem(), certificate_pem())])
        try:
            bound = server.add_secure_port(f"{address}:{port}", credentials)
        except RuntimeError:
            bound = 0
        if not bound:
            raise OSError(errno.EADDRINUSE, f"gNMI port {address}:{port} is taken")
        await server.start()
        return _Listener(server)
