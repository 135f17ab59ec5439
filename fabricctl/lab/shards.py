"""A lab too big for one process: the switches split over N lab processes (shards), one host or
several, each serving its own switches and deriving the whole fabric's state.

Which shard serves a switch (`assign`) is a function of the inventory and N alone, so every shard
(and every client) computes the same split: the leaves and spines of a pod stay together, the
super-spines go by plane, and a fabric without pods is cut into N runs of switches in inventory
order; shards get as equal a count as those units allow.

What a shard knows of the others' switches (`Board`): each shard writes, under
`.fabricctl/lab/shards/`, one small file saying what changed on its switches (a generation per
switch that changed, its boot time, the faults that change the fabric's state: links and BGP
sessions held down, PFC storms, counter faults), and every switch stores the facts of its running
config beside it (device.FACTS). A shard reads another's file when it changed (one `stat` per
shard per state read) and then only the facts of the switches whose generation moved: the facts
are read, never the configs parsed (the cheaper of the two; bench/bench_lab_shards.py measures
both). A switch nobody changed has no entry: every shard derives its factory facts itself.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fabricctl.errors import StageError
from fabricctl.lab.device import RUNNING, resting_facts
from fabricctl.lab.factory import DeviceSpec
from fabricctl.lab.facts import DeviceFacts
from fabricctl.lab.nos import lab_nos
from fabricctl.lab.runtime import shards_dir
from fabricctl.lab.state import StateStore
from fabricctl.outputs import write_file

#: Shards of one lab at most (a 100,000-GPU fabric is 4,160 switches: 8-16 shards).
MAX_SHARDS = 64
_SHARD = re.compile(r"([1-9][0-9]{0,2})/([1-9][0-9]{0,2})")


class ShardError(StageError):
    """A shard that cannot be (bad K/N, more shards than switches)."""


@dataclass(frozen=True)
class Shard:
    """Shard `index` (1-based) of `count`."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """`K/N` (shard K of N, 1 <= K <= N <= MAX_SHARDS); ShardError naming what is allowed."""
        m = _SHARD.fullmatch(text.strip())
        if m is None or not 1 <= int(m[1]) <= int(m[2]) <= MAX_SHARDS:
            raise ShardError(f"--shard {text!r}: allowed K/N, shard K of N, 1 <= K <= N <= {MAX_SHARDS}")
        return cls(int(m[1]), int(m[2]))

    def label(self) -> str:
        return f"{self.index}/{self.count}"


def assign(specs: Iterable[DeviceSpec], count: int) -> list[list[str]]:
    """The switches of each of `count` shards (index 0 = shard 1), each in inventory order.

    Units never split: a pod's leaves and spines, a plane's super-spines (`DeviceSpec.domain`);
    in a fabric without them, N runs of consecutive switches. The largest unit goes first to the
    shard with the fewest switches (the lowest index on a tie), so the split is the same in every
    process that reads the same inventory."""
    specs = list(specs)
    if not 1 <= count <= MAX_SHARDS:
        raise ShardError(f"--shards {count}: allowed 1 to {MAX_SHARDS}")
    if count > len(specs):
        raise ShardError(
            f"--shards {count}: the fabric has {len(specs)} switches (allowed: at most that many)"
        )
    order = {s.name: i for i, s in enumerate(specs)}
    if not any(s.domain for s in specs):
        return [
            [s.name for s in specs[k * len(specs) // count : (k + 1) * len(specs) // count]]
            for k in range(count)
        ]
    units: dict[str, list[str]] = {}
    for s in specs:
        units.setdefault(s.domain or f"switch:{s.name}", []).append(s.name)
    shards: list[list[str]] = [[] for _ in range(count)]
    for members in sorted(units.values(), key=lambda m: (-len(m), order[m[0]])):
        smallest = min(range(count), key=lambda k: (len(shards[k]), k))
        shards[smallest].extend(members)
    if not all(shards):
        raise ShardError(
            f"--shards {count}: the fabric has only {len(units)} pods and planes to share out "
            f"(allowed: at most {len(units)})"
        )
    return [sorted(members, key=order.__getitem__) for members in shards]


def board_path(folder: Path, index: int) -> Path:
    return folder / f"{index}.state.json"


def info_path(folder: Path, index: int) -> Path:
    """A running shard's lab.json (pid, endpoints of its switches)."""
    return folder / f"{index}.json"


#: What a shard publishes per switch (Remote's fields of the same names).
PUBLISHED = ("generation", "boot", "links_down", "bgp_down", "storms", "onsets")


@dataclass
class Remote:
    """A switch another shard serves, as this shard sees it: what that shard published."""

    spec: DeviceSpec
    shard: int  # the shard that serves it (1-based)
    generation: int = 0
    boot: float = 0.0
    links_down: frozenset[str] = frozenset()
    bgp_down: frozenset[str] = frozenset()
    storms: dict[str, float] = field(default_factory=dict)
    onsets: dict[str, dict[str, float]] = field(default_factory=dict)
    _facts: tuple[int, DeviceFacts] | None = None

    def facts(self, store: StateStore) -> DeviceFacts:
        if self._facts is None or self._facts[0] != self.generation:
            self._facts = (self.generation, resting_facts(self.spec, store) or stored_facts(self.spec, store))
        return self._facts[1]


def stored_facts(spec: DeviceSpec, store: StateStore) -> DeviceFacts:
    """The facts of the running config a switch stored, read from the config itself (its stored
    facts are missing or older: a shard killed between the two writes)."""
    from fabricctl.lab.device import _load

    text = store.read(spec.name, RUNNING) or ""
    nos = lab_nos(spec.platform)
    try:
        tree = nos.parse_config(text) if nos.parse_config is not None else _load(spec.platform, text)
    except Exception:  # a file the NOS would not load: the switch says nothing
        return DeviceFacts(hostname=spec.name, platform=spec.platform, model=spec.model)
    facts = nos.read_facts(spec.name, tree)
    facts.platform, facts.model = spec.platform, spec.model
    return facts


class Board:
    """This shard's published state, and what it read of the other shards'."""

    def __init__(self, folder: Path, shard: Shard, remote: dict[str, Remote]) -> None:
        self.folder = folder
        self.shard = shard
        self.remote = remote
        self.version = 0  # counts changes read from other shards
        self._stamps: dict[int, tuple[int, int, int]] = {}
        self._epochs: dict[int, str] = {}
        self.epoch = os.urandom(8).hex()  # this process: a restarted shard counts generations anew

    def publish(self, entries: dict[str, dict[str, Any]]) -> None:
        """Write this shard's entries (switch -> generation, boot, faults), atomically."""
        data = {"shard": self.shard.label(), "epoch": self.epoch, "switches": entries}
        text = json.dumps(data, separators=(",", ":"))
        write_file(board_path(self.folder, self.shard.index), text + "\n", within=self.folder)

    def refresh(self) -> bool:
        """Read the other shards' files that changed since the last read; True when one did."""
        moved = False
        for k in range(1, self.shard.count + 1):
            if k == self.shard.index:
                continue
            path = board_path(self.folder, k)
            try:
                st = path.stat()
            except OSError:
                continue  # not started yet: its switches are as they left the factory (or the state dir)
            stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
            if self._stamps.get(k) == stamp:
                continue
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                entries, epoch = data["switches"], str(data["epoch"])
            except (OSError, ValueError, KeyError, TypeError):
                continue  # read again on the next call
            self._stamps[k] = stamp
            if self._epochs.get(k) != epoch:  # another process serves shard k now: read all anew
                self._epochs[k] = epoch
                for switch in self.remote.values():
                    if switch.shard == k:
                        switch.generation, switch._facts = 0, None
                moved = True
            moved |= self._apply(entries)
        if moved:
            self.version += 1
        return moved

    def _apply(self, entries: Any) -> bool:
        moved = False
        if not isinstance(entries, dict):
            return False
        for name, entry in entries.items():
            switch = self.remote.get(name)
            if switch is None or not isinstance(entry, dict):
                continue
            try:
                new = (
                    int(entry.get("generation", 0)),
                    float(entry.get("boot", 0.0)),
                    frozenset(str(p) for p in entry.get("links_down", [])),
                    frozenset(str(p) for p in entry.get("bgp_down", [])),
                    {str(p): float(t) for p, t in entry.get("storms", {}).items()},
                    {
                        str(k): {str(p): float(t) for p, t in v.items()}
                        for k, v in entry.get("onsets", {}).items()
                    },
                )
            except (TypeError, ValueError, AttributeError):
                continue
            if new != tuple(getattr(switch, f) for f in PUBLISHED):
                for name_of_field, value in zip(PUBLISHED, new, strict=True):
                    setattr(switch, name_of_field, value)
                moved = True
        return moved


def clear(root: Path) -> None:
    """Forget the files of earlier shards (a new lab starts from the switches' stored state)."""
    folder = shards_dir(root)
    if folder.is_dir():
        for path in folder.iterdir():
            if path.is_file() and path.suffix in (".json", ".known_hosts"):
                os.unlink(path)
