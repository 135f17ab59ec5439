"""CLI start-up and the offline commands on the reference fabric, whole process (interpreter included).

Runs the installed `fabricctl` console script (the one engineers and CI run) and prints, per
command, the median and min wall time of --runs runs, against the targets on 2 cores.
Usage: python bench/bench_cli.py [--runs 5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGETS = {"--help": 0.2, "validate --help": 0.2, "validate": 0.5}


def fabricctl_script() -> str:
    """The console script next to this interpreter (a venv's bin/), else the one on PATH."""
    here = Path(sys.executable).parent / "fabricctl"
    found = str(here) if here.is_file() else shutil.which("fabricctl")
    if not found:
        sys.exit("no fabricctl console script: run this from the project's virtualenv")
    return found


def timed(argv: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, capture_output=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed: {proc.stderr.decode()[-500:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    exe = fabricctl_script()
    with tempfile.TemporaryDirectory(prefix="fabricctl-bench-cli-") as tmp:
        root = Path(tmp) / "reference"
        root.mkdir()
        for folder in ("inventory", "tenants"):
            shutil.copytree(REPO / folder, root / folder)
        cases: dict[str, list[str]] = {
            "--help": ["--help"],
            "validate --help": ["validate", "--help"],
            "validate": ["validate"],
            "render (empty out/)": ["render", "--force"],
            "render (up to date)": ["render"],
            "verify": ["verify"],
        }
        print(f"fabricctl CLI, reference fabric (48 switches), {args.runs} runs each, whole process")
        print(f"{'command':<22} {'median':>8} {'min':>8}  target")
        for label, argv in cases.items():
            samples = []
            for _ in range(args.runs):
                if label == "render (empty out/)":
                    shutil.rmtree(root / "out", ignore_errors=True)
                samples.append(timed([exe, *argv], root))
            target = TARGETS.get(label)
            verdict = (
                ""
                if target is None
                else f"<= {target:.1f} s {'ok' if statistics.median(samples) <= target else 'MISSED'}"
            )
            print(f"{label:<22} {statistics.median(samples):>7.3f}s {min(samples):>7.3f}s  {verdict}")


if __name__ == "__main__":
    main()
