"""Compile/render benchmark: seconds per stage and peak memory on synthetic fabrics (scenario f: on NVUE).

    python bench/bench_compile.py                 # every scenario, 5 runs each
    python bench/bench_compile.py -s a -s e -n 3  # some scenarios, 3 runs
    python bench/bench_compile.py --keep          # keep the generated fabric repos (printed)

Each scenario's fabric repository is written into a temp dir, then measured in a fresh Python
subprocess (so imports, caches and peak memory never mix between scenarios):

  load+validate  inventory/ + tenants/ parsed and validated, topology derived (build.load_and_check
                 up to allocation)
  allocate       allocate(): numbering, GPU resolution, cross-tenant checks
  intent         device_intent() for every switch
  render+write   write_artifacts() into an empty folder (every switch rendered, .cfg + .intent.yaml)
  total          the sum; the median of the runs per stage (min in brackets)

Memory: ru_maxrss of a second fresh subprocess that runs the pipeline once (no tracemalloc), and
the tracemalloc peak of one extra run in the timing process (Python allocations only).

Scenario e is incremental: render (a) once, move one single-GPU tenant to another GPU, then time
compile_fabric() + write_artifacts() into the existing folder (only changed switches re-render);
the tenant is moved back and the folder re-rendered (untimed) before each run.

Prints figures only; it asserts nothing. The stage breakdown mirrors compile_fabric(); the script
checks once per scenario that it produces the same intents and warns if it does not.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
# Rendering is what this measures: the store (fabricctl/store.py) would serve every run after the
# first. Set here, so the scenario subprocesses inherit it.
os.environ["FABRICCTL_CACHE_DIR"] = "off"
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

import synthetic  # noqa: E402

STAGES = ("load+validate", "allocate", "intent", "render+write")

# Scenario e: which tenant moves where (a free GPU on another leaf of the same pod).
E_TENANT, E_SERVER, E_NIC = "single-27", 128, 5


def build_scenario(key: str, root: Path) -> str:
    """Write scenario `key`'s fabric repository into root; returns a one-line description."""
    ref = REPO / "inventory"
    if key in ("a", "e"):
        synthetic.copy_reference(root, ref)
        synthetic.write_mixed_tenants(root)
        return "reference 16x32 Comware, 32 mixed tenants"
    if key == "b":
        synthetic.copy_reference(root, ref)
        synthetic.write_single_gpu_tenants(root, 1024)
        return "reference 16x32 Comware, 1,024 single-GPU tenants"
    if key == "c":
        synthetic.copy_reference(root, ref, gpu_port_breakout="2x200G")
        synthetic.write_single_gpu_tenants(root, 2048)
        return "reference 16x32, 2x200G breakout (2,048 GPUs), 2,048 single-GPU tenants"
    if key in ("d", "f"):
        platform, title = ("nvue", "NVIDIA SN5600 / NVUE") if key == "f" else ("comware", "Comware")
        synthetic.write_inventory(
            root,
            spines=16,
            leaves=64,
            uplinks_per_spine=1,
            uplink_ports="1-16",
            gpu_ports="33-64",
            downlink_ports="1-64",
            tenant_id_max=4000,
            platform=platform,
        )
        synthetic.write_single_gpu_tenants(root, 2048)
        return f"synthetic 16x64 {title} (80 switches, 2:1), 2,048 single-GPU tenants"
    raise SystemExit(f"unknown scenario {key!r}")


# --------------------------------------------------------------------------- worker side


def _have_renderer() -> bool:
    return (REPO / "fabricctl" / "render.py").is_file()


def _pipeline(root: Path, out: Path | None) -> tuple[dict[str, float], dict[str, Any]]:
    """One full run, stage by stage (the same calls compile_fabric + write_artifacts make)."""
    from fabricctl.compile.allocate import allocate
    from fabricctl.compile.build import device_intent
    from fabricctl.compile.topology import build_topology
    from fabricctl.compile.view import read_fabric
    from fabricctl.model.load import load_fabric, load_tenants
    from fabricctl.model.problems import ProblemLog

    t: dict[str, float] = {}
    t0 = time.perf_counter()
    log = ProblemLog(root)
    fabric = load_fabric(root, log)
    docs = load_tenants(root, log)
    log.check()
    assert fabric is not None  # log.check() raised on every problem that left none
    view = read_fabric(fabric)  # the model read once, as compile_fabric does
    topo = build_topology(view, log)
    log.check()
    assert topo is not None
    t1 = time.perf_counter()
    alloc = allocate(view, topo, docs, log)
    log.check()
    t2 = time.perf_counter()
    intents = {sw.name: device_intent(view, topo, alloc, sw) for sw in view.switches}
    t3 = time.perf_counter()
    t["load+validate"], t["allocate"], t["intent"] = t1 - t0, t2 - t1, t3 - t2
    info: dict[str, Any] = {"devices": len(intents), "tenants": len(docs), "lines": None}
    if out is not None:
        from fabricctl.artifacts import write_artifacts
        from fabricctl.render import Renderer

        stats = write_artifacts(intents, Renderer(root), out)
        t["render+write"] = time.perf_counter() - t3
        info["lines"] = stats.lines
    info["intents"] = intents
    return t, info


def _fresh_out(base: Path, i: int) -> Path:
    out = base / f"out{i}"
    shutil.rmtree(out, ignore_errors=True)
    return out


def worker_full(root: Path, runs: int) -> dict[str, Any]:
    render = _have_renderer()
    scratch = Path(tempfile.mkdtemp(prefix="bench-out-"))
    try:
        t_imp = time.perf_counter()
        import fabricctl.compile.build

        if render:
            import fabricctl.artifacts
            import fabricctl.render  # noqa: F401
        imports = time.perf_counter() - t_imp
        samples: list[dict[str, float]] = []
        info: dict[str, Any] = {}
        for i in range(runs):
            out = _fresh_out(scratch, i) if render else None
            gc.collect()
            t, info = _pipeline(root, out)
            samples.append(t)
            if out is not None:
                shutil.rmtree(out, ignore_errors=True)
        # same intents as compile_fabric()? (the stage split must not drift from build.py)
        from fabricctl.compile.build import compile_fabric

        same = compile_fabric(root).intents == info.pop("intents")
        gc.collect()
        tracemalloc.start()
        _pipeline(root, _fresh_out(scratch, 99) if render else None)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return {
            "samples": samples,
            "imports": imports,
            "tracemalloc_peak": peak,
            "maxrss_after_runs": _maxrss(),
            "same_as_compile_fabric": same,
            **info,
        }
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def worker_rss(root: Path) -> dict[str, Any]:
    """One run in a fresh process: ru_maxrss is that run's peak (imports included)."""
    render = _have_renderer()
    scratch = Path(tempfile.mkdtemp(prefix="bench-out-"))
    try:
        base = _maxrss()
        import fabricctl.compile.build

        if render:
            import fabricctl.artifacts
            import fabricctl.render  # noqa: F401
        after_import = _maxrss()
        _pipeline(root, _fresh_out(scratch, 0) if render else None)
        return {"maxrss": _maxrss(), "maxrss_imports": after_import, "maxrss_interpreter": base}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def worker_incremental(root: Path, runs: int) -> dict[str, Any]:
    from fabricctl.artifacts import write_artifacts
    from fabricctl.compile.build import compile_fabric
    from fabricctl.render import Renderer

    tenant = root / "tenants" / f"{E_TENANT}.yaml"
    original = tenant.read_text(encoding="utf-8")
    out = Path(tempfile.mkdtemp(prefix="bench-out-"))
    samples, rerendered = [], []
    try:
        for _ in range(runs):
            tenant.write_text(original, encoding="utf-8")
            write_artifacts(compile_fabric(root).intents, Renderer(root), out)  # baseline, untimed
            synthetic.move_single_gpu(root, E_TENANT, E_SERVER, E_NIC)
            gc.collect()
            t0 = time.perf_counter()
            compiled = compile_fabric(root)
            t1 = time.perf_counter()
            stats = write_artifacts(compiled.intents, Renderer(root), out)
            t2 = time.perf_counter()
            samples.append({"compile": t1 - t0, "write_artifacts": t2 - t1})
            rerendered.append(sorted(stats.rendered))
    finally:
        tenant.write_text(original, encoding="utf-8")
        shutil.rmtree(out, ignore_errors=True)
    return {"samples": samples, "rerendered": rerendered[-1], "devices": len(compiled.intents)}


def _maxrss() -> int:
    """Peak resident set size of this process, in bytes (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


# --------------------------------------------------------------------------- driver side


def _run_worker(mode: str, root: Path, runs: int) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", mode, str(root), str(runs)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"worker {mode} failed on {root}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def _fmt_s(med: float, lo: float) -> str:
    return f"{med:7.3f} ({lo:.3f})"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-s", "--scenario", action="append", choices=list("abcdef"), help="repeatable")
    p.add_argument("-n", "--runs", type=int, default=5, help="timed runs per scenario (median, min)")
    p.add_argument("--keep", action="store_true", help="keep the generated fabric repositories")
    p.add_argument("--json", type=Path, help="also write all figures to this JSON file")
    p.add_argument("--worker", nargs=3, metavar=("MODE", "ROOT", "RUNS"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args.worker:
        mode, root, runs = args.worker[0], Path(args.worker[1]), int(args.worker[2])
        workers: dict[str, Callable[[], dict[str, Any]]] = {
            "full": lambda: worker_full(root, runs),
            "rss": lambda: worker_rss(root),
        }
        fn = workers.get(mode, lambda: worker_incremental(root, runs))
        from fabricctl.model.problems import InputError

        try:
            print(json.dumps(fn()))
        except InputError as exc:
            sys.stderr.write(exc.render() + "\n")
            return 1
        return 0

    render = _have_renderer()
    print(f"fabricctl bench: python {sys.version.split()[0]}, {os.cpu_count()} cpus, {args.runs} runs")
    if not render:
        print("fabricctl/render.py not found: render+write and scenario e are skipped")
    results = {}
    for key in args.scenario or list("abcdef"):
        root = Path(tempfile.mkdtemp(prefix=f"bench-{key}-"))
        try:
            desc = build_scenario(key, root)
            print(f"\n({key}) {desc}" + (f"  [{root}]" if args.keep else ""), flush=True)
            if key == "e":
                if not render:
                    print("    skipped: no renderer")
                    continue
                r = _run_worker("incremental", root, args.runs)
                results[key] = r
                tot = [s["compile"] + s["write_artifacts"] for s in r["samples"]]
                comp = [s["compile"] for s in r["samples"]]
                wr = [s["write_artifacts"] for s in r["samples"]]
                print(f"    one tenant moved ({E_TENANT} -> gpu{E_SERVER:03d} nic{E_NIC})")
                print(f"    compile_fabric   {_fmt_s(statistics.median(comp), min(comp))} s")
                print(f"    write_artifacts  {_fmt_s(statistics.median(wr), min(wr))} s")
                print(f"    total            {_fmt_s(statistics.median(tot), min(tot))} s")
                print(f"    re-rendered {len(r['rerendered'])}/{r['devices']}: {', '.join(r['rerendered'])}")
                continue
            r = _run_worker("full", root, args.runs)
            r.update(_run_worker("rss", root, 1))
            results[key] = r
            lines = f"{r['lines']:,}" if r["lines"] is not None else "n/a"
            print(f"    devices {r['devices']}, tenants {r['tenants']:,}, config lines {lines}")
            totals = []
            for stage in STAGES:
                vals = [s[stage] for s in r["samples"] if stage in s]
                if vals:
                    print(f"    {stage:<14} {_fmt_s(statistics.median(vals), min(vals))} s")
            totals = [sum(s.values()) for s in r["samples"]]
            print(f"    {'total':<14} {_fmt_s(statistics.median(totals), min(totals))} s   median (min)")
            print(f"    imports        {r['imports']:7.3f} s   (once per process, not in total)")
            mib = 1024 * 1024
            print(
                f"    peak memory    {r['maxrss'] / mib:7.1f} MiB ru_maxrss (one run, fresh process; "
                f"{r['maxrss_imports'] / mib:.1f} after imports), "
                f"{r['tracemalloc_peak'] / mib:.1f} MiB tracemalloc peak"
            )
            if not r["same_as_compile_fabric"]:
                print("    WARNING: stage split gives other intents than compile_fabric(): update the bench")
        finally:
            if not args.keep:
                shutil.rmtree(root, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
