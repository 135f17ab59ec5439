"""Multi-pod compile + render benchmark: 1 to 49 pods of 2,048 GPUs, one single-GPU tenant per GPU.

    python bench/bench_multipod.py                    # pods 1, 5, 13, 25, 49; 3 runs each
    python bench/bench_multipod.py -p 1 -p 5 -n 5     # some sizes, 5 runs
    python bench/bench_multipod.py --runs-large 1     # 1 run for fabrics above 50,000 GPUs

Each fabric is written by bench/gen_100k.py into a temp dir (pod = 32 leaves + 32 spines, 2 x 200G
GPU ports, 32 super-spine planes; tenants t00001.. of one GPU each, at most 99,999 as tenant ids
allow), then measured in a fresh Python subprocess:

  compile   compile_fabric(): load + validate inventory and tenants, topology, allocation, intent
            for every switch (the cyclic GC paused inside, as in every command)
  render    every switch's config rendered to text (Renderer.render; the text is counted and
            dropped, not written, so the figure is the templates' cost, not the disk's)
  total     compile + render; the median of the runs (min in brackets)
  CPU s     the process's CPU seconds for compile + render (median): on a shared, busy machine
            the steadier figure, since wall time there measures the other jobs too

Memory: ru_maxrss of the measuring subprocess (every run included: the peak of one run, since each
run's objects are dropped before the next). Growth: a least-squares line total = a + b * GPUs over
the sizes, its R^2, and the cost per 1,000 GPUs at each size; "linear" when R^2 >= 0.98 and the
per-GPU cost of the largest size is within 1.5x of the smallest-but-one.

Prints figures only; it asserts nothing (tests never time anything).
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

import gen_100k  # noqa: E402


def child(root: Path, runs: int) -> None:
    from fabricctl.compile.build import compile_fabric
    from fabricctl.render import Renderer

    out = []
    for _ in range(runs):
        gc.collect()
        c0 = time.process_time()
        t0 = time.perf_counter()
        compiled = compile_fabric(root)
        t1 = time.perf_counter()
        c1 = time.process_time()
        renderer = Renderer(root)
        chars = 0
        for intent in compiled.intents.values():
            chars += len(renderer.render(intent))
        t2 = time.perf_counter()
        c2 = time.process_time()
        out.append(
            {
                "compile": t1 - t0,
                "render": t2 - t1,
                "compile_cpu": c1 - c0,
                "render_cpu": c2 - c1,
                "switches": len(compiled.intents),
                "tenants": len(compiled.tenants),
                "chars": chars,
            }
        )
        del compiled, renderer
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"runs": out, "peak_mib": peak_mib}))


def measure(pods: int, runs: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix=f"mp{pods}-") as tmp:
        root = Path(tmp)
        gpus = gen_100k.write_fabric(root, pods=pods, max_pods=64 if pods > 32 else None)
        tenants = min(gpus, 99_999)
        gen_100k.write_tenants(root, tenants)
        proc = subprocess.run(
            [sys.executable, __file__, "--child", str(root), str(runs)],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise SystemExit(f"{pods} pods: the measuring process failed:\n{proc.stderr[-2000:]}")
        data: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    data.update(pods=pods, gpus=gpus)
    return data


def _median(runs: list[dict[str, float]], key: str) -> tuple[float, float]:
    values = [r[key] for r in runs]
    return statistics.median(values), min(values)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        child(Path(argv[1]), int(argv[2]))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-p", "--pods", type=int, action="append", help="pods of 2,048 GPUs (repeatable)")
    ap.add_argument("-n", "--runs", type=int, default=3)
    ap.add_argument("--runs-large", type=int, default=None, help="runs for fabrics above 50,000 GPUs")
    args = ap.parse_args(argv)
    sizes = args.pods or [1, 5, 13, 25, 49]
    results = []
    print(
        f"{'pods':>4} {'GPUs':>7} {'tenants':>7} {'switches':>8} {'compile s':>14} {'render s':>14} {'total s':>14} {'CPU s':>6} {'peak MiB':>8}"
    )
    for pods in sizes:
        runs = args.runs_large if args.runs_large and pods * 2048 > 50_000 else args.runs
        data = measure(pods, runs)
        rs = data["runs"]
        for r in rs:
            r["total"] = r["compile"] + r["render"]
            r["cpu"] = r["compile_cpu"] + r["render_cpu"]
        c, t, tot, cpu = (_median(rs, k) for k in ("compile", "render", "total", "cpu"))
        first = rs[0]
        print(
            f"{pods:>4} {data['gpus']:>7,} {first['tenants']:>7,} {first['switches']:>8,} "
            f"{c[0]:>6.2f} [{c[1]:>5.2f}] {t[0]:>6.2f} [{t[1]:>5.2f}] {tot[0]:>6.2f} [{tot[1]:>5.2f}] "
            f"{cpu[0]:>6.2f} {data['peak_mib']:>8.0f}",
            flush=True,
        )
        results.append((int(data["gpus"]), tot[0], len(rs)))
    if len(results) >= 2:
        xs = [g for g, _, _ in results]
        ys = [t for _, t, _ in results]
        mx, my = statistics.fmean(xs), statistics.fmean(ys)
        sxx = sum((x - mx) ** 2 for x in xs)
        b = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
        a = my - b * mx
        ss_res = sum((y - (a + b * x)) ** 2 for x, y in zip(xs, ys, strict=True))
        ss_tot = sum((y - my) ** 2 for y in ys) or 1.0
        r2 = 1 - ss_res / ss_tot
        per_k = [1000 * t / g for g, t, _ in results]
        print()
        print(f"fit: total = {a:.2f} s + {b * 1000:.3f} s per 1,000 GPUs (R^2 {r2:.4f})")
        print(
            "cost per 1,000 GPUs: "
            + ", ".join(f"{g:,} GPUs {c:.3f} s" for (g, _, _), c in zip(results, per_k, strict=True))
        )
        ref = per_k[1] if len(per_k) > 2 else per_k[0]
        linear = r2 >= 0.98 and per_k[-1] <= 1.5 * ref
        print(
            f"growth: {'linear' if linear else 'NOT linear'} (largest size costs {per_k[-1] / ref:.2f}x per GPU of the reference size)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
