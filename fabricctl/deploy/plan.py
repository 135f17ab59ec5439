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
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from fabricctl.config.diff import DeviceDiff
from fabricctl.errors import StageError
from fabricctl.model.text import printable
from fabricctl.outputs import named_output, write_file
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

    def diff(self, name: str, running: str, intended: str, prune: bool = False) -> DeviceDiff:
        """Running vs intended config of switch `name`, as its platform compares them."""
        return get_platform(self.platforms[name]).config_diff(
            name, running, intended, self.dialect(name), prune
        )


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
        """The digest of the plan file this plan saves as (`digest_of`): in the PR comment, the
        lock and the run record."""
        return digest_of(json.loads(self.to_json()))


def canonical_json(data: Any) -> bytes:
    """One spelling of a JSON document: keys sorted, no spaces, UTF-8. A plan file reformatted
    or re-indented keeps its digest; any change of a value or a key changes it."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def digest_of(data: Any) -> str:
    """sha256 of the canonical form of a plan file's JSON (64 hex digits)."""
    return hashlib.sha256(canonical_json(data)).hexdigest()


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
        running = normalize_running(got.text)
        dd = prepared.diff(name, running, prepared.configs[name], prune)
        pending = got.pending
        unsaved = (
            pending is None
            and not dd.changed
            and got.saved is not None
            and _unsaved(prepared, name, normalize_running(got.saved), running)
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


def _unsaved(prepared: Prepared, name: str, saved: str, running: str) -> bool:
    """Switch `name` runs what fabricctl owns of its intent but has not saved it: its saved
    config, compared with the intent as its platform compares them, differs; what is the
    operator's (unsaved or not) is theirs to save."""
    return saved != running and prepared.diff(name, saved, prepared.configs[name]).changed


def save_plan(plan: Plan, path: Path, root: Path | None = None) -> None:
    """The plan file, whole or not at all (outputs.py: never through a symlink below the fabric
    `root` or the folder it names, never over a device)."""
    write_file(Path(path), plan.to_json(), within=named_output(Path(path), root))


class _PlanFile(BaseModel):
    """The plan file as `Plan.to_dict` writes it, checked field by field on reading."""

    #: A field this model does not name is no error here: apply compares the whole file with the
    #: plan it derives again (`differences`), so an added field is refused there, by name.
    model_config = ConfigDict(extra="ignore", strict=True)

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


@dataclass
class PlanFile:
    """A saved plan as read: the JSON it holds (what apply compares with the plan it derives
    again), the plan built from it, and its digest."""

    path: Path
    data: dict[str, Any]
    plan: Plan

    @property
    def digest(self) -> str:
        return digest_of(self.data)


def plan_schema() -> dict[str, Any]:
    """The JSON Schema of the plan file (`fabricctl schema plan`): what `load_plan` accepts."""
    schema = _PlanFile.model_json_schema()
    schema["title"] = "fabricctl plan file"
    schema["description"] = f"fabricctl plan file, format version {FORMAT_VERSION} (docs/plan-apply.md)"
    return schema


def load_plan(path: Path) -> Plan:
    """A saved plan, or PlanError naming the file and, for a file that is not a plan, the field."""
    return read_plan(path).plan


def read_plan(path: Path) -> PlanFile:
    """A saved plan file (`load_plan`), with the JSON it holds."""
    try:
        text = Path(path).read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise PlanError(
            f"cannot read plan {path}: {type(exc).__name__}: {printable(str(exc))[:200]}"
        ) from None
    if not isinstance(data, dict) or data.get("format_version") != FORMAT_VERSION:
        got = data.get("format_version") if isinstance(data, dict) else None
        raise PlanError(
            f"{path}: format_version: plan format version {got!r} (this fabricctl reads {FORMAT_VERSION})"
        )
    try:
        doc = _PlanFile.model_validate_json(text)  # JSON mode: strict types, objects for dataclasses
    except ValidationError as exc:
        err = exc.errors(include_url=False, include_input=False)[0]
        where = json_path(tuple(err["loc"]))
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise PlanError(f"{path}: not a fabricctl plan: {where}: {err['msg']}{more}") from None
    plan = Plan(
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
    return PlanFile(Path(path), data, plan)


#: What a plan file says that apply cannot derive again: when it was made. (The name of the git
#: REF it was compared with is taken from the file with the commit it names, which is derived.)
NOT_DERIVED = frozenset({"created_at"})
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def json_path(parts: tuple[str | int, ...]) -> str:
    """`changes.tenants[2].classes`: where a value sits in a plan file."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _KEY.fullmatch(str(part)):
            out += f".{part}" if out else str(part)
        else:
            out += f"[{json.dumps(printable(str(part)))}]"
    return out or "(the whole file)"


def _shown(value: Any) -> str:
    text = printable(json.dumps(value, sort_keys=True, ensure_ascii=False))
    return text if len(text) <= 80 else text[:77] + "..."


def differences(claimed: Any, derived: Any, at: tuple[str | int, ...] = ()) -> list[str]:
    """Every place where a plan file (`claimed`) says something else than the plan derived
    again from the inputs and the switches, as `path: what`: a value edited (its type included:
    "12" is not 12, true is not 1), a field removed, a field added. Generic over the whole
    document, so a field a later fabricctl adds to plans is compared without being named here."""
    where = json_path(at)
    if isinstance(claimed, dict) and isinstance(derived, dict):
        out: list[str] = []
        for key in list(derived) + [k for k in claimed if k not in derived]:
            sub = json_path((*at, key))
            if not at and key in NOT_DERIVED and key in claimed:
                continue  # present (its type is checked on reading), its value not derivable
            if key not in claimed:
                out.append(f"{sub}: missing from the file (fabricctl derives {_shown(derived[key])})")
            elif key not in derived:
                out.append(f"{sub}: not something fabricctl derives (the file adds {_shown(claimed[key])})")
            else:
                out += differences(claimed[key], derived[key], (*at, key))
        return out
    if isinstance(claimed, list) and isinstance(derived, list):
        out = []
        for i, (c, d) in enumerate(zip(claimed, derived, strict=False)):
            out += differences(c, d, (*at, i))
        if len(claimed) != len(derived):
            out.append(f"{where}: the file lists {len(claimed)} item(s), fabricctl derives {len(derived)}")
        return out
    if type(claimed) is not type(derived) or claimed != derived:
        return [f"{where}: the file says {_shown(claimed)}, fabricctl derives {_shown(derived)}"]
    return []


def shard_differences(
    claimed: dict[str, Any],
    derived: dict[str, Any],
    members: set[str],
    must_claim: tuple[str, ...] | None = None,
) -> list[str]:
    """When only some switches can be derived again (a shard's, or those that answer now), the
    plan-wide account (`changes`, `summary`, `selected`) cannot be compared whole: each of those
    switches is compared field by field, every other top-level field exactly, and what they do to
    tenants must be claimed by the file (each service-affecting class, each held GPU move, the
    placement of each tenant it touches: the proofs are the whole fabric's but for that list).
    A resumed run (an earlier run of the plan landed some of its switches) sees a tenant it adds
    as partly there: then only the classes in `must_claim` (those that interrupt service) must be
    claimed by the file; the tenant's row claims the others."""
    skip = {"selected", "summary", "changes", "switches"}
    out = differences(
        {k: _without_placement(v) if k == "proofs" else v for k, v in claimed.items() if k not in skip},
        {k: _without_placement(v) if k == "proofs" else v for k, v in derived.items() if k not in skip},
    )
    placed = _placements(claimed.get("proofs"))
    for row in _placements(derived.get("proofs")):
        if row not in placed:
            out.append(f"proofs.placement.tenants: the file does not list {_shown(row)}")
    theirs = claimed.get("switches")
    if not isinstance(theirs, dict):
        return [*out, "switches: not an object"]
    mine = {n: s for n, s in theirs.items() if n in members}
    ours = {n: s for n, s in derived.get("switches", {}).items() if n in members}
    out += differences({"switches": mine}, {"switches": ours})
    said, now = claimed.get("changes"), derived.get("changes", {})
    said = said if isinstance(said, dict) else {}
    rows = {r.get("name"): r for r in said.get("tenants") or [] if isinstance(r, dict)}
    for row in now.get("tenants") or []:
        classes = (rows.get(row["name"]) or {}).get("classes") or []
        missing = [c for c in row.get("classes") or [] if c not in classes]
        if must_claim is not None and row["name"] in rows:
            missing = [c for c in missing if c in must_claim]
        if missing:
            out.append(
                f"changes.tenants: {row['name']} is {', '.join(missing)} on this shard's switches, "
                "which the file does not say"
            )
    for key in ("disruptive", "gpu_moves"):
        listed = said.get(key) or []
        unsaid = [item for item in now.get(key) or [] if item not in listed]
        if unsaid:
            out.append(f"changes.{key}: the file does not list {_shown(unsaid)}")
    return out


def _without_placement(proofs: Any) -> Any:
    if not isinstance(proofs, dict) or not isinstance(proofs.get("placement"), dict):
        return proofs
    return {**proofs, "placement": {k: v for k, v in proofs["placement"].items() if k != "tenants"}}


def _placements(proofs: Any) -> list[Any]:
    place = proofs.get("placement") if isinstance(proofs, dict) else None
    rows = place.get("tenants") if isinstance(place, dict) else None
    return rows if isinstance(rows, list) else []


def check_fabric(plan: Plan, compiled: Compiled, plan_file: Path) -> None:
    """Refuse, before any switch is read, a plan made for another fabric (by its name in fabric.yaml)."""
    here = compiled.fabric.settings.name
    if plan.fabric != here:
        raise PlanError(
            f"{plan_file} is a plan for fabric {plan.fabric!r} (its fabric field), but the fabric at "
            f"{compiled.fabric.root} is {here!r}: nothing applied (allowed: a plan made for {here!r})"
        )


def stale_reasons(plan: Plan, prepared: Prepared, fetched: dict[str, Fetched]) -> list[str]:
    """Why `plan` no longer describes what apply would do because the world moved since it was
    made (the inputs, a running config); empty: what it rests on is as it was. Everything else a
    plan file says is compared with the plan derived again (`differences`)."""
    reasons: list[str] = []
    if plan.inputs_hash != prepared.inputs_hash:
        reasons.append("inputs_hash: the inputs changed since the plan (inventory/, tenants/ or templates)")
    changed = [
        name
        for name, sp in plan.switches.items()
        if sp.status != "unreachable"
        and (got := fetched.get(name)) is not None
        and got.text is not None
        and running_hash(got.text) != sp.running_hash
    ]
    if changed:
        where = f"switches.{changed[0]}.running_hash" + (" and others" if len(changed) > 1 else "")
        reasons.append(f"{where}: running config changed on {', '.join(changed)} since the plan")
    return reasons
