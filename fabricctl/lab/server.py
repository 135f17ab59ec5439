"""LabFabric: N mock switches served from one asyncio process (SSH per device, eAPI per EOS).

The fabric runs on its own event loop, either in a background thread (tests, the
`fabricctl.lab.connect.lab_endpoints` helper) or as the main loop of `python -m fabricctl.lab`.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hashlib
import hmac
import os
import socket
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from ipaddress import IPv4Network
from pathlib import Path
from typing import Any, TypeVar

import asyncssh

from fabricctl.errors import StageError
from fabricctl.lab.clock import LabClock
from fabricctl.lab.device import ZTP_DONE, LabDevice
from fabricctl.lab.dialect import CliError, CliSession, Disconnect, Logout, Reboot, to_text
from fabricctl.lab.editor import Editor
from fabricctl.lab.fabric_state import Cabling, FabricState
from fabricctl.lab.factory import DeviceSpec
from fabricctl.lab.facts import DeviceFacts
from fabricctl.lab.faults import COUNTER_FAULTS, Faults, load_faults
from fabricctl.lab.runtime import GNMI_PORT, Endpoint, lab_credentials
from fabricctl.lab.shards import Board, Remote, Shard, assign
from fabricctl.lab.state import StateStore, lab_dir
from fabricctl.lab.tls import server_context
from fabricctl.lab.traffic import WORKLOAD_PPS, Workload

T = TypeVar("T")


def env_time_scale() -> float:
    """FABRICCTL_LAB_TIME_SCALE: wall seconds per lab second (0.05: lab time runs 20x faster)."""
    raw = os.environ.get("FABRICCTL_LAB_TIME_SCALE", "1")
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not 0 < value <= 1000:
        raise StageError(f"FABRICCTL_LAB_TIME_SCALE={raw!r}: allowed a number above 0 (0.05 = 20x faster)")
    return value


def _blocks(seed: str) -> Iterator[IPv4Network]:
    """Candidate /16 blocks of 127.0.0.0/8 for one lab, in the same order for the same seed.

    Each device gets its own loopback address in the block and listens on the same ports as
    every other device, like switches with management addresses: the endpoints of a fabric's
    lab are the same after every restart, and clients that keep one port per platform (such as
    nornir-napalm, which shares its options between hosts) reach every device.
    """
    first = int(hashlib.sha256(seed.encode()).hexdigest(), 16) % len(_SECOND_OCTETS)
    for k in range(len(_SECOND_OCTETS)):
        yield IPv4Network(f"127.{_SECOND_OCTETS[(first + k) % len(_SECOND_OCTETS)]}.0.0/16")


_SECOND_OCTETS = range(64, 254)


def address_block(text: str) -> IPv4Network:
    """`--block`: the IPv4 block the lab's switches take their addresses from, in inventory
    order (a /16 of 127.0.0.0/8 by default; on several hosts, one every host routes to)."""
    try:
        block = IPv4Network(text)
    except ValueError:
        raise StageError(f"--block {text!r}: allowed an IPv4 network such as 127.77.0.0/16") from None
    if block.prefixlen > 28:
        raise StageError(f"--block {text}: allowed a network of /28 or larger")
    return block


def first_block(seed: str) -> IPv4Network:
    """The /16 a lab of this seed (its fabric root) takes when nothing else listens there."""
    return next(_blocks(seed))


def free_block(seed: str, port: int) -> IPv4Network:
    """The first of the seed's blocks whose first address has `port` free (what the shards of
    one lab, started together, are all given)."""
    for block in _blocks(seed):
        try:
            _probe(str(block[0]), port)  # another lab's claim (see _claim)
            _probe(str(block[1]), port)
        except OSError:
            continue
        return block
    raise StageError(f"no free loopback block for the lab: port {port} is taken on all of 127.64-253.x.x")


def gnmi_servers(state: Callable[[], FabricState]) -> Any:
    """The lab's gNMI servers, or None where grpcio and the gNMI modules are not installed (the
    `gnmi` extra): the lab then serves SSH and its APIs only."""
    try:
        from fabricctl.lab.gnmi.server import GnmiServers
    except ImportError:
        return None
    return GnmiServers(state)


def _port(variable: str, default: int) -> int:
    raw = os.environ.get(variable, str(default))
    if not raw.isdigit() or not 1 <= int(raw) <= 65535:
        raise StageError(f"{variable}={raw!r}: allowed a TCP port number, 1-65535")
    return int(raw)


_LOOPBACK = IPv4Network("127.0.0.0/8")


def _claim(block: IPv4Network, port: int) -> socket.socket | None:
    """Hold a loopback block's network address on the SSH port while the lab runs: a switch
    still in day-0 or unreachable does not listen at its address, and another lab must not take
    the block meanwhile (its switch would then fail to listen once it boots). OSError
    (EADDRINUSE) when another lab holds the block; None for a block other hosts route to."""
    if not block.subnet_of(_LOOPBACK):
        return None
    sock = socket.socket()
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((str(block[0]), port))
        sock.listen(1)
    except OSError:
        sock.close()
        raise
    return sock


def _probe(address: str, port: int) -> None:
    """Raise EADDRINUSE when another lab listens where a silent (unreachable) device would."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((address, port))


class _SshServer(asyncssh.SSHServer):
    """Password auth against the lab credentials (or refused by the auth fault)."""

    def __init__(self, dev: LabDevice, creds: tuple[str, str], conns: set[Any]) -> None:
        self.dev = dev
        self.creds = creds
        self.conns = conns

        self.conn: asyncssh.SSHServerConnection | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        conn.set_extra_info(lab_device=self.dev.name)  # an unreachable device drops its sessions
        self.conns.add(conn)

    def connection_lost(self, exc: Exception | None) -> None:
        self.conns.discard(self.conn)

    def begin_auth(self, username: str) -> bool:
        return True

    def password_auth_supported(self) -> bool:
        return True

    def validate_password(self, username: str, password: str) -> bool:
        if self.dev.faults.auth_failure:
            return False
        user, pwd = self.creds
        return hmac.compare_digest(username, user) and hmac.compare_digest(password, pwd)


def new_cli(dev: LabDevice) -> CliSession:
    cli = dev.nos.cli(dev)
    if not isinstance(cli, CliSession):
        raise TypeError(f"{dev.platform}: its lab cli is not a CliSession")
    return cli


async def _reply(cli: CliSession, line: str) -> str:
    try:
        return to_text(await cli.execute(line))
    except CliError as exc:
        return exc.text


async def _enter(dev: LabDevice, cli: CliSession, process: asyncssh.SSHServerProcess[str], line: str) -> bool:
    """Run one entered line and print its answer and the next prompt; False when the session ends."""
    if dev.faults.latency:
        await dev.clock.sleep(dev.faults.latency)
    try:
        out = to_text(await cli.execute(line))
    except CliError as exc:
        out = exc.text
    except Logout:
        process.exit(0)
        return False
    except Reboot as reboot:  # the switch reloads: its last words, then the connection drops
        process.stdout.write(reboot.text.replace("\n", "\r\n") + "\r\n")
        process.exit(0)
        return False
    except Disconnect:
        process.get_extra_info("connection").abort()
        return False
    body = out.replace("\n", "\r\n") + "\r\n" if out else ""
    process.stdout.write(f"{body}{cli.prompt()}")
    return True


async def _shell(dev: LabDevice, process: asyncssh.SSHServerProcess[str]) -> None:
    """Drive one interactive CLI: echo each key, run each line, print its answer and the prompt."""
    cli = new_cli(dev)
    cli.gone = process.channel.is_closing
    cli.login_user = str(process.get_extra_info("username") or "")
    peer = process.get_extra_info("peername")
    cli.login_address = str(peer[0]) if peer else "**"
    write = process.stdout.write
    if process.command:
        write((await _reply(cli, process.command)).replace("\n", "\r\n") + "\r\n")
        process.exit(0)
        return
    write(cli.banner().replace("\n", "\r\n") + cli.prompt())
    line = ""
    after_cr = False
    try:
        while True:
            data = await process.stdin.read(65536)
            if not data:
                break
            # A terminal echoes every key as the CLI reads it (clients such as scrapli wait for the
            # echo of each character); keys typed ahead are read, and echoed, after the answer.
            echo = ""  # the echo of a run of keys goes out in one write
            for char in data:
                if char == "\n" and after_cr:  # CR LF is one Enter
                    after_cr = False
                    continue
                after_cr = char == "\r"
                if char in "\r\n":
                    write(echo + "\r\n")
                    echo = ""
                    if not await _enter(dev, cli, process, line):
                        return
                    line = ""
                elif char in "\x7f\x08":  # Backspace / Delete
                    if line:
                        line = line[:-1]
                        echo += "\b \b"
                elif char == "\x15":  # Ctrl-U: erase the line
                    echo += "\b \b" * len(line)
                    line = ""
                elif char == "\t":  # Tab: complete the word when only one word fits
                    words = cli.help(line)
                    partial = "" if not line or line.endswith(" ") else line.split()[-1]
                    if len(words) == 1 and not words[0].startswith("<") and partial:
                        tail = words[0][len(partial) :] + " "
                        line += tail
                        echo += tail
                elif char == "?":  # help: what may come next, then the line again
                    shown = "\r\n".join(f"  {w}" for w in cli.help(line)) or "  % Unrecognized command"
                    echo += f"?\r\n{shown}\r\n\r\n{cli.prompt()}{line}"
                elif char == "\x03":  # Ctrl-C: drop the line, a fresh prompt
                    line = ""
                    echo += f"^C\r\n{cli.prompt()}"
                elif char >= " ":
                    line += char
                    echo += "" if cli.hide_input else char
            if echo:
                write(echo)
    except (asyncssh.Error, ConnectionError, asyncssh.TerminalSizeChanged):
        pass
    process.exit(0)


class LabFabric:
    """A set of lab devices and their listeners. Start, use `endpoints()`, stop."""

    def __init__(
        self,
        specs: Iterable[DeviceSpec],
        state_dir: Path | None = None,
        clock: LabClock | None = None,
        faults: dict[str, Faults] | None = None,
        seed: str | None = None,
        cabling: Cabling | None = None,
        shard: Shard | None = None,
        block: IPv4Network | None = None,
    ) -> None:
        self.seed = seed if seed is not None else uuid.uuid4().hex  # a fabric root: stable endpoints
        self.ssh_port = _port("FABRICCTL_LAB_SSH_PORT", 20022)
        self.eapi_port = _port("FABRICCTL_LAB_EAPI_PORT", 20443)
        self.gnmi_port = _port("FABRICCTL_LAB_GNMI_PORT", GNMI_PORT)
        self.clock = clock if clock is not None else LabClock(scale=env_time_scale())
        self.store = StateStore(state_dir)
        specs = list(specs)
        #: Every switch of the fabric in inventory order (its address is block[position + 1]).
        self.order = {s.name: i for i, s in enumerate(specs)}
        self.shard = shard
        self.block = block
        mine = {s.name for s in specs}
        self.remote: dict[str, Remote] = {}
        self.board: Board | None = None
        if shard is not None and shard.count > 1:
            if state_dir is None:
                raise StageError("a sharded lab needs a state folder its shards share")
            split = assign(specs, shard.count)
            mine = set(split[shard.index - 1])
            self.remote = {
                s.name: Remote(s, k + 1)
                for k, names in enumerate(split)
                for s in specs
                if s.name in names and s.name not in mine
            }
            self.board = Board(state_dir.parent / "shards", shard, self.remote)
        #: The switches this process serves (all of them unless it is one shard of several).
        self.devices: dict[str, LabDevice] = {
            s.name: LabDevice(s, self.store, clock=self.clock) for s in specs if s.name in mine
        }
        for name, f in (faults or {}).items():
            self._dev(name).faults = f
            self._dev(name).storms()
            self._dev(name).onsets()
        self.cabling = cabling if cabling is not None else Cabling()
        self._state: tuple[object, FabricState] | None = None  # derived once per change
        self._workload: Workload | None = None  # tenants at work (set_workload)
        for dev in self.devices.values():
            dev.fabric_state = self.state
            if self.board is not None:
                dev.on_publish = self._publish_soon
        self._publish_pending = False
        self._addresses: dict[str, str] = {}
        self._servers: dict[str, list[Any]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._loop_thread: threading.Thread | None = None  # where the loop runs (ours or __main__'s)
        self._key: asyncssh.SSHKey | None = None
        self._stopped: asyncio.Event | None = None
        self._conns: set[Any] = set()
        self._gnmi: Any = None  # lab/gnmi/server.GnmiServers once a lab serves gNMI
        self._block_claim: socket.socket | None = None  # the address block held (_claim)

    # --- construction ---------------------------------------------------------------------
    @classmethod
    def from_inventory(cls, root: Path, **kwargs: Any) -> LabFabric:
        """Devices from `<root>/inventory` (Nornir SimpleInventory); state under root. With
        `shard=Shard(k, n)` it serves shard k's switches and derives the others' state from what
        their shards publish under `<root>/.fabricctl/lab/shards/`."""
        from fabricctl.lab.inventory import specs_from_inventory

        kwargs.setdefault("state_dir", lab_dir(root) / "state")
        kwargs.setdefault("seed", str(Path(root).resolve()))
        kwargs.setdefault("cabling", Cabling.from_inventory(Path(root)))
        return cls(specs_from_inventory(Path(root)), **kwargs)

    def advance(self, seconds: float) -> None:
        """Move a manual lab clock forward; commit timers that fall due fire before this returns."""
        self.call(lambda: self.clock.advance(seconds))

    def _dev(self, name: str) -> LabDevice:
        try:
            return self.devices[name]
        except KeyError:
            raise KeyError(f"no lab device named {name!r}") from None

    # --- lifecycle --------------------------------------------------------------------------
    async def serve_start(self) -> None:
        """Open every listener on the current loop (used by `start()` and `__main__`)."""
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.current_thread()  # other threads reach devices through call()
        self._stopped = asyncio.Event()
        self._key = asyncssh.generate_private_key("ssh-ed25519")
        self._gnmi = gnmi_servers(self.state)
        if self.board is not None:
            self._publish()  # the other shards learn this one's epoch (and faults) from the start
        fixed = self.block is not None or self.board is not None  # every shard must agree on it
        for block in [self.block] if self.block is not None else _blocks(self.seed):
            if len(self.order) >= block.num_addresses - 2:
                raise StageError(f"a lab serves at most {block.num_addresses - 2} devices")
            self._addresses = {name: str(block[self.order[name] + 1]) for name in self.devices}
            try:
                if self.shard is None or self.shard.index == 1:  # one claim per lab, not per shard
                    self._block_claim = _claim(block, self.ssh_port)
                for dev in self.devices.values():
                    if not dev.faults.unreachable and not dev.ztp_waiting:
                        await self._listen(dev)
                    else:
                        _probe(self._addresses[dev.name], self.ssh_port)
                return
            except OSError as exc:
                if exc.errno != errno.EADDRINUSE:
                    raise
                for name in list(self._servers):  # another lab holds this block: try the next
                    await self._unlisten(name)
                self._release_claim()
                if fixed:
                    raise StageError(
                        f"the lab's address block {block} is taken (port {self.ssh_port}, {self._addresses.get(next(iter(self.devices), ''), '')}): "
                        "another lab listens there; give each lab its own block (--block)"
                    ) from None
        raise StageError(
            f"no free loopback block for the lab: ports {self.ssh_port}/{self.eapi_port}/{self.gnmi_port} are "
            "taken on all of 127.64-253.x.x (set FABRICCTL_LAB_SSH_PORT / FABRICCTL_LAB_EAPI_PORT / "
            "FABRICCTL_LAB_GNMI_PORT)"
        )

    def _release_claim(self) -> None:
        if self._block_claim is not None:
            self._block_claim.close()
            self._block_claim = None

    async def _listen(self, dev: LabDevice) -> None:
        address = self._addresses[dev.name]
        creds = lab_credentials()

        async def handle(process: asyncssh.SSHServerProcess[str]) -> None:
            await _shell(dev, process)

        ssh = await asyncssh.create_server(
            lambda: _SshServer(dev, creds, self._conns),
            address,
            self.ssh_port,
            server_host_keys=[self._key],
            process_factory=handle,
            line_editor=False,
            encoding="utf-8",
            reuse_address=True,
        )
        self._servers[dev.name] = [ssh]
        serve_eapi = dev.nos.eapi
        if serve_eapi is not None:
            https = await asyncio.start_server(
                lambda r, w: serve_eapi(dev, lab_credentials, r, w),
                address,
                self.eapi_port,
                reuse_address=True,
                ssl=server_context(),
            )
            self._servers[dev.name].append(https)
        if dev.nos.gnmi is not None and self._gnmi is not None:
            self._servers[dev.name].append(await self._gnmi.listen(dev, address, self.gnmi_port))

    async def _unlisten(self, name: str) -> None:
        """Close the device's listeners and drop its open SSH sessions (an unreachable switch's
        sessions die with it)."""
        for server in self._servers.pop(name, []):
            server.close()
            with contextlib.suppress(Exception):
                await server.wait_closed()
        for conn in [c for c in self._conns if c.get_extra_info("lab_device") == name]:
            conn.abort()

    async def serve_stop(self) -> None:
        """Close every listener and cancel pending timers."""
        for name in list(self._servers):
            await self._unlisten(name)
        for conn in list(self._conns):
            conn.abort()
        self._conns.clear()
        for dev in self.devices.values():
            dev.cancel_timers()
        self._release_claim()
        await asyncio.sleep(0)
        if self._stopped is not None:
            self._stopped.set()

    def start(self) -> LabFabric:
        """Run the fabric on a background thread; returns once every port listens."""
        ready = threading.Event()
        error: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(self.serve_start())
            except BaseException as exc:  # surface startup errors to the caller
                error.append(exc)
                ready.set()
                return
            ready.set()
            assert self._stopped is not None
            loop.run_until_complete(self._stopped.wait())
            pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for task in pending:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.close()

        self._thread = threading.Thread(target=run, name="fabricctl-lab", daemon=True)
        self._thread.start()
        ready.wait()
        if error:
            raise error[0]
        return self

    def stop(self) -> None:
        """Stop the background fabric (idempotent)."""
        if self._thread is not None and self._loop is not None:
            asyncio.run_coroutine_threadsafe(self.serve_stop(), self._loop).result(10)
            self._thread.join(10)
            self._thread = None

    def __enter__(self) -> LabFabric:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def call(self, fn: Callable[[], T]) -> T:
        """Run `fn` on the lab loop (thread-safe access to device state)."""
        loop = self._loop
        if loop is None or not loop.is_running() or threading.current_thread() is self._loop_thread:
            return fn()

        async def wrapper() -> T:
            return fn()

        return asyncio.run_coroutine_threadsafe(wrapper(), loop).result(30)

    def _acall(self, coro_fn: Callable[[], Any]) -> Any:
        loop = self._loop
        if loop is None or not loop.is_running():
            return None
        if threading.current_thread() is self._loop_thread:
            return loop.create_task(coro_fn())
        return asyncio.run_coroutine_threadsafe(coro_fn(), loop).result(30)

    # --- queries / test API -----------------------------------------------------------------
    def endpoints(self) -> dict[str, Endpoint]:
        """name -> Endpoint (kept while a device is unreachable: its address is only silent)."""
        return {
            name: Endpoint(
                name,
                self.devices[name].platform,
                address,
                self.ssh_port,
                self.eapi_port if self.devices[name].nos.eapi is not None else None,
                self._key.export_public_key().decode().strip() if self._key is not None else None,
                self.gnmi_port
                if self._gnmi is not None and self.devices[name].nos.gnmi is not None
                else None,
            )
            for name, address in self._addresses.items()
        }

    def state(self) -> FabricState:
        """Links, LLDP and BGP as the switches' configs, the cabling and the faults make them."""
        return self.call(self._derive_state)

    def _derive_state(self) -> FabricState:
        if self.board is not None:
            self.board.refresh()
        key = (
            self.cabling.version,
            self.board.version if self.board is not None else 0,
            tuple(
                (
                    d.generation,
                    d.boot,
                    tuple(d.faults.links_down),
                    tuple(d.faults.bgp_down),
                    tuple(d.faults.pfc_storm),
                    tuple(tuple(getattr(d.faults, kind)) for kind in COUNTER_FAULTS),
                )
                for d in self.devices.values()
            ),
        )
        if self._state is None or self._state[0] != key:
            facts: dict[str, DeviceFacts] = {}
            links_down: dict[str, set[str]] = {}
            bgp_down: dict[str, set[str]] = {}
            storms: dict[str, dict[str, float]] = {}
            onsets: dict[str, dict[str, dict[str, float]]] = {}
            boots: dict[str, float] = {}
            for name in self.order:  # inventory order, in every shard: the same derived state
                dev = self.devices.get(name)
                if dev is not None:
                    facts[name] = dev.facts()
                    links_down[name], bgp_down[name] = set(dev.faults.links_down), set(dev.faults.bgp_down)
                    storms[name], onsets[name], boots[name] = dev.storms(), dev.onsets(), dev.boot
                    continue
                other = self.remote[name]
                facts[name] = other.facts(self.store)
                links_down[name], bgp_down[name] = set(other.links_down), set(other.bgp_down)
                storms[name], onsets[name], boots[name] = dict(other.storms), dict(other.onsets), other.boot
            self._state = (key, FabricState(facts, self.cabling, links_down, bgp_down, storms, onsets, boots))
        state = self._state[1]
        if self._workload is not None:
            self._workload.follow(state, self.clock.now())
            state.derived["workload"] = self._workload
        return state

    def set_workload(self, pps: float | None = WORKLOAD_PPS) -> None:
        """Tenants at work: every leaf sends `pps` packets per second to every other leaf's VTEP
        over its routes (lab/traffic.py Workload), counted by every port it crosses from now on;
        None stops it."""

        def start() -> None:
            self._workload = Workload(pps, self.clock.now()) if pps else None
            self._state = None
            self._derive_state()  # the workload's rates, from the routes in force now

        self.call(start)

    # --- shards -----------------------------------------------------------------------------
    def _publish_soon(self, dev: LabDevice | None = None) -> None:
        """Tell the other shards, once per burst of changes (on the lab loop), what changed here."""
        loop = self._loop
        if loop is None or not loop.is_running() or threading.current_thread() is not self._loop_thread:
            self._publish()
            return
        if not self._publish_pending:
            self._publish_pending = True
            loop.call_soon(self._publish)

    def _publish(self) -> None:
        self._publish_pending = False
        if self.board is None:
            return
        entries: dict[str, dict[str, Any]] = {}
        for name, dev in self.devices.items():
            f = dev.faults
            entry: dict[str, Any] = {
                "generation": dev.generation,
                "boot": dev.boot,
                "links_down": sorted(f.links_down),
                "bgp_down": sorted(f.bgp_down),
                "storms": dev.storms(),
                "onsets": {k: v for k, v in dev.onsets().items() if v},
            }
            if (
                dev.generation
                or dev.boot
                or any(entry[k] for k in ("links_down", "bgp_down", "storms", "onsets"))
            ):
                entries[name] = entry
        self.board.publish(entries)

    def serves(self, name: str) -> bool:
        """Whether this process serves `name` (a shard serves some of the fabric's switches)."""
        return name in self.devices

    def recable(self, plan: Cabling, switches: Iterable[str] | None = None) -> list[tuple[str, str]]:
        """Re-cable the racks of `switches` (every switch when None) as `plan` says, e.g. the
        inventory's cabling after a 2 x 200G breakout: breakout cables in, a 200G leg per lane.
        Returns the switch ports whose cable changed (they flap)."""
        names = set(self.order) if switches is None else {n for n in switches if n in self.order}
        unknown = sorted(set(switches or ()) - names)
        if unknown:
            raise KeyError(f"no lab device named {unknown[0]!r}")
        return self.call(lambda: self.cabling.recable(plan, names))

    def swap_cables(self, a: tuple[str, str], b: tuple[str, str]) -> None:
        """Swap two cables at the `a` and `b` ends, e.g. (("leaf01", "Ethernet1"), ("leaf01", "Ethernet2"))."""
        self.call(lambda: self.cabling.swap(a, b))

    def device(self, name: str) -> DeviceHandle:
        """Thread-safe handle to read or change one device's state in tests."""
        return DeviceHandle(self, self._dev(name))

    def set_faults(self, name: str, faults: Faults | None = None, **changes: Any) -> Faults:
        """Replace (or tweak with keyword changes) a device's faults; applies immediately."""
        dev = self._dev(name)
        new = replace(faults if faults is not None else dev.faults, **changes)
        was_unreachable = dev.faults.unreachable
        dev.faults = new
        dev.storms()  # a storm is counted from now
        dev.onsets()  # and so is every counter fault
        if self.board is not None:
            self._publish_soon()
        if new.unreachable != was_unreachable and self._addresses:
            if new.unreachable:
                self._acall(lambda: self._unlisten(name))
            else:
                self._acall(lambda: self._listen(dev))
        return new

    def holding(self, name: str) -> str | None:
        """The command a `hold` fault keeps `name` waiting on, if any (tests poll this)."""
        return self.call(lambda: self._dev(name).holding)

    def release(self, name: str) -> None:
        """Let a held command of `name` go on (the fault stays for the next matching command)."""
        self.call(self._dev(name).release)

    def clear_faults(self) -> None:
        """Every device back to no faults."""
        for name in self.devices:
            self.set_faults(name, Faults())

    def load_faults(self, path: Path) -> None:
        """Apply a fault file (see faults.py for the format); a shard applies its own switches'
        faults (the others' shards publish theirs)."""
        for name, f in load_faults(path, set(self.order)).items():
            if name in self.devices:
                self.set_faults(name, f)

    def ztp_waiting(self) -> list[str]:
        """The switches still in their auto-configuration (factory-default, not listening)."""
        return self.call(lambda: [n for n, d in self.devices.items() if d.ztp_waiting])

    def ztp_done(self, name: str, tree_text: str, reboot: bool, how: str) -> None:
        """A switch ran its day-0 file: `tree_text` is its config now (EOS: the startup-config it
        rebooted with, saved; Comware: the file run over its defaults). It listens from now on."""
        dev = self._dev(name)

        def apply() -> None:
            if reboot:
                dev.replace_config(tree_text)
                dev.save()
                dev.reboot()  # the NOS reboots with the startup-config it fetched
            else:
                dev.set_running(dev.parse(tree_text, base=dev.running))
            dev.ztp_waiting = False
            dev.store.write(dev.name, ZTP_DONE, how + "\n")

        self.call(apply)
        if self._addresses and not dev.faults.unreachable:
            self._acall(lambda: self._listen(dev))

    def reboot(self, switches: Iterable[str] | None = None) -> list[str]:
        """Reload `switches` (every switch when None) from their startup-config: what a switch
        applies only at boot (max-ecmp-num) takes its saved value. Returns the names rebooted."""
        names = list(self.devices) if switches is None else [n for n in switches if self._known(n)]
        for n in names:
            self.call(self.devices[n].reboot)
        return names

    def _known(self, name: str) -> bool:
        """Whether `name` is served here; KeyError for no switch of the fabric (another shard's
        switch is that shard's to change)."""
        if name not in self.order:
            raise KeyError(f"no lab device named {name!r}")
        return name in self.devices

    def reset(self, name: str | None = None) -> None:
        """Restore factory state for one device or all."""
        names = [name] if name else list(self.devices)
        for n in names:
            self.call(self._dev(n).reset)


class DeviceHandle:
    """Test-facing view of one device; every call runs on the lab loop."""

    def __init__(self, fabric: LabFabric, dev: LabDevice) -> None:
        self._fabric = fabric
        self.raw = dev

    @property
    def name(self) -> str:
        return self.raw.name

    @property
    def faults(self) -> Faults:
        return self.raw.faults

    def running_config(self) -> str:
        return self._fabric.call(self.raw.running_text)

    def startup_config(self) -> str:
        return self._fabric.call(lambda: self.raw.startup)

    def configure(self, lines: Iterable[str]) -> None:
        """Apply config lines directly to running (raises editor.InvalidInput)."""

        def apply() -> None:
            editor = Editor(self.raw.grammar, self.raw.running)
            for line in lines:
                editor.apply(line)
            self.raw.persist_running()

        self._fabric.call(apply)

    def transactions(self) -> dict[str, str]:
        """What the switch holds apart from running or has applied on a timer, by name -> state,
        as its NOS names them (an EOS session `pendingCommitTimer`, a Comware commit delay)."""

        def listed() -> dict[str, str]:
            listing = getattr(self.raw.nos_state, "transactions", None)
            return dict(listing()) if listing is not None else {}

        return self._fabric.call(listed)

    def reset(self) -> None:
        self._fabric.call(self.raw.reset)
