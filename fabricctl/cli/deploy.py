"""`fabricctl plan | drift | force-unlock`: thin click shells over the deploy stage."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from fabricctl import pipeline
from fabricctl.cli.common import (
    CliError,
    Duration,
    allow_gpu_moves_option,
    check_output_file,
    echo,
    insecure_host_keys_option,
    lab_option,
    limit_option,
    log_options,
    one_line_flag,
    parallelism_option,
    root_option,
    select_switches,
    stage_lines,
    timeout_option,
)

if TYPE_CHECKING:
    from fabricctl.deploy.plan import Plan, Prepared
    from fabricctl.deploy.scope import TenantChange
    from fabricctl.deploy.service import PlanOptions


def diff_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """--diff / --compact: every diff, or none (default: the diffs when they are short)."""
    f = click.option(
        "--diff",
        "diff",
        flag_value="full",
        help="Print every switch's diff, however long (by default only when short).",
    )(f)
    return click.option(
        "--compact",
        "diff",
        flag_value="none",
        help="Text plan without the diffs: tenants, proofs, switches, totals.",
    )(f)


def compute_plan(
    root: Path, lab: bool, options: PlanOptions, scope: TenantChange | None = None
) -> tuple[Plan, Prepared]:
    """The plan of the selected switches (pipeline.plan), with stage lines and notices on stderr."""
    return pipeline.plan(
        root,
        options,
        select_switches,
        lab=lab,
        scope=scope,
        stages=stage_lines(),
        notify=lambda m: echo(m, err=True),
    )


def check_tenant_flags(root: Path, tenant: str | None, base: str) -> None:
    """`--tenant NAME [--tenant-base REF]`, refused before anything is read or locked: text on
    one line, a base only with a tenant, a base that names a commit."""
    from click.core import ParameterSource

    from fabricctl.deploy.scope import ScopeError, base_commit

    one_line_flag("--tenant", tenant)
    one_line_flag("--tenant-base", base)
    if tenant is None:
        # None: the command was invoked by another (`drain --apply`), which gives no --tenant-base
        source = click.get_current_context().get_parameter_source("tenant_base")
        if source not in (ParameterSource.DEFAULT, None):
            raise CliError(
                f"--tenant-base {base[:80]!r} is given without --tenant (allowed: --tenant-base only "
                "with --tenant NAME: the commit every other tenant is taken from)"
            )
        return
    try:
        base_commit(root, base)
    except ScopeError as exc:
        raise CliError(str(exc)) from None


def tenant_options(f: Callable[..., Any]) -> Callable[..., Any]:
    f = click.option(
        "--tenant-base",
        metavar="REF",
        default="HEAD",
        show_default=True,
        help="With --tenant: the commit every other tenant is taken from (what was applied last).",
    )(f)
    return click.option(
        "--tenant",
        metavar="NAME",
        help="Limit the run to this tenant's change; other tenants' pending changes stay out.",
    )(f)


#: `--prune`: plan (and apply) the removal of objects that look like fabricctl's but carry no proof.
prune_option = click.option(
    "--prune",
    is_flag=True,
    help="Also remove what looks like fabricctl's objects (tnt-*) but carries no mark of this fabric "
    "and no tenant declares (the plan lists them either way).",
)


def render_plan(
    plan: Plan,
    fmt: str,
    prepared: Prepared | None = None,
    artifact: str | None = None,
    *,
    diff: str | None = None,
    color: bool = False,
) -> str:
    """The plan as text, markdown (PR comment), json (the plan file) or html (needs `prepared`)."""
    from fabricctl.report.markdown import plan_markdown
    from fabricctl.report.text import plan_text, selected_nothing_text
    from fabricctl.secrets import redacted_json

    compiled = prepared.compiled if prepared is not None else None
    if fmt == "json":
        return redacted_json(plan.to_dict())
    if fmt == "markdown":
        return plan_markdown(plan, artifact, fabric=compiled.fabric if compiled is not None else None)
    if fmt == "html":
        from fabricctl.report.html import plan_html

        return plan_html(plan, compiled)
    if plan.changed_since and not plan.switches:
        return selected_nothing_text(plan)
    return plan_text(plan, diff=diff or "auto", color=color)


def refused_document(refused: Any, fmt: str) -> str:
    """What `plan --format markdown|html|json` prints when a proof fails: the proofs, failed first
    (not a plan: nothing was read, and apply takes no such file)."""
    from fabricctl.report.html import refused_html
    from fabricctl.report.markdown import refused_markdown
    from fabricctl.secrets import redacted_json
    from fabricctl.verify.proofs import proof_record

    record = proof_record(refused.report, refused.compiled)
    fabric = refused.compiled.fabric.settings.name
    if fmt == "markdown":
        return refused_markdown(fabric, record)
    if fmt == "html":
        return refused_html(fabric, record)
    return redacted_json({"fabric": fabric, "refused": "verify", "proofs": record.model_dump(mode="json")})


#: `-o FILE`: what each file suffix receives (anything else gets the plan file, JSON).
OUT_FORMATS = {".html": "html", ".htm": "html", ".md": "markdown", ".txt": "text"}


def write_outputs(
    plan: Plan, paths: tuple[Path, ...], prepared: Any, artifact: str | None, root: Path
) -> None:
    """Write every `-o` file: the plan file (JSON) unless the suffix names a report format; no
    symlink under the fabric `root` (or the folder named) is followed."""
    from fabricctl.deploy.plan import save_plan
    from fabricctl.outputs import named_output, write_file

    for path in paths:
        fmt = OUT_FORMATS.get(path.suffix.lower())
        if fmt is None:
            save_plan(plan, path, root)
        else:
            write_file(path, render_plan(plan, fmt, prepared, artifact), within=named_output(path, root))


@click.command("plan")
@root_option
@lab_option
@insecure_host_keys_option
@limit_option
@click.option(
    "-o",
    "--out",
    "out_paths",
    multiple=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the plan file (JSON); FILE.html / .md / .txt get that report instead. Repeatable.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown", "json", "html"]),
    default="text",
    show_default=True,
    help="What goes to stdout.",
)
@click.option(
    "--changed-since",
    metavar="REF",
    help="Only read and diff switches whose intent differs from the fabric at git REF (e.g. origin/main).",
)
@click.option(
    "--artifact-url",
    metavar="URL|TEXT",
    help="Where the full plan is kept (CI run URL); the Markdown report links to it.",
)
@click.option("--detailed-exitcode", is_flag=True, help="Exit 2 when there are changes, 0 when none.")
@allow_gpu_moves_option
@prune_option
@tenant_options
@parallelism_option("read")
@diff_options
@timeout_option
@log_options
def plan_cmd(
    root: Path,
    lab: bool,
    limit: tuple[str, ...],
    out_paths: tuple[Path, ...],
    fmt: str,
    changed_since: str | None,
    artifact_url: str | None,
    detailed_exitcode: bool,
    allow_gpu_moves: bool,
    prune: bool,
    diff: str | None,
    timeout: float,
    parallelism: int,
    tenant: str | None,
    tenant_base: str,
) -> None:
    """Diff every switch's running config against the intent (read-only); optionally save the plan."""
    from fabricctl.cli.output import color_enabled
    from fabricctl.deploy.scope import tenant_change

    check_tenant_flags(root, tenant, tenant_base)
    one_line_flag("--changed-since", changed_since)
    one_line_flag("--artifact-url", artifact_url)
    for path in out_paths:  # before any switch is read: a plan nobody can save is wasted reads
        check_output_file(path, root)
    if tenant is not None and changed_since is not None:
        raise CliError("--tenant and --changed-since both pick the switches: give one of them")
    from fabricctl.deploy.service import PlanOptions

    options = PlanOptions(
        limit=limit,
        timeout=timeout,
        changed_since=changed_since,
        workers=parallelism,
        allow_gpu_moves=allow_gpu_moves,
        prune=prune,
    )
    from fabricctl.deploy.plan import VerifyRefused

    try:
        with tenant_change(root, tenant, tenant_base) as scope:
            plan, prepared = compute_plan(root, lab, options, scope)
    except VerifyRefused as refused:  # the review shows the failed proofs first, then the error
        if fmt != "text":
            echo(refused_document(refused, fmt))
        raise
    color = fmt == "text" and color_enabled(sys.stdout)
    echo(render_plan(plan, fmt, prepared, artifact_url, diff=diff, color=color))
    if out_paths:
        write_outputs(plan, out_paths, prepared, artifact_url, root)
        if fmt not in ("json", "html", "markdown"):
            echo(f"plan saved to {', '.join(map(str, out_paths))}\n", err=True)
    if plan.unreachable:
        raise CliError(unreachable_error("plan incomplete", plan))
    if detailed_exitcode and plan.changed:
        sys.exit(2)  # click in non-standalone mode drops Exit codes; main() lets SystemExit through


@click.command("drift")
@root_option
@lab_option
@insecure_host_keys_option
@limit_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@timeout_option
@log_options
def drift_cmd(root: Path, lab: bool, limit: tuple[str, ...], as_json: bool, timeout: float) -> None:
    """Read-only: exit 2 when a switch's owned config differs from the intent (0 none, 1 error)."""
    from fabricctl.cli.output import color_enabled
    from fabricctl.deploy.service import PlanOptions
    from fabricctl.report.text import Paint, failure_lines, lookalike_lines
    from fabricctl.secrets import redacted_json

    options = PlanOptions(limit=limit, timeout=timeout, allow_gpu_moves=True)  # a move is drift too
    plan, _ = compute_plan(root, lab, options)
    unread = plan.unreachable
    if as_json:
        data = {
            "drift": bool(plan.changed),
            "complete": not unread,  # false: some switches could not be read, drift there is unknown
            "switches": {n: plan.switches[n].diff for n in plan.changed},
            "unreachable": {n: plan.switches[n].error for n in unread},
            "causes": {n: plan.switches[n].cause for n in unread},
            # not drift: objects shaped like fabricctl's that it cannot prove it made (plan --prune)
            "lookalikes": {n: sp.lookalikes for n, sp in plan.switches.items() if sp.lookalikes},
        }
        echo(redacted_json(data))
    else:
        paint = Paint(color_enabled(sys.stdout))
        for name in plan.changed:
            echo(paint.diff(plan.switches[name].diff))
        for line in lookalike_lines(plan):
            echo(paint("warn", "? ") + line + "\n")
        for name in unread:
            sp = plan.switches[name]
            echo("\n".join(failure_lines(name, "cannot read", sp.error or "", sp.hint, paint)) + "\n")
        read = len(plan.switches) - len(unread)
        if plan.changed:
            verdict = f"drift: {', '.join(plan.changed)}"
        elif unread:
            verdict = f"drift unknown: {len(unread)} of {len(plan.switches)} switch(es) could not be read; none of the {read} read has drifted"
        else:
            verdict = "no drift"
        echo(verdict + (f" (unknown on {', '.join(unread)})" if plan.changed and unread else "") + "\n")
    if unread:
        raise CliError(unreachable_error("drift incomplete", plan, "could not be read"))
    if plan.changed:
        sys.exit(2)  # click in non-standalone mode drops Exit codes; main() lets SystemExit through


def unreachable_error(what: str, plan: Plan, verb: str = "unreachable") -> str:
    """'plan incomplete: 2 switch(es) unreachable: leaf2 (auth), leaf3 (refused)'."""
    names = [f"{n} ({plan.switches[n].cause})" if plan.switches[n].cause else n for n in plan.unreachable]
    return f"{what}: {len(names)} switch(es) {verb}: {', '.join(names)}"


@click.command("force-unlock")
@root_option
@click.option("--yes", is_flag=True, help="Do not ask.")
def force_unlock_cmd(root: Path, yes: bool) -> None:
    """Remove the apply lock of this fabric (after making sure no apply is running)."""
    from fabricctl.deploy.gitstate import delete_lock, shared_remote
    from fabricctl.deploy.lock import LockHeld, lock_path, read_lock, read_remote_lock, remove_lock

    remote = shared_remote(root)
    where = remote.describe() if remote is not None else str(lock_path(root))
    sha = ""
    try:
        if remote is not None:
            found = read_remote_lock(remote)
            sha, info = found if found is not None else ("", None)
        else:
            info = read_lock(root)
    except LockHeld:
        echo(f"the lock on {where} cannot be read: it does not say who holds it\n")
        if remote is not None:
            from fabricctl.deploy.gitstate import read_lock as read_ref

            sha = (read_ref(remote) or ("", ""))[0]
    else:
        if info is None:
            echo(f"no lock held ({where})\n")
            return
        echo(f"lock on {where} held by {info.describe()}\n")
    if not yes:
        if not sys.stdin.isatty():
            raise CliError("force-unlock needs --yes when not on a terminal")
        click.confirm("Remove it?", abort=True)
    if remote is not None:
        delete_lock(remote, sha)  # only the lock shown: one taken since stays
    else:
        remove_lock(root)
    echo("lock removed\n")


@click.command("check")
@root_option
@lab_option
@insecure_host_keys_option
@limit_option
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True
)
@click.option(
    "--tenant",
    default=None,
    help="Check only this tenant's GPU ports and the fabric links its paths use, with counters over --window "
    "(with --limit: only those switches' part of it).",
)
@click.option(
    "--links",
    "links",
    is_flag=True,
    help="Rank marginal fabric links (errors, flaps, weak optics over --window) and propose the drain that isolates them.",
)
@click.option(
    "--window",
    default=None,
    type=Duration(10, 86400),
    help="How long (by the switches' clocks) between the two counter reads rates come from [--tenant: 5m, --links: 30s].",
)
@timeout_option
def check_cmd(
    root: Path,
    lab: bool,
    limit: tuple[str, ...],
    fmt: str,
    tenant: str | None,
    links: bool,
    window: float | None,
    timeout: float,
) -> None:
    """Health checks from the switches' own state (links, LLDP cabling, BGP/EVPN, GPU ports); exit 1 on a failure, 2 when nothing failed but a switch waits for a reboot."""
    from fabricctl.report.health import health_json, health_markdown, health_state, health_text

    compiled = pipeline.compile(root)
    if links:
        if tenant is not None or limit:
            raise CliError("--links reads every switch with a fabric link: give neither --tenant nor --limit")
        from fabricctl.report.links import links_json, links_markdown, links_text

        report = pipeline.check_links(
            compiled,
            root,
            window=window or 30.0,
            lab=lab,
            timeout=timeout,
            stages=stage_lines(),
            progress=lambda line: echo(line + "\n", err=True),
        )
        echo({"json": links_json, "markdown": links_markdown}.get(fmt, links_text)(report))
        if not report.ok:
            sys.exit(1)
        return
    window = window or 300.0
    if tenant is not None:
        from fabricctl.deploy.tenant_health import UnknownTenant

        only = set(select_switches(compiled, limit)) if limit else None
        try:
            checks = pipeline.check_tenant(
                compiled,
                root,
                tenant,
                window=window,
                only=only,
                lab=lab,
                timeout=timeout,
                progress=lambda line: echo(line + "\n", err=True),
            )
        except UnknownTenant as exc:
            raise CliError(str(exc)) from None
    else:
        checks = pipeline.check(
            compiled, root, select_switches(compiled, limit), lab=lab, timeout=timeout
        ).checks
    echo({"json": health_json, "markdown": health_markdown}.get(fmt, health_text)(checks))
    state = health_state(checks)
    if state != "healthy":
        sys.exit(1 if state == "failed" else 2)  # 2: nothing failed, a switch waits for a reboot
