"""Deploy benchmarks, lab in a separate process, the CLI end to end (interpreter start included).

    python bench/bench_deploy.py [--runs 3]             # the 48-switch reference fabric
    python bench/bench_deploy.py --example nvue-small   # an example fabric (examples/<name>)
    python bench/bench_deploy.py --multipod [--runs 3]  # one pod of examples/multipod-10k

Reference fabric (or --example's): plan, initial apply, re-plan, one-tenant-change apply; medians
over --runs (lab reset to factory between runs). The targets printed are the reference fabric's.

--multipod: the lab of examples/multipod-10k (448 switches in one lab process) and
`plan --lab --limit pod:1` (pod 1's 32 spines + 32 leaves; super-spines are in no pod), timed
against the factory lab (the pod's first plan: 64 switches to change) and again after pod 1 is
applied (untimed) with nothing left to change. Medians over --runs, with the median of each
stage line the command prints (compile includes rendering all 448 configs, verify proves the
whole fabric, fetch and diff cover the pod). The cache folder (fabricctl/store.py) starts empty:
the first plan's first run renders every config ("no store yet"), every later run takes them
from the store.
"""

from __future__ import annotations

import argparse
import os
import re
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


def fabricctl_stages(root: Path, *args: str) -> tuple[float, dict[str, float], str]:
    """Wall seconds, the seconds of each stage line on stderr, and the compile line's detail."""
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "fabricctl", *args, "--root", str(root)], capture_output=True, text=True
    )
    took = time.monotonic() - start
    if proc.returncode not in (0, 2):
        sys.exit(f"fabricctl {' '.join(args)} failed: {proc.stderr[-500:]}")
    stages = {m[1]: float(m[2]) for m in re.finditer(r"^  (\S+(?: \S+)?)\s+([\d.]+) s  ", proc.stderr, re.M)}
    compiled = re.search(r"^  compile\s+[\d.]+ s  (.*)$", proc.stderr, re.M)
    return took, stages, compiled[1] if compiled else ""


def multipod(runs: int) -> None:
    """`plan --lab --limit pod:1` on the 448-switch lab: first plan of the pod, then re-plan."""
    root = Path(tempfile.mkdtemp(prefix="fabricctl-bench-mp-"))
    cache = Path(tempfile.mkdtemp(prefix="fabricctl-bench-cache-"))  # beside the fabric, never in it
    os.environ["FABRICCTL_CACHE_DIR"] = str(cache)  # empty: the first run renders all
    for folder in ("inventory", "tenants"):
        shutil.copytree(REPO / "examples" / "multipod-10k" / folder, root / folder)
    started = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "fabricctl", "lab", "up", "--detach", "--root", str(root)],
        check=True,
        capture_output=True,
    )
    print(f"lab up (448 switches, one process): {time.monotonic() - started:.2f} s")
    plan = ("plan", "--lab", "--limit", "pod:1", "--parallelism", "64")  # the whole pod read at once
    try:
        for label, setup in (("first plan", None), ("re-plan", "apply")):
            if setup:
                took = fabricctl(
                    root, "apply", "--lab", "--auto-approve", "--limit", "pod:1", "--parallelism", "64"
                )
                print(f"(apply --lab --limit pod:1, untimed for the figures: {took:.1f} s)")
            if setup is None:
                took, stages, _ = fabricctl_stages(root, *plan)
                print(
                    f"first plan, no store yet: {took:.2f} s, stages: "
                    + ", ".join(f"{n} {v:.2f}" for n, v in stages.items())
                )
            samples = [fabricctl_stages(root, *plan) for _ in range(runs)]
            median = statistics.median(s[0] for s in samples)
            print(
                f"{label:<11} median {median:6.2f} s  min {min(s[0] for s in samples):6.2f} s  "
                f"(target <= 5 s, {runs} runs): fabricctl {' '.join(plan)}"
            )
            print(f"            {samples[-1][2]}")
            names = list(samples[-1][1])
            per_stage = {n: statistics.median(s[1].get(n, 0.0) for s in samples) for n in names}
            rest = median - sum(per_stage.values())
            print(
                "            stages: "
                + ", ".join(f"{n} {v:.2f}" for n, v in per_stage.items())
                + f", outside stages (start, imports, Nornir, output) {rest:.2f} s"
            )
    finally:
        subprocess.run(
            [sys.executable, "-m", "fabricctl", "lab", "down", "--root", str(root)],
            check=False,
            capture_output=True,
        )
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)


def one_run(root: Path) -> dict[str, float]:
    fabricctl(root, "lab", "reset")
    tenants = sorted((root / "tenants").glob("*.yaml"))
    out = {"plan": fabricctl(root, "plan", "--lab")}
    out["initial apply"] = fabricctl(root, "apply", "--lab", "--auto-approve", "--parallelism", "48")
    out["re-plan"] = fabricctl(root, "plan", "--lab", "--detailed-exitcode")
    saved = tenants[0].read_text()
    tenants[0].unlink()
    out["one-tenant apply"] = fabricctl(
        root, "apply", "--lab", "--auto-approve", "--parallelism", "48", "--allow-disruptive"
    )
    tenants[0].write_text(saved)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--multipod", action="store_true", help="plan of one pod of examples/multipod-10k")
    parser.add_argument(
        "--example", default="", help="an example fabric under examples/ instead of the reference"
    )
    args = parser.parse_args()
    runs = args.runs
    if args.multipod:
        multipod(runs)
        return
    root = Path(tempfile.mkdtemp(prefix="fabricctl-bench-"))
    source = REPO / "examples" / args.example if args.example else REPO
    for folder in ("inventory", "tenants"):
        shutil.copytree(source / folder, root / folder)
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
