"""`fabricctl history`: the run records on the fabric repository's remote and under .fabricctl/runs/, newest first."""

from __future__ import annotations

import json
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
@click.option(
    "--verify",
    is_flag=True,
    help="Check the chain of records (here and on the remote): exit 1 naming the first removed, edited or moved record.",
)
def history_cmd(root: Path, last: int, show_all: bool, as_json: bool, verify: bool) -> None:
    """List the recorded apply runs, newest first: who, from which commit, what changed or failed."""
    from fabricctl.deploy.gitstate import StateError, read_records, shared_remote
    from fabricctl.deploy.record import read_runs, runs_dir
    from fabricctl.report.text import history_text
    from fabricctl.secrets import redacted_json

    if verify:
        _verify(root)
        return
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


def _verify(root: Path) -> None:
    """Each store's chain (the remote's runs ref, this checkout's .fabricctl/runs/), and every
    record kept in both the same in both; exit 1 naming the first broken link."""
    from fabricctl.cli.common import CliError
    from fabricctl.deploy.chain import LOCAL, record_digest, verify
    from fabricctl.deploy.gitstate import read_chain_tip, read_records, shared_remote
    from fabricctl.deploy.record import TIP, runs_dir

    folder = runs_dir(root)
    local = (
        {p.stem: p.read_text(encoding="utf-8", errors="replace") for p in sorted(folder.glob("*.json"))}
        if folder.is_dir()
        else {}
    )
    tip_file = root / TIP
    checks = [verify(LOCAL, local, tip_file.read_text(encoding="utf-8") if tip_file.is_file() else None)]
    remote = shared_remote(root)
    problems: list[str] = []
    if remote is not None:
        shared = read_records(remote)
        checks.append(verify(remote.runs_ref, shared, read_chain_tip(remote)))
        for run_id, text in local.items():
            try:
                store = json.loads(text).get("chain", {}).get("store")
            except (ValueError, AttributeError):
                continue
            if store != remote.runs_ref:
                continue
            if run_id not in shared:
                problems.append(
                    f"run {run_id} is in this checkout but not on {remote.describe()} (removed there?)"
                )
            elif record_digest(shared[run_id]) != record_digest(text):
                problems.append(
                    f"run {run_id} differs between this checkout and {remote.describe()} (edited?)"
                )
    for check in checks:
        where = "this checkout" if check.store == LOCAL else check.store
        if check.ok:
            newest = f", newest run {check.tip}" if check.tip else ""
            older = (
                f"; {check.unchained} unchained (in progress, or from before chains)"
                if check.unchained
                else ""
            )
            echo(f"{where}: {check.records} record(s) chained, every link intact{newest}{older}\n")
    broken = [
        f"{'this checkout' if c.store == LOCAL else c.store}: {c.broken[0]}" for c in checks if not c.ok
    ]
    if broken or problems:
        raise CliError("the run records were changed: " + "; ".join(broken + problems)[:2000])
