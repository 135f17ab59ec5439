"""GitOps test helpers: scratch git repos, offline plans (no SSH), a 2,048-GPU breakout fabric.

Offline plans run the same `pipeline.plan` as `fabricctl plan`, with a fetcher that hands back
saved running configs (the lab's factory text, or another fabric's rendered configs as if it had
been applied) instead of reading switches over SSH.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

from fabricctl import pipeline
from fabricctl.deploy import gitstate
from fabricctl.deploy.fetch import Fetched
from fabricctl.deploy.plan import Plan, Prepared
from fabricctl.deploy.service import PlanOptions
from fabricctl.lab import LabClock, LabFabric
from fabricctl.lab.factory import factory_text
from fabricctl.lab.inventory import specs_from_inventory
from tests.conftest import REFERENCE, copy_fabric

GOLDEN_GITOPS = Path(__file__).resolve().parent.parent / "golden" / "gitops"
#: Goldens written by test_markdown.py (tests/test_goldens.py's stale check knows them by this).
GOLDEN_FILES = (
    "reference-add-tenant.md",
    "eos-small-running-basis.md",
    "multipod-pod2-tenant.md",
    "eos-small-refused.md",
)

#: A fresh CI machine has no git identity; fixed dates keep commit ids (shown in reports) stable.
GIT_ENV = {
    "GIT_AUTHOR_NAME": "fabricctl test",
    "GIT_AUTHOR_EMAIL": "ci@example.invalid",
    "GIT_COMMITTER_NAME": "fabricctl test",
    "GIT_COMMITTER_EMAIL": "ci@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+00:00",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}

Fetcher = Callable[[list[str]], dict[str, Fetched]]


def git_env() -> dict[str, str]:
    return {**os.environ, **GIT_ENV}


def git(repo: Path, *args: str) -> str:
    """Run git in `repo` with the test identity; fails the test with git's message."""
    proc = subprocess.run(["git", *args], cwd=repo, env=git_env(), capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail(f"git {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout


def scratch_repo(src: Path, dst: Path) -> Path:
    """A git repository (branch main, one commit) holding a copy of a fabric's inputs."""
    copy_fabric(src, dst)
    if (src / "templates").is_dir() and src != REFERENCE:
        shutil.copytree(src / "templates", dst / "templates")
    (dst / ".gitignore").write_text(".fabricctl/\nout/\n", encoding="utf-8")
    git(dst, "init", "-q", "-b", "main")
    git(dst, "add", "inventory", "tenants", ".gitignore")
    git(dst, "commit", "-q", "-m", "fabric")
    return dst


def factory_fetch(root: Path) -> Fetcher:
    """Every switch as the lab ships it (factory config): a first plan touches all of them."""
    texts = {s.name: factory_text(s) for s in specs_from_inventory(root)}
    return lambda names: {n: Fetched(n, texts[n]) for n in names}


def rendered_fetch(root: Path) -> Fetcher:
    """Every switch running exactly what `root` renders (as if that fabric had been applied)."""
    texts = pipeline.render(pipeline.compile(root).intents, root)
    return lambda names: {n: Fetched(n, texts[n]) for n in names}


def offline_plan(root: Path, fetch: Fetcher, changed_since: str | None = None) -> tuple[Plan, Prepared]:
    """`fabricctl plan [--changed-since REF]` without SSH: (plan, prepared)."""
    plan, prepared = pipeline.plan(root, PlanOptions(changed_since=changed_since), fetch=fetch)
    plan.created_at = "2026-12-01T12:00:00+00:00"  # the plan digest in goldens: one time, every run
    return plan, prepared


def shared_remote(root: Path, lab: bool = True) -> gitstate.Remote:
    """The fabric's shared remote, which the test set up (gitstate.shared_remote, never None here)."""
    remote = gitstate.shared_remote(root, lab=lab)
    assert remote is not None, f"{root}: no shared remote"
    return remote


def write_tenant(root: Path, data: dict[str, object]) -> Path:
    path = root / "tenants" / f"{data['name']}.yaml"
    path.write_text("---\n" + yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def breakout_fabric(dst: Path, singles: int = 400) -> Path:
    """The reference fabric split 2x200G (2,048 GPUs): a few large tenants and many one-GPU tenants."""
    shutil.copytree(REFERENCE / "inventory", dst / "inventory")
    fabric = dst / "inventory" / "fabric.yaml"
    fabric.write_text(
        fabric.read_text(encoding="utf-8").replace("gpu_port_breakout: none", "gpu_port_breakout: 2x200G"),
        encoding="utf-8",
    )
    (dst / "tenants").mkdir()
    big = [
        ("llm-pretrain", 101, "10.101.0.0/21", "gpu001-gpu096"),
        ("vision-lab", 102, "10.102.0.0/23", "gpu097-gpu128"),
        ("uni-nlp", 103, "10.103.0.0/24", "gpu129-gpu144"),
        ("fintech-risk", 104, "10.104.0.0/25", "gpu145-gpu152"),
    ]
    for name, tid, block, servers in big:
        write_tenant(
            dst,
            {
                "name": name,
                "id": tid,
                "description": f"{name} cluster",
                "isolation": "l3",
                "address_block": block,
                "gpus": [{"servers": [servers]}],
            },
        )
    # One-GPU tenants on servers gpu161 onwards, one NIC each, cycling through the rails.
    for i in range(singles):
        server = 161 + i // 8
        write_tenant(
            dst,
            {
                "name": f"t{i + 1:04d}",
                "id": 1000 + i,
                "description": "single GPU",
                "isolation": "l3",
                "address_block": f"10.{200 + i // 128}.{(i % 128) * 2}.0/31",
                "gpus": [{"server": f"gpu{server:03d}", "nics": [i % 8]}],
            },
        )
    return dst


@pytest.fixture
def git_identity(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The test's git identity for in-process git calls (fabricctl's own `git archive` too)."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    yield


def chromium() -> str | None:
    """A Chromium binary, or None (the browser test is then skipped)."""
    for path in ("/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if os.access(path, os.X_OK):
            return path
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture
def remote_lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, LabFabric]]:
    """A 2-pod EOS fabric committed in a repository whose remote (a bare one) holds the lock and
    the records, and its lab in-process on a frozen clock: what sharded applies run against."""
    from fabricctl.deploy import gitstate
    from fabricctl.lab.runtime import lab_json, write_lab_json
    from tests.test_multipod import make_fabric

    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv(gitstate.ENV, "origin")
    monkeypatch.delenv("FABRICCTL_LAB_USERNAME", raising=False)
    monkeypatch.delenv("FABRICCTL_LAB_PASSWORD", raising=False)
    root = make_fabric(tmp_path / "fabric", "eos")
    (root / ".gitignore").write_text(".fabricctl/\n")
    git(tmp_path, "init", "-q", "--bare", "-b", "main", "remote.git")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fabric", "-m", "Ticket: NET-77")
    git(root, "remote", "add", "origin", str(tmp_path / "remote.git"))
    lab = LabFabric.from_inventory(root, clock=LabClock.frozen())
    with lab:
        write_lab_json(root, lab)
        yield root, lab
        lab_json(root).unlink(missing_ok=True)
