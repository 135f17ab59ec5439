"""`fabricctl init [DIR]`: scaffold a fabric repository (inputs, CI pipelines, runner guide)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import click

from fabricctl.cli.common import CliError, echo, one_line_flag


@click.command("init")
@click.argument("folder", required=False, type=click.Path(path_type=Path, file_okay=False), default=Path("."))
@click.option(
    "--install",
    "install",
    metavar="SPEC",
    help="The pinned pip requirement CI installs, e.g. 'fabricctl @ https://.../fabricctl-0.1.0-py3-none-any.whl'.",
)
@click.option(
    "--source",
    metavar="URL",
    help="fabricctl's repository (https): CI installs this version's release wheel (or tag, --from tag).",
)
@click.option(
    "--from",
    "kind",
    type=click.Choice(["wheel", "tag"]),
    default="wheel",
    show_default=True,
    help="With --source: the release's wheel or the git tag.",
)
@click.option(
    "--owner",
    "owners",
    multiple=True,
    metavar="@ORG/TEAM",
    help="Code owner of tenants/, inventory/ and the pipelines; repeatable [@fabric-admins].",
)
def init_cmd(
    folder: Path, install: str | None, source: str | None, kind: str, owners: tuple[str, ...]
) -> None:
    """Scaffold a fabric repository: inventory, tenants, CI workflows, runner guide, CODEOWNERS."""
    from fabricctl.deploy.record import fabricctl_version
    from fabricctl.scaffold import Pin, ScaffoldError, check_owners, scaffold

    for flag, value in (("--install", install), ("--source", source)):
        one_line_flag(flag, value)
    try:
        if install:
            pin = Pin.given(install)
        elif source:
            pin = Pin.release(source, fabricctl_version(), kind)
        else:
            raise ScaffoldError(
                "init needs where CI installs fabricctl from: --source URL (fabricctl's repository; "
                "its release carries the wheel) or --install SPEC (a pinned pip requirement)"
            )
        written = scaffold(folder, pin, check_owners(owners or ("@fabric-admins",)))
    except ScaffoldError as exc:
        raise CliError(str(exc)) from None
    git = _git_init(folder)
    echo(
        f"wrote {len(written)} files under {folder} ({git}); CI installs: {pin.requirement}\n"
        "next: replace inventory/ with your switches, set the secrets and environments of "
        "docs/fabricctl-runner.md, then 'fabricctl validate' and 'fabricctl verify'\n"
    )


def _git_init(folder: Path) -> str:
    """Make `folder` a git repository (branch main) unless it is in one already."""
    try:
        inside = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "--is-inside-work-tree"],
            capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        if inside.returncode == 0:
            return "inside an existing git repository"
        done = subprocess.run(
            ["git", "init", "-q", "-b", "main", str(folder)],
            capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except OSError:
        return "git not found: not a repository yet"
    return "a new git repository, branch main" if done.returncode == 0 else "git init failed"
