"""Pieces every command shares: options, compiling a fabric root, output that is redacted.

Only click is imported here: this module loads for every command, `--help` included.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from rich.console import Console

    from fabricctl.compile.build import Compiled
    from fabricctl.compile.intent import DeviceIntent


class CliError(click.ClickException):
    """A user mistake or a stage failure found by the CLI itself: one line, exit 1."""

    def __init__(self, message: str) -> None:
        from fabricctl.secrets import redact

        super().__init__(redact(message))


root_option = click.option(
    "--root",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("."),
    show_default="current directory",
    help="Fabric repository (holds inventory/ and tenants/).",
)
limit_option = click.option(
    "--limit",
    multiple=True,
    metavar="NAME|ROLE",
    help="Switch name or role (spine, leaf); repeatable.",
)
lab_option = click.option("--lab", is_flag=True, help="Target the lab fabric (lab login and endpoints).")
timeout_option = click.option(
    "--timeout",
    type=click.FloatRange(min=1),
    default=30.0,
    show_default=True,
    help="Per-command timeout (s).",
)


def echo(text: str, err: bool = False) -> None:
    """Print redacted text as is (no newline added, no markup)."""
    from fabricctl.secrets import redact

    click.echo(redact(text), nl=False, err=err)


def console(err: bool = False) -> Console:
    """A rich console; piped output (CI logs, files) gets 200 columns instead of rich's 80."""
    from rich.console import Console

    stream = sys.stderr if err else sys.stdout
    return Console(stderr=err, highlight=False, soft_wrap=True, width=None if stream.isatty() else 200)


def fabric_root(root: Path) -> Path:
    if not (root / "inventory").is_dir():
        raise CliError(
            f"--root {root}: no inventory/ folder here (allowed: a fabric repository with inventory/ and tenants/)"
        )
    return root


def compile_root(root: Path) -> Compiled:
    from fabricctl.compile.build import compile_fabric

    return compile_fabric(fabric_root(root))


def select_switches(compiled: Compiled, limits: tuple[str, ...]) -> dict[str, DeviceIntent]:
    """--limit NAME|ROLE (repeatable or comma-separated) -> the selected intents, fabric order."""
    if not limits:
        return compiled.intents
    wanted = [w for item in limits for w in item.split(",") if w]
    chosen: set[str] = set()
    for w in wanted:
        hits = {n for n, i in compiled.intents.items() if n == w or i.role == w}
        if not hits:
            names = list(compiled.intents)
            raise CliError(
                f"--limit {w}: no such switch or role (allowed: spine, leaf, {names[0]}..{names[-1]})"
            )
        chosen |= hits
    return {n: i for n, i in compiled.intents.items() if n in chosen}
