"""`fabricctl init`: a new fabric repository, ready for review-then-apply in CI.

The files live under `files/` (package data, shipped in the wheel): a small inventory and two
tenants that validate, the GitHub workflows and GitLab pipeline, the runner guide, CODEOWNERS.
Two words are filled in: `@FABRICCTL_INSTALL@` (the pip requirement every CI job installs, a
pinned wheel or git tag) and `@OWNERS@` (who reviews the fabric's inputs).
"""

from __future__ import annotations

import importlib.resources
import re
from dataclasses import dataclass
from pathlib import Path

from fabricctl.errors import StageError

#: Where each file of `files/` goes in the new repository (dot names are kept out of the package).
LAYOUT = {
    "inventory/defaults.yaml": "inventory/defaults.yaml",
    "inventory/fabric.yaml": "inventory/fabric.yaml",
    "inventory/groups.yaml": "inventory/groups.yaml",
    "inventory/hosts.yaml": "inventory/hosts.yaml",
    "tenants/storage.yaml": "tenants/storage.yaml",
    "tenants/team-llm.yaml": "tenants/team-llm.yaml",
    "github/workflows/fabricctl-plan.yml": ".github/workflows/fabricctl-plan.yml",
    "github/workflows/fabricctl-apply.yml": ".github/workflows/fabricctl-apply.yml",
    "github/workflows/fabricctl-shard.yml": ".github/workflows/fabricctl-shard.yml",
    "gitlab-ci.yml": ".gitlab-ci.yml",
    "docs/fabricctl-runner.md": "docs/fabricctl-runner.md",
    "CODEOWNERS": "CODEOWNERS",
    "gitignore": ".gitignore",
}
#: A pip requirement on one line that can sit inside a double-quoted YAML string and a shell word.
_SPEC = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._@:/+#=<>!~,\[\]%?&-]*")
_OWNER = re.compile(r"@[A-Za-z0-9][A-Za-z0-9_.-]*(/[A-Za-z0-9][A-Za-z0-9_.-]*)?|[^@\s]+@[^@\s]+\.[A-Za-z]+")


class ScaffoldError(StageError):
    """`fabricctl init` cannot write the repository (the message says why, nothing was written)."""


@dataclass(frozen=True)
class Pin:
    """How CI installs fabricctl: a pip requirement pinned to one release."""

    requirement: str

    @classmethod
    def release(cls, source: str, version: str, kind: str) -> Pin:
        """`source` is fabricctl's repository URL: its release `v<version>` carries the wheel
        (the release workflow attaches it), and the tag itself installs from git."""
        base = source.rstrip("/")
        if not re.fullmatch(r"https://[^\s\"'\\]+", base):
            raise ScaffoldError(
                f"--source {source!r}: not an https URL (allowed: https://host/org/fabricctl)"
            )
        if kind == "wheel":
            wheel = f"fabricctl-{version}-py3-none-any.whl"
            return cls(f"fabricctl @ {base}/releases/download/v{version}/{wheel}")
        return cls(f"fabricctl @ git+{base}@v{version}")

    @classmethod
    def given(cls, spec: str) -> Pin:
        if not _SPEC.fullmatch(spec) or not spec.startswith("fabricctl"):
            raise ScaffoldError(
                f"--install {spec!r}: not a pip requirement for fabricctl on one line "
                "(allowed: 'fabricctl @ https://.../fabricctl-X.Y.Z-py3-none-any.whl', "
                "'fabricctl @ git+https://...@vX.Y.Z', 'fabricctl==X.Y.Z' from your own index)"
            )
        if "==" not in spec and "@" not in spec:
            raise ScaffoldError(
                f"--install {spec!r}: not pinned (allowed: ==X.Y.Z, a wheel URL or a git tag): "
                "every CI job must install the same fabricctl"
            )
        return cls(spec)


def check_owners(owners: tuple[str, ...]) -> str:
    for owner in owners:
        if not _OWNER.fullmatch(owner):
            raise ScaffoldError(
                f"--owner {owner!r}: not a code owner (allowed: @user, @org/team or an email address)"
            )
    return " ".join(owners)


def scaffold(dest: Path, pin: Pin, owners: str) -> list[Path]:
    from fabricctl.outputs import write_file

    """Write the repository's files under `dest` (created if needed); refuses, before writing
    anything, when one of them exists. Returns the files written, in LAYOUT order."""
    targets = {src: dest / rel for src, rel in LAYOUT.items()}
    present = [str(p.relative_to(dest)) for p in targets.values() if p.exists() or p.is_symlink()]
    if present:
        shown = ", ".join(present[:5]) + (f" and {len(present) - 5} more" if len(present) > 5 else "")
        raise ScaffoldError(
            f"{dest}: {shown} already exist(s): nothing written (allowed: a folder without them)"
        )
    files = importlib.resources.files(__package__) / "files"
    for src, target in targets.items():
        text = (files / src).read_text(encoding="utf-8")
        text = text.replace("@FABRICCTL_INSTALL@", pin.requirement).replace("@OWNERS@", owners)
        write_file(target, text, within=dest, exclusive=True)  # never through a symlink under dest
    return list(targets.values())
