"""Sharded applies: one failure domain of a reviewed plan per runner (`apply PLAN --shard pod:N`,
`--shard superspine`), the CI's own matrix as the transport.

The shards of one reviewed plan form a run group (`--run-group`, the CI run's id): their records
carry `run_group` and `shard`, `history` shows them as one run, and they share the fabric lock
(lock.py). A shard does not start after another shard of its group failed or stopped (the
earlier wave did not finish cleanly), nor the super-spines while a pod of the group still runs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fabricctl.errors import StageError

if TYPE_CHECKING:
    from fabricctl.compile.build import Compiled
    from fabricctl.deploy.plan import Plan

GROUP = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
#: Switch outcomes after which a later wave must not start.
BAD = ("failed", "rolled back", "interrupted")


class ShardError(StageError):
    """A shard that must not run (bad name, or an earlier wave that failed): nothing applied."""


def shard_members(compiled: Compiled, shard: str) -> set[str]:
    """The switches of `shard`: `pod:N` (its leaves and spines), `superspine`, or `all`."""
    if shard == "all":
        return set(compiled.intents)
    pods = sorted({p for p in compiled.fabric.pods if p is not None})
    allowed = ", ".join(
        [*(f"pod:{p}" for p in pods), *(["superspine"] if compiled.fabric.superspines else []), "all"]
    )
    if shard == "superspine":
        found = {n for n, i in compiled.intents.items() if i.role == "superspine"}
    elif shard.startswith("pod:") and shard[4:].isdigit() and len(shard) <= 8:
        number = int(shard[4:])
        found = {
            n for n in compiled.intents if (sw := compiled.fabric.switch(n)) is not None and sw.pod == number
        }
    else:
        found = set()
    if not found:
        raise ShardError(f"--shard {shard}: no such failure domain in this fabric (allowed: {allowed})")
    return found


def shards_of(compiled: Compiled, plan: Plan) -> dict[str, Any]:
    """The shards a plan's changes fall in, for a CI matrix: {"pods": [...], "superspine": bool}.
    A fabric without pods is one shard, `all`."""
    changed = set(plan.changed)
    pods = sorted({p for p in compiled.fabric.pods if p is not None})
    if not pods:
        return {"pods": ["all"] if changed else [], "superspine": False}
    out = [f"pod:{p}" for p in pods if changed & shard_members(compiled, f"pod:{p}")]
    spines = bool(compiled.fabric.superspines) and bool(changed & shard_members(compiled, "superspine"))
    return {"pods": out, "superspine": spines}


def check_group(group: str) -> None:
    if not GROUP.fullmatch(group):
        raise ShardError(f"--run-group {group!r}: not a run id (allowed: letters, digits, . _ -, up to 64)")


def group_records(root: Path, shared: dict[str, str], group: str) -> list[dict[str, Any]]:
    """The records of run group `group`: on the remote (`shared`) and in this checkout."""
    return [d for d in all_records(root, shared) if d.get("run_group") == group]


def all_records(root: Path, shared: dict[str, str]) -> list[dict[str, Any]]:
    """Every run record on the remote (`shared`) and in this checkout (this checkout's copy of a
    run wins: it is the newer)."""
    from fabricctl.deploy.record import runs_dir

    texts = dict(shared)
    folder = runs_dir(root)
    if folder.is_dir():
        for path in folder.glob("*.json"):
            texts[path.stem] = path.read_text(encoding="utf-8", errors="replace")
    out = []
    for text in texts.values():
        try:
            data = json.loads(text)
        except ValueError:
            continue
        if isinstance(data, dict):
            out.append(data)
    return out


def unfinished_run(records: Iterable[dict[str, Any]], digest: str, shard: str) -> str | None:
    """The run id of this plan's (`digest`) latest try on `shard` ('' for a whole apply) when that
    try did not end cleanly (killed, stopped, or a switch failed, was skipped or rolled back): the
    run an apply of the same plan resumes. None: no such try, or it finished cleanly."""
    tries = [d for d in records if d.get("plan_hash") == digest and str(d.get("shard") or "") == shard]
    if not tries:
        return None
    last = max(tries, key=lambda d: str(d.get("run_id", "")))
    switches = last["switches"] if isinstance(last.get("switches"), dict) else {}
    clean = last.get("state") == "finished" and not any(
        isinstance(sw, dict) and sw.get("status") in (*BAD, "skipped") for sw in switches.values()
    )
    return None if clean else str(last.get("run_id", ""))


def earlier_wave_problem(records: Iterable[dict[str, Any]], shard: str) -> str:
    """Why `shard` must not start, given its group's records ('' when it may). Only each shard's
    latest try counts: a killed or failed shard that ran again is judged by its new run."""
    latest: dict[str, dict[str, Any]] = {}
    for data in sorted(records, key=lambda d: str(d.get("run_id", ""))):
        latest[str(data.get("shard", ""))] = data
    for other, data in latest.items():
        if other == shard:
            continue  # this shard's own earlier try: running it again is the fix
        switches = data["switches"] if isinstance(data.get("switches"), dict) else {}
        bad = sorted(n for n, sw in switches.items() if isinstance(sw, dict) and sw.get("status") in BAD)
        where = f"shard {other} (run {data.get('run_id')})"
        if bad:
            return f"{where} did not apply {', '.join(bad[:8])}"
        if data.get("state") in ("stopped", "ended"):
            return f"{where} stopped: {data.get('stopped_reason') or 'no reason recorded'}"
        if shard == "superspine" and data.get("state") == "in progress":
            return f"{where} is still running: the super-spines go after every pod"
    return ""
