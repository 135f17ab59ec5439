"""Golden error text for bad input: every case exits 1 with file:line, field, what is allowed.

Each folder in tests/errors/ is one case: the files that differ from examples/eos-small (laid over
a copy of it), an optional `remove.txt` (paths to delete), an optional `argv.txt` (CLI arguments,
default `validate --root {root}`; run from inside the fabric copy) and `expected.txt`, the exact
stderr. Regenerate with `python tests/regen_goldens.py`.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ERRORS, REPO, assert_golden, build_case, run_cli

CASES = sorted(p.name for p in ERRORS.iterdir() if p.is_dir())
DEFAULT_ARGV = "validate --root {root}"
# A Python repr of an internal object (<fabricctl... object at 0x...>, GpuPort(...), Tenant(...)).
REPR = re.compile(r"<[\w.]+ object at 0x|\b(GpuPort|Tenant|TenantDoc|Switch|PortAssignment|YamlDoc)\(")


def _argv(case: Path, root: Path) -> list[str]:
    spec = (case / "argv.txt").read_text(encoding="utf-8") if (case / "argv.txt").is_file() else DEFAULT_ARGV
    return [arg.replace("{root}", str(root)) for arg in shlex.split(spec)]


def test_there_are_enough_cases() -> None:
    assert len(CASES) >= 30
    for name in CASES:
        assert (ERRORS / name / "expected.txt").is_file() or os.environ.get("FABRICCTL_REGEN"), name


@pytest.mark.parametrize("name", CASES)
def test_error_case(
    name: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    no_network: list[object],
) -> None:
    case = ERRORS / name
    root = build_case(case, tmp_path / "fabric")
    monkeypatch.chdir(root)
    code, out, err = run_cli(_argv(case, root), capsys)
    assert code == 1, f"exit {code}; stdout: {out!r}; stderr: {err!r}"
    assert out == ""
    assert str(tmp_path) not in err, "errors must name files relative to --root"
    assert "Traceback" not in err
    assert not REPR.search(err), f"internal repr in error text: {err}"
    assert not no_network, "nothing may be contacted on bad input"
    assert not (root / "out").exists(), "nothing may be written on bad input"
    lines = err.splitlines()
    if (case / "argv.txt").is_file():
        assert len(lines) == 1 and lines[0].startswith("error: "), err
    else:
        *problems, summary = lines
        assert problems, err
        assert summary.endswith("; nothing was contacted or pushed."), err
        assert summary.startswith(f"{len(problems)} error"), err
        for line in problems:
            # file:line: field: message (allowed: ...); a missing file has no line.
            assert re.match(
                r"^((inventory|tenants)/[\w./-]+\.(?i:ya?ml)|maintenance\.yaml)(:\d+)?: ", line
            ), line
        assert problems == sorted(problems, key=_sort_key), "problems are reported sorted"
    assert_golden(case / "expected.txt", err)


def _sort_key(line: str) -> tuple[str, int]:
    file, _, rest = line.partition(":")
    num = rest.split(":", 1)[0]
    return file, int(num) if num.isdigit() else 0


def test_several_errors_reported_together(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every problem in every file is reported in one run (not just the first)."""
    root = build_case(ERRORS / "several-errors-several-files", tmp_path / "fabric")
    code, _, err = run_cli(["validate", "--root", str(root)], capsys)
    assert code == 1
    files = {line.split(":")[0] for line in err.splitlines()[:-1]}
    assert files == {"inventory/fabric.yaml", "tenants/alpha.yaml", "tenants/storage.yaml"}


def test_valid_examples_pass(capsys: pytest.CaptureFixture[str]) -> None:
    """The base the cases start from is itself valid, so each case fails only for its own reason."""
    for root in (REPO / "examples" / "eos-small", REPO):
        code, out, err = run_cli(["validate", "--root", str(root)], capsys)
        assert (code, err) == (0, ""), err
        assert out.startswith("ok: ")


@pytest.mark.parametrize(
    ("name", "argv"),
    [
        ("several-errors-several-files", ["validate", "--root", "{root}"]),
        ("bad-cli-flag", ["validate", "--bogus"]),
    ],
)
def test_subprocess_has_no_traceback(name: str, argv: list[str], tmp_path: Path) -> None:
    """A real `python -m fabricctl` process: exit 1, the golden text on stderr, no traceback."""
    case = ERRORS / name
    root = build_case(case, tmp_path / "fabric")
    proc = subprocess.run(
        [sys.executable, "-m", "fabricctl", *(a.replace("{root}", str(root)) for a in argv)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "80"},
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    assert proc.stderr == (case / "expected.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("command", ["render", "show tenants", "show allocations"])
def test_other_commands_stop_at_bad_input(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], no_network: list[object]
) -> None:
    """Every command that compiles reports the same problems, writes nothing and contacts nothing."""
    case = ERRORS / "several-errors-several-files"
    root = build_case(case, tmp_path / "fabric")
    code, out, err = run_cli([*command.split(), "--root", str(root)], capsys)
    assert (code, out) == (1, "")
    assert err == (case / "expected.txt").read_text(encoding="utf-8")
    assert not (root / "out").exists() and not no_network
