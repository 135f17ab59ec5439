"""`fabricctl lab ...`: start, inspect, stop and reset the lab fabric."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from fabricctl.cli.common import CliError, root_option
from fabricctl.endpoints import lab_credentials, lab_dir, lab_json, running_lab, shards_dir
from fabricctl.errors import StageError

if TYPE_CHECKING:
    from fabricctl.lab.factory import DeviceSpec


@click.group(name="lab")
def lab_app() -> None:
    """Mock switches over real SSH: the default target for demos and tests."""


START_TIMEOUT = 60.0


def _fail(msg: str) -> NoReturn:
    raise CliError(msg)


def _specs(root: Path) -> list[DeviceSpec]:
    from fabricctl.lab.inventory import specs_from_inventory

    try:
        return specs_from_inventory(root)
    except FileNotFoundError as exc:
        _fail(str(exc))
    except Exception as exc:  # bad YAML or platform: one line, no traceback
        _fail(f"cannot load inventory under {root}: {exc}".splitlines()[0])


@lab_app.command()
@click.option("--detach", is_flag=True, help="Run in the background.")
@click.option(
    "--faults", type=click.Path(path_type=Path, dir_okay=False), default=None, help="Fault YAML file."
)
@click.option(
    "--shards",
    type=click.IntRange(1, 64),
    default=None,
    help="Serve the fabric from N lab processes on this host (pods and planes kept whole).",
)
@click.option(
    "--shard",
    "one_shard",
    metavar="K/N",
    default=None,
    help="Serve only shard K of N (one host of several; every host runs its own K).",
)
@click.option(
    "--block",
    metavar="CIDR",
    default=None,
    help="The IPv4 block switch addresses come from, in inventory order (default: a /16 of 127/8 "
    "picked for ROOT); every shard of a lab must be given the same.",
)
@root_option
def up(
    detach: bool,
    faults: Path | None,
    shards: int | None,
    one_shard: str | None,
    block: str | None,
    root: Path,
) -> None:
    """Start the lab for the inventory under ROOT."""
    from fabricctl.lab.faults import load_faults
    from fabricctl.lab.server import address_block, first_block, free_block
    from fabricctl.lab.shards import Shard, ShardError, assign, clear

    root = root.resolve()
    specs = _specs(root)
    if faults is not None:
        load_faults(faults, {s.name for s in specs})  # a bad file fails here, before anything starts
    if shards is not None and one_shard is not None:
        _fail("--shards N starts every shard on this host, --shard K/N one of them: give one")
    try:
        shard = Shard.parse(one_shard) if one_shard is not None else None
        count = shards if shards is not None else shard.count if shard is not None else 1
        if count > 1:
            assign(specs, count)  # too many shards for the fabric: refused before anything starts
        net = address_block(block) if block is not None else None
    except (ShardError, StageError) as exc:
        _fail(str(exc))
    live = running_lab(root)
    if live is not None and (
        shard is None or any(s["shard"] == shard.label() for s in live.get("shards", []))
    ):
        _fail(f"a lab is already running for {root} (pid {live['pid']})")
    cmd = [sys.executable, "-m", "fabricctl.lab", "--root", str(root)]
    if faults is not None:
        cmd += ["--faults", str(faults.resolve())]
    if count == 1:
        _start_one(cmd, root, detach)
        return
    if shard is not None:  # one host of several: the block every host agrees on
        _start_shards(
            [[*cmd, "--shard", shard.label(), "--block", str(net or first_block(str(root)))]], root, detach
        )
        return
    net = net or free_block(str(root), _ssh_port())
    clear(root)
    shards_dir(root).mkdir(parents=True, exist_ok=True)
    origin = repr(time.time())
    cmds = [
        [*cmd, "--shard", f"{k}/{count}", "--block", str(net), "--origin", origin]
        for k in range(1, count + 1)
    ]
    _start_shards(cmds, root, detach, count)


def _ssh_port() -> int:
    from fabricctl.lab.server import _port

    try:
        return _port("FABRICCTL_LAB_SSH_PORT", 20022)
    except StageError as exc:
        _fail(str(exc))


def _start_one(cmd: list[str], root: Path, detach: bool) -> None:
    if not detach:
        os.execv(sys.executable, cmd)
    from fabricctl.outputs import open_append

    lab_json(root).unlink(missing_ok=True)
    with open_append(lab_dir(root) / "lab.log", within=root) as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        data = running_lab(root)
        if data is not None and data.get("pid") == proc.pid:
            click.echo(f"lab up: {len(data['devices'])} devices, pid {proc.pid}")
            return
        if proc.poll() is not None:
            _fail(f"lab exited with status {proc.returncode}; see {lab_dir(root) / 'lab.log'}")
        time.sleep(0.05)
    proc.terminate()
    _fail("lab did not start in time")


#: A shard of a large fabric reads the whole inventory before it listens (a 4,160-switch fabric:
#: about a minute on two busy cores).
SHARD_START_TIMEOUT = 600.0


def _start_shards(cmds: list[list[str]], root: Path, detach: bool, count: int | None = None) -> None:
    """Start one process per command (a shard each) and wait until every one listens; in the
    foreground, stop them all on Ctrl-C / SIGTERM or when one exits."""
    from fabricctl.outputs import open_append

    procs = []
    for cmd in cmds:
        k = cmd[cmd.index("--shard") + 1].split("/")[0]
        with open_append(lab_dir(root) / f"lab-shard-{k}.log", within=root) as log:
            procs.append(
                subprocess.Popen(
                    cmd, stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True
                )
            )
    pids = {p.pid for p in procs}
    deadline = time.monotonic() + SHARD_START_TIMEOUT
    try:
        while True:
            data = running_lab(root)
            if data is not None and pids <= {s["pid"] for s in data.get("shards", [])}:
                break
            dead = [p for p in procs if p.poll() is not None]
            if dead:
                _fail(
                    f"lab shard pid {dead[0].pid} exited with status {dead[0].returncode}; see {lab_dir(root)}/lab-shard-*.log"
                )
            if time.monotonic() > deadline:
                _fail("lab shards did not start in time")
            time.sleep(0.1)
    except BaseException:
        _stop(procs)
        raise
    shown = f"{len(procs)} shard(s)" + (f" of {count}" if count and count != len(procs) else "")
    click.echo(
        f"lab up: {sum(s['devices'] for s in data['shards'] if s['pid'] in pids)} devices, {shown}, pids {' '.join(str(p.pid) for p in procs)}"
    )
    if detach:
        return
    import signal as signals

    signals.signal(signals.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        while all(p.poll() is None for p in procs):
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    finally:
        _stop(procs)


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        if p.poll() is None:
            p.terminate()
    for p in procs:
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()


@lab_app.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@root_option
def status(as_json: bool, root: Path) -> None:
    """Show whether a lab runs for ROOT and where each device listens."""
    data = running_lab(root.resolve())
    if as_json:
        out = {"running": data is not None, "pid": data["pid"] if data else None}
        if data is not None and "shards" in data:
            out.update(shards=data["shards"], complete=data["complete"])
        out["devices"] = data["devices"] if data else []
        out["ztp_waiting"] = data.get("ztp_waiting", []) if data else []
        click.echo(json.dumps(out, indent=2))
        return
    if data is None:
        click.echo("lab: not running")
        return
    if "shards" in data:
        state = "running" if data["complete"] else "partly running"
        parts = ", ".join(f"{s['shard']} pid {s['pid']} ({s['devices']} switches)" for s in data["shards"])
        click.echo(f"lab: {state}, shards {parts}")
    else:
        click.echo(f"lab: running (pid {data['pid']})")
    waiting = set(data.get("ztp_waiting", []))
    for d in data["devices"]:
        eapi = f" eapi {d['eapi_port']}" if d.get("eapi_port") else ""
        ztp = "  (factory default: waiting for ZTP)" if d["name"] in waiting else ""
        click.echo(f"  {d['name']:<12} {d['platform']:<8} {d['host']}:{d['port']}{eapi}{ztp}")
    click.echo(f"log in: fabricctl lab ssh NAME --root {root}  (or ssh -p PORT {_lab_user()}@HOST)")


def _lab_user() -> str:
    return lab_credentials()[0]


def _wait_gone(pid: int, timeout: float = 10.0) -> bool:
    from fabricctl.procs import pid_alive

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            return True
        time.sleep(0.05)
    return False


@lab_app.command()
@root_option
def down(root: Path) -> None:
    """Stop the detached lab for ROOT (state is kept)."""
    root = root.resolve()
    data = running_lab(root)
    if data is None:
        lab_json(root).unlink(missing_ok=True)
        click.echo("lab: not running")
        return
    pids = [int(p) for p in data.get("pids", [data["pid"]])]
    for pid in pids:
        os.kill(pid, signal.SIGTERM)
    for pid in pids:
        if not _wait_gone(pid):
            _fail(f"lab pid {pid} did not stop")
    lab_json(root).unlink(missing_ok=True)
    click.echo("lab down")


@lab_app.command()
@root_option
def reset(root: Path) -> None:
    """Restore every device to factory state (live lab included)."""
    root = root.resolve()
    data = running_lab(root)
    if data is None:
        from fabricctl.lab.state import StateStore

        state = lab_dir(root) / "state"
        if state.is_dir():
            for dev in state.iterdir():
                StateStore(state).clear(dev.name)
        click.echo("lab state reset to factory")
        return
    before = data.get("resets", 0)
    for pid in data.get("pids", [data["pid"]]):
        os.kill(int(pid), signal.SIGHUP)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        now = running_lab(root)
        if now is not None and now.get("resets", 0) > before:
            click.echo("lab reset to factory")
            return
        time.sleep(0.05)
    _fail("lab did not confirm the reset")


@lab_app.command()
@click.option(
    "--limit",
    multiple=True,
    metavar="NAME",
    help="Only these switches' racks (repeatable or comma-separated; default: every switch).",
)
@root_option
def recable(limit: tuple[str, ...], root: Path) -> None:
    """Re-cable the racks as the inventory's cabling rules say now (after a breakout: a breakout
    cable in each split port, a 200G leg per lane). The ports whose cable changes flap."""
    from fabricctl.lab.runtime import recable_request
    from fabricctl.lab.server import LabFabric

    root = root.resolve()
    data = running_lab(root)
    if data is None:
        known = LabFabric.from_inventory(root).devices  # an unknown --limit is named first
        for name in (n for item in limit for n in item.split(",")):
            if name not in known:
                _fail(f"--limit {name!r}: no lab switch of that name (allowed: {', '.join(known)})")
        _fail(f"no lab is running for {root}; start one with `fabricctl lab up --detach --root {root}`")
    now = _ask_running_lab(root, data, limit, recable_request(root), signal.SIGUSR1, "recables", "re-cabling")
    ports = now.get("recabled", [])
    where = sorted({switch for switch, _ in ports})
    click.echo(
        f"lab recabled: {len(ports)} port(s) changed cable"
        + (f" on {', '.join(where)}" if where else "")
        + " (each went down; it is up again when its new cable links)"
    )


def _ask_running_lab(
    root: Path,
    data: dict[str, Any],
    limit: tuple[str, ...],
    request: Path,
    sig: signal.Signals,
    counter: str,
    what: str,
) -> dict[str, Any]:
    """Write the switches `limit` names (None: all) to `request`, signal the detached lab and wait
    until it counts one more `counter`; its lab.json then. Unknown names are refused first."""
    from fabricctl.outputs import write_file

    known = [d["name"] for d in data["devices"]]
    names = [n for item in limit for n in item.split(",")] or None
    for name in names or []:
        if name not in known:
            _fail(f"--limit {name!r}: no lab switch of that name (allowed: {', '.join(known)})")
    before = data.get(counter, 0)
    write_file(request, json.dumps({"switches": names}) + "\n", within=root)
    for pid in data.get("pids", [data["pid"]]):
        os.kill(int(pid), sig)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        now = running_lab(root)
        if now is not None and now.get(counter, 0) > before:
            return now
        time.sleep(0.05)
    _fail(f"lab did not confirm the {what}")


@lab_app.command()
@click.option(
    "--limit",
    multiple=True,
    metavar="NAME",
    help="Only these switches (repeatable or comma-separated; default: every switch).",
)
@root_option
def reboot(limit: tuple[str, ...], root: Path) -> None:
    """Reload switches from their startup-config, as a power cycle would: running becomes the
    saved config and settings a switch applies only at boot (max-ecmp-num) take effect."""
    from fabricctl.lab.runtime import reboot_request
    from fabricctl.lab.server import LabFabric

    root = root.resolve()
    data = running_lab(root)
    names = [n for item in limit for n in item.split(",")] or None
    if data is None:
        fabric = LabFabric.from_inventory(root)
        for name in names or []:
            if name not in fabric.devices:
                _fail(f"--limit {name!r}: no lab switch of that name (allowed: {', '.join(fabric.devices)})")
        done = fabric.reboot(names)
        click.echo(f"lab rebooted {len(done)} switch(es) from their startup-config")
        return
    _ask_running_lab(root, data, limit, reboot_request(root), signal.SIGUSR2, "reboots", "reboot")
    count = len(names) if names else len(data["devices"])
    click.echo(f"lab rebooted {count} switch(es) from their startup-config")


@lab_app.command()
@click.argument("name")
@root_option
def ssh(name: str, root: Path) -> None:
    """Log in to a lab switch's CLI with the lab login (like `netlab connect`); `exit` leaves."""
    import asyncio

    known = [s.name for s in _specs(root)]  # a name the inventory lacks is named first
    if name not in known:
        _fail(f"no lab switch named {name!r} (allowed: {', '.join(known)})")
    data = running_lab(root.resolve())
    if data is None:
        _fail(f"no lab is running for {root}; start one with `fabricctl lab up --detach --root {root}`")
    device = next((d for d in data["devices"] if d["name"] == name), None)
    if device is None:
        _fail(
            f"lab switch {name!r} is not running: the lab started before it joined the inventory (fabricctl lab down, then lab up)"
        )
    try:
        asyncio.run(_interactive(device["host"], int(device["port"]), *lab_credentials()))
    except OSError as exc:
        _fail(f"cannot reach {name} at {device['host']}:{device['port']}: {exc}")


async def _interactive(host: str, port: int, username: str, password: str) -> None:
    """A terminal on the switch: keys go out as typed (raw mode on a TTY), output comes back as is."""
    import asyncssh

    stdin_fd = sys.stdin.fileno()
    raw = os.isatty(stdin_fd)
    async with asyncssh.connect(
        host, port=port, username=username, password=password, known_hosts=None
    ) as conn:
        saved = None
        if raw:
            import termios
            import tty

            saved = termios.tcgetattr(stdin_fd)
            tty.setraw(stdin_fd)
        try:
            proc = await conn.create_process(
                term_type=os.environ.get("TERM", "xterm") if raw else None,
                stdin=sys.stdin.buffer,
                stdout=sys.stdout.buffer,
                stderr=sys.stderr.buffer,
                encoding=None,
            )
            await proc.wait()
        finally:
            if saved is not None:
                import termios

                termios.tcsetattr(stdin_fd, termios.TCSADRAIN, saved)
