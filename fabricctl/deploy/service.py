"""Plan and apply orchestration shared by the CLI, the GitOps commands and tests: compile, verify,
select, fetch, diff, annotate; lock, re-check, push, record. It prints nothing and asks nothing:
what a person should hear goes through `notify` / `progress`, and approval is the caller's.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from fabricctl.deploy.plan import (
    Plan,
    PlanError,
    PlanFile,
    Prepared,
    make_plan,
    prepare,
    stale_reasons,
)
from fabricctl.deploy.rack_expansion import expansion_proof
from fabricctl.deploy.stages import Stages, quiet
from fabricctl.platforms.push import normalize_running, running_hash
from fabricctl.procs import paused_gc

if TYPE_CHECKING:
    from fabricctl.compile.allocate import Allocation
    from fabricctl.compile.build import Compiled
    from fabricctl.compile.moves import GpuMove
    from fabricctl.compile.topology import Topology
    from fabricctl.deploy.apply import ApplyOptions, Progress, RunReport, Started
    from fabricctl.deploy.changed import RefFabric
    from fabricctl.deploy.fetch import Fetched
    from fabricctl.deploy.lock import LockInfo
    from fabricctl.deploy.scope import TenantChange
    from fabricctl.model.load import Fabric, TenantDoc
    from fabricctl.platforms.health import SwitchHealth

#: Reads running configs of the named switches: name -> Fetched (a switch that cannot be read is data).
Fetcher = Callable[[list[str]], "dict[str, Fetched]"]
Notify = Callable[[str], None]
#: `--limit` resolved against a compiled fabric: the selected switches, in fabric order (the
#: CLI's parser of the flag, which names what is allowed when an item matches nothing).
Select = Callable[["Compiled", tuple[str, ...]], Iterable[str]]


@dataclass(frozen=True, kw_only=True)
class PlanOptions:
    """How a plan is made: the switches (`limit`), how they are read, what it may propose."""

    limit: tuple[str, ...] = ()
    timeout: float = 30.0  # per command on a switch
    changed_since: str | None = None  # only switches whose intent differs from the fabric at REF
    workers: int = 20  # switches read at once
    allow_gpu_moves: bool = False
    prune: bool = False  # also remove look-alikes that carry no proof (plan.make_plan)


def _quiet(message: str) -> None:
    """The default `notify`: nobody is listening."""


def compile_stage(
    root: Path, stages: Stages | None = None, select: Callable[[Compiled], list[str]] | None = None
) -> tuple[Compiled, list[str], dict[str, str]]:
    """The `compile` stage: load and validate the fabric at `root`, pick the switches (`select`
    checks --limit against them), render every config. Everything here is offline, so a
    mistake found here stops the command before any stage line is printed."""
    from fabricctl.compile.build import compile_fabric
    from fabricctl.verify.api import render_configs

    with (stages or quiet()).stage("compile") as step:  # compile_fabric pauses the GC itself
        compiled = compile_fabric(root)
        names = select(compiled) if select is not None else list(compiled.intents)
        configs = render_configs(compiled, root)
        gpus = sum(len(a.ports) for a in compiled.allocation.tenants)
        lines = sum(c.count("\n") for c in configs.values())
        picked = f" ({len(names)} selected)" if len(names) != len(compiled.intents) else ""
        step.detail = (
            f"{len(compiled.intents)} switches{picked}, {len(compiled.allocation.tenants)} tenants, "
            f"{gpus:,} GPUs; {lines:,} config lines"
        )
    return compiled, names, configs


def build_plan(
    compiled: Compiled,
    root: Path,
    names: list[str],
    limit: list[str],
    fetch: Fetcher,
    changed_since: str | None = None,
    notify: Notify = _quiet,
    stages: Stages | None = None,
    configs: dict[str, str] | None = None,
    allow_gpu_moves: bool = False,
    *,
    prune: bool = False,
    scope: dict[str, str] | None = None,
) -> tuple[Plan, Prepared]:
    """Verify the whole fabric, pick the switches, read them with `fetch`, and derive the plan
    (`derive_plan`; with `prune`, look-alikes are removed too: plan.make_plan).

    With `changed_since`, only switches whose intent differs from the fabric at that git REF
    are read and diffed. Tests pass a fetcher of saved configs; the CLI passes Nornir's.
    `stages` hears each step (render, verify, select, lab up, fetch, diff) as it starts and ends.
    A held GPU the intent would move from where the leaves read say it is refuses the plan
    (GpuMovesError) unless `allow_gpu_moves`; the plan lists every move (changes["gpu_moves"]).
    """
    stages = stages or quiet()
    prepared = prepare(root, compiled, names, stages, configs)
    ref = None
    if changed_since:
        with stages.stage("select") as step:
            ref = select_since(root, prepared, changed_since, notify)
            step.detail = f"{len(prepared.names)} switch(es) changed since {changed_since}"
    # Nothing selected: no login, no lab, no connection at all.
    fetched = fetch(list(prepared.names)) if prepared.names else {}
    prepared.fetch_seconds = {n: f.seconds for n, f in fetched.items() if f.seconds}
    with stages.stage("diff") as step, paused_gc():
        plan, moves = derive_plan(prepared, fetched, limit, prune, ref, scope)
        refuse_gpu_moves(moves, allow_gpu_moves)
        step.detail = _diff_line(plan)
    return plan, prepared


def derive_plan(
    prepared: Prepared,
    fetched: dict[str, Fetched],
    limit: list[str] | tuple[str, ...],
    prune: bool,
    ref: RefFabric | None = None,
    scope: dict[str, str] | None = None,
) -> tuple[Plan, list[GpuMove]]:
    """The plan of the prepared inputs against the running configs `fetched`, with everything
    it says about the change: per switch the commands, per tenant what happens to its service,
    the held GPUs that move, the racks, the scope. `plan` makes it; `apply PLAN` makes it again
    on the configs it reads before pushing and compares it whole with the file, so what is added
    to a plan here is checked by apply without more code."""
    from fabricctl.deploy.impact import annotate
    from fabricctl.verify.drain import undrained
    from fabricctl.verify.parse import parse_config
    from fabricctl.verify.proofs import proof_record

    plan = make_plan(prepared, fetched, list(limit), prune)
    # The running configs of the switches the plan changes, read once for every question below.
    running = {
        n: parse_config(n, prepared.platforms[n], normalize_running(fetched[n].text or ""))
        for n in plan.changed
    }
    moves = gpu_moves_of(prepared, fetched)
    annotate(plan, prepared.compiled, ref, running, moves)
    if prepared.verify is not None:
        touched = [t["name"] for t in plan.changes.get("tenants", [])]
        plan.proofs = proof_record(prepared.verify, prepared.compiled, touched).model_dump(mode="json")
    racks = expansion_proof(prepared.compiled, plan)
    if racks is not None:  # racks wait for acceptance: what changes on switches in service
        plan.changes["racks"] = racks.to_dict()
    if moves:
        plan.changes["gpu_moves"] = [m.to_dict() for m in moves]
    if prepared.verify is not None and prepared.verify.drain is not None:  # maintenance.yaml
        plan.changes["drain"] = prepared.verify.drain.to_dict()
    back = undrained(prepared.compiled, running)
    if back:  # drained on the switches, no longer in maintenance.yaml: apply needs --allow-undrain
        plan.changes["undrain"] = back
    if scope is not None:
        plan.changes["scope"] = dict(scope)
    return plan, moves


def _diff_line(plan: Plan) -> str:
    s = plan.summary()
    return (
        f"{s['changed']} to change, {s['unchanged']} unchanged"
        + (f", {s['unreachable']} unreachable" if s["unreachable"] else "")
        + f" (+{s['added']:,} -{s['removed']:,} lines)"
    )


class GpuMovesError(PlanError):
    """The change would move held GPUs and --allow-gpu-moves was not given."""


def gpu_moves_of(prepared: Prepared, fetched: dict[str, Fetched]) -> list[GpuMove]:
    """Every held GPU the intent moves from where its leaf says it is (the GPU port descriptions
    the leaves run)."""
    from fabricctl.compile.moves import moves_on_leaves

    running = {
        name: (prepared.platforms[name], got.text)
        for name, got in fetched.items()
        if got.text is not None and name in prepared.compiled.topology.gpu_ports
    }
    return moves_on_leaves(prepared.compiled.allocation, running)


def refuse_gpu_moves(moves: list[GpuMove], allow: bool) -> None:
    """A change that moves held GPUs, unless allowed (--allow-gpu-moves on this command line)."""
    if not moves or allow:
        return
    lines = [f"  {m.tenant}: {m.text()}" for m in moves]
    raise GpuMovesError(
        f"{len(moves)} held GPU(s) would move from where their leaves say they are cabled "
        "(each port's description names its server, NIC and tenant):\n"
        + "\n".join(lines)
        + "\nnothing was planned or pushed: keep every held GPU on its leaf and port, or run with "
        "--allow-gpu-moves to move them (the plan then lists each move)"
    )


def plan_fabric(
    root: Path,
    lab: bool,
    options: PlanOptions,
    select: Select,
    *,
    fetch: Fetcher | None = None,
    scope: TenantChange | None = None,
    stages: Stages | None = None,
    notify: Notify | None = None,
) -> tuple[Plan, Prepared]:
    """The plan of the selected switches (real or lab) and the prepared inputs it rests on: what
    `plan`, `drift` and `apply` without a PLAN run. One that moves held GPUs is refused unless
    `options.allow_gpu_moves`. With `scope` (`--tenant`: the inputs of one tenant's change,
    scope.py), only the switches that change makes differ are planned. The switches are read
    over Nornir unless `fetch` reads them (tests: saved configs)."""
    from fabricctl.deploy.changed import fingerprints
    from fabricctl.deploy.scope import tenant_switches

    stages = stages or quiet()
    inputs = scope.inputs if scope is not None else root
    compiled, names, configs = compile_stage(inputs, stages, lambda c: list(select(c, options.limit)))
    if scope is not None:
        names = tenant_switches(root, scope.commit, fingerprints(compiled, configs), names)
    if fetch is None:
        fetch = nornir_fetcher(root, lab, options.timeout, stages, options.workers)
    plan, prepared = build_plan(
        compiled,
        inputs,
        names,
        list(options.limit),
        fetch,
        options.changed_since,
        notify or _quiet,
        stages,
        configs,
        options.allow_gpu_moves,
        prune=options.prune,
        scope={"tenant": scope.tenant, "base": scope.commit} if scope is not None else None,
    )
    return plan, prepared


def nornir_fetcher(
    root: Path, lab: bool, timeout: float, stages: Stages | None = None, workers: int = 20
) -> Fetcher:
    """Read running configs over Nornir (`workers` switches at once), from the lab or real switches."""

    def fetch(names: list[str]) -> dict[str, Fetched]:
        from fabricctl.deploy.context import open_fabric
        from fabricctl.deploy.fetch import fetch_running

        st = stages or quiet()
        with open_fabric(root, lab, set(names), workers, stages=st) as nr:
            with st.stage("fetch") as step:
                got = fetch_running(nr, timeout, lab=lab)
                bad = [n for n, f in got.items() if f.text is None]
                step.detail = f"{len(got) - len(bad)} of {len(got)} switches read" + (
                    f", {len(bad)} unreachable" if bad else ""
                )
            return got

    return fetch


def select_since(root: Path, prepared: Prepared, ref: str, notify: Notify = _quiet) -> RefFabric:
    """Narrow `prepared.names` to the switches whose intent or config differs from REF."""
    from fabricctl.deploy.changed import fingerprints, load_ref, select_changed

    before = load_ref(root, ref)
    if before.problem:
        notify(f"warning: {before.problem}\nwarning: planning every selected switch\n")
    now = fingerprints(prepared.compiled, prepared.configs)
    total = len(prepared.names)
    prepared.names = select_changed(before, now, prepared.names)
    notify(
        f"changed since {ref} ({before.commit[:12]}): {len(prepared.names)} of {total} switches selected"
        + (f": {', '.join(prepared.names)}" if 0 < len(prepared.names) <= 16 else "")
        + "\n"
    )
    return before


@dataclass
class Claim:
    """A reviewed plan file as apply holds it: a claim about the change, derived again from the
    inputs and the configs read just before the push and compared whole (`recheck`). What is
    pushed is the plan derived; what it may do is decided by apply's own flags."""

    file: PlanFile
    ref: RefFabric | None = None  # the fabric at the commit the plan was compared with
    members: set[str] | None = None  # a shard: only its switches are derived and compared
    allow_gpu_moves: bool = False  # --allow-gpu-moves on the apply command line
    #: Switches an earlier run of this plan already brought to the plan (a killed shard's):
    #: read back as planned, so this run does not push them again (recheck fills it in).
    landed: list[str] = field(default_factory=list)
    #: The earlier try of this plan that did not end cleanly (shards.unfinished_run): only then
    #: may a switch read back changed since the plan count as landed.
    resumes: str | None = None


def recheck(claim: Claim, prepared: Prepared, fetched: dict[str, Fetched]) -> Plan:
    """The plan derived again from `prepared` and `fetched`, when the plan file says exactly
    that; else PlanError naming the first fields that differ (their JSON paths)."""
    from fabricctl.deploy.disruption import DISRUPTIVE
    from fabricctl.deploy.plan import differences, shard_differences

    file, claimed = claim.file, claim.file.plan
    # A switch a killed run of this plan already pushed reads back changed since the plan: it is
    # resumed, not refused, when the plan derived now leaves nothing to push on it (below).
    moved = {
        n
        for n, sp in claimed.switches.items()
        if claim.resumes is not None
        and sp.status == "changed"
        and (got := fetched.get(n)) is not None
        and got.text is not None
        and running_hash(got.text) != sp.running_hash
        and n in prepared.names
    }
    rest = replace(claimed, switches={n: sp for n, sp in claimed.switches.items() if n not in moved})
    reasons = stale_reasons(rest, prepared, fetched)
    if reasons:
        raise PlanError("stale plan, not applied: " + "; ".join(reasons) + "; run 'fabricctl plan' again")
    # A switch the file says was read and that cannot be read now is not pushed (it fails at
    # connect, as one unreachable at plan time): the rest of the plan is compared as a shard's.
    unread = {
        n
        for n in prepared.names
        if ((got := fetched.get(n)) is None or got.text is None)
        and (sp := claimed.switches.get(n)) is not None
        and sp.status != "unreachable"
    }
    members = claim.members
    scope = claimed.changes.get("scope")
    derived, moves = derive_plan(prepared, fetched, claimed.limit, claimed.prune, claim.ref, scope)
    elsewhere = sorted(
        n for n in moved if (sp := derived.switches.get(n)) is None or sp.status != "unchanged"
    )
    if elsewhere:
        raise PlanError(
            f"stale plan, not applied: switches.{elsewhere[0]}.running_hash: running config changed on "
            f"{', '.join(elsewhere)} since the plan, and not to what the plan pushes; run 'fabricctl plan' again"
        )
    claim.landed = sorted(moved)
    # A killed run of this plan may also leave its session open on a switch it was pushing: that
    # switch is settled and pushed as planned (recover: only sessions the records prove ours).
    settling = {
        n
        for n, sp in derived.switches.items()
        if claim.resumes is not None
        and sp.status == "pending"
        and (was := claimed.switches.get(n)) is not None
        and was.status == "changed"
    }
    if unread or moved or settling:
        members = (members if members is not None else set(prepared.names)) - unread - moved - settling
    if derived.changed_since_commit is not None:  # the REF's name then (it may have moved since)
        derived.changed_since = claimed.changed_since
    now = derived.to_dict()
    found = (
        differences(file.data, now)
        if members is None
        else shard_differences(file.data, now, members, must_claim=DISRUPTIVE if moved else None)
    )
    if found:
        more = f" (and {len(found) - 5} more)" if len(found) > 5 else ""
        raise PlanError(
            f"{file.path} is not what fabricctl derives from the inputs and the switches now, "
            f"so nothing was applied: {'; '.join(found[:5])}{more}. A plan file is applied only as "
            "fabricctl made it: run 'fabricctl plan' again"
        )
    refuse_gpu_moves(moves, claim.allow_gpu_moves)
    return derived


@contextlib.contextmanager
def locked(
    root: Path, notify: Notify = _quiet, lab: bool = False, shard: tuple[str, str] | None = None
) -> Iterator[None]:
    """The fabric lock around a whole apply (planning included), on the fabric repository's
    remote when it has one (gitstate.py); a dead holder's lock is taken over, aloud."""
    from fabricctl.deploy.gitstate import shared_remote
    from fabricctl.deploy.lock import fabric_lock

    def took_over(held: LockInfo) -> None:
        notify(
            f"warning: took over a stale lock ({held.describe()}): {held.why_stale() or 'it no longer holds'}\n"
        )

    with fabric_lock(root, "apply", on_takeover=took_over, remote=shared_remote(root, lab), shard=shard):
        yield


def lease_shard(
    root: Path, lab: bool, shard: tuple[str, str], switches: Iterable[str], notify: Notify = _quiet
) -> None:
    """Lease the switches a shard will push, inside its run's shared lock on the remote (lock.py
    `lease_switches`); without a remote the lock itself is whole-fabric and exclusive."""
    from fabricctl.deploy.gitstate import shared_remote
    from fabricctl.deploy.lock import lease_switches

    remote = shared_remote(root, lab)
    if remote is None:
        return

    def took_over(held: LockInfo) -> None:
        notify(
            f"warning: took over the switch leases of a stale shard ({held.describe()}): {held.why_stale()}\n"
        )

    lease_switches(remote, shard, switches, on_takeover=took_over)


@dataclass
class Interrupts:
    """SIGINT / SIGTERM as a run sees them: the first (`stop`) starts no new switch and lets the
    ones in flight finish; the second (`abort`) also makes each switch in flight stop at its next
    step and restore itself (never after its commit); a third stops at once (KeyboardInterrupt),
    leaving the commit-confirm timers and the marks to the next plan and apply."""

    stop: threading.Event
    abort: threading.Event


@contextlib.contextmanager
def interruptible(on_signal: Callable[[int, int], None] | None = None) -> Iterator[Interrupts]:
    """Interrupts for the time of a run; `on_signal(signum, count)` hears the first two signals
    (to say aloud what happens now)."""
    got = Interrupts(threading.Event(), threading.Event())
    if threading.current_thread() is not threading.main_thread():
        yield got
        return

    def handler(signum: int, frame: object) -> None:
        if got.abort.is_set():
            raise KeyboardInterrupt
        (got.abort if got.stop.is_set() else got.stop).set()
        if on_signal is not None:
            with contextlib.suppress(Exception):  # telling must never break the stop
                on_signal(signum, 2 if got.abort.is_set() else 1)

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield got
    finally:
        for sig, handler_was in previous.items():
            signal.signal(sig, handler_was)


@dataclass
class ApplyHooks:
    """What a person hears during a push (all optional): a switch's turn starts, a switch
    finishes, the first SIGINT/SIGTERM arrives."""

    started: Started | None = None
    finished: Progress | None = None
    interrupted: Callable[[int, int], None] | None = None


#: The service-affecting class of a tenant whose GPUs sit on a drained leaf.
CUT_OFF = "cut off by a drained leaf"


def disruptive(plan: Plan) -> dict[str, list[str]]:
    """Tenants whose running service the plan affects -> their service-affecting classes."""
    from fabricctl.deploy.disruption import DISRUPTIVE

    rows = plan.changes.get("tenants")  # a plan file's: any shape until apply derives it again
    out = {
        r["name"]: [c for c in DISRUPTIVE if c in r["classes"]]
        for r in (rows if isinstance(rows, list) else [])
        if isinstance(r, dict) and isinstance(r.get("name"), str) and isinstance(r.get("classes"), list)
    }
    # A drained leaf (maintenance.yaml) takes its tenants' GPUs off the fabric.
    drain = plan.changes.get("drain")
    cut_off = drain.get("cut_off") if isinstance(drain, dict) else None
    for name in cut_off if isinstance(cut_off, dict) else {}:
        out.setdefault(str(name), []).append(CUT_OFF)
    return {name: classes for name, classes in sorted(out.items()) if classes}


def refuse_disruptive(plan: Plan, opts: ApplyOptions) -> None:
    """A plan that affects running tenants is pushed only when the operator says so
    (--allow-disruptive) or a canary goes first (--canary N): never by accident at full width.
    Nor does one put a drained switch or link back into service unless the operator says so
    (--allow-undrain): a checkout that predates a drain must not undo it."""
    back = [t for t in plan.changes.get("undrain") or [] if t not in opts.allow_undrain]
    if back and "all" not in opts.allow_undrain:
        shown = ", ".join(back[:8]) + (f" and {len(back) - 8} more" if len(back) > 8 else "")
        flags = " ".join(f"--allow-undrain {t}" for t in back[:8])
        raise PlanError(
            f"the plan puts {shown} back into the forwarding path: the switches run drained and "
            "maintenance.yaml no longer drains them; nothing was pushed. If that is meant (`fabricctl "
            f"undrain`), apply with {flags}; if not, this checkout lacks the drain (pull first)"
        )
    found = disruptive(plan)
    if not found or opts.allow_disruptive or opts.canary > 0:
        return
    shown = "; ".join(f"{name} ({', '.join(classes)})" for name, classes in list(found.items())[:8])
    more = f" and {len(found) - 8} more" if len(found) > 8 else ""
    raise PlanError(
        f"the plan affects {len(found)} running tenant(s): {shown}{more}; nothing was pushed. "
        "Review the plan's service-affecting section, then apply with --allow-disruptive "
        "(or --canary N to push N switches first)"
    )


def apply_safely(
    root: Path,
    plan: Plan,
    prepared: Prepared,
    lab: bool,
    opts: ApplyOptions,
    claim: Claim | None = None,
    progress: Progress | None = None,
    *,
    hooks: ApplyHooks | None = None,
    report: RunReport | None = None,
    stages: Stages | None = None,
    copy_to: Path | None = None,
) -> tuple[RunReport, Path]:
    """Push, and write the run record, whatever happens. A reviewed plan (`claim`) is first
    derived again from the configs read now and refused unless the file says exactly that
    (`recheck`); the plan pushed is the one derived.

    The caller holds the fabric lock (`locked`). The record is written even when the run is
    interrupted or fails outright, with what each switch reached; `copy_to` gets a copy.
    Pass `report` (from `start_report`) to know the record's path before the run starts.
    """
    from fabricctl.deploy.apply import apply_plan, timestamp, write_report
    from fabricctl.deploy.context import open_fabric
    from fabricctl.deploy.fetch import fetch_running
    from fabricctl.deploy.record import RecordWriter, record_path, share_record

    hooks = hooks or ApplyHooks(finished=progress)
    stages = stages or quiet()
    report = report if report is not None else start_report(root, plan, prepared, opts, lab=lab)
    writer = RecordWriter(record_path(root, report.run_id), root)
    writer.write(report.to_dict())  # opened at once: even a killed run leaves its record
    if share_record(root, report.context, report.to_dict):  # runners and shards see it in progress
        writer.write(report.to_dict())
    names = set(prepared.names) if claim is not None else set(plan.switches)
    try:
        if claim is None:
            refuse_disruptive(plan, opts)
        with (
            interruptible(hooks.interrupted) as signals,
            open_fabric(root, lab, names, opts.parallelism, stages=stages, access="write") as nr,
        ):
            if claim is not None:
                with stages.stage("recheck") as step:
                    fetched = fetch_running(nr, opts.timeout, lab=lab)
                    prepared.fetch_seconds = {n: f.seconds for n, f in fetched.items() if f.seconds}
                    step.detail = "refused"
                    plan = recheck(claim, prepared, fetched)
                    step.detail = f"{len(plan.switches)} switches as planned"
                report.disruptive = disruptive(plan)
                if "tenants" in report.context:  # the audit trail of the plan pushed
                    from fabricctl.deploy.audit import tenants_by_switch

                    report.context["tenants"] = tenants_by_switch(plan.changes, plan.changed)
                refuse_disruptive(plan, opts)
            with stages.stage("push") as step:
                apply_plan(
                    plan, prepared, nr, opts, hooks.finished, signals.stop, report, hooks.started, lab,
                    abort=signals.abort, on_change=lambda r: writer.soon(r.to_dict),
                    on_claim=lambda r: writer.write(r.to_dict()),
                )  # fmt: skip
                step.detail = ", ".join(f"{n} {k}" for k, n in report.counts().items()) or "nothing to do"
            for name in claim.landed if claim is not None else []:
                if (outcome := report.switches.get(name)) is not None and outcome.status == "unchanged":
                    outcome.message = (
                        "as planned already: read back with the plan's change in place, not pushed again"
                    )
    except BaseException as exc:  # interrupted three times, a stale plan, a lost lab: still a record
        writer.close()
        report.stopped_reason = report.stopped_reason or f"stopped: {type(exc).__name__}: {exc}".rstrip(": ")
        report.finished = report.finished or timestamp()
        report.state = "stopped"
        report.stages = {**report.stages, **stages.timings()}
        write_report(root, report, copy_to)
        raise
    writer.close()
    report.stages = {**report.stages, **stages.timings()}
    _settle_orphans(root, report)
    return report, write_report(root, report, copy_to)


def _settle_orphans(root: Path, report: RunReport) -> None:
    """Earlier runs on this host that were killed mid-way get what this run found on their switches."""
    from dataclasses import asdict

    from fabricctl.deploy.record import settle_orphans

    outcomes = {n: asdict(o) for n, o in report.switches.items()}
    report.settled_runs = settle_orphans(root, report.run_id, outcomes)


def start_report(
    root: Path,
    plan: Plan,
    prepared: Prepared,
    opts: ApplyOptions,
    argv: list[str] | None = None,
    lab: bool = False,
) -> RunReport:
    """A new run record: run id, who, where, which commit, the proofs that held."""
    from fabricctl.deploy.apply import new_report
    from fabricctl.deploy.plan import proofs_line
    from fabricctl.deploy.record import run_context

    report = new_report(plan, opts)
    report.context = run_context(root, argv, lab)
    report.verify = proofs_line(prepared.verify) if prepared.verify is not None else ""
    report.disruptive = disruptive(plan)
    report.reboot = {n: list(sp.at_boot) for n, sp in plan.switches.items() if sp.at_boot}
    return report


def record_nothing_to_do(
    root: Path, plan: Plan, prepared: Prepared, opts: ApplyOptions, report: RunReport,
    stages: Stages | None = None, copy_to: Path | None = None,
) -> Path:  # fmt: skip
    """An apply that found nothing to change is a run too: the record says so."""
    from fabricctl.deploy.apply import SwitchOutcome, timestamp, write_report

    for name in plan.switches:
        report.switches[name] = SwitchOutcome(name, "unchanged")
    report.finished = timestamp()
    report.state = "finished"
    report.stopped_reason = "nothing to change"
    report.stages = {**report.stages, **(stages.timings() if stages else {})}
    return write_report(root, report, copy_to)


def read_switch_health(
    root: Path, lab: bool, names: set[str], timeout: float
) -> dict[str, SwitchHealth | str]:
    """Each named switch's health, read from its own show commands (or why it could not be read):
    `check` and `show tenant --live` read the switches through here, the CLI only prints."""
    from fabricctl.deploy.context import open_fabric
    from fabricctl.deploy.health import read_health

    with open_fabric(root, lab, names) as nr:
        return read_health(nr, timeout)


def read_running(root: Path, lab: bool, names: set[str]) -> dict[str, str]:
    """The named switches' running configs, read-only (no session, no lock); a switch that
    cannot be read is absent (verify reports it as `config-missing`)."""
    from fabricctl.deploy.context import open_fabric
    from fabricctl.deploy.fetch import fetch_running

    with open_fabric(root, lab, names) as nr:
        got = fetch_running(nr)
    return {n: f.text for n, f in got.items() if f.text is not None}


@dataclass(frozen=True)
class Validated:
    """What `validate` found: the fabric, and how many tenants and held GPUs it has."""

    fabric: Fabric
    tenants: int
    gpus: int


def validate_fabric(path: Path, changed_since: str | None, allow_gpu_moves: bool, warn: Notify) -> Validated:
    """Check inventory and every tenant (raises InputError with every problem). The compile
    cache answers when only tenants changed since its snapshot; an inventory change since REF (or
    HEAD) compiles the whole fabric and refuses a held GPU it moves unless `allow_gpu_moves`."""
    from fabricctl.compile import cache
    from fabricctl.compile.build import Compiled, load_and_check
    from fabricctl.deploy.changed import inventory_changed_since

    since = inventory_changed_since(path, changed_since)
    found = cache.scan(path)
    # An inventory change is judged against the whole fabric at REF: the cache answers only
    # for an inventory as its snapshot's, and never without the move check.
    known = cache.changes(found, intents=False) if found is not None and since is None else None
    if (path / "racks").is_dir():  # racks are checked by a whole load (the cache does not see them)
        known = None
    if known is not None:
        return Validated(known.fabric, known.tenants, known.gpus)
    fabric, docs, topo, alloc = load_and_check(path)
    if since is not None:
        _refuse_moves(path, since, fabric, docs, topo, alloc, allow_gpu_moves, warn)
    if found is not None:  # a first snapshot for render to start from; never over render's own
        cache.remember(found, Compiled(fabric, docs, topo, alloc, {}), digests=None, replace=False)
    return Validated(fabric, len(docs), sum(len(a.ports) for a in alloc.tenants))


def _refuse_moves(
    root: Path,
    since: tuple[str, str],
    fabric: Fabric,
    docs: list[TenantDoc],
    topo: Topology,
    alloc: Allocation,
    allow: bool,
    warn: Notify,
) -> None:
    """Held GPUs the inventory change since REF moves: refused (InputError) unless allowed, then
    listed on stderr."""
    from fabricctl.compile.moves import inventory_changes, log_moves
    from fabricctl.deploy.changed import held_since
    from fabricctl.model.problems import ProblemLog

    held = held_since(root, *since, alloc)
    if held.problem:
        warn(f"warning: {held.problem}: held GPUs not compared with it\n")
    if held.before is None or not held.moves:
        return
    if not allow:
        log = ProblemLog(root)
        log_moves(held.moves, docs, fabric, topo, log, inventory_changes(held.before, fabric))
        log.check()
    warn(f"warning: {len(held.moves)} held GPUs move (--allow-gpu-moves):\n")
    for m in held.moves:
        warn(f"  {m.tenant}: {m.text()}\n")
