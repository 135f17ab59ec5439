"""The chain of run records: each finished record names the one finished before it in its store
by run id and digest, and the store keeps its tip, so a record removed, edited or moved breaks a
link that `fabricctl history --verify` names (record.py says where the stores are)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from fabricctl.deploy.plan import digest_of
from fabricctl.model.text import printable

LOCAL = "local"


def record_digest(text: str) -> str:
    """The digest of a record as stored (its redacted text): sha256 of its canonical JSON."""
    return digest_of(json.loads(text))


def next_link(store: str, tip: dict[str, Any] | None) -> dict[str, Any]:
    """The `chain` of a record appended after `tip` (None: the store's first)."""
    if tip is None:
        return {"store": store, "seq": 1, "previous": None, "previous_digest": None}
    return {
        "store": store,
        "seq": tip["seq"] + 1,
        "previous": tip["run_id"],
        "previous_digest": tip["digest"],
    }


def read_tip(text: str | None) -> dict[str, Any] | None:
    """A store's tip as written, or None (none yet, or not a tip: `verify` says so)."""
    try:
        tip = json.loads(text) if text else None
    except ValueError:
        return None
    ok = (
        isinstance(tip, dict)
        and isinstance(tip.get("seq"), int)
        and not isinstance(tip.get("seq"), bool)
        and isinstance(tip.get("run_id"), str)
        and isinstance(tip.get("digest"), str)
    )
    return tip if ok else None


def tip_of(text: str, data: dict[str, Any]) -> dict[str, Any]:
    """The tip a store holds once `data` (stored as `text`) is appended."""
    chain = data["chain"]
    return {
        "store": chain["store"],
        "seq": chain["seq"],
        "run_id": data["run_id"],
        "digest": record_digest(text),
    }


@dataclass
class ChainCheck:
    """What `verify` found in one store: the first broken link (empty: intact)."""

    store: str
    records: int = 0  # chained records
    unchained: int = 0  # finished before chains existed, or still in progress
    tip: str = ""
    broken: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.broken


def _link(data: Any) -> dict[str, Any] | None:
    chain = data.get("chain") if isinstance(data, dict) else None
    if not isinstance(chain, dict):
        return None
    seq = chain.get("seq")
    return chain if isinstance(seq, int) and not isinstance(seq, bool) and seq >= 1 else None


def verify(store: str, texts: dict[str, str], tip_text: str | None) -> ChainCheck:
    """Check the records of one store (name -> stored text; a local file's name is its run id)
    against each other and the store's tip, in chain order; stops at the first broken link."""
    check = ChainCheck(store)
    by_seq: dict[int, tuple[str, dict[str, Any], str]] = {}
    for name, text in sorted(texts.items()):
        try:
            data = json.loads(text)
        except ValueError:
            check.broken.append(f"{printable(name)}: not JSON (a record edited by hand?)")
            return check
        link = _link(data)
        if link is None or link.get("store") != store:
            if isinstance(data, dict) and ("chain" in data or data.get("state") == "finished"):
                if "chain" in data and link is not None:
                    continue  # chained in another store (verified there)
                if "chain" in data:
                    check.broken.append(f"run {printable(name)}: its chain field is not a link")
                    return check
            check.unchained += 1
            continue
        if data.get("run_id") != name:
            check.broken.append(
                f"record {printable(name)} holds run {printable(str(data.get('run_id')))} (moved or renamed)"
            )
            return check
        seq = link["seq"]
        if seq in by_seq:
            check.broken.append(
                f"runs {by_seq[seq][0]} and {printable(name)} both claim place {seq} in the chain (reordered or copied)"
            )
            return check
        by_seq[seq] = (name, link, text)
    check.records = len(by_seq)
    previous: tuple[str, str] | None = None  # run id, digest
    for seq in range(1, max(by_seq, default=0) + 1):
        if seq not in by_seq:
            after = next(s for s in sorted(by_seq) if s > seq)
            check.broken.append(
                f"place {seq} of the chain is missing: run {by_seq[after][0]} follows run "
                f"{previous[0] if previous else '(none)'} (a record was removed)"
            )
            return check
        name, link, text = by_seq[seq]
        said = (link.get("previous"), link.get("previous_digest"))
        expected = (previous[0], previous[1]) if previous else (None, None)
        if said[0] != expected[0]:
            check.broken.append(
                f"run {name} (place {seq}) follows {printable(str(said[0]))}, but the chain's run before it "
                f"is {expected[0] or '(none)'} (reordered?)"
            )
            return check
        if said[1] != expected[1]:
            check.broken.append(
                f"run {expected[0]} (place {seq - 1}) was edited after run {name} recorded its digest"
            )
            return check
        previous = (name, record_digest(text))
    tip = read_tip(tip_text)
    if previous is None:
        if tip is not None:
            check.broken.append(
                f"the store's tip names run {printable(tip['run_id'])}, but no chained record is left"
            )
        return check
    check.tip = previous[0]
    if tip is None:
        check.broken.append(
            f"the store's tip is missing or unreadable (the newest record is run {previous[0]})"
        )
    elif (tip["run_id"], tip["digest"], tip["seq"]) != (previous[0], previous[1], len(by_seq)):
        if tip["seq"] > len(by_seq):
            check.broken.append(
                f"the tip names run {printable(tip['run_id'])} at place {tip['seq']}, after the newest record "
                f"left, run {previous[0]} (place {len(by_seq)}): records were removed"
            )
        else:
            check.broken.append(f"run {previous[0]}, the newest, was edited or the tip was changed")
    return check
