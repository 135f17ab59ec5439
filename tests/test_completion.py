"""`fabricctl completion bash|zsh|fish` prints a script that completes commands, options and choices."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.conftest import run_cli


def complete(words: str, cword: int) -> list[str]:
    """What the bash script asks fabricctl for (click's completion protocol)."""
    env = {
        **os.environ,
        "COMP_WORDS": words,
        "COMP_CWORD": str(cword),
        "_FABRICCTL_COMPLETE": "bash_complete",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "fabricctl"], env=env, capture_output=True, text=True, timeout=60, check=True
    )
    return [line.split(",", 1)[1] for line in proc.stdout.splitlines()]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_script_per_shell(shell: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["completion", shell], capsys)
    assert code == 0 and "_FABRICCTL_COMPLETE" in out and f"{shell}_complete" in out
    if shutil.which(shell) and shell != "fish":
        subprocess.run([shell, "-n"], input=out, text=True, check=True, timeout=60)  # parses


def test_unknown_shell_is_one_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["completion", "tcsh"], capsys)
    assert (code, out) == (1, "") and "Traceback" not in err
    assert "'tcsh' is not one of 'bash', 'fish', 'zsh'" in err


def test_it_completes_commands_subcommands_and_choices() -> None:
    assert "plan" in complete("fabricctl pl", 1)
    assert set(complete("fabricctl ", 1)) >= {"plan", "apply", "history", "completion", "show"}
    assert complete("fabricctl show ", 2) == ["allocations", "free", "gpus", "tenant", "tenants"]
    assert complete("fabricctl show gpus --format ", 4) == ["table", "json", "csv"]
    assert "--compact" in complete("fabricctl plan --c", 2)
