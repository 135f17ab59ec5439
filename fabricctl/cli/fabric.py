"""`fabricctl validate | render | schema | show`: the compile stage from the command line."""

from __future__ import annotations

import json
from ipaddress import ip_interface
from pathlib import Path
from typing import Any

import click

from fabricctl import pipeline
from fabricctl.cli.common import (
    allow_gpu_moves_option,
    check_output_folder,
    console,
    echo,
    limit_option,
    root_option,
    select_switches,
    timeout_option,
)


@click.command()
@root_option
@click.option(
    "--changed-since",
    metavar="REF",
    default=None,
    help="Compare held GPUs with the fabric at this git revision (default: HEAD).",
)
@allow_gpu_moves_option
def validate(root: Path, changed_since: str | None, allow_gpu_moves: bool) -> None:
    """Check inventory and every tenant; report every problem at once (exit 1 if any).

    When inventory/ differs from HEAD (or --changed-since REF), every GPU a tenant holds there
    must stay on its leaf and port: a change that moves one is refused, naming each GPU."""
    from fabricctl.deploy.service import validate_fabric

    done = validate_fabric(root, changed_since, allow_gpu_moves, lambda text: echo(text, err=True))
    fabric = done.fabric
    tiers = f"{len(fabric.spines)} spines + {len(fabric.leaves)} leaves"
    if fabric.superspines:
        tiers = f"{len(fabric.pods)} pods: {len(fabric.superspines)} super-spines + {tiers}"
    click.echo(f"ok: {done.tenants} tenants, {done.gpus} GPUs assigned, {tiers}")


@click.command()
@root_option
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    show_default="<root>/out",
    help="Output folder.",
)
@limit_option
@click.option("--force", is_flag=True, help="Render every selected switch, even those already up to date.")
def render(root: Path, out_dir: Path | None, limit: tuple[str, ...], force: bool) -> None:
    """Compile and write <switch>.intent.yaml + <switch>.cfg for each switch."""
    from fabricctl.artifacts import write_fabric
    from fabricctl.outputs import named_output

    target = out_dir if out_dir is not None else root / "out"
    check_output_folder(target)  # before compiling: nothing is read for a render that cannot land
    within = named_output(target, root, folder=True)
    select = (lambda compiled: select_switches(compiled, limit)) if limit else None
    stats = write_fabric(root, target, within, select, force)
    click.echo(
        f"rendered {len(stats.rendered)} switches ({stats.lines} config lines), "
        f"{len(stats.unchanged)} unchanged, into {target}"
    )


@click.command()
@click.argument("kind", type=click.Choice(["tenant", "fabric", "plan"]), default="tenant")
def schema(kind: str) -> None:
    """Print the JSON Schema of tenant files, fabric.yaml (for editors) or the plan file (for machines)."""
    from fabricctl.model.fabric import FabricSettings
    from fabricctl.model.tenant import Tenant

    if kind == "plan":
        from fabricctl.deploy.plan import plan_schema

        click.echo(json.dumps(plan_schema(), indent=2))
        return
    model = Tenant if kind == "tenant" else FabricSettings
    click.echo(json.dumps(model.model_json_schema(), indent=2))


@click.group()
def show() -> None:
    """Tables of what the fabric holds."""


@show.command("tenants")
@root_option
def show_tenants(root: Path) -> None:
    """One row per tenant: isolation, GPUs, leaves, address block, exceptions."""
    from rich.table import Table

    compiled = pipeline.compile(root)
    table = Table(title=f"Tenants of {compiled.fabric.settings.name}")
    for col in ("id", "tenant", "isolation", "GPUs", "leaves", "address block", "lossless", "shared with"):
        table.add_column(col, justify="right" if col in ("id", "GPUs", "leaves") else "left")
    total = 0
    for a in compiled.allocation.tenants:
        total += len(a.ports)
        table.add_row(
            str(a.tenant.id),
            a.name,
            a.tenant.isolation,
            str(len(a.ports)),
            str(len(a.leaves)),
            str(a.tenant.address_block),
            "yes" if a.tenant.lossless else "no",
            ", ".join(p.name for p in a.peers) or "-",
        )
    out = console()
    out.print(table)
    all_gpus = sum(len(v) for v in compiled.topology.gpu_ports.values())
    out.print(f"{total} of {all_gpus} GPUs assigned, {all_gpus - total} free (their ports are shut down)")


@show.command("tenant")
@click.argument("name")
@root_option
@click.option("--lab", is_flag=True, help="Also read each GPU port's live state from the lab.")
@click.option(
    "--live", is_flag=True, help="Also read each GPU port's live state from the switches (read login)."
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@timeout_option
def show_tenant(root: Path, name: str, lab: bool, live: bool, fmt: str, timeout: float) -> None:
    """One tenant: VRF, VNIs, route target, leaves, GPU ports and addresses, live state, last run."""
    from fabricctl.cli.common import CliError
    from fabricctl.deploy.gitstate import StateError, read_records, shared_remote
    from fabricctl.deploy.record import read_runs
    from fabricctl.report.tenant_view import tenant_text, tenant_view
    from fabricctl.secrets import redacted_json

    compiled = pipeline.compile(root)
    known = sorted(a.name for a in compiled.allocation.tenants)
    if name not in known:
        raise CliError(f"show tenant {name!r}: no such tenant (allowed: {', '.join(known)})")
    states = None
    if lab or live:
        leaves = {p.gpu.leaf for a in compiled.allocation.tenants if a.name == name for p in a.ports}
        states = pipeline.check(compiled, root, leaves, lab=lab, timeout=timeout).states
    shared: dict[str, str] = {}
    try:
        remote = shared_remote(root)
        shared = read_records(remote) if remote is not None else {}
    except StateError as exc:
        click.echo(f"warning: {exc}: the last change is read from this checkout's records", err=True)
    view = tenant_view(compiled, name, states, read_runs(root, None, shared))
    echo(redacted_json(view) if fmt == "json" else tenant_text(view))


@show.command("allocations")
@root_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "csv"]),
    default="table",
    show_default=True,
    help="table for people; json or csv (every field, VRF and ACL names included) for tools.",
)
def show_allocations(root: Path, fmt: str) -> None:
    """Every number derived per tenant: VNIs, VLAN, route target, ACL, addresses."""
    from fabricctl.report.holdings import ALLOCATION_COLUMNS, allocation_rows

    compiled = pipeline.compile(root)
    rows = allocation_rows(compiled)
    if _for_tools(rows, ALLOCATION_COLUMNS, fmt):
        return
    from rich.table import Table

    # VRF and ACL names follow from the tenant name: said once in the title, not in two columns
    table = Table(
        title="Allocations (all follow from the tenant id; VRF tnt-<tenant>, ACL tnt-<tenant>-in)",
        box=None,
        pad_edge=False,
        padding=(0, 1, 0, 0),
    )
    # each leaf's own SVI address (NVUE VRR) as the range they take, only where a tenant has any;
    # json and csv name the leaf of each
    svi = any(r["svi_addresses"] for r in rows)
    columns = ("id", "tenant", "L3VNI", "route target", "L2VNI", "VLAN", "gateway")
    for col in (*columns, *(("leaf SVI addresses",) if svi else ()), "GPU port /31s"):
        table.add_column(
            col, no_wrap=True, justify="right" if col in ("id", "L3VNI", "L2VNI", "VLAN") else "left"
        )
    for r in rows:
        first, last = r["first_port_ip"], r["last_port_ip"]
        own = sorted(ip_interface(a.partition("=")[2]).ip for a in r["svi_addresses"])
        cells = [
            str(r["id"]), r["tenant"], str(r["l3vni"]), r["route_target"], str(r["l2vni"] or "-"),
            str(r["vlan"] or "-"), r["gateway"] or "-",
        ]  # fmt: skip
        if svi:
            cells.append(f"{own[0]} .. {own[-1]} ({len(own)})" if own else "-")
        table.add_row(*cells, f"{first} .. {last}" if first else "-")
    console().print(table)


def _for_tools(rows: list[dict[str, Any]], columns: tuple[str, ...], fmt: str) -> bool:
    """Print `rows` as JSON or CSV when `fmt` asks for one (True); the table is the caller's."""
    from fabricctl.report.holdings import to_csv, to_json

    if fmt == "json":
        click.echo(to_json(rows), nl=False)
    elif fmt == "csv":
        click.echo(to_csv(rows, columns), nl=False)
    return fmt in ("json", "csv")


format_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "csv"]),
    default="table",
    show_default=True,
    help="table for people; json or csv for the server team, an IPAM, a spreadsheet.",
)


@show.command("gpus")
@root_option
@click.option("--tenant", "tenants", multiple=True, metavar="NAME", help="Only this tenant (repeatable).")
@format_option
def show_gpus(root: Path, tenants: tuple[str, ...], fmt: str) -> None:
    """One row per held GPU port: tenant, server, NIC, leaf, port, switch IP, host IP, VLAN/VNI."""
    from fabricctl.cli.common import CliError
    from fabricctl.report.holdings import GPU_COLUMNS, gpu_rows

    compiled = pipeline.compile(root)
    known = {a.name for a in compiled.allocation.tenants}
    unknown = sorted(set(tenants) - known)
    if unknown:
        raise CliError(f"--tenant {', '.join(unknown)}: no such tenant (allowed: {', '.join(sorted(known))})")
    rows = [r for r in gpu_rows(compiled) if not tenants or r["tenant"] in tenants]
    if _for_tools(rows, GPU_COLUMNS, fmt):
        return
    from rich.table import Table

    table = Table(title=f"GPU ports held ({len(rows)})", box=None, pad_edge=False, padding=(0, 1, 0, 0))
    for col in ("tenant", "server", "nic", "leaf", "port", "switch IP", "host IP", "VLAN", "VNI"):
        table.add_column(col, no_wrap=True, justify="right" if col in ("nic", "VLAN", "VNI") else "left")
    for r in rows:
        table.add_row(
            r["tenant"], r["server"], str(r["nic"]), r["leaf"], r["port"], r["switch_ip"] or "-",
            r["host_ip"] or "-", str(r["vlan"] or "-"), str(r["vni"]),
        )  # fmt: skip
    console().print(table)


@show.command("free")
@root_option
@format_option
def show_free(root: Path, fmt: str) -> None:
    """Free GPU ports per leaf and rail, and the servers they belong to."""
    from fabricctl.compile.racks import out_of_service
    from fabricctl.report.holdings import FREE_COLUMNS, free_cell, free_rows

    compiled = pipeline.compile(root)
    away = out_of_service(compiled.fabric, compiled.topology)
    rows = free_rows(compiled, away)
    if _for_tools(rows, FREE_COLUMNS, fmt):
        return
    from rich.table import Table

    free, total = sum(r["free"] for r in rows), sum(r["total"] for r in rows)
    waiting = ""
    if away:
        racks = sorted({why.split(":")[0].removeprefix("rack ") for why in away.values()})
        gpus = sum(len(compiled.topology.by_server.get(s, [])) for s in away)
        waiting = f" ({gpus} more in racks not accepted: {', '.join(racks)})"
    table = Table(title=f"Free GPU ports: {free} of {total}{waiting}", box=None, pad_edge=False)
    for col in ("leaf", "rail", "free", "of", "free servers"):
        table.add_column(
            col, no_wrap=col != "free servers", justify="right" if col in ("free", "of") else "left"
        )
    for r in rows:
        table.add_row(r["leaf"], r["rail"], str(r["free"]), str(r["total"]), free_cell(r["free_servers"]))
    console().print(table)
