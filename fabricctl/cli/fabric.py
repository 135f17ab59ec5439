"""`fabricctl validate | render | schema | show`: the compile stage from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import click

from fabricctl.cli.common import (
    check_output_folder,
    compile_root,
    console,
    fabric_root,
    limit_option,
    root_option,
    select_switches,
)


@click.command()
@root_option
def validate(root: Path) -> None:
    """Check inventory and every tenant; report every problem at once (exit 1 if any)."""
    from fabricctl.compile.build import load_and_check

    fabric, docs, _, alloc = load_and_check(fabric_root(root))
    n_gpus = sum(len(a.ports) for a in alloc.tenants)
    tiers = f"{len(fabric.spines)} spines + {len(fabric.leaves)} leaves"
    if fabric.superspines:
        tiers = f"{len(fabric.pods)} pods: {len(fabric.superspines)} super-spines + {tiers}"
    click.echo(f"ok: {len(docs)} tenants, {n_gpus} GPUs assigned, {tiers}")


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
    from fabricctl.artifacts import write_artifacts
    from fabricctl.render import Renderer

    target = out_dir if out_dir is not None else fabric_root(root) / "out"
    check_output_folder(target)  # before compiling: nothing is read for a render that cannot land
    compiled = compile_root(root)
    intents = select_switches(compiled, limit)
    stats = write_artifacts(intents, Renderer(root), target, force=force)
    click.echo(
        f"rendered {len(stats.rendered)} switches ({stats.lines} config lines), "
        f"{len(stats.unchanged)} unchanged, into {target}"
    )


@click.command()
@click.argument("kind", type=click.Choice(["tenant", "fabric"]), default="tenant")
def schema(kind: str) -> None:
    """Print the JSON Schema of tenant files (or fabric.yaml) for editors."""
    from fabricctl.model.fabric import FabricSettings
    from fabricctl.model.tenant import Tenant

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

    compiled = compile_root(root)
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


@show.command("allocations")
@root_option
def show_allocations(root: Path) -> None:
    """Every number derived per tenant: VNIs, VLAN, route target, ACL, addresses."""
    from rich.table import Table

    compiled = compile_root(root)
    table = Table(title="Allocations (all follow from the tenant id)")
    for col in (
        "id",
        "tenant",
        "VRF",
        "L3VNI",
        "route target",
        "L2VNI",
        "VLAN",
        "gateway",
        "ACL",
        "GPU port /31s",
    ):
        table.add_column(col)
    for a in compiled.allocation.tenants:
        ips = [p for p in a.ports if p.leaf_ip]
        addresses = f"{ips[0].leaf_ip}/31 .. {ips[-1].leaf_ip}/31" if ips else "-"
        table.add_row(
            str(a.tenant.id),
            a.name,
            a.vrf,
            str(a.l3vni),
            a.route_target,
            str(a.l2vni or "-"),
            str(a.vlan or "-"),
            a.gateway or "-",
            a.acl_name,
            addresses,
        )
    console().print(table)
