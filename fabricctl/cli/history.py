"""`fabricctl history`: the run records on the fabric repository's remote and under .fabricctl/runs/, newest first."""

from __future__ import annotations

from pathlib import Path

import click

from fabricctl.cli.common import echo, root_option


@click.command("history")
@root_option
@click.option(
    "-n", "--last", "last", type=click.IntRange(min=1), default=20, show_default=True,
    help="Show the newest N runs.",
)  # fmt: skip
@click.option("--all", "show_all", is_flag=True, help="Show every recorded run.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable: one object per run.")
def history_cmd(root: Path, last: int, show_all: bool, as_json: bool) -> None:
    """List the recorded apply runs, newest first: who, from which commit, what changed or failed."""
    from fabricctl.deploy.gitstate import StateError, read_records, shared_remote
    from fabricctl.deploy.record import read_runs, runs_dir
    from fabricctl.report.text import history_text
    from fabricctl.secrets import redacted_json

    shared: dict[str, str] = {}
    try:
        remote = shared_remote(root)
        if remote is not None:
            shared = read_records(remote)
    except StateError as exc:
        echo(f"warning: {exc}: showing the runs recorded in this checkout only\n", err=True)
    runs = read_runs(root, None if show_all else last, shared)
    if as_json:
        echo(redacted_json([r.to_dict() for r in runs]))
        return
    if not runs:
        echo(f"no runs recorded under {runs_dir(root)}\n", err=True)
        return
    echo(history_text(runs))
