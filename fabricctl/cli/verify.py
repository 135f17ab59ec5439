"""`fabricctl verify`: a thin shell over `pipeline.verify`.

Exit 0 when every proof holds, 1 on any violation or input error, so CI and plan/apply can gate on it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from fabricctl import pipeline
from fabricctl.cli.common import console as make_console
from fabricctl.cli.common import fabric_root, root_option
from fabricctl.model.problems import InputError

if TYPE_CHECKING:
    from rich.console import Console

    from fabricctl.verify.api import Fetch


def lab_fetch(root: Path) -> Fetch:
    """Read the lab's running configs with deploy's read-only fetch (no session, no lock).

    A switch that cannot be read is absent from the result; verify reports it as `config-missing`.
    """
    from fabricctl.deploy.service import read_running

    return lambda names: read_running(root, True, set(names))


def run_verify(
    root: Path,
    configs_dir: Path | None = None,
    fetch: Fetch | None = None,
    fmt: str = "text",
    console: Console | None = None,
) -> int:
    """Compile, get configs (folder, fetch, or fresh render), verify, print; return the exit code."""
    from fabricctl.verify.api import read_configs
    from fabricctl.verify.report import render_text, to_json

    console = console or make_console()
    try:
        compiled = pipeline.compile(fabric_root(root))
    except InputError as exc:
        if fmt == "json":
            click.echo(to_json_error(exc.render()))
        else:
            console.print(exc.render(), markup=False)
        return 1
    names = [sw.name for sw in compiled.fabric.switches]
    if configs_dir is not None:
        configs = read_configs(configs_dir, names)
    elif fetch is not None:
        configs = fetch(names)
    else:
        configs = pipeline.render(compiled.intents, root)
    report = pipeline.verify(compiled, configs)
    if fmt == "json":
        click.echo(to_json(report))  # plain stdout: never wrapped, never coloured
    else:
        render_text(report, console)
    return 0 if report.ok else 1


def to_json_error(message: str) -> str:
    import json

    return json.dumps({"ok": False, "error": message}, indent=2)


@click.command("verify")
@root_option
@click.option(
    "--configs",
    "configs_dir",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    default=None,
    help="Verify <switch>.cfg files from this folder (e.g. saved running configs) instead of rendering.",
)
@click.option("--lab", is_flag=True, help="Verify the running configs fetched from the lab fabric.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def verify_command(root: Path, configs_dir: Path | None, lab: bool, fmt: str) -> None:
    """Prove tenant isolation, lossless consistency and capacity; exit 1 on any violation."""
    fetch: Fetch | None = None
    if lab:
        if configs_dir is not None:
            raise click.UsageError("use either --configs or --lab, not both")
        fetch = lab_fetch(root)
    sys.exit(run_verify(root, configs_dir, fetch, fmt))
