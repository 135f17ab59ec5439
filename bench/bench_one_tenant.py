"""A one-tenant change in a multi-pod fabric: what `fabricctl render` and `validate` cost after it.

    python bench/bench_one_tenant.py               # 49 pods (100,352 GPUs, 99,999 tenants), 3 runs
    python bench/bench_one_tenant.py -p 5 -n 5     # 5 pods, 5 runs

The fabric is written by bench/gen_100k.py (one single-GPU tenant per GPU) and rendered once
(untimed). Each run then edits one tenant (its GPU port's lossless class, on and off: a change of
that leaf's intent) and times, as whole processes (the installed CLI, interpreter start included):

  validate   fabricctl validate: the compile cache (fabricctl/compile/cache.py) finds the one
             changed file and checks it against the snapshot the first render left
  render     fabricctl render: compile what the change touches, re-render only the switches whose
             inputs changed (out/.fabricctl-render.json); the run must re-render exactly the
             tenant's leaf

After the runs the leaf is rendered once more by a whole-fabric compile with the cache off, and
its files must be byte-identical to what the cached runs wrote.

Target (issue #13): <= 1 s for the 100k fabric. Prints figures only; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gen_100k  # noqa: E402

from fabricctl.stamps import RACY_NS  # noqa: E402


def timed(root: Path, *args: str, cache: str) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "fabricctl", *args, "--root", str(root)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "FABRICCTL_CACHE_DIR": cache},
    )
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"fabricctl {' '.join(args)} failed:\n{done.stdout[-1500:]}{done.stderr[-1500:]}")
    return took, done.stdout


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-p", "--pods", type=int, default=49)
    ap.add_argument("-n", "--runs", type=int, default=3)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="one-tenant-") as tmp:
        root = Path(tmp) / "fabric"
        cache = str(Path(tmp) / "cache")  # beside the fabric, never in it (cache.py says why)
        gpus = gen_100k.write_fabric(root, pods=args.pods, max_pods=64 if args.pods > 32 else None)
        tenants = min(gpus, 99_999)
        gen_100k.write_tenants(root, tenants)
        time.sleep(RACY_NS / 1e9)  # stamps of files written this close to a run prove nothing yet
        first, _ = timed(root, "render", cache=cache)
        print(f"{args.pods} pods, {gpus:,} GPUs, {tenants:,} tenants; first render (untimed): {first:.1f} s")
        changed = root / "tenants" / "t00001.yaml"
        original = changed.read_text(encoding="utf-8")
        figures: dict[str, list[float]] = {"validate": [], "render": []}
        for run in range(args.runs):
            lossless = "false" if run % 2 == 0 else "true"
            changed.write_text(original.replace("lossless: true", f"lossless: {lossless}"), encoding="utf-8")
            figures["validate"].append(timed(root, "validate", cache=cache)[0])
            took, out = timed(root, "render", cache=cache)
            figures["render"].append(took)
            rendered = re.search(r"rendered (\d+) switch", out)
            if rendered is None or rendered[1] != "1":
                print(
                    f"  run {run + 1}: expected one switch re-rendered, the output says: {out.strip()[-200:]}"
                )
        leaf = max((root / "out").glob("*.cfg"), key=lambda p: p.stat().st_mtime_ns).stem
        timed(root, "render", "--limit", leaf, "--out", str(Path(tmp) / "whole"), cache="off")
        same = all(
            (root / "out" / name).read_bytes() == (Path(tmp) / "whole" / name).read_bytes()
            for name in (f"{leaf}.cfg", f"{leaf}.intent.yaml")
        )
        print(f"{leaf} as the cached runs rendered it = as a whole compile renders it: {same}")
        for what, values in figures.items():
            print(
                f"{what:<9} median {statistics.median(values):6.2f} s  min {min(values):6.2f} s  "
                f"(target <= 1 s, {args.runs} runs)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
