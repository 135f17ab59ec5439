"""A sharded first apply on the twin, the way the CI shards it (one runner per pod, the lock and
the switch leases on a git remote): where the time goes, and what it gives for the whole fabric
(prints figures, asserts nothing).

    python bench/bench_shards.py --pods 49 --apply-pods 2 --lab-shards 8   # 2 pods of the 100k twin

It writes a gen_100k fabric of `--pods` pods (no tenants) into a git repository with a bare remote,
serves it with `fabricctl lab up --shards N`, plans the first apply of `--apply-pods` pods
(`plan --lab --limit pod:1 ...`), then runs `apply PLAN --shard pod:K` for those pods as parallel
runners (`--runners` at a time). Each runner's record gives its stages (compile, recheck =
read every switch again, push) and per-switch push seconds. The extrapolation to the whole
fabric is printed with its assumptions: every pod costs what a measured one cost, runners run
`--target-runners` at a time on machines of their own, and the super-spine shard is one more wave.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gen_100k

GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}


def run(args: list[str], cwd: Path | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False, env=ENV)
    if check and done.returncode != 0:
        raise SystemExit(f"{' '.join(args[:6])}... failed: {done.stdout[-2000:]}{done.stderr[-2000:]}")
    return done


ENV = {**os.environ, **GIT_ENV, "FABRICCTL_STATE_REMOTE": "origin"}
FABRICCTL = [sys.executable, "-m", "fabricctl"]


def setup(root: Path, pods: int, platform: str, tiny: bool) -> None:
    if tiny:
        gen_100k.write_fabric(
            root, pods=pods, platform=platform, spines=2, leaves=2, gpu_ports="33-34", nics=2, leaf_uplinks=2,
            spine_uplinks=2,
        )  # fmt: skip
    else:
        gen_100k.write_fabric(root, pods=pods, platform=platform)
    (root / "tenants").mkdir(exist_ok=True)
    (root / ".gitignore").write_text(".fabricctl/\n")
    run(["git", "init", "-q", "--bare", "-b", "main", str(root.parent / "remote.git")])
    run(["git", "init", "-q", "-b", "main"], cwd=root)
    run(["git", "add", "-A"], cwd=root)
    run(["git", "commit", "-q", "-m", "fabric"], cwd=root)
    run(["git", "remote", "add", "origin", str(root.parent / "remote.git")], cwd=root)


def apply_shard(root: Path, plan: Path, shard: str, group: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*FABRICCTL, "apply", str(plan), "--lab", "--auto-approve", "--json", "--shard", shard,
         "--run-group", group, "--root", str(root)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
    )  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pods", type=int, default=49, help="pods of the fabric the twin serves")
    ap.add_argument("--apply-pods", type=int, default=2, help="pods applied (pod:1 ... pod:N)")
    ap.add_argument("--lab-shards", type=int, default=8)
    ap.add_argument("--runners", type=int, default=2, help="apply shards run at once here")
    ap.add_argument("--target-runners", type=int, default=8, help="runners of the extrapolation")
    ap.add_argument("--platform", default="comware", choices=["comware", "eos"])
    ap.add_argument("--tiny", action="store_true", help="pods of 2 leaves + 2 spines (a smoke run)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-shards-") as tmp:
        root = Path(tmp) / "fabric"
        setup(root, args.pods, args.platform, args.tiny)
        t0 = time.perf_counter()
        up = ["--shards", str(args.lab_shards)] if args.lab_shards > 1 else []
        run([*FABRICCTL, "lab", "up", "--detach", *up, "--root", str(root)])
        print(
            f"lab up: {args.pods} pods over {args.lab_shards} lab process(es): {time.perf_counter() - t0:.1f} s",
            flush=True,
        )
        try:
            pods = [f"pod:{k}" for k in range(1, args.apply_pods + 1)]
            plan = Path(tmp) / "plan.json"
            t0 = time.perf_counter()
            limits = [x for p in pods for x in ("--limit", p)]
            run([*FABRICCTL, "plan", "--lab", *limits, "-o", str(plan), "--root", str(root)])
            planned = json.loads(plan.read_text())
            n_plan = len(planned["switches"])
            plan_s = time.perf_counter() - t0
            print(f"plan {', '.join(pods)}: {n_plan} switches in {plan_s:.1f} s", flush=True)
            walls: dict[str, float] = {}
            reports: dict[str, dict[str, Any]] = {}
            t_all = time.perf_counter()
            queue = list(pods)
            running: dict[str, tuple[subprocess.Popen[str], float]] = {}
            while queue or running:
                while queue and len(running) < args.runners:
                    shard = queue.pop(0)
                    running[shard] = (apply_shard(root, plan, shard, "bench-1"), time.perf_counter())
                for shard, (proc, started) in list(running.items()):
                    if proc.poll() is None:
                        continue
                    out, err = proc.communicate()
                    walls[shard] = time.perf_counter() - started
                    del running[shard]
                    if proc.returncode != 0:
                        raise SystemExit(f"apply --shard {shard} failed: {out[-1500:]}{err[-1500:]}")
                    reports[shard] = json.loads(out)
                time.sleep(0.2)
            total = time.perf_counter() - t_all
        finally:
            run([*FABRICCTL, "lab", "down", "--root", str(root)], check=False)
    pushed = [s for r in reports.values() for s in r["switches"].values()]
    per_switch = [s["seconds"] for s in pushed if s["status"] == "changed"]
    stages: dict[str, list[float]] = {}
    for r in reports.values():
        for stage, seconds in (r.get("stages") or {}).items():
            stages.setdefault(stage, []).append(float(seconds))
    statuses: dict[str, int] = {}
    for s in pushed:
        statuses[s["status"]] = statuses.get(s["status"], 0) + 1
    print(f"apply: {len(pods)} pod shard(s), {args.runners} at a time here: {total:.1f} s wall; {statuses}")
    print(
        f"  per shard wall: median {statistics.median(walls.values()):.1f} s {sorted(round(w, 1) for w in walls.values())}"
    )
    for stage, values in sorted(stages.items(), key=lambda kv: -statistics.median(kv[1])):
        print(f"  stage {stage}: median {statistics.median(values):.1f} s per shard")
    outside = [walls[k] - sum(float(v) for v in (reports[k].get("stages") or {}).values()) for k in walls]
    print(
        f"  outside the stages (process start, lock, leases, records on the remote): median {statistics.median(outside):.1f} s per shard"
    )
    steps: dict[str, list[float]] = {}
    for s in pushed:
        for step, seconds in (s.get("timings") or {}).items():
            steps.setdefault(step, []).append(float(seconds))
    shown = ", ".join(
        f"{k} {statistics.median(v):.2f} s"
        for k, v in sorted(steps.items(), key=lambda kv: -statistics.median(kv[1]))
    )
    print(f"  per switch, median of each step: {shown or 'none recorded'}")
    print(f"  push per switch: median {statistics.median(per_switch):.2f} s, max {max(per_switch):.2f} s")
    shard_s = statistics.median(walls.values())
    waves = -(-args.pods // args.target_runners)
    estimate = waves * shard_s + shard_s  # the super-spine shard: one more wave
    print(
        f"extrapolation: {args.pods} pod shards, {args.target_runners} runners of their own -> {waves} waves "
        f"+ the super-spine wave = {estimate / 60:.1f} min (each wave costs a measured pod shard's median; "
        f"assumes the twin keeps up with {args.target_runners} runners at once)"
    )


if __name__ == "__main__":
    main()
