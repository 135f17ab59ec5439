"""`plan --changed-since REF`: the switches and tenants a git change touches.

The fabric at REF is materialised from git objects into a temp dir (`git archive`), never by
checking anything out, so the working tree and the index stay untouched while others work in
them. A switch is selected when its intent YAML or its rendered config differs between REF and
the working tree: a one-tenant pull request then reads only that tenant's leaves, while the
working tree is still validated and verified as a whole by `prepare`.
"""

from __future__ import annotations

import hashlib
import io
import subprocess
import tarfile
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fabricctl.deploy.plan import INPUT_DIRS
from fabricctl.errors import StageError

if TYPE_CHECKING:
    from fabricctl.compile.allocate import Allocation
    from fabricctl.compile.build import Compiled
    from fabricctl.compile.moves import GpuMove
    from fabricctl.model.load import Fabric


class ChangedSinceError(StageError):
    """REF cannot be used (no git repository, unknown revision, git failed)."""


@dataclass
class TenantChange:
    """One tenant's part in a change, for the PR summary and machines (plan JSON `tenants`)."""

    name: str
    change: str  # added / changed / removed / affected
    gpus: int
    gpus_before: int | None = None
    leaves: list[str] = field(default_factory=list)
    fields: list[str] = field(default_factory=list)  # tenant-file fields that changed
    #: What the change does to the tenant's running service (deploy/disruption.py), and why.
    classes: list[str] = field(default_factory=list)
    evidence: dict[str, list[str]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class RefFabric:
    """The fabric as it was at REF; `compiled` is None when REF has no fabric or it does not build."""

    ref: str
    commit: str
    compiled: Compiled | None
    fingerprints: dict[str, str]
    problem: str | None = None  # why REF could not be compiled (every switch is then selected)


def _git(root: Path, *args: str, binary: bool = False) -> Any:
    try:
        proc = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, check=False, text=not binary
        )
    except FileNotFoundError:
        raise ChangedSinceError("--changed-since needs git, which is not installed") from None
    if proc.returncode != 0:
        err = proc.stderr.decode(errors="replace") if binary else proc.stderr
        raise ChangedSinceError(err.strip().splitlines()[-1] if err.strip() else f"git {args[0]} failed")
    return proc.stdout


def resolve_commit(root: Path, ref: str) -> str:
    """The commit id of REF, or a clear error (not a repository, unknown revision)."""
    try:
        _git(root, "rev-parse", "--show-toplevel")
    except ChangedSinceError as exc:
        raise ChangedSinceError(f"--changed-since {ref}: {root} is not in a git repository ({exc})") from None
    if ref.startswith("-"):
        raise ChangedSinceError(f"--changed-since {ref}: not a revision")
    try:
        return str(
            _git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
        ).strip()
    except ChangedSinceError:
        raise ChangedSinceError(
            f"--changed-since {ref}: no such commit in {root} (fetch it first, e.g. 'git fetch origin'; "
            "CI checkouts need the full history: fetch-depth: 0)"
        ) from None


def materialise(root: Path, commit: str, dest: Path) -> bool:
    """Write REF's inventory/, tenants/ and templates/ (those that exist) under `dest`.

    Paths are taken relative to `root` inside the repository, so a fabric in a sub-folder works.
    Returns False when REF has no inventory/ (the fabric did not exist yet).
    """
    prefix = str(_git(root, "rev-parse", "--show-prefix")).strip()
    tree = f"{commit}:{prefix}" if prefix else commit
    try:
        listing = str(_git(root, "ls-tree", "--name-only", tree)).split("\n")
    except ChangedSinceError:
        return False  # the fabric folder itself did not exist at REF
    present = [d for d in INPUT_DIRS if d in listing]
    if "inventory" not in present:
        return False
    data = _git(root, "archive", "--format=tar", tree, *present, binary=True)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        if hasattr(tarfile, "data_filter"):  # Python >= 3.11.4: refuse links and paths leaving dest
            tar.extractall(dest, filter="data")
        else:  # pragma: no cover - git archive of our own repository only holds plain members
            tar.extractall(dest)
    return True


def fingerprints(compiled: Compiled, configs: dict[str, str]) -> dict[str, str]:
    """Per switch: sha256 over its intent YAML and its rendered config (either may change alone)."""
    from fabricctl.artifacts import intent_yaml

    out = {}
    for name, intent in compiled.intents.items():
        h = hashlib.sha256(intent_yaml(intent).encode())
        h.update(b"\0")
        h.update(configs[name].encode())
        out[name] = h.hexdigest()
    return out


def load_ref(root: Path, ref: str) -> RefFabric:
    """Compile and render the fabric at REF in a temp dir (the working tree is never touched)."""
    from fabricctl.compile.build import compile_fabric
    from fabricctl.model.problems import InputError
    from fabricctl.render import Renderer, RenderError

    commit = resolve_commit(root, ref)
    with tempfile.TemporaryDirectory(prefix="fabricctl-ref-") as tmp:
        base = Path(tmp)
        if not materialise(root, commit, base):
            return RefFabric(ref, commit, None, {}, None)
        try:
            compiled = compile_fabric(base)
            configs = Renderer(base).render_all(compiled.intents)  # the unchanged switches: from the store
        except InputError as exc:
            return RefFabric(ref, commit, None, {}, f"the fabric at {ref} does not compile: {exc.render()}")
        except RenderError as exc:
            return RefFabric(ref, commit, None, {}, f"the fabric at {ref} does not render: {exc}")
    return RefFabric(ref, commit, compiled, fingerprints(compiled, configs))


def select_changed(before: RefFabric, now: dict[str, str], order: list[str]) -> list[str]:
    """Switches (in `order`) whose fingerprint differs from REF, or all when REF is unusable."""
    if before.compiled is None and before.problem is not None:
        return list(order)
    return [n for n in order if before.fingerprints.get(n) != now.get(n)]


def _tenant_ports(compiled: Compiled | None) -> dict[str, dict[str, set[str]]]:
    """tenant -> leaf -> port keys it holds there."""
    out: dict[str, dict[str, set[str]]] = {}
    if compiled is None:
        return out
    for a in compiled.allocation.tenants:
        per = out.setdefault(a.name, {})
        for p in a.ports:
            per.setdefault(p.gpu.leaf, set()).add(p.gpu.key)
    return out


def tenant_changes(before: Compiled | None, after: Compiled) -> list[TenantChange]:
    """Tenants added, changed (which fields; GPUs before/after) and removed between two compiles."""
    old = {td.tenant.name: td.tenant.model_dump(mode="json") for td in (before.tenants if before else [])}
    new = {td.tenant.name: td.tenant.model_dump(mode="json") for td in after.tenants}
    old_ports, new_ports = _tenant_ports(before), _tenant_ports(after)
    out: list[TenantChange] = []
    for name in sorted(new.keys() - old.keys()):
        ports = new_ports.get(name, {})
        out.append(TenantChange(name, "added", _count(ports), None, sorted(ports)))
    for name in sorted(new.keys() & old.keys()):
        if old[name] == new[name]:
            continue
        fields = sorted(
            k for k in new[name].keys() | old[name].keys() if old[name].get(k) != new[name].get(k)
        )
        before_p, after_p = old_ports.get(name, {}), new_ports.get(name, {})
        if fields == ["gpus"]:  # only the GPU set moved: the leaves whose ports differ
            leaves = sorted(
                lf for lf in before_p.keys() | after_p.keys() if before_p.get(lf) != after_p.get(lf)
            )
        else:  # a tenant-wide setting: every leaf it is or was on
            leaves = sorted(before_p.keys() | after_p.keys())
        out.append(TenantChange(name, "changed", _count(after_p), _count(before_p), leaves, fields))
    for name in sorted(old.keys() - new.keys()):
        ports = old_ports.get(name, {})
        out.append(TenantChange(name, "removed", 0, _count(ports), sorted(ports)))
    return out


def _count(ports: dict[str, set[str]]) -> int:
    return sum(len(v) for v in ports.values())


def inventory_changed_since(root: Path, ref: str | None) -> tuple[str, str] | None:
    """(REF, its commit) when inventory/ differs from REF (HEAD when None): only an inventory
    change can move a held GPU. None when it is as at REF, or, without an explicit REF, when
    there is no git commit to compare with; an explicit REF git cannot resolve is an error."""
    from fabricctl.gitinfo import differs_from, head_commit

    if ref is None:
        ref, commit = "HEAD", head_commit(root)
        if commit is None:
            return None
    else:
        commit = resolve_commit(root, ref)
    return (ref, commit) if differs_from(root, commit, "inventory") else None


@dataclass
class HeldSince:
    """Held GPUs compared with the fabric at a git revision (validate)."""

    ref: str
    before: Fabric | None  # None: nothing compared (REF has no fabric, or `problem`)
    moves: list[GpuMove] = field(default_factory=list)
    problem: str = ""  # why REF's fabric could not be compared with


def held_since(root: Path, ref: str, commit: str, alloc: Allocation) -> HeldSince:
    """The held GPUs of the fabric at `commit` that `alloc` (the working tree's) would move."""
    from fabricctl.compile.build import load_and_check
    from fabricctl.compile.moves import gpu_moves, held_gpus
    from fabricctl.model.problems import InputError

    with tempfile.TemporaryDirectory(prefix="fabricctl-ref-") as tmp:
        base = Path(tmp)
        if not materialise(root, commit, base):
            return HeldSince(ref, None)
        try:
            before, _docs, _topo, old = load_and_check(base)
        except InputError as exc:
            return HeldSince(ref, None, problem=f"the fabric at {ref} does not validate ({exc})")
    return HeldSince(ref, before, gpu_moves(held_gpus(old), held_gpus(alloc)))
