"""Tenant onboarding as the customer waits: `tenant new` -> plan -> apply -> `check --tenant`.

    python bench/bench_onboard.py                      # examples/multipod-10k (448 switches), 20 tenants
    python bench/bench_onboard.py --pods 1 -n 5        # the same on a 1-pod fabric (96 switches)
    python bench/bench_onboard.py --scope fabric -n 3  # plan without --changed-since (every switch read)

Setup (untimed): the fabric is copied into a temp git repository (examples/multipod-10k, or a
`bench/gen_100k.py --pods N` fabric with no tenant), its intended configs are loaded into the
lab's saved state through the lab's own parser and saved (as a fabric in service whose settings
took effect at its last boot: what an apply, save and reboot leave), and `fabricctl lab up
--detach` serves every switch from one process, on the wall clock (FABRICCTL_LAB_TIME_SCALE=1:
every lab-clock wait, commit-confirm and the check window, passes in real time, so lab seconds
and wall seconds are the same).

Then, for each of `-n` tenants in a row, the installed CLI as whole processes (interpreter start
included), each stage timed:

  new     fabricctl tenant new onbNN --gpus 64 (whole servers, rail-aligned: 8 leaves)
  plan    fabricctl plan --lab --changed-since applied -o plan.json (the switches whose intent or
          config differs from the commit in service, tag `applied`; --scope fabric: every switch)
  apply   fabricctl apply plan.json --lab --auto-approve (commit-confirm, health gate, save)
  check   fabricctl check --lab --tenant onbNN --window WINDOW --timeout T (its GPU ports and
          fabric links, the proofs on their running configs, counters read twice WINDOW apart;
          a check that fails is printed with what failed and counted, not fatal)

The tenant file is committed after `tenant new` (untimed: apply takes committed inputs, as a
merged pull request gives them) and the tag `applied` moved after the check (the next change's
base is what is in service). Per onboarding it prints the switches fetched by plan, re-read and pushed by apply, and read by check;
at the end the median and p99 of each stage and of the whole, with the load average.
Prints figures only; it asserts nothing except that each stage exits as a success does.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
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

STAGES = ("new", "plan", "apply", "check")


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", *args],
        check=True,
        capture_output=True,
    )


def make_fabric(root: Path, pods: int | None) -> None:
    """The fabric repository: the 10k example, or a gen_100k fabric of `pods` pods, no tenants."""
    if pods is None:
        for folder in ("inventory", "tenants"):
            shutil.copytree(REPO / "examples" / "multipod-10k" / folder, root / folder)
    else:
        import gen_100k

        gen_100k.write_fabric(root, pods=pods, name=f"onboard-{pods}")
        (root / "tenants").mkdir()
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "fabric in service")
    git(root, "tag", "applied")


def seed_lab(root: Path) -> int:
    """Every switch's lab state = its intended config, saved and booted (a fabric in service)."""
    from fabricctl.compile.build import compile_fabric
    from fabricctl.lab.clock import LabClock
    from fabricctl.lab.device import LabDevice
    from fabricctl.lab.inventory import specs_from_inventory
    from fabricctl.lab.state import StateStore, lab_dir
    from fabricctl.verify.api import render_configs

    compiled = compile_fabric(root)
    configs = render_configs(compiled, root)
    store = StateStore(lab_dir(root) / "state")
    for spec in specs_from_inventory(root):
        dev = LabDevice(spec, store, clock=LabClock.frozen())
        dev.running.replace_contents(dev.parse(configs[spec.name], base=dev.running))
        dev.persist_running()
        dev.save()
        dev.reboot()
    return len(configs)


def cli(root: Path, *args: str, env: dict[str, str], ok: tuple[int, ...] = (0,)) -> tuple[float, str, str]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "fabricctl", *args, "--root", str(root)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    took = time.perf_counter() - started
    if done.returncode not in ok:
        raise SystemExit(
            f"fabricctl {' '.join(args)} exited {done.returncode}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )
    return took, done.stdout, done.stderr


def onboard(root: Path, k: int, scope: str, window: str, timeout: int, env: dict[str, str]) -> dict[str, Any]:
    name = f"onb{k:02d}"
    plan_file = root.parent / f"{name}.plan.json"
    times: dict[str, float] = {}
    times["new"], out, _ = cli(root, "tenant", "new", name, "--gpus", "64", env=env)
    leaves = re.search(r"leaves\s+(.*) \((\d+)\)", out)
    git(root, "add", "tenants")  # the change as reviewed and merged (apply takes committed inputs)
    git(root, "commit", "-qm", f"onboard {name}")
    scoped = ["--changed-since", "applied"] if scope == "changed" else []
    times["plan"], _, plan_err = cli(root, "plan", "--lab", *scoped, "-o", str(plan_file), env=env)
    plan = json.loads(plan_file.read_text(encoding="utf-8"))
    fetched = len(plan["switches"])
    to_change = sum(1 for sp in plan["switches"].values() if sp.get("status") == "changed")
    times["apply"], apply_out, apply_err = cli(
        root, "apply", str(plan_file), "--lab", "--auto-approve", "--json", env=env
    )
    report = json.loads(apply_out)
    pushed = sorted(n for n, o in report["switches"].items() if o["status"] == "changed")
    reread = re.search(r"recheck\b.*?(\d+) switches as planned", apply_err)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "fabricctl", "check", "--lab", "--tenant", name, "--window", window,
         "--timeout", str(timeout), "--root", str(root)],
        capture_output=True, text=True, check=False, env=env,
    )  # fmt: skip
    times["check"] = time.perf_counter() - started
    checked = re.search(r"on (\d+) switch\(es\)", done.stderr)
    failed = re.findall(r"^FAIL (\S+)\s+(\S+)", done.stdout, re.M)
    git(root, "tag", "-f", "applied")  # what is in service now: the next change's base
    plan_file.unlink()
    return {
        "tenant": name,
        "times": times,
        "total": sum(times.values()),
        "leaves": int(leaves[2]) if leaves else None,
        "fetched": fetched,
        "to_change": to_change,
        "reread": int(reread[1]) if reread else None,
        "pushed": len(pushed),
        "checked": int(checked[1]) if checked else None,
        "check_exit": done.returncode,  # 0 healthy; 1 a check failed (its FAIL lines kept below)
        "check_failed": sorted({f"{what} {switch}" for what, switch in failed}),
        "plan_stages": _stage_lines(plan_err),
        "apply_stages": _stage_lines(apply_err),
    }


def _stage_lines(stderr: str) -> dict[str, float]:
    """`compile  1.2 s ...` lines the CLI prints on stderr -> stage -> seconds."""
    out: dict[str, float] = {}
    for m in re.finditer(r"^\s*(?:\S+\s+)?([a-z][a-z -]*?)\s+(\d+\.\d+) s\b", stderr, re.M):
        out[m[1].strip()] = float(m[2])
    return out


def p99(values: list[float]) -> float:
    """The 99th percentile (nearest rank): with 20 runs, the slowest."""
    ranked = sorted(values)
    return ranked[min(len(ranked) - 1, max(0, -(-99 * len(ranked) // 100) - 1))]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", "--tenants", type=int, default=20)
    ap.add_argument(
        "--pods", type=int, default=None, help="a gen_100k fabric of N pods instead of the 10k example"
    )
    ap.add_argument("--scope", choices=["changed", "fabric"], default="changed")
    ap.add_argument("--window", default="10s", help="check --tenant --window (lab clock)")
    ap.add_argument(
        "--timeout",
        type=int,
        default=30,
        help="check --timeout: per command (a busy lab process answers slower)",
    )
    ap.add_argument("--keep", action="store_true", help="keep the fabric repository (printed)")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="fabricctl-onboard-"))
    root = work / "fabric"
    root.mkdir()
    env = {
        **os.environ,
        "FABRICCTL_LAB_TIME_SCALE": "1",
        "FABRICCTL_CACHE_DIR": str(work / "cache"),  # beside the fabric, never in it; starts empty
    }
    os.environ["FABRICCTL_CACHE_DIR"] = env["FABRICCTL_CACHE_DIR"]
    try:
        make_fabric(root, args.pods)
        started = time.perf_counter()
        switches = seed_lab(root)
        print(f"{switches} switches in service (lab state seeded in {time.perf_counter() - started:.1f} s)")
        took, _, _ = cli(root, "lab", "up", "--detach", env=env)
        print(f"lab up: {took:.1f} s; scope: {args.scope}; check window {args.window}; load {_load()}")
        print(
            f"{'tenant':<7} {'new':>6} {'plan':>6} {'apply':>6} {'check':>6} {'total':>6}  "
            f"leaves fetched changed re-read pushed check-read"
        )
        runs = []
        for k in range(1, args.tenants + 1):
            r = onboard(root, k, args.scope, args.window, args.timeout, env)
            runs.append(r)
            t = r["times"]
            print(
                f"{r['tenant']:<7} "
                + " ".join(f"{t[s]:6.2f}" for s in STAGES)
                + f" {r['total']:6.2f}  {r['leaves']!s:>6} {r['fetched']:>7} {r['to_change']:>7} "
                f"{r['reread']!s:>7} {r['pushed']:>6} {r['checked']!s:>10}"
                + (
                    f"  check exit {r['check_exit']}: {', '.join(r['check_failed'][:6])}"
                    if r["check_exit"]
                    else ""
                ),
                flush=True,
            )
        healthy = sum(1 for r in runs if r["check_exit"] == 0)
        print(
            f"\n{len(runs)} onboardings of 64 GPUs on {switches} switches ({healthy} checked healthy), load {_load()}:"
        )
        for stage in STAGES:
            values = [r["times"][stage] for r in runs]
            print(f"  {stage:<6} median {statistics.median(values):6.2f} s  p99 {p99(values):6.2f} s")
        totals = [float(r["total"]) for r in runs]
        print(
            f"  {'total':<6} median {statistics.median(totals):6.2f} s  p99 {p99(totals):6.2f} s  (target p99 <= 30 s)"
        )
        for key in ("fetched", "pushed", "checked"):
            values = sorted({r[key] for r in runs})
            print(f"  switches {key} per onboarding: {', '.join(map(str, values))}")
        print(json.dumps({"switches": switches, "runs": runs}))
    finally:
        subprocess.run(
            [sys.executable, "-m", "fabricctl", "lab", "down", "--root", str(root)],
            capture_output=True,
            check=False,
            env=env,
        )
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} cpus)"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
