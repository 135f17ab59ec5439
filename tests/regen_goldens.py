"""Rewrite every golden file: error texts, intent YAML, rendered configs, PR-comment Markdown and
docs/emitted-syntax.md.

    python tests/regen_goldens.py            # all goldens
    python tests/regen_goldens.py -k leaf1   # extra arguments go to pytest

Runs the golden tests with FABRICCTL_REGEN=1, so each one writes what it produced instead of
comparing; review the result with `git diff tests/`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
GOLDEN_TESTS = [
    "tests/test_errors.py",
    "tests/test_goldens.py",
    "tests/gitops/test_markdown.py",
    "tests/lab/test_reference.py",
    "tests/config/test_remediation.py",
    "tests/test_expansion.py",
    "tests/test_sonic.py",
]


def main(argv: list[str]) -> int:
    """Run the golden tests in regen mode, then once more normally to prove they now pass."""
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *GOLDEN_TESTS, *argv]
    env = {**os.environ, "FABRICCTL_REGEN": "1"}
    code = subprocess.call(args, cwd=TESTS.parent, env=env)
    if code != 0:
        return code
    env.pop("FABRICCTL_REGEN")
    return subprocess.call(args, cwd=TESTS.parent, env=env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
