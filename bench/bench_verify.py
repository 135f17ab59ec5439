"""Verify benchmark: the reference fabric with 2,048 single-GPU tenants (the expansion scenario).

    python bench/bench_verify.py            # 3 runs, medians
    python bench/bench_verify.py -n 5 --keep

A temp copy of the reference repository's inventory/ with `gpu_port_breakout: 2x200G` (16 spines +
32 leaves, 64 x 200G GPU lanes per leaf = 2,048 GPUs) and 2,048 tenant files, each holding one GPU
(`server: gpuNNN, nics: [k]`, id 1..2048, a /31 each). Some neighbouring tenants share both ways, so
the exception path is exercised too. Stages, each the median of the runs:

  compile   compile_fabric(root)                      (load, validate, allocate, intents)
  render    render_configs(): every switch rendered    (templates)
  parse     parse_configs(): config text -> model      (part of verify)
  verify    verify_fabric(compiled, configs)           (parse + isolation + lossless + capacity)

Peak memory: ru_maxrss of this process after all runs. Prints figures only; asserts nothing except
that the fabric verifies clean (a benchmark of a failing verify measures the wrong thing).
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from ipaddress import IPv4Address
from pathlib import Path
from typing import Any, TypeVar

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from fabricctl.compile.build import compile_fabric  # noqa: E402
from fabricctl.verify import parse_configs, render_configs, verify_fabric  # noqa: E402

TENANTS = 2048
NICS = 8
BASE = IPv4Address("10.100.0.0")  # 2,048 x /31 = 10.100.0.0 - 10.100.15.255, clear of the underlay


def build_repo(root: Path, tenants: int = TENANTS, share_every: int = 64) -> None:
    """Reference inventory split 2 x 200G, plus `tenants` single-GPU tenant files."""
    shutil.copytree(REPO / "inventory", root / "inventory")
    fabric = root / "inventory" / "fabric.yaml"
    text = fabric.read_text(encoding="utf-8")
    lines = [
        "  gpu_port_breakout: 2x200G" if line.strip().startswith("gpu_port_breakout:") else line
        for line in text.splitlines()
    ]
    fabric.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = root / "tenants"
    out.mkdir()
    for k in range(tenants):
        tid = k + 1
        shared = ""
        if share_every and k % share_every in (0, 1) and k + 1 < tenants:
            # tenants 1<->2, 65<->66, ...: two-sided exceptions
            peer = tid + 1 if k % share_every == 0 else tid - 1
            shared = f"shared_with: [t{peer:04d}]\n"
        (out / f"t{tid:04d}.yaml").write_text(
            f"name: t{tid:04d}\n"
            f"id: {tid}\n"
            f"description: Bench tenant {tid}\n"
            "isolation: l3\n"
            f"address_block: {BASE + 2 * k}/31\n"
            "lossless: true\n"
            "gpus:\n"
            f"  - server: gpu{k // NICS + 1:03d}\n"
            f"    nics: [{k % NICS}]\n" + shared,
            encoding="utf-8",
        )


T = TypeVar("T")


def timed(fn: Callable[..., T], *args: Any) -> tuple[float, T]:
    start = time.perf_counter()
    result = fn(*args)
    return time.perf_counter() - start, result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", "--runs", type=int, default=3)
    ap.add_argument("--keep", action="store_true", help="keep the generated repository")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-verify-"))
    try:
        build_repo(root)
        times: dict[str, list[float]] = {"compile": [], "render": [], "parse": [], "verify": []}
        report = None
        for _ in range(args.runs):
            t, compiled = timed(compile_fabric, root)
            times["compile"].append(t)
            t, configs = timed(render_configs, compiled, root)
            times["render"].append(t)
            t, _parsed = timed(parse_configs, compiled, configs)
            times["parse"].append(t)
            t, report = timed(verify_fabric, compiled, configs)
            times["verify"].append(t)
        assert report is not None
        lines = sum(c.count("\n") for c in configs.values())
        print(
            f"fabric: {len(compiled.intents)} switches, {len(compiled.allocation.tenants)} tenants, "
            f"{len(compiled.allocation.port_owner)} GPUs held, {lines} config lines; runs: {args.runs}"
        )
        for stage, values in times.items():
            print(f"  {stage:8s} median {statistics.median(values):7.3f} s   (min {min(values):.3f})")
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"  peak RSS {rss:.0f} MiB")
        print(
            f"  verify: {'clean' if report.ok else 'VIOLATIONS ' + str(report.by_check())}, "
            f"{len(report.exceptions)} allowed exceptions, {len(report.capacity)} capacity rows"
        )
        if not report.ok:
            for v in report.violations[:10]:
                print("   ", v)
            sys.exit(1)
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
