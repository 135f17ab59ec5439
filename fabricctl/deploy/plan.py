"""Plans: running vs intended per switch, saved as versioned JSON, checked for staleness.

A plan rests on two things that can change under it: the inputs (inventory/, tenants/,
templates and what they render to) and each switch's running config. Both are hashed into the
plan, so `apply PLAN` can refuse exactly when what was reviewed is no longer what would be
pushed. No secret is ever part of a plan.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from fabricctl.config.diff import DeviceDiff, diff_device, owned_hash, parse_config
from fabricctl.errors import StageError
from fabricctl.model.text import printable
from fabricctl.outputs import write_output
from fabricctl.platforms import get_platform
from fabricctl.platforms.boot import pending_lines
from fabricctl.platforms.push import normalize_running, running_hash
from fabricctl.verify.proofs import Proofs

if TYPE_CHECKING:
    from fabricctl.compile.build import Compiled
    from fabricctl.config.rules import Dialect
    from fabricctl.deploy.fetch import Fetched
    from fabricctl.deploy.stages import Stages
    from fabricctl.verify.report import VerifyReport

FORMAT_VERSION = 1
INPUT_DIRS = ("inventory", "tenants", "templates")


class PlanError(StageError):
    """The plan cannot be made or used (bad file, verify violations, stale plan)."""


class VerifyRefused(PlanError):
    """A proof failed on the intended configs: nothing is read or planned; the report says why."""

    def __init__(self, message: str, report: VerifyReport, compiled: Compiled) -> None:
        super().__init__(message)
        self.report, self.compiled = report, compiled


@dataclass
class Prepared:
    """Compiled inputs of one run: the selected switches, every rendered config, the inputs hash."""

    root: Path
    compiled: Compiled
    names: list[str]
    configs: dict[str, str]
    inputs_hash: str
    platforms: dict[str, str]
    verify: VerifyReport | None = None  # the proofs that held (plan shows them; apply records them)
    fetch_seconds: dict[str, float] = field(default_factory=dict)  # per switch, when this run read it

    def dialect(self, name: str) -> Dialect:
        """The remediation rules of switch `name`, knowing this fabric's mark (what it owns)."""
        return get_platform(self.platforms[name]).dialect.for_fabric(self.compiled.fabric.settings.name)


def inputs_hash(root: Path, configs: dict[str, str]) -> str:
    """sha256 over the input files and the rendered configs (which cover built-in templates)."""
    h = hashlib.sha256()
    for folder in INPUT_DIRS:
        base = Path(root) / folder
        if not base.is_dir():
            continue
        for path in sorted(p for p in base.rglob("*") if p.is_file()):
            h.update(f"file {path.relative_to(root).as_posix()}\0".encode())
            h.update(hashlib.sha256(path.read_bytes()).digest())
    for name in sorted(configs):
        h.update(f"config {name}\0".encode())
        h.update(hashlib.sha256(configs[name].encode()).digest())
    return h.hexdigest()


def verify_or_refuse(compiled: Compiled, configs: dict[str, str]) -> VerifyReport:
    """Prove isolation and lossless consistency first: a violating intent is never planned or pushed."""
    from fabricctl.verify.api import verify_fabric

    report = verify_fabric(compiled, configs)
    if not report.ok:
        lines = [f"  {v.switch}: {v.check}: {v.message}" for v in report.violations[:10]]
        more = len(report.violations) - len(lines)
        tail = [f"  ... and {more} more (see 'fabricctl verify')"] if more > 0 else []
        raise VerifyRefused(
            f"verify found {len(report.violations)} violation(s); refusing to plan or push:\n"
            + "\n".join(lines + tail),
            report,
            compiled,
        )
    return report


def prepare(
    root: Path,
    compiled: Compiled,
    names: list[str],
    stages: Stages | None = None,
    configs: dict[str, str] | None = None,
) -> Prepared:
    """Render every switch (unless `configs` are given), verify, hash."""
    from fabricctl.deploy.stages import quiet
    from fabricctl.verify.api import render_configs

    stages = stages or quiet()
    if configs is None:
        with stages.stage("render") as step:
            configs = render_configs(compiled, root)
            step.detail = f"{len(configs)} switch configs"
    with stages.stage("verify") as step:
        report = verify_or_refuse(compiled, configs)
        step.detail = proofs_line(report)
    platforms = {sw.name: sw.platform for sw in compiled.fabric.switches}
    return Prepared(Path(root), compiled, names, configs, inputs_hash(root, configs), platforms, report)


def proofs_line(report: VerifyReport) -> str:
    """'isolation, lossless, ECMP width and capacity hold (11 tenants, 48 switches)'."""
    return (
        f"isolation, lossless, ECMP width and capacity hold ({report.tenants} tenants, {report.switches} switches"
        + (f", {len(report.exceptions)} declared exceptions" if report.exceptions else "")
        + ")"
    )


@dataclass
class SwitchPlan:
    name: str
    platform: str
    status: str  # changed / unchanged / unreachable / pending (an interrupted push left a timer armed)
    running_hash: str | None = None
    intended_hash: str | None = None
    commands: list[str] = field(default_factory=list)
    diff: str = ""
    added: int = 0
    removed: int = 0
    error: str | None = None
    role: str = ""  # spine / leaf (for "added on 8 leaves" in reports)
    pending: str | None = None  # what an interrupted push left armed; apply confirms or restores it
    cause: str | None = None  # why it is unreachable (deploy/failures.py: dns, refused, auth, ...)
    hint: str | None = None  # what to check, one line
    #: Objects that look like fabricctl's but carry no proof it made them (config/diff.py): kept,
    #: or removed when the plan was made with --prune.
    lookalikes: list[str] = field(default_factory=list)
    #: Lines of this change the switch applies only at its next boot: `pending reboot`
    #: (platforms/boot.py; derived from the commands and the running config).
    at_boot: list[str] = field(default_factory=list)


@dataclass
class Plan:
    fabric: str
    inputs_hash: str
    switches: dict[str, SwitchPlan]
    limit: list[str] = field(default_factory=list)
    created_at: str = ""
    format_version: int = FORMAT_VERSION
    changed_since: str | None = None  # git REF of `plan --changed-since`
    changed_since_commit: str | None = None
    # What the change touches: {"tenants": [TenantChange dicts], "fabric_wide": [...], "freed_ports": [...]}
    changes: dict[str, Any] = field(default_factory=dict)
    prune: bool = False  # made with --prune: its commands also remove the look-alikes
    #: What verify proved on the intended configs, for the review (verify/proofs.py `Proofs`,
    #: derived from the inputs; `fabricctl schema plan` publishes its shape).
    proofs: dict[str, Any] = field(default_factory=dict)

    @property
    def selected(self) -> list[str]:
        """The switches this plan covers (all, --limit, or those --changed-since selected)."""
        return list(self.switches)

    @property
    def changed(self) -> list[str]:
        """Switches apply must touch: a change to push, or an interrupted push to settle."""
        return [n for n, s in self.switches.items() if s.status in ("changed", "pending")]

    @property
    def pending(self) -> list[str]:
        return [n for n, s in self.switches.items() if s.status == "pending"]

    @property
    def unreachable(self) -> list[str]:
        return [n for n, s in self.switches.items() if s.status == "unreachable"]

    def summary(self) -> dict[str, Any]:
        return {
            "changed": len(self.changed),
            "pending": len(self.pending),
            "unchanged": sum(1 for s in self.switches.values() if s.status == "unchanged"),
            "unreachable": len(self.unreachable),
            "added": sum(s.added for s in self.switches.values()),
            "removed": sum(s.removed for s in self.switches.values()),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "format_version": self.format_version,
            "fabric": self.fabric,
            "created_at": self.created_at,
            "inputs_hash": self.inputs_hash,
            "limit": self.limit,
            "changed_since": self.changed_since,
            "changed_since_commit": self.changed_since_commit,
            "prune": self.prune,
            "selected": self.selected,
            "summary": self.summary(),
            "changes": self.changes,
            "proofs": self.proofs or None,  # None: made without verify (a plan of saved configs)
            "switches": {n: asdict(s) for n, s in self.switches.items()},
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=False) + "\n"

    def digest(self) -> str:
        """Identifies the reviewed plan (in the lock and the run report)."""
        return hashlib.sha256(self.to_json().encode()).hexdigest()


def make_plan(
    prepared: Prepared, fetched: dict[str, Fetched], limit: list[str] | None = None, prune: bool = False
) -> Plan:
    """Diff every selected switch that could be read; the others are listed as unreachable.
    With `prune`, objects that look like fabricctl's but carry no proof it made them are removed
    too; without, they are kept and listed."""
    switches: dict[str, SwitchPlan] = {}
    for name in prepared.names:
        platform = prepared.platforms[name]
        intent = prepared.compiled.intents.get(name)
        role = intent.role if intent is not None else ""
        got = fetched.get(name)
        if got is None or got.text is None:
            error = got.error if got is not None else "not in the inventory"
            cause, hint = (got.cause, got.hint) if got is not None else (None, None)
            switches[name] = SwitchPlan(
                name, platform, "unreachable", error=error, role=role, cause=cause, hint=hint
            )
            continue
        dialect = prepared.dialect(name)
        running = normalize_running(got.text)
        dd = diff_device(name, running, prepared.configs[name], dialect, prune)
        pending = got.pending
        unsaved = (
            pending is None
            and not dd.changed
            and got.saved is not None
            and _unsaved(normalize_running(got.saved), running, prepared.configs[name], dd, dialect)
        )
        if unsaved:
            pending = "it runs the intended config but has not saved it (an interrupted apply?)"
        switches[name] = SwitchPlan(
            name,
            platform,
            "pending" if pending else "changed" if dd.changed else "unchanged",
            running_hash=running_hash(got.text),
            intended_hash=dd.intended_hash,
            commands=dd.commands,
            diff=dd.diff,
            added=dd.added,
            removed=dd.removed,
            role=role,
            pending=pending,
            lookalikes=dd.lookalikes,
            at_boot=pending_lines(get_platform(platform).boot_settings, dd.commands, running),
        )
    now = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    fabric = prepared.compiled.fabric.settings.name
    return Plan(fabric, prepared.inputs_hash, switches, list(limit or []), now, prune=prune)


def _unsaved(saved: str, running: str, intended: str, dd: DeviceDiff, dialect: Dialect) -> bool:
    """The switch runs what fabricctl owns of its intent but has not saved it; what is the
    operator's (unsaved or not) is theirs to save."""
    if saved == running:
        return False
    tree = dd.intended if dd.intended is not None else parse_config(intended, dialect)
    return owned_hash(saved, tree, dialect) != owned_hash(running, tree, dialect)


def save_plan(plan: Plan, path: Path) -> None:
    """The plan file, whole or not at all (outputs.py: through a symlink, never over a device)."""
    write_output(Path(path), plan.to_json())


class _PlanFile(BaseModel):
    """The plan file as `Plan.to_dict` writes it, checked field by field on reading."""

    model_config = ConfigDict(extra="forbid", strict=True)

    format_version: int
    fabric: str
    created_at: str = ""
    inputs_hash: str
    limit: list[str] = Field(default_factory=list)
    changed_since: str | None = None
    changed_since_commit: str | None = None
    prune: bool = False
    selected: list[str] = Field(default_factory=list)  # derived (Plan.selected): not read back
    summary: dict[str, int] = Field(default_factory=dict)  # derived (Plan.summary): not read back
    changes: dict[str, Any] = Field(default_factory=dict)
    proofs: Proofs | None = None
    switches: dict[str, SwitchPlan]


def plan_schema() -> dict[str, Any]:
    """The JSON Schema of the plan file (`fabricctl schema plan`): what `load_plan` accepts."""
    schema = _PlanFile.model_json_schema()
    schema["title"] = "fabricctl plan file"
    schema["description"] = f"fabricctl plan file, format version {FORMAT_VERSION} (docs/plan-apply.md)"
    return schema


def load_plan(path: Path) -> Plan:
    """A saved plan, or PlanError naming the file and, for a file that is not a plan, the field."""
    try:
        text = Path(path).read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise PlanError(
            f"cannot read plan {path}: {type(exc).__name__}: {printable(str(exc))[:200]}"
        ) from None
    if not isinstance(data, dict) or data.get("format_version") != FORMAT_VERSION:
        got = data.get("format_version") if isinstance(data, dict) else None
        raise PlanError(f"{path}: plan format version {got!r} (this fabricctl reads {FORMAT_VERSION})")
    try:
        doc = _PlanFile.model_validate_json(text)  # JSON mode: strict types, objects for dataclasses
    except ValidationError as exc:
        err = exc.errors(include_url=False, include_input=False)[0]
        where = ".".join(printable(str(p)) for p in err["loc"])
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise PlanError(f"{path}: not a fabricctl plan: {where}: {err['msg']}{more}") from None
    return Plan(
        doc.fabric,
        doc.inputs_hash,
        doc.switches,
        doc.limit,
        doc.created_at,
        changed_since=doc.changed_since,
        changed_since_commit=doc.changed_since_commit,
        changes=doc.changes,
        prune=doc.prune,
        proofs=doc.proofs.model_dump(mode="json") if doc.proofs is not None else {},
    )


def check_fabric(plan: Plan, compiled: Compiled, plan_file: Path) -> None:
    """Refuse, before any switch is read, a plan made for another fabric (by its name in fabric.yaml)."""
    here = compiled.fabric.settings.name
    if plan.fabric != here:
        raise PlanError(
            f"{plan_file} is a plan for fabric {plan.fabric!r}, but the fabric at "
            f"{compiled.fabric.root} is {here!r}: nothing applied (allowed: a plan made for {here!r})"
        )


def stale_reasons(plan: Plan, prepared: Prepared, fetched: dict[str, Fetched]) -> list[str]:
    """Why `plan` no longer describes what apply would do (empty list: still fresh)."""
    reasons: list[str] = []
    if plan.inputs_hash != prepared.inputs_hash:
        reasons.append("the inputs changed since the plan (inventory/, tenants/ or templates)")
    changed, edited = [], []
    for name, sp in plan.switches.items():
        got = fetched.get(name)
        if sp.status == "unreachable" or got is None or got.text is None:
            continue
        if running_hash(got.text) != sp.running_hash:
            changed.append(name)
        elif name in prepared.configs:
            # Same inputs, same running config: the commands must be exactly what they give, so
            # a plan file edited after review (hashes intact) is never pushed.
            fresh = diff_device(
                name, normalize_running(got.text), prepared.configs[name], prepared.dialect(name), plan.prune
            )
            if fresh.commands != sp.commands:
                edited.append(name)
    if changed:
        reasons.append(f"running config changed on {', '.join(changed)} since the plan")
    if edited:
        reasons.append(
            f"the plan's commands for {', '.join(edited)} are not what the inputs give (edited after review?)"
        )
    return reasons
