"""`fabricctl init`: the scaffolded repository validates and verifies, its workflows pass
actionlint, and the plan job is the only one that can see the read login (the apply job the
write one), each inside its protected environment, never for a fork."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from fabricctl.cli import main
from tests.conftest import REPO

SOURCE = "https://github.com/example/fabricctl"


def _actionlint() -> str:
    found = shutil.which("actionlint", path=str(Path(sys.executable).parent)) or shutil.which("actionlint")
    assert found, "actionlint is a test dependency (pip install -e '.[test]')"
    return found


@pytest.fixture
def repo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    dest = tmp_path / "fabric"
    assert main(["init", str(dest), "--source", SOURCE, "--owner", "@acme/netops"]) == 0
    out = capsys.readouterr().out
    assert "wrote 13 files" in out and "a new git repository" in out
    return dest


def test_scaffold_validates_and_verifies(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--root", str(repo)]) == 0
    with pytest.raises(SystemExit) as verified:
        main(["verify", "--root", str(repo)])
    assert verified.value.code == 0
    assert "verify: ok" in capsys.readouterr().out
    assert (repo / ".git").is_dir()
    assert "/tenants/            @acme/netops" in (repo / "CODEOWNERS").read_text()


def test_workflows_install_the_pinned_release(repo: Path) -> None:
    wheel = f"{SOURCE}/releases/download/v0.1.0/fabricctl-0.1.0-py3-none-any.whl"
    for path in [*(repo / ".github" / "workflows").glob("*.yml"), repo / ".gitlab-ci.yml"]:
        text = path.read_text()
        assert f'FABRICCTL_INSTALL: "fabricctl @ {wheel}"' in text, path.name
        assert "pip install -e" not in text and "@FABRICCTL" not in text


@pytest.mark.parametrize("folder", ["scaffold", "repository"])
def test_workflows_pass_actionlint(repo: Path, folder: str) -> None:
    """With shellcheck on PATH, actionlint also checks every `run:` script."""
    where = repo if folder == "scaffold" else REPO
    files = sorted(str(p) for p in (where / ".github" / "workflows").glob("*.yml"))
    assert files
    proc = subprocess.run([_actionlint(), "-no-color", *files], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_actionlint_finds_a_broken_workflow(repo: Path) -> None:
    """The lint step can fail: an undefined context property is an error."""
    plan = repo / ".github" / "workflows" / "fabricctl-plan.yml"
    plan.write_text(plan.read_text().replace("github.run_id", "github.runid"))
    proc = subprocess.run(
        [_actionlint(), "-no-color", str(plan)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 1 and "runid" in proc.stdout


def _secrets_of(job: dict[str, Any]) -> set[str]:  # a workflow job (YAML)
    text = yaml.safe_dump(job)
    return {w.split("}")[0].strip() for w in text.split("secrets.")[1:]}


def test_least_privilege(repo: Path) -> None:
    plan = yaml.safe_load((repo / ".github" / "workflows" / "fabricctl-plan.yml").read_text())
    apply = yaml.safe_load((repo / ".github" / "workflows" / "fabricctl-apply.yml").read_text())
    assert plan["permissions"] == {"contents": "read"} == apply["permissions"]
    check, planner = plan["jobs"]["check"], plan["jobs"]["plan"]
    assert _secrets_of(check) == set() and "environment" not in check
    assert _secrets_of(planner) == {
        "FABRICCTL_READ_USERNAME",
        "FABRICCTL_READ_PASSWORD",
        "FABRICCTL_SSH_KNOWN_HOSTS",
    }
    assert planner["environment"] == "fabric-plan"
    # The job with the read login runs the base branch's file, never for a fork.
    assert "github.event_name == 'pull_request_target'" in planner["if"]
    assert "head.repo.full_name == github.repository" in planner["if"]
    assert planner["steps"][0]["with"]["persist-credentials"] is False
    # Secrets reach only the steps that need them, never a job-wide env.
    assert "env" not in planner and "secrets." not in yaml.safe_dump(plan.get("env", {}))
    shard = yaml.safe_load((repo / ".github" / "workflows" / "fabricctl-shard.yml").read_text())
    assert shard["permissions"] == {"contents": "read"}
    assert all(not _secrets_of(j) and "secrets" not in j for j in apply["jobs"].values())
    write = {"FABRICCTL_USERNAME", "FABRICCTL_PASSWORD", "FABRICCTL_SSH_KNOWN_HOSTS"}
    assert _secrets_of(shard["jobs"]["apply"]) == write
    assert shard["jobs"]["apply"]["environment"] == "fabric-apply"


def test_apply_runs_pods_as_a_matrix_then_the_superspines(repo: Path) -> None:
    apply = yaml.safe_load((repo / ".github" / "workflows" / "fabricctl-apply.yml").read_text())
    pods, spines = apply["jobs"]["pods"], apply["jobs"]["superspine"]
    assert pods["strategy"]["matrix"]["shard"] == "${{ fromJSON(needs.reviewed-plan.outputs.pods) }}"
    assert pods["strategy"]["max-parallel"] >= 1 and pods["strategy"]["fail-fast"] is True
    assert spines["needs"] == ["reviewed-plan", "pods"] and spines["with"]["shard"] == "superspine"
    assert "needs.pods.result == 'success'" in spines["if"]
    run = (repo / ".github" / "workflows" / "fabricctl-shard.yml").read_text()
    assert '--shard "$SHARD" --run-group "$RUN_GROUP"' in run


def test_gitlab_pipeline_scopes_the_logins(repo: Path) -> None:
    ci = yaml.safe_load((repo / ".gitlab-ci.yml").read_text())
    assert ci["variables"]["FABRICCTL_INSTALL"].startswith("fabricctl @ ")
    assert "environment" not in ci["check"]
    assert ci["plan"]["environment"]["name"] == "fabric-plan"
    assert ci["plan"]["rules"][0]["when"] == "manual"
    assert "CI_MERGE_REQUEST_SOURCE_PROJECT_ID == $CI_PROJECT_ID" in ci["plan"]["rules"][0]["if"]
    assert ci["apply"]["environment"]["name"] == "fabric-apply" and ci["apply"]["resource_group"] == "fabric"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "init needs where CI installs fabricctl from"),
        (["--install", "fabricctl"], "not pinned"),
        (["--install", 'fabricctl==1"; curl x'], "not a pip requirement for fabricctl on one line"),
        (["--source", "http://example.com/f"], "not an https URL"),
        (["--source", SOURCE, "--owner", "netops team"], "not a code owner"),
    ],
)
def test_bad_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    assert main(["init", str(tmp_path / "f"), *argv]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "f" / "inventory").exists()


def test_refuses_existing_files(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (repo / "inventory" / "hosts.yaml").read_text()
    (repo / "inventory" / "hosts.yaml").write_text(before + "# mine\n")
    assert main(["init", str(repo), "--source", SOURCE]) == 1
    err = capsys.readouterr().err
    assert "inventory/defaults.yaml" in err and "already exist" in err and "nothing written" in err
    assert (repo / "inventory" / "hosts.yaml").read_text().endswith("# mine\n")


def test_this_repositorys_own_workflows_hold_no_login() -> None:
    """fabricctl's own pull requests change fabricctl: its demo fabric is planned on the lab only."""
    for name in ("plan.yml", "apply.yml"):
        text = (REPO / ".github" / "workflows" / name).read_text()
        assert "secrets." not in text and "LAB_FLAG: --lab" in text, name


DIGEST = "ab" * 32


def _gitlab_apply(
    repo: Path, tmp_path: Path, notes: list[dict[str, object]], approvers: list[str]
) -> tuple[int, str, str]:
    """The apply job's script as GitLab runs it (bash -e), with `curl` answering from GitLab's
    API shapes (commit -> merge requests, notes, approvals, the plan artifact) and `fabricctl`
    writing the arguments it got: (exit code, what fabricctl was run with, or "")."""
    import json
    import zipfile

    script = "\n".join(yaml.safe_load((repo / ".gitlab-ci.yml").read_text())["apply"]["script"])
    api = tmp_path / "api"
    api.mkdir()
    (api / "merge_requests").write_text(json.dumps([{"iid": 7, "source_branch": "add-tenant"}]))
    (api / "notes").write_text(json.dumps(notes))
    (api / "approvals").write_text(
        json.dumps({"approved_by": [{"user": {"username": u}} for u in approvers]})
    )
    with zipfile.ZipFile(api / "plan.zip", "w") as z:
        z.writestr("plan.json", "{}")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    curl = bin_dir / "curl"
    curl.write_text(
        "#!/bin/sh\n# the last argument is the URL; -o FILE writes there\nout=''; prev=''\n"
        'for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; url="$a"; done\n'
        'case "$url" in\n'
        f"  */notes[?]*) f={api}/notes ;;\n"
        f"  */approvals) f={api}/approvals ;;\n"
        f"  */commits/*/merge_requests) f={api}/merge_requests ;;\n"
        f"  */jobs/artifacts/add-tenant/download*) f={api}/plan.zip ;;\n"
        '  *) echo "unexpected $url" >&2; exit 22 ;;\nesac\n'
        'if [ -n "$out" ]; then cp "$f" "$out"; else cat "$f"; fi\n'
    )
    ran = tmp_path / "fabricctl-argv"
    fabricctl = bin_dir / "fabricctl"
    fabricctl.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {ran}\n')
    for tool in (curl, fabricctl):
        tool.chmod(0o755)
    env = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "CI_API_V4_URL": "https://gitlab.example/api/v4",
        "CI_PROJECT_ID": "42",
        "CI_COMMIT_SHA": "c0ffee",
        "FABRICCTL_READ_TOKEN": "read-token",
        "FABRICCTL_NOTE_BOT": "project_42_bot",
        "LAB_FLAG": "",
    }
    work = tmp_path / "job"
    work.mkdir()
    proc = subprocess.run(
        ["bash", "-e", "-c", script], cwd=work, env=env, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0 or not ran.exists(), proc.stderr
    return proc.returncode, ran.read_text() if ran.exists() else "", proc.stdout + proc.stderr


def _note(author: str, digest: str) -> dict[str, object]:
    return {"author": {"username": author}, "body": f"<!-- fabricctl-plan -->\nplan digest `sha256:{digest}`"}


def test_gitlab_apply_holds_the_plan_to_the_bots_digest_and_names_the_approvers(
    repo: Path, tmp_path: Path
) -> None:
    forged = "cd" * 32
    code, argv, _ = _gitlab_apply(
        repo, tmp_path, [_note("mallory", forged), _note("project_42_bot", DIGEST)], ["bob", "alice"]
    )
    assert code == 0, argv
    args = argv.splitlines()
    assert args[:2] == ["apply", "reviewed/plan.json"]
    assert args[args.index("--digest") + 1] == DIGEST and forged not in argv
    assert args[args.index("--approved-by") + 1] == "alice,bob"


@pytest.mark.parametrize(
    ("notes", "approvers", "said"),
    [
        ([_note("mallory", DIGEST)], ["alice"], "no plan digest in the plan note of !7"),  # not the bot's
        ([], ["alice"], "no plan digest in the plan note of !7"),
        ([_note("project_42_bot", DIGEST)], [], "!7 has no approval"),
    ],
    ids=["digest-from-another-author", "no-plan-note", "no-approval"],
)
def test_gitlab_apply_refuses_without_the_bots_digest_or_an_approval(
    repo: Path, tmp_path: Path, notes: list[dict[str, object]], approvers: list[str], said: str
) -> None:
    code, argv, printed = _gitlab_apply(repo, tmp_path, notes, approvers)
    assert code != 0 and argv == "" and said in printed, printed
