"""`fabricctl tenant new`: a tenant file for the leasing desk, its GPUs placed by compile/placement.py."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from fabricctl import pipeline
from fabricctl.cli.common import CliError, echo, root_option

if TYPE_CHECKING:
    from fabricctl.compile.placement import Placement


@click.group()
def tenant() -> None:
    """Tenant files: place a new tenant on free GPUs, remove one."""


@tenant.command("new")
@click.argument("name")
@click.option("--gpus", type=int, required=True, metavar="N", help="How many GPUs (1 up to the free ones).")
@click.option(
    "--isolation",
    type=click.Choice(["l3", "l2"]),
    default="l3",
    show_default=True,
    help="l3: VRF + /31 per GPU port; l2: VLAN + L2VNI with an anycast gateway.",
)
@click.option(
    "--whole-servers", is_flag=True, help="Only whole servers (N a multiple of the NICs per server)."
)
@click.option(
    "--description",
    default=None,
    metavar="TEXT",
    help="The tenant's description (default: '<N> GPUs placed by fabricctl tenant new').",
)
@root_option
@click.option("--dry-run", is_flag=True, help="Show the choice and the file; write nothing.")
def new(
    name: str,
    gpus: int,
    isolation: str,
    whole_servers: bool,
    description: str | None,
    root: Path,
    dry_run: bool,
) -> None:
    """Write tenants/NAME.yaml with N free GPUs: whole servers, rail-aligned, fewest leaves."""
    from pydantic import ValidationError

    from fabricctl.compile.placement import (
        check_name,
        check_placed,
        place,
        plural,
        read_back,
        tenant_model,
        tenant_yaml,
    )

    fabric, docs, topo, alloc = pipeline.load(root)
    folder = root / "tenants"
    check_name(fabric, name, docs)
    text = description if description is not None else f"{plural(gpus, 'GPU')} placed by fabricctl tenant new"
    from fabricctl.compile.racks import out_of_service

    away = out_of_service(fabric, topo)
    placement = place(fabric, topo, alloc, docs, name, gpus, isolation, whole_servers, away)
    try:
        model = tenant_model(placement, text)
    except ValidationError as exc:
        if any(e["loc"] == ("description",) for e in exc.errors()):
            raise CliError(
                f"--description {text[:40]!r} is not allowed (allowed: 1-80 characters, starting with a "
                "letter or digit: letters, digits, space and ._,:/()+@&=-)"
            ) from None
        raise
    problems = check_placed(fabric, topo, docs, model)
    if problems:  # a placement bug: say so, write nothing
        raise CliError(f"the placement would not validate: {problems[0]}")
    content = tenant_yaml(placement, text)
    if read_back(content) != model:  # the file must say exactly what was placed
        raise CliError("the tenant file would not read back as placed (nothing written)")
    target = folder / f"{name}.yaml"
    echo(_summary(placement))
    if dry_run:
        echo(f"dry run: tenants/{name}.yaml would be\n{content}")
        return
    from fabricctl.outputs import write_file

    write_file(target, content, within=folder.parent, exclusive=True)  # never over one that appeared
    echo(f"wrote tenants/{name}.yaml (next: fabricctl validate, fabricctl plan)\n")


def _summary(p: Placement) -> str:
    """What was chosen (servers, leaves, rails, id, block) and why, one fact a line."""
    from fabricctl.compile.placement import plural, span_ints
    from fabricctl.report.summary import span

    servers = [f"{span(p.whole, 4)} ({plural(len(p.whole), 'whole server')})"] if p.whole else []
    servers += [f"{s} nics {span_ints(n)}" for s, n in p.partial]
    lines = [f"tenant {p.name}: {plural(len(p.ports), 'GPU')}, isolation {p.isolation}"]
    for i, text in enumerate(servers):
        lines.append(f"  {'servers' if i == 0 else '':<8} {text}")
    lines += [
        f"  leaves   {span(p.leaves, 4)} ({len(p.leaves)})",
        f"  rails    {span_ints(p.rails)}",
        f"  id       {p.tenant_id}: {p.id_reason}",
        f"  block    {p.block}: {p.block_reason}",
    ]
    for i, reason in enumerate(p.reasons):
        lines.append(f"  {'why' if i == 0 else '':<8} {reason}")
    return "\n".join(lines) + "\n"


@tenant.command("rm")
@click.argument("name")
@root_option
@click.option("--force", is_flag=True, help="Also remove a tenant file with changes git has not committed.")
@click.option("--dry-run", is_flag=True, help="Say what would be removed; remove nothing.")
def rm(name: str, root: Path, force: bool, dry_run: bool) -> None:
    """Remove the tenant file of NAME (`git rm` when git tracks it): the next plan shows the tenant
    removed and its GPU ports returned to the secure default (shut down)."""
    import shutil
    import tempfile

    from fabricctl.gitinfo import file_status
    from fabricctl.model.problems import InputError

    _fabric, docs, _topo, alloc = pipeline.load(root)
    doc = next((d for d in docs if d.tenant.name == name), None)
    if doc is None:
        known = ", ".join(sorted(d.tenant.name for d in docs)) or "none"
        raise CliError(f"tenant rm {name!r}: no such tenant (allowed: {known})")
    path = root / doc.file
    if path.is_symlink() or path.resolve().parent != (root / "tenants").resolve():
        raise CliError(
            f"{doc.file} is not a tenant file of this fabric (a link, or outside tenants/): nothing removed"
        )
    with tempfile.TemporaryDirectory(prefix="fabricctl-rm-") as tmp:  # the rest must still validate
        for folder in ("inventory", "tenants"):
            if (root / folder).is_dir():
                shutil.copytree(root / folder, Path(tmp) / folder, symlinks=True)
        (Path(tmp) / doc.file).unlink()
        try:
            pipeline.load(Path(tmp))
        except InputError as exc:
            raise CliError(
                f"removing {doc.file} would leave the inputs invalid, nothing removed:\n{exc.render()}"
            ) from None
    tracked, changed = file_status(root, path)
    if changed and not force:
        raise CliError(
            f"{doc.file} has changes git has not committed: commit or discard them first, or --force (nothing removed)"
        )
    held = next(a for a in alloc.tenants if a.name == name)
    what = f"{len(held.ports)} GPU port(s) on {len(held.leaves)} leaf/leaves return to the secure default at the next apply"
    if dry_run:
        echo(f"dry run: would remove {doc.file} ({'git rm' if tracked else 'delete'}): {what}\n")
        return
    if tracked:
        import subprocess

        argv = ["git", "-C", str(root), "rm", "-q", *(["-f"] if force else []), "--", doc.file]
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise CliError(f"git rm {doc.file} failed: {done.stderr.strip()} (nothing removed)")
    else:
        path.unlink()
    echo(
        f"removed {doc.file} ({'git rm: staged' if tracked else 'deleted'}): {what} (next: fabricctl plan)\n"
    )
