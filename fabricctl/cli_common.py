"""Pieces every command group shares: the --root/--limit options and compiling a fabric root.

Kept apart from cli.py so command groups of later stages (deploy, verify) can use them without
importing the top-level CLI that mounts them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from fabricctl.compile.build import Compiled
    from fabricctl.compile.intent import DeviceIntent


class CliError(click.ClickException):
    """A user mistake found by the CLI itself (flags, names): one line, exit 1."""


root_option = click.option(
    "--root",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("."),
    show_default="current directory",
    help="Fabric repository (holds inventory/ and tenants/).",
)


def _root(root: Path) -> Path:
    if not (root / "inventory").is_dir():
        raise CliError(
            f"--root {root}: no inventory/ folder here (allowed: a fabric repository with inventory/ and tenants/)"
        )
    return root


def compile_root(root: Path) -> Compiled:
    from fabricctl.compile.build import compile_fabric

    return compile_fabric(_root(root))


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


limit_option = click.option(
    "--limit",
    multiple=True,
    metavar="NAME|ROLE",
    help="Switch name or role (spine, leaf); repeatable.",
)
