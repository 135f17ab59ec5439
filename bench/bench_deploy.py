"""Deploy benchmark on the 48-switch reference fabric, lab in a separate process.

Measures the CLI end to end (interpreter start included): plan, initial apply, re-plan,
one-tenant-change apply. Prints medians over --runs (lab reset to factory between runs).
Usage: python bench/bench_deploy.py [--runs 3]
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


def fabricctl(root: Path, *args: str) -> float:
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "fabricctl", *args, "--root", str(root)], capture_output=True
    )
    if proc.returncode not in (0, 2):
        sys.exit(f"fabricctl {' '.join(args)} failed: {proc.stderr.decode()[-500:]}")
    return time.monotonic() - start


def one_run(root: Path) -> dict[str, float]:
    fabricctl(root, "lab", "reset")
    tenants = sorted((root / "tenants").glob("*.yaml"))
    out = {"plan": fabricctl(root, "plan", "--lab")}
    out["initial apply"] = fabricctl(root, "apply", "--lab", "--auto-approve", "--parallelism", "48")
    out["re-plan"] = fabricctl(root, "plan", "--lab", "--detailed-exitcode")
    saved = tenants[0].read_text()
    tenants[0].unlink()
    out["one-tenant apply"] = fabricctl(root, "apply", "--lab", "--auto-approve", "--parallelism", "48")
    tenants[0].write_text(saved)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    root = Path(tempfile.mkdtemp(prefix="fabricctl-bench-"))
    for folder in ("inventory", "tenants"):
        shutil.copytree(REPO / folder, root / folder)
    subprocess.run(
        [sys.executable, "-m", "fabricctl", "lab", "up", "--detach", "--root", str(root)], check=True
    )
    try:
        results = [one_run(root) for _ in range(runs)]
    finally:
        subprocess.run([sys.executable, "-m", "fabricctl", "lab", "down", "--root", str(root)], check=False)
        shutil.rmtree(root, ignore_errors=True)
    targets = {"plan": 3, "initial apply": 20, "re-plan": 3, "one-tenant apply": 5}
    for key, target in targets.items():
        median = statistics.median(r[key] for r in results)
        print(f"{key:<17} median {median:6.2f} s  (target <= {target} s, {runs} runs)")


if __name__ == "__main__":
    main()
