"""The fabricctl command line: a thin shell over the pipeline stages."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from fabricctl.cli_common import compile_root, limit_option, root_option, select_switches
from fabricctl.model.problems import InputError

# Piped output (CI logs, files) gets wide tables instead of rich's 80-column default.
out = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 200)
err = Console(stderr=True, highlight=False, soft_wrap=True, width=None if sys.stderr.isatty() else 200)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="fabricctl")
def app() -> None:
    """Declarative multi-tenant configuration for AI/GPU RoCEv2 spine/leaf fabrics."""


@app.command()
@root_option
def validate(root: Path) -> None:
    """Check inventory and every tenant; report every problem at once (exit 1 if any)."""
    compiled = compile_root(root)
    n_gpus = sum(len(a.ports) for a in compiled.allocation.tenants)
    out.print(
        f"ok: {len(compiled.tenants)} tenants, {n_gpus} GPUs assigned, "
        f"{len(compiled.fabric.spines)} spines + {len(compiled.fabric.leaves)} leaves"
    )


@app.command()
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
@click.option("--force", is_flag=True, help="Render even switches whose intent is unchanged.")
def render(root: Path, out_dir: Path | None, limit: tuple[str, ...], force: bool) -> None:
    """Compile and write <switch>.intent.yaml + <switch>.cfg for each switch."""
    from fabricctl.artifacts import write_artifacts
    from fabricctl.render import Renderer

    compiled = compile_root(root)
    intents = select_switches(compiled, limit)
    target = out_dir if out_dir is not None else root / "out"
    stats = write_artifacts(intents, Renderer(root), target, force=force)
    out.print(
        f"rendered {len(stats.rendered)} switches ({stats.lines} config lines), "
        f"{len(stats.unchanged)} unchanged, into {target}"
    )


@app.command()
@click.argument("kind", type=click.Choice(["tenant", "fabric"]), default="tenant")
def schema(kind: str) -> None:
    """Print the JSON Schema of tenant files (or fabric.yaml) for editors."""
    from fabricctl.model.fabric import FabricSettings
    from fabricctl.model.tenant import Tenant

    model = Tenant if kind == "tenant" else FabricSettings
    click.echo(json.dumps(model.model_json_schema(), indent=2))


@app.group()
def show() -> None:
    """Tables of what the fabric holds."""


@show.command("tenants")
@root_option
def show_tenants(root: Path) -> None:
    """One row per tenant: isolation, GPUs, leaves, address block, exceptions."""
    compiled = compile_root(root)
    table = Table(title=f"Tenants of {compiled.fabric.settings.name}")
    for col in (
        "id",
        "tenant",
        "isolation",
        "GPUs",
        "leaves",
        "address block",
        "lossless",
        "shared with",
    ):
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
    out.print(table)
    all_gpus = sum(len(v) for v in compiled.topology.gpu_ports.values())
    out.print(f"{total} of {all_gpus} GPUs assigned, {all_gpus - total} free (their ports are shut down)")


@show.command("allocations")
@root_option
def show_allocations(root: Path) -> None:
    """Every number derived per tenant: VNIs, VLAN, route target, ACL, addresses."""
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
    out.print(table)


def _mount_stages() -> None:
    """Command groups of the later stages (imported here: they build on the commands above)."""
    from fabricctl.deploy.cli import deploy_commands
    from fabricctl.lab.cli import lab_app
    from fabricctl.verify.cli import verify_command

    app.add_command(lab_app, name="lab")
    app.add_command(verify_command, name="verify")
    for command in deploy_commands():
        app.add_command(command)


_mount_stages()


def main(argv: list[str] | None = None) -> int:
    """Entry point: user mistakes exit 1 with a clear message and no traceback."""
    try:
        app.main(args=argv, prog_name="fabricctl", standalone_mode=False)
    except InputError as exc:
        err.print(exc.render(), markup=False)
        return 1
    except click.exceptions.NoArgsIsHelpError as exc:
        click.echo(exc.ctx.get_help() if exc.ctx else exc.format_message())
        return 0
    except click.UsageError as exc:
        hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx else ""
        err.print(f"error: {exc.format_message()}{hint}", markup=False)
        return 1
    except click.ClickException as exc:
        err.print(f"error: {exc.format_message()}", markup=False)
        return 1
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.Abort:
        err.print("aborted", markup=False)
        return 1
    except KeyboardInterrupt:
        err.print("interrupted", markup=False)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
