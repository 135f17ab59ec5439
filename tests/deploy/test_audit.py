"""Ticket ids for the run record: from flags, the pull request's title and labels, trailers."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from fabricctl.deploy.audit import tenants_by_switch, tickets_of


def test_tickets_from_every_source(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@x.invalid",
    }
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x.invalid"}
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, env=env)
    message = "Add tenant\n\nTicket: NET-9\nTicket: CHG0012345, NET-10\n"
    subprocess.run(
        ["git", "-C", str(tmp_path), "commit", "-q", "--allow-empty", "-m", message], check=True, env=env
    )
    pr = {
        "FABRICCTL_PR_TITLE": "NET-7: add team-vision (see also OPS-12)",
        "FABRICCTL_PR_LABELS": "tenants, ticket:INC00042, NET-7, lossless",
    }
    assert tickets_of(tmp_path, ["MANUAL-1"], pr) == [
        "MANUAL-1", "NET-7", "OPS-12", "INC00042", "NET-9", "CHG0012345", "NET-10",
    ]  # fmt: skip
    assert tickets_of(tmp_path / "nowhere", [], {}) == [], "no git, no PR: none"
    assert tickets_of(tmp_path, [], {"FABRICCTL_PR_TITLE": "fix typo in description"}) == [
        "NET-9", "CHG0012345", "NET-10",
    ]  # fmt: skip


def test_tenants_by_switch_from_old_plans_too() -> None:
    changes: dict[str, object] = {
        "tenants": [{"name": "a", "leaves": ["leaf1", "leaf2"]}, {"name": "b", "leaves": ["leaf2"]}]
    }
    assert tenants_by_switch(changes, ["leaf1", "leaf2", "spine1"]) == {
        "leaf1": ["a"], "leaf2": ["a", "b"], "spine1": [],
    }  # fmt: skip
    changes["tenants_by_switch"] = {"leaf1": ["b"]}
    assert tenants_by_switch(changes, ["leaf1", "leaf2"]) == {"leaf1": ["b"], "leaf2": []}
