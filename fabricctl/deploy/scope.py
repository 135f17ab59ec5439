"""`plan/apply --tenant NAME`: a run limited to one tenant's change while other tenants' changes
wait in the tree.

The run's inputs are the fabric at a base commit (`--tenant-base`, HEAD by default: what was
applied last) with NAME's tenant file as the working tree has it (added, edited or deleted); only
the switches whose intent or config that makes differ from the base are planned. Every other
tenant stays as the base has it, so a peer's pending edit is neither pushed nor removed. A plan
keeps its scope (`changes.scope`: tenant and base commit) and apply rebuilds the same inputs.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml

from fabricctl.errors import StageError
from fabricctl.model.load import tenant_files
from fabricctl.outputs import write_file


class ScopeError(StageError):
    """The tenant scope cannot be built (no such tenant, a bad base): nothing contacted."""


@dataclass(frozen=True)
class TenantChange:
    """`--tenant NAME`: the tenant, its base commit, and the inputs built from them."""

    tenant: str
    commit: str
    inputs: Path


@contextlib.contextmanager
def tenant_change(root: Path, tenant: str | None, base: str) -> Iterator[TenantChange | None]:
    """The scope of `--tenant NAME --tenant-base REF` for the block (None without --tenant)."""
    if tenant is None:
        yield None
        return
    with tenant_inputs(root, tenant, base) as (inputs, commit):
        yield TenantChange(tenant, commit, inputs)


def _declared(path: Path) -> str | None:
    """The tenant a file declares (its `name`), or None when it cannot say."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    name = data.get("name") if isinstance(data, dict) else None
    return name if isinstance(name, str) else None


def _files_of(folder: Path, tenant: str) -> list[Path]:
    return [p for p in tenant_files(folder) if _declared(p) == tenant] if folder.is_dir() else []


def base_commit(root: Path, base: str) -> str:
    """The commit `--tenant-base` names, or a ScopeError saying why there is none."""
    from fabricctl.deploy.changed import ChangedSinceError, resolve_commit

    try:
        return resolve_commit(root, base)
    except ChangedSinceError as exc:
        raise ScopeError(
            f"--tenant-base {base}: {str(exc).replace(f'--changed-since {base}: ', '')}"
        ) from None


@contextlib.contextmanager
def tenant_inputs(root: Path, tenant: str, base: str) -> Iterator[tuple[Path, str]]:
    """(a fabric root of the base's inputs with `tenant` from the working tree, the base commit),
    for the time of the block."""
    from fabricctl.deploy.changed import materialise

    commit = base_commit(root, base)
    with tempfile.TemporaryDirectory(prefix="fabricctl-tenant-") as tmp:
        inputs = Path(tmp)
        if not materialise(root, commit, inputs):
            raise ScopeError(f"--tenant-base {base}: the fabric has no inventory/ at {commit[:12]}")
        folder = inputs / "tenants"
        before = _files_of(folder, tenant)
        for path in before:
            path.unlink()
        now = _files_of(root / "tenants", tenant)
        if not before and not now:
            known = sorted({n for p in tenant_files(root / "tenants") if (n := _declared(p))})
            raise ScopeError(f"--tenant {tenant}: no such tenant (allowed: {', '.join(known)})")
        folder.mkdir(exist_ok=True)
        for path in now:
            target = folder / path.name
            if target.exists():
                raise ScopeError(
                    f"--tenant {tenant}: {path.relative_to(root)} holds another tenant at {commit[:12]} "
                    f"({_declared(target)}): give {tenant} a file of its own"
                )
            write_file(target, path.read_bytes(), within=inputs, exclusive=True)
        yield inputs, commit


def tenant_switches(root: Path, commit: str, now: dict[str, str], order: list[str]) -> list[str]:
    """The switches (in `order`) whose fingerprint (`now`) differs from the fabric at `commit`."""
    from fabricctl.deploy.changed import load_ref, select_changed

    before = load_ref(root, commit)
    if before.problem:
        raise ScopeError(f"--tenant-base: {before.problem}")
    return select_changed(before, now, order)
