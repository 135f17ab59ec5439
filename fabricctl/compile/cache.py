"""The compile cache: after a one-tenant change, read only the tenants that change touches.

A whole-fabric compile that succeeds leaves a snapshot (one SQLite file per fabric root):
- the key: the fabricctl code, the Python version and every byte under inventory/;
- the fabric and its topology as JSON, the topology a pod at a time, each checked on reading
  against its schema (`_FabricRecord`, `_PodRecord`: pydantic, strict, no extra field; the
  format's version is `SCHEMA`, part of the key). Nothing in the snapshot is code: a file someone
  else wrote can at worst be wrong, and store.py refuses files that are not the user's alone;
- every tenant file's stamp (stamps.py) and what it holds: id, name, VNIs, VLAN, GPU ports,
  address block, leaves and `shared_with`, as table rows (the stamps as two arrays: `_stamps_meta`);
- the digest of every switch's intent.

The next run stamps tenants/ and compares. What differs is compiled as the whole fabric would
be, from the changed files, the tenants on the leaves they touch (before and after) and their
peers, with every cross-tenant claim checked against the snapshot. The result is the intents of
those leaves, and the snapshot's digests for every other switch.

Fail-closed: the cache only ever answers "nothing else changed, and nothing conflicts". Any doubt
(a changed inventory or fabricctl, a racy stamp, a symlink, any problem at all, a missing digest,
an unreadable cache, a maintenance.yaml: a drain in progress) gives None, and the caller compiles the whole fabric, which reports every
problem the way it always does. The snapshot lives in the user's cache folder (store.py), never
in the fabric repository.
"""

from __future__ import annotations

import array
import contextlib
import hashlib
import logging
import os
import sqlite3
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from ipaddress import IPv4Address
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from fabricctl.compile.allocate import TenantAllocation, allocate, claims, resolve_gpus
from fabricctl.compile.build import Compiled, device_intent
from fabricctl.compile.capabilities import check_capabilities
from fabricctl.compile.intent import DeviceIntent
from fabricctl.compile.topology import FabricLink, GpuPort, Topology
from fabricctl.compile.view import FabricView, read_fabric
from fabricctl.errors import StageError
from fabricctl.model.bounds import MAX_TENANT_FILES
from fabricctl.model.fabric import FabricSettings, Switch
from fabricctl.model.load import TENANT_SUFFIXES, Fabric, TenantDoc, read_tenant
from fabricctl.model.maintenance import MAINTENANCE_FILE
from fabricctl.model.problems import ProblemLog
from fabricctl.outputs import write_file
from fabricctl.procs import paused_gc
from fabricctl.stamps import RACY_NS, Stamp, now_ns
from fabricctl.store import code_fingerprint, trusted_file, trusted_folder

log = logging.getLogger(__name__)

#: The snapshot's format: its tables and the JSON records below. Part of the key, so a snapshot
#: of another format is never read.
SCHEMA = 2

_TABLES = """
CREATE TABLE meta(k TEXT PRIMARY KEY, v);
CREATE TABLE fabric(v TEXT);
CREATE TABLE pod(pod INTEGER PRIMARY KEY, v TEXT);
CREATE TABLE tenant(file TEXT PRIMARY KEY, id INTEGER, name TEXT, gpus INTEGER, leaves TEXT,
                    lo INTEGER, hi INTEGER, shared_with TEXT);
CREATE INDEX tenant_name ON tenant(name);
CREATE INDEX tenant_lo ON tenant(lo);
CREATE TABLE claim(kind TEXT, value TEXT, file TEXT, PRIMARY KEY(kind, value)) WITHOUT ROWID;
CREATE INDEX claim_file ON claim(file);
CREATE TABLE on_leaf(leaf TEXT, file TEXT, PRIMARY KEY(leaf, file)) WITHOUT ROWID;
CREATE INDEX on_leaf_file ON on_leaf(file);
CREATE TABLE peer(name TEXT, file TEXT, PRIMARY KEY(name, file)) WITHOUT ROWID;
CREATE INDEX peer_file ON peer(file);
CREATE TABLE digest(switch TEXT PRIMARY KEY, platform TEXT, v TEXT);
"""

#: Changed files beyond this many (or a twentieth of all) are compiled whole: the cache pays off
#: for the few files one change touches, not for a folder rewritten.
_FEW = 64

#: 2-tier fabrics are one pod without a number; its row in `pod` is this one.
_NO_POD = -1


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class _FabricRecord(_Record):
    """What every leaf's compile reads of the fabric and its topology, beyond its pod."""

    settings: FabricSettings
    switches: list[Switch]
    servers: list[str]
    loopback: dict[str, IPv4Address]
    vtep: dict[str, IPv4Address]
    asn: dict[str, int]
    server_pods: dict[str, int | None]  # the pod of each server's leaves


class _PodRecord(_Record):
    """One pod's share of the topology. GPU ports are listed once, per leaf; the other maps
    name them by (leaf, index in that list)."""

    gpu_ports: dict[str, list[GpuPort]]
    by_leaf_port: list[tuple[str, str, int]]  # (leaf, port key, index)
    by_server: dict[str, list[tuple[str, int] | None]]  # per NIC: (leaf, index), or no port
    breakout_parents: dict[str, list[str]]
    links: dict[str, list[FabricLink]]


def cache_file(root: Path) -> Path | None:
    """Where the snapshot of this fabric root lives (None: the cache is off, or its folder is
    not the user's alone)."""
    folder = trusted_folder()
    if folder is None:
        return None
    return folder / f"compile-{hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:20]}.sqlite"


@dataclass
class Scan:
    """tenants/ as stamped at the start of a run, before anything is read."""

    root: Path
    db_file: Path
    key: str
    taken_ns: int
    stamps: dict[str, Stamp]  # file name in tenants/ -> stamp


def scan(root: Path) -> Scan | None:
    """Stamp the inputs; None when the cache is off or the folder is not plain files."""
    db_file = cache_file(root)
    folder = root / "tenants"
    if db_file is None or folder.is_symlink() or os.path.lexists(root / MAINTENANCE_FILE):
        return None  # a drain in progress: the whole compile reads maintenance.yaml
    taken = now_ns()
    stamps: dict[str, Stamp] = {}
    try:
        key = _key(root)
        if folder.exists():
            with paused_gc(), os.scandir(folder) as entries:  # 100,000 stamps: no cycles
                for entry in entries:
                    name = entry.name
                    if entry.is_dir():  # a sub-folder is an error of its own (model/load.py)
                        return None
                    if not name.lower().endswith(TENANT_SUFFIXES):
                        continue
                    if not entry.is_file(follow_symlinks=False):
                        return None  # a symlink or a folder: the whole compile judges it
                    st = entry.stat(follow_symlinks=False)  # stamp_of, inline: 100,000 calls
                    stamps[name] = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
    except OSError:
        return None
    return Scan(root, db_file, key, taken, stamps)


def _key(root: Path) -> str:
    """Everything a snapshot depends on besides the tenants: fabricctl's code and the inventory's
    bytes."""
    h = hashlib.sha256(f"{SCHEMA}\0{code_fingerprint()}\0".encode())
    inventory = root / "inventory"
    for path in sorted(inventory.rglob("*")):
        if path.is_file():
            h.update(f"{path.relative_to(inventory)}\0".encode())
            h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


# --- writing a snapshot after a whole-fabric compile ------------------------------------------


def remember(found: Scan, compiled: Compiled, digests: dict[str, str] | None, replace: bool = True) -> None:
    """Write the snapshot of a whole-fabric compile that succeeded. Without `digests` (validate
    compiles no switch) no switch is known, so the next render compiles all; `replace=False`
    keeps a snapshot already there for the same key (its digests are worth more). A snapshot
    file that is not the user's alone is left as it is (store.trusted_file: never read or written)."""
    if os.path.lexists(found.db_file) and not trusted_file(found.db_file):
        return
    if not replace:
        opened = _open(found)
        if opened is not None:
            opened[0].close()
            return
    with paused_gc():  # half a million rows of plain tuples beside a compiled fabric
        _write(found, compiled, digests)


def _write(found: Scan, compiled: Compiled, digests: dict[str, str] | None) -> None:
    fabric, docs, topo, alloc = compiled.fabric, compiled.tenants, compiled.topology, compiled.allocation
    chunks = _pod_chunks(fabric, topo)
    if (
        chunks is None
        or {_name(td.file) for td in docs} != set(found.stamps)
        or any(td.file != f"tenants/{_name(td.file)}" for td in docs)
    ):
        log.debug("compile cache: not written (the fabric does not split into pods, or tenants/ changed)")
        return
    try:  # a cache that cannot be written is one the next run does without, never an error
        with contextlib.closing(sqlite3.connect(":memory:")) as db:
            # Built in memory, written whole (outputs.write_file, private): no journal, no syncs.
            db.executescript("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;" + _TABLES)
            record = _FabricRecord(
                settings=fabric.settings,
                switches=fabric.switches,
                servers=topo.servers,
                loopback=topo.loopback,
                vtep=topo.vtep,
                asn=topo.asn,
                server_pods=_server_pods(topo, fabric),
            )
            total = sum(len(a.ports) for a in alloc.tenants)
            _set_meta(db, key=found.key, gen=0, gpus=total)
            db.execute("INSERT INTO fabric VALUES (?)", (record.model_dump_json(),))
            db.executemany(
                "INSERT INTO pod VALUES (?, ?)",
                ((_NO_POD if pod is None else pod, chunk.model_dump_json()) for pod, chunk in chunks.items()),
            )
            _insert_tenants(db, alloc.tenants)
            _set_meta(db, **_stamps_meta(found, found.stamps, found.stamps))
            if digests is not None:
                platform = {sw.name: sw.platform for sw in fabric.switches}
                db.executemany(
                    "INSERT INTO digest VALUES (?, ?, ?)", ((n, platform[n], d) for n, d in digests.items())
                )
            db.commit()
            image = db.serialize()
        write_file(found.db_file, image, within=found.db_file.parent, mode=0o600)
    except (OSError, sqlite3.Error, ValueError, StageError) as exc:
        log.debug("compile cache: not written: %s", exc)


def _stamps_meta(found: Scan, stamps: dict[str, Stamp], fresh: Iterable[str]) -> dict[str, Any]:
    """Every tenant file's stamp as two meta values: `stamp_names` (the file names, NUL-separated
    text) and `stamp_values` (per file size, mtime, ctime, inode and whether the stamp is racy,
    five signed 64-bit integers each): 100,000 stamps read back in milliseconds, and only data.
    A stamp of a file taken now (`fresh`) within RACY_NS of its last change proves nothing yet."""
    racy = {name for name in fresh if stamps[name][2] >= found.taken_ns - RACY_NS}  # its ctime
    values = array.array("q")
    for name, (size, mtime, ctime, ino) in stamps.items():
        values.extend((size, mtime, ctime, ino if ino < 2**63 else ino - 2**64, name in racy))
    return {"stamp_names": "\0".join(stamps), "stamp_values": values.tobytes()}


def _stamps(db: sqlite3.Connection) -> tuple[dict[str, Stamp], set[str]]:
    """Every recorded stamp, and the files whose stamps prove nothing yet (`_stamps_meta`)."""
    names_text, blob = _meta(db, "stamp_names"), _meta(db, "stamp_values")
    if not isinstance(names_text, str) or not isinstance(blob, bytes):
        raise ValueError("stamps of the wrong type")
    names = names_text.split("\0") if names_text else []
    values = array.array("q")
    values.frombytes(blob)
    if len(values) != 5 * len(names) or len(set(names)) != len(names):
        raise ValueError("stamps do not match their files")
    inos: Iterable[int] = values[3::5]
    if any(ino < 0 for ino in inos):
        inos = [ino + 2**64 if ino < 0 else ino for ino in inos]
    recorded = dict(zip(names, zip(values[0::5], values[1::5], values[2::5], inos, strict=True), strict=True))
    return recorded, {name for name, racy in zip(names, values[4::5], strict=True) if racy}


def _name(file: str) -> str:
    """'tenants/a.yaml' -> 'a.yaml' (a str split: Path() costs 5 us, 100,000 times a snapshot)."""
    return file.rpartition("/")[2]


def _set_meta(db: sqlite3.Connection, **values: Any) -> None:
    db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", values.items())


def _insert_tenants(db: sqlite3.Connection, allocs: Iterable[TenantAllocation]) -> None:
    rows, held, on_leaf, peers = [], [], [], []
    for a in allocs:
        file = _name(a.file)
        block = a.tenant.address_block
        leaves = a.leaves
        rows.append(
            (
                file,
                a.tenant.id,
                a.name,
                len(a.ports),
                " ".join(leaves),
                int(block.network_address),
                int(block.broadcast_address),
                " ".join(a.tenant.shared_with),
            )
        )
        held += [(k, v, file) for k, v in claims(a)]
        on_leaf += [(leaf, file) for leaf in leaves]
        peers += [(p, file) for p in a.tenant.shared_with]
    db.executemany("INSERT INTO tenant VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    db.executemany("INSERT INTO claim VALUES (?, ?, ?)", held)
    db.executemany("INSERT INTO on_leaf VALUES (?, ?)", on_leaf)
    db.executemany("INSERT OR IGNORE INTO peer VALUES (?, ?)", peers)


def _pod_chunks(fabric: Fabric, topo: Topology) -> dict[int | None, _PodRecord] | None:
    """What a leaf's intent reads of the topology, split by pod; None when a server's NICs reach
    leaves of two pods (the cache then keeps nothing: that fabric always compiles whole)."""
    pod_of = {sw.name: sw.pod for sw in fabric.leaves}
    chunks: dict[int | None, dict[str, Any]] = {}
    where: dict[GpuPort, tuple[str, int]] = {}

    def chunk(pod: int | None) -> dict[str, Any]:
        return chunks.setdefault(
            pod, {"gpu_ports": {}, "by_leaf_port": [], "by_server": {}, "breakout_parents": {}, "links": {}}
        )

    for leaf, ports in topo.gpu_ports.items():
        chunk(pod_of[leaf])["gpu_ports"][leaf] = ports
        where.update((gp, (leaf, i)) for i, gp in enumerate(ports))
    try:
        for (leaf, key), gp in topo.by_leaf_port.items():
            chunk(pod_of[leaf])["by_leaf_port"].append((leaf, key, where[gp][1]))
        for server, ports in topo.by_server.items():
            pods = {pod_of[gp.leaf] for gp in ports if gp is not None}
            if len(pods) != 1:
                return None
            chunk(pods.pop())["by_server"][server] = [where[gp] if gp is not None else None for gp in ports]
    except KeyError:  # a port not among its leaf's GPU ports: nothing this format can say
        return None
    for leaf, value in topo.breakout_parents.items():
        if leaf in pod_of:
            chunk(pod_of[leaf])["breakout_parents"][leaf] = value
    for leaf, pod in pod_of.items():
        chunk(pod)["links"][leaf] = topo.links_of(leaf)
    return {pod: _PodRecord(**c) for pod, c in chunks.items()}


def _server_pods(topo: Topology, fabric: Fabric) -> dict[str, int | None]:
    pod_of = {sw.name: sw.pod for sw in fabric.leaves}
    return {s: next(pod_of[gp.leaf] for gp in ports if gp is not None) for s, ports in topo.by_server.items()}


# --- reading it back: a topology that loads a pod when one of its leaves is asked for ---------


class _OnDemand(dict):  # type: ignore[type-arg]  # a dict of any snapshot rows, typed by the readers that take them
    """A dict whose first lookup of a key loads the pod that holds it."""

    def __init__(self, load: Callable[[Hashable], None]) -> None:
        super().__init__()
        self._load = load

    def __missing__(self, key: Hashable) -> Any:
        self._load(key)
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        raise KeyError(key)

    def get(self, key: Hashable, default: Any = None) -> Any:
        if not dict.__contains__(self, key):
            self._load(key)
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        if not dict.__contains__(self, key):
            self._load(key)
        return dict.__contains__(self, key)


@dataclass
class _PodTopology(Topology):
    """The Topology a leaf's compile reads (its GPU ports, servers, links), loaded a pod at a time."""

    links_by_leaf: dict[str, list[FabricLink]] = field(default_factory=dict)

    def links_of(self, switch: str) -> list[FabricLink]:
        return list(self.links_by_leaf.get(switch, ()))


def _topology(db: sqlite3.Connection, record: _FabricRecord, root: Path) -> tuple[Fabric, Topology]:
    fabric = Fabric(root=root, settings=record.settings, switches=list(record.switches))
    pod_of = {sw.name: sw.pod for sw in fabric.leaves}
    server_pod = record.server_pods
    loaded: set[int | None] = set()
    maps: dict[str, _OnDemand] = {}

    def load_pod(pod: int | None) -> None:
        if pod in loaded:
            return
        loaded.add(pod)
        row = db.execute("SELECT v FROM pod WHERE pod = ?", (_NO_POD if pod is None else pod,)).fetchone()
        if row is not None:
            chunk = _PodRecord.model_validate_json(row[0])
            ports = chunk.gpu_ports
            dict.update(maps["gpu_ports"], ports)
            dict.update(
                maps["by_leaf_port"], {(leaf, key): ports[leaf][i] for leaf, key, i in chunk.by_leaf_port}
            )
            dict.update(
                maps["by_server"],
                {
                    s: [ports[at[0]][at[1]] if at is not None else None for at in nics]
                    for s, nics in chunk.by_server.items()
                },
            )
            dict.update(maps["breakout_parents"], chunk.breakout_parents)
            dict.update(maps["links"], chunk.links)

    def by(pod_of_key: Callable[[Any], Any]) -> _OnDemand:
        def load(key: Hashable) -> None:
            pod = pod_of_key(key)
            if pod is not _MISSING:
                load_pod(pod)

        return _OnDemand(load)

    leaf_pod: Callable[[Any], Any] = lambda k: pod_of.get(k, _MISSING) if isinstance(k, str) else _MISSING  # noqa: E731
    for name in ("gpu_ports", "breakout_parents", "links"):
        maps[name] = by(leaf_pod)
    maps["by_leaf_port"] = by(lambda k: pod_of.get(k[0], _MISSING) if isinstance(k, tuple) else _MISSING)
    maps["by_server"] = by(lambda k: server_pod.get(k, _MISSING))
    topo = _PodTopology(
        servers=list(record.servers),
        gpu_ports=maps["gpu_ports"],
        by_server=maps["by_server"],
        by_leaf_port=maps["by_leaf_port"],
        loopback=dict(record.loopback),
        vtep=dict(record.vtep),
        asn=dict(record.asn),
        breakout_parents=maps["breakout_parents"],
        links_by_leaf=maps["links"],
    )
    return fabric, topo


_MISSING = object()


# --- the incremental compile ------------------------------------------------------------------


@dataclass
class Changes:
    """What a run must compile after the snapshot, and what it may take from it."""

    fabric: Fabric
    tenants: int
    gpus: int
    #: The leaves the changed tenants touch, compiled now.
    intents: dict[str, DeviceIntent]
    #: Every other switch: (platform, intent digest) from the snapshot.
    unchanged: dict[str, tuple[str, str]]
    _gen: int = 0
    _gone: set[str] = field(default_factory=set)
    _new: list[TenantAllocation] = field(default_factory=list)
    _stamps: dict[str, Stamp] = field(default_factory=dict)  # the snapshot's, as this run read them


def _open(found: Scan) -> tuple[sqlite3.Connection, dict[str, Any]] | None:
    """The snapshot and its meta rows, when it is there, the user's alone and of this key."""
    if not os.path.lexists(found.db_file) or not trusted_file(found.db_file):
        return None
    db = sqlite3.connect(found.db_file)
    try:
        meta = dict(db.execute("SELECT k, v FROM meta WHERE k IN ('key', 'gen', 'gpus')").fetchall())
    except sqlite3.Error:
        meta = {}
    if meta.get("key") != found.key:
        db.close()
        return None
    return db, meta


def changes(found: Scan, intents: bool = True) -> Changes | None:
    """The incremental compile (module docstring); None: compile the whole fabric."""
    opened = _open(found)
    if opened is None:
        return None
    db, meta = opened
    try:
        with paused_gc():
            return _changes(found, db, meta, intents)
    except (sqlite3.Error, ValidationError, KeyError, ValueError, TypeError, IndexError) as exc:
        log.debug("compile cache: unreadable, compiling the whole fabric: %s", exc)
        return None
    finally:
        db.close()


def _changes(found: Scan, db: sqlite3.Connection, meta: dict[str, Any], with_intents: bool) -> Changes | None:
    def fallback(why: str) -> Changes | None:
        log.debug("compile cache: %s; compiling the whole fabric", why)
        return None

    if len(found.stamps) > MAX_TENANT_FILES:
        return fallback("too many tenant files")
    recorded, racy = _stamps(db)
    # A file differs from the snapshot when its stamp does (a set difference: 100,000 stamps in
    # 20 ms), or when its stamp was taken too close to its last change to prove anything.
    changed = {name for name, _ in found.stamps.items() - recorded.items()} | (racy & found.stamps.keys())
    removed = set(recorded) - set(found.stamps)
    if len(changed) + len(removed) > max(_FEW, len(found.stamps) // 20):
        return fallback(f"{len(changed) + len(removed)} tenant files changed")  # a whole compile is cheaper
    gone = (changed | removed) & set(recorded)  # files whose snapshot rows no longer hold
    root, folder = found.root, found.root / "tenants"
    problems = ProblemLog(root)
    new_docs = [read_tenant(folder / name, problems) for name in sorted(changed)]
    if problems.problems or any(td is None for td in new_docs):
        return fallback("a changed tenant file has a problem")
    row = db.execute("SELECT v FROM fabric").fetchone()
    if row is None:
        return fallback("no fabric in the snapshot")
    fabric, topo = _topology(db, _FabricRecord.model_validate_json(row[0]), root)
    view = read_fabric(fabric)  # read once for every lookup below
    docs = [td for td in new_docs if td is not None]

    old, leaves, core, context = _scope(db, gone, docs, topo, view, root)
    for name in sorted(core | context):
        td = read_tenant(folder / name, problems)
        if td is None:
            return fallback(f"{name} no longer reads")
        docs.append(td)
    if problems.problems:
        return fallback("a tenant file has a problem")
    docs.sort(key=_by_id)
    scratch = ProblemLog(root)
    alloc = allocate(view, topo, docs, scratch)
    check_capabilities(view, alloc, docs, scratch)
    context_files = {f"tenants/{name}" for name in context}
    blocking = [p for p in scratch.problems if p.file not in context_files]
    if blocking:
        return fallback(f"the changed tenants have a problem ({blocking[0].render()})")
    new = [a for a in alloc.tenants if _name(a.file) in changed]
    if _conflicts(db, new, gone):
        return fallback("a changed tenant claims what another holds")

    unchanged: dict[str, tuple[str, str]] = {}
    intents: dict[str, DeviceIntent] = {}
    if with_intents:
        unchanged = {s: (p, d) for s, p, d in db.execute("SELECT switch, platform, v FROM digest")}
        if len(unchanged) != len(fabric.switches):
            return fallback("not every switch has a digest")
        for leaf in sorted(leaves):
            sw = view.switch(leaf)
            assert sw is not None
            intents[leaf] = device_intent(view, topo, alloc, sw)
            del unchanged[leaf]
    gpus = int(meta["gpus"]) - sum(r["gpus"] for r in old) + sum(len(a.ports) for a in new)
    return Changes(
        fabric=fabric,
        tenants=len(found.stamps),
        gpus=gpus,
        intents=intents,
        unchanged=unchanged,
        _gen=int(meta["gen"]),
        _gone=gone,
        _new=new,
        _stamps=recorded,
    )


def _scope(
    db: sqlite3.Connection,
    gone: set[str],
    docs: list[TenantDoc],
    topo: Topology,
    view: FabricView,
    root: Path,
) -> tuple[list[dict[str, Any]], set[str], set[str], set[str]]:
    """What a change of the tenant files `gone` (now read as `docs`) touches: their snapshot rows,
    the leaves they are on before and after, the files allocated again with them (`core`: the
    tenants on those leaves and their peers) and the files only read for context (the core's
    peers)."""
    old = _rows(db, "file", gone)
    # The changed tenants' leaves after the change (problems are judged once, by the caller).
    new_leaves = {gp.leaf for td in docs for gp in resolve_gpus(td, topo, view, ProblemLog(root))}
    # Their peers before and after, and whoever names them: those tenants' ACLs change too.
    names = {r["name"] for r in old} | {td.tenant.name for td in docs}
    peer_names = {p for r in old for p in r["shared_with"]} | {
        p for td in docs for p in td.tenant.shared_with
    }
    referrers = _column(db, "SELECT file FROM peer WHERE name IN ({})", names)
    peers = [r for r in _rows(db, "name", peer_names) + _rows(db, "file", referrers) if r["file"] not in gone]
    leaves = {leaf for r in old + peers for leaf in r["leaves"]} | new_leaves
    core = (
        _column(db, "SELECT file FROM on_leaf WHERE leaf IN ({})", leaves) | {r["file"] for r in peers}
    ) - gone
    core_rows = _rows(db, "file", core)
    context_names = {p for r in core_rows for p in r["shared_with"]} | {
        p for td in docs for p in td.tenant.shared_with
    }
    context = {r["file"] for r in _rows(db, "name", context_names)} - core - gone
    return old, leaves, core, context


def _by_id(td: TenantDoc) -> int:
    return td.tenant.id


def _meta(db: sqlite3.Connection, key: str) -> Any:
    row = db.execute("SELECT v FROM meta WHERE k = ?", (key,)).fetchone()
    if row is None:
        raise KeyError(key)
    return row[0]


def _in(values: Iterable[str]) -> tuple[str, list[str]]:
    items = sorted(values)
    return ", ".join("?" * len(items)), items


def _column(db: sqlite3.Connection, query: str, values: set[str]) -> set[str]:
    if not values:
        return set()
    marks, items = _in(values)
    return {row[0] for row in db.execute(query.format(marks), items)}


def _rows(db: sqlite3.Connection, column: str, values: set[str]) -> list[dict[str, Any]]:
    if not values:
        return []
    marks, items = _in(values)
    rows = db.execute(
        f"SELECT file, name, gpus, leaves, shared_with FROM tenant WHERE {column} IN ({marks})", items
    )
    return [
        {"file": f, "name": n, "gpus": g, "leaves": leaves.split(), "shared_with": shared.split()}
        for f, n, g, leaves, shared in rows
    ]


def _conflicts(db: sqlite3.Connection, new: list[TenantAllocation], gone: set[str]) -> bool:
    """True when a changed tenant claims a number, name, GPU or addresses an unchanged one holds
    (changed tenants against each other were checked by `allocate`)."""
    for a in new:
        for kind, value in claims(a):
            row = db.execute("SELECT file FROM claim WHERE kind = ? AND value = ?", (kind, value)).fetchone()
            if row is not None and row[0] not in gone:
                return True
        block = a.tenant.address_block
        lo, hi = int(block.network_address), int(block.broadcast_address)
        inside = db.execute("SELECT file FROM tenant WHERE lo BETWEEN ? AND ?", (lo, hi))
        if any(f not in gone for (f,) in inside):
            return True
        # Snapshot blocks never overlap, so only the nearest one starting below can reach lo.
        for f, end in db.execute("SELECT file, hi FROM tenant WHERE lo < ? ORDER BY lo DESC", (lo,)):
            if f not in gone:
                if end >= lo:
                    return True
                break
    return False


def save(found: Scan, done: Changes, digests: dict[str, str]) -> None:
    """Bring the snapshot up to a run that compiled `done` and rendered it (digests of its
    switches). Skipped when another run wrote the snapshot meanwhile."""
    opened = _open(found)
    if opened is None:
        return
    db = opened[0]
    try:
        db.execute("BEGIN IMMEDIATE")
        if int(_meta(db, "gen")) != done._gen:
            db.rollback()
            return
        stamps = done._stamps
        if done._gone:
            marks, items = _in(done._gone)
            for table in ("tenant", "claim", "on_leaf", "peer"):
                db.execute(f"DELETE FROM {table} WHERE file IN ({marks})", items)
        _insert_tenants(db, done._new)
        for name in done._gone:
            stamps.pop(name, None)
        fresh = {_name(a.file) for a in done._new}
        for name in fresh:
            stamps[name] = found.stamps[name]
        platform = {sw.name: sw.platform for sw in done.fabric.switches}
        db.executemany(
            "INSERT OR REPLACE INTO digest VALUES (?, ?, ?)",
            ((n, platform[n], d) for n, d in digests.items() if n in done.intents),
        )
        _set_meta(db, **_stamps_meta(found, stamps, fresh), gen=done._gen + 1, gpus=done.gpus)
        db.commit()
    except (OSError, sqlite3.Error, KeyError) as exc:
        log.debug("compile cache: not updated: %s", exc)
    finally:
        db.close()
