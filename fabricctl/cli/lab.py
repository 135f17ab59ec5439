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
from fabricctl.lab.runtime import lab_json, running_lab
from fabricctl.lab.state import StateStore, lab_dir

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
@root_option
def up(detach: bool, faults: Path | None, root: Path) -> None:
    """Start the lab for the inventory under ROOT."""
    from fabricctl.lab.faults import load_faults

    root = root.resolve()
    specs = _specs(root)
    if faults is not None:
        load_faults(faults, {s.name for s in specs})  # a bad file fails here, before anything starts
    live = running_lab(root)
    if live is not None:
        _fail(f"a lab is already running for {root} (pid {live['pid']})")
    cmd = [sys.executable, "-m", "fabricctl.lab", "--root", str(root)]
    if faults is not None:
        cmd += ["--faults", str(faults.resolve())]
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


@lab_app.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@root_option
def status(as_json: bool, root: Path) -> None:
    """Show whether a lab runs for ROOT and where each device listens."""
    data = running_lab(root.resolve())
    if as_json:
        out = {"running": data is not None, "pid": data["pid"] if data else None}
        out["devices"] = data["devices"] if data else []
        out["ztp_waiting"] = data.get("ztp_waiting", []) if data else []
        click.echo(json.dumps(out, indent=2))
        return
    if data is None:
        click.echo("lab: not running")
        return
    click.echo(f"lab: running (pid {data['pid']})")
    waiting = set(data.get("ztp_waiting", []))
    for d in data["devices"]:
        eapi = f" eapi {d['eapi_port']}" if d.get("eapi_port") else ""
        ztp = "  (factory default: waiting for ZTP)" if d["name"] in waiting else ""
        click.echo(f"  {d['name']:<12} {d['platform']:<8} {d['host']}:{d['port']}{eapi}{ztp}")
    click.echo(f"log in: fabricctl lab ssh NAME --root {root}  (or ssh -p PORT {_lab_user()}@HOST)")


def _lab_user() -> str:
    from fabricctl.lab.runtime import lab_credentials

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
    os.kill(int(data["pid"]), signal.SIGTERM)
    if not _wait_gone(int(data["pid"])):
        _fail(f"lab pid {data['pid']} did not stop")
    lab_json(root).unlink(missing_ok=True)
    click.echo("lab down")


@lab_app.command()
@root_option
def reset(root: Path) -> None:
    """Restore every device to factory state (live lab included)."""
    root = root.resolve()
    data = running_lab(root)
    if data is None:
        state = lab_dir(root) / "state"
        if state.is_dir():
            for dev in state.iterdir():
                StateStore(state).clear(dev.name)
        click.echo("lab state reset to factory")
        return
    before = data.get("resets", 0)
    os.kill(int(data["pid"]), signal.SIGHUP)
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
    os.kill(int(data["pid"]), sig)
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
    from fabricctl.lab.runtime import lab_credentials

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
