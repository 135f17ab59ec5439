"""Day-0: `fabricctl rack add|accept` (racks/<rack>.yaml) and `fabricctl ztp render|serve`
(the files factory-default switches fetch). docs/day0.md is the procedure."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from fabricctl import pipeline
from fabricctl.cli.common import CliError, Duration, ListenAddress, Seconds, echo, lab_option, root_option


def _rack_name(_ctx: click.Context, _param: click.Parameter, name: str) -> str:
    """A rack name as rack files hold it (model/rack.py), refused before anything is read."""
    from fabricctl.model.rack import NAME_PATTERN

    if not re.fullmatch(NAME_PATTERN, name):
        raise click.BadParameter(
            f"rack name {name[:40]!r} is not allowed (allowed: a lower-case letter, then a-z 0-9 -, 1-32)"
        )
    return name


def _hook(_ctx: click.Context, _param: click.Parameter, command: str | None) -> str | None:
    from fabricctl.deploy.acceptance import hook_problem

    problem = hook_problem(command) if command is not None else None
    if problem is not None:
        raise click.BadParameter(f"{problem} (allowed: a program and its arguments on one line)")
    return command


@click.group()
def rack() -> None:
    """Racks as delivered: add a rack file from the factory's serials, accept a cabled rack."""


@rack.command("add")
@click.argument("name", callback=_rack_name)
@click.option(
    "--template",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    required=True,
    help="Rack template YAML: the switches by role, their name pattern, groups and model.",
)
@click.option(
    "--serials",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    required=True,
    help="The factory's list: 'ROLE,SERIAL,MAC' per switch, then 'server,SERIAL,MAC...' per server.",
)
@click.option("--rail-group", type=click.IntRange(1, 4096), default=None, help="Default: the next one.")
@click.option("--pod", type=click.IntRange(1, 256), default=None, help="The pod (multi-pod fabrics).")
@root_option
@click.option("--dry-run", is_flag=True, help="Show the rack file and the inventory entries; write nothing.")
def add(
    name: str,
    template: Path,
    serials: Path,
    rail_group: int | None,
    pod: int | None,
    root: Path,
    dry_run: bool,
) -> None:
    """Write racks/NAME.yaml and its switches' inventory entries, checked by validate first."""
    from fabricctl.compile.rack_add import load_template, new_rack, read_serials

    made = new_rack(
        root,
        name,
        load_template(template, root),
        read_serials(serials),
        str(serials),
        rail_group,
        pod,
        str(template),
    )
    if dry_run:
        echo(
            f"dry run: racks/{name}.yaml would be\n{made.rack_yaml}\ninventory/hosts.yaml would gain\n{made.hosts_yaml}"
        )
        return
    from fabricctl.outputs import write_file

    hosts = root / "inventory" / "hosts.yaml"
    before = hosts.read_text(encoding="utf-8")
    target = root / "racks" / f"{name}.yaml"
    write_file(target, made.rack_yaml, within=root, exclusive=True)  # never over one that appeared
    import yaml

    kept = before if yaml.safe_load(before) else before.replace("{}", "")  # a pod's first rack
    write_file(hosts, kept.rstrip("\n") + "\n" + made.hosts_yaml, within=root)
    try:
        pipeline.load(root)
    except BaseException:  # the fabric does not validate with the rack: leave it as it was
        target.unlink()
        write_file(hosts, before, within=root)
        raise
    echo(
        f"wrote racks/{name}.yaml ({len(made.switches)} switches, {len(made.servers)} servers) and "
        f"{len(made.switches)} inventory entries (next: fabricctl ztp render)\n"
    )


#: The longest soak: three days on the switches' clocks (a burn-in, not a typo of 10^6 hours).
MAX_SOAK = 72 * 3600


@rack.command("accept")
@click.argument("name", callback=_rack_name)
@root_option
@lab_option
@click.option(
    "--soak",
    type=Duration(0, MAX_SOAK),
    default="10m",
    show_default=True,
    metavar="DURATION",
    help="Counter window on the switches' clocks: no flap, no error growth, quiet PFC/ECN (e.g. 90s, 10m, 1h; up to 72h).",
)
@click.option(
    "--hook",
    default=None,
    metavar="COMMAND",
    callback=_hook,
    help="Run per pair of the rack's servers ({a} and {b} name them), e.g. an RDMA bandwidth test; exit 0 passes.",
)
@click.option(
    "--timeout",
    type=Seconds(min=1, max=600),
    default=30.0,
    show_default=True,
    help="Seconds per read, 1-600.",
)
def accept_cmd(name: str, root: Path, lab: bool, soak: float, hook: str | None, timeout: float) -> None:
    """Check a cabled rack (cables both ends, speeds, soak, BGP/EVPN, proofs); on pass its GPUs are placeable."""
    from fabricctl.deploy.acceptance import line, run_acceptance, write_record
    from fabricctl.model.problems import ProblemLog
    from fabricctl.model.rack import load_racks

    compiled = pipeline.compile(root)
    racks = {rd.rack.name: rd for rd in load_racks(compiled.fabric.root, ProblemLog(compiled.fabric.root))}
    if name not in racks:
        raise CliError(
            f"rack {name!r}: no racks/{name}.yaml (allowed: {', '.join(sorted(racks)) or 'none: fabricctl rack add'})"
        )
    result = run_acceptance(compiled, racks[name], lab, soak, hook, timeout)
    where = write_record(compiled, result)
    passed = sum(c.ok for c in result.checks)
    for c in result.failures:
        echo(f"  FAIL {line(c)}\n")
    if result.ok:
        gpus = sum(len(compiled.topology.by_server.get(s.name, [])) for s in racks[name].rack.servers)
        echo(
            f"rack {name} accepted: {passed} checks passed over a {result.soak_seconds:.0f} s soak; {gpus} GPUs are placeable (record: {where})\n"
        )
        return
    echo(
        f"rack {name} NOT accepted: {len(result.failures)} of {len(result.checks)} checks failed (record: {where})\n"
    )
    sys.exit(1)


@click.group()
def ztp() -> None:
    """Zero-touch provisioning: Kea DHCP configuration and each rack switch's day-0 files."""


@ztp.command("render")
@root_option
@lab_option
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Folder for the files (default: .fabricctl/ztp under the root; written owner-only).",
)
def render(root: Path, lab: bool, out: Path | None) -> None:
    """Write kea-dhcp4.json and every rack switch's day-0 files (no tenant: those come by apply)."""
    from fabricctl.deploy.ztp import KEA_FILE, render_ztp

    made = render_ztp(root, lab=lab, out=out)
    for name, entry in made.switches.items():
        echo(f"{name:<12} {entry['mac']}  {entry['address']:<15} {entry['boot_url']}\n")
    echo(
        f"wrote {made.out / KEA_FILE} and {len(made.files) - 2} day-0 files for {len(made.switches)} switches\n"
    )


@ztp.command("serve")
@root_option
@click.option(
    "--folder",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="The folder ztp render wrote (default: .fabricctl/ztp under the root).",
)
@click.option(
    "--host",
    type=ListenAddress(),
    default=None,
    help="Listen address: an IP address of this host or a host name (default: fabric.yaml ztp.server; --lab: 127.0.0.1).",
)
@click.option("--port", type=click.IntRange(0, 65535), default=None, help="Default: fabric.yaml ztp.port.")
@lab_option
def serve(root: Path, folder: Path | None, host: str | None, port: int | None, lab: bool) -> None:
    """Serve the day-0 files over HTTP, each only to its own switch; log every fetch."""
    from fabricctl.deploy.ztp import ztp_dir
    from fabricctl.deploy.ztp_serve import ZtpServer
    from fabricctl.model.load import load_fabric
    from fabricctl.model.problems import ProblemLog

    log = ProblemLog(root)
    fabric = load_fabric(root, log)
    log.check()
    assert fabric is not None
    settings = fabric.settings.ztp
    if settings is None:
        raise CliError(
            "inventory/fabric.yaml: no ztp: block (allowed: ztp: with management, gateway, pool, server)"
        )
    lab_addresses = None
    if lab:
        from fabricctl.endpoints import endpoints_from_json, running_lab

        data = running_lab(root.resolve())
        if data is None:
            raise CliError(f"--lab: no lab is running for {root} (fabricctl lab up --detach)")
        lab_addresses = {e.host: n for n, e in endpoints_from_json(data).items()}
    where = host or ("127.0.0.1" if lab else str(settings.server))
    try:
        server = ZtpServer(
            folder or ztp_dir(root),
            where,
            settings.port if port is None else port,
            lab_addresses,
            echo=lambda t: echo(t + "\n", err=True),
        )
    except OSError as exc:
        raise CliError(f"cannot listen on {where}:{port or settings.port}: {exc.strerror or exc}") from None
    echo(
        f"serving {len(server.switches)} switches' day-0 files on http://{server.address[0]}:{server.address[1]}/ (Ctrl-C stops)\n",
        err=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
