"""Day-0 of a new 2-rack pod on the lab, from factory default to accepted and placeable.

    python bench/bench_day0.py             # 3 runs, a 10-minute soak per rack
    python bench/bench_day0.py -n 5 --soak 10m --time-scale 0.01

Each run starts from examples/day0 (no switch yet) and times, as whole processes (the installed
CLI, interpreter start included), what an operator runs when two racks arrive:

  rack add     fabricctl rack add r01 (2 spines, 4 leaves, 8 servers) and r02 (4 leaves, 8 servers)
               from the factory serial lists
  ztp render   the Kea configuration and the 20 day-0 files
  lab up       10 factory-default switches (fabricctl lab up --detach): no config, no listener
  ztp boot     fabricctl ztp serve --lab started; until every switch has asked DHCP (a real
               kea-dhcp4 in a network namespace where the machine allows it), fetched its files
               over HTTP, applied them and listens (the lab's own ZTP agent retries each second)
  accept       fabricctl rack accept r01, then r02 (--soak on the switches' clocks)
  place        fabricctl tenant new on the new GPUs

The lab runs on its own clock sped up by --time-scale (0.01: a 10-minute soak passes in 6 s of
wall time); the soak is reported in lab seconds and wall seconds apart. Prints medians; asserts
nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "day0"
RACKS = (("r01", "spine-rack-template.yaml"), ("r02", "rack-template.yaml"))


def cli(root: Path, *args: str, env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "fabricctl", *args, "--root", str(root)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(
            f"fabricctl {' '.join(args)} failed ({done.returncode}):\n{done.stdout}{done.stderr}"
        )
    return took, done.stdout


def lab_json(root: Path) -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.loads(
            (root / ".fabricctl" / "lab" / "lab.json").read_text(encoding="utf-8")
        )
        return data
    except (OSError, ValueError):
        return {}


def one_run(work: Path, soak: str, env: dict[str, str]) -> dict[str, float]:
    root = work / "pod"
    shutil.copytree(EXAMPLE, root)
    times: dict[str, float] = {}
    times["rack add"] = 0.0
    for name, template in RACKS:
        took, _ = cli(
            root,
            "rack",
            "add",
            name,
            "--template",
            str(root / template),
            "--serials",
            str(root / f"serials-{name}.csv"),
            env=env,
        )
        times["rack add"] += took
    times["ztp render"], _ = cli(root, "ztp", "render", "--lab", env=env)
    times["lab up"], _ = cli(root, "lab", "up", "--detach", env=env)
    serve = None
    try:
        started = time.perf_counter()
        serve = subprocess.Popen(
            [sys.executable, "-m", "fabricctl", "ztp", "serve", "--lab", "--port", "0", "--root", str(root)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        while lab_json(root).get("ztp_waiting", ["?"]):
            if time.perf_counter() - started > 300:
                raise SystemExit(f"switches still waiting after 300 s: {lab_json(root).get('ztp_waiting')}")
            time.sleep(0.05)
        times["ztp boot"] = time.perf_counter() - started
        times["accept"] = 0.0
        for name, _ in RACKS:
            took, _ = cli(root, "rack", "accept", name, "--lab", "--soak", soak, env=env)
            times["accept"] += took
        times["place"], _ = cli(root, "tenant", "new", "first", "--gpus", "64", "--whole-servers", env=env)
    finally:
        if serve is not None:
            serve.send_signal(signal.SIGINT)
            serve.wait(10)
        subprocess.run(
            [sys.executable, "-m", "fabricctl", "lab", "down", "--root", str(root)],
            capture_output=True,
            env=env,
            check=False,
        )
    times["total"] = sum(times.values())
    log = (root / ".fabricctl" / "lab" / "lab.log").read_text(encoding="utf-8", errors="replace")
    times["kea"] = float("DHCP answered by kea-dhcp4" in log)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--runs", type=int, default=3)
    parser.add_argument("--soak", default="10m", help="Soak per rack, lab time (default 10m).")
    parser.add_argument(
        "--time-scale", type=float, default=0.01, help="Lab seconds per wall second (default 0.01)."
    )
    args = parser.parse_args()
    env = {**os.environ, "FABRICCTL_LAB_TIME_SCALE": str(args.time_scale)}
    env.pop("FABRICCTL_LAB_USERNAME", None)
    env.pop("FABRICCTL_LAB_PASSWORD", None)
    runs = []
    for i in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="fabricctl-day0-") as tmp:
            runs.append(one_run(Path(tmp), args.soak, env))
        print(
            f"run {i + 1}: " + ", ".join(f"{k} {v:.2f} s" for k, v in runs[-1].items() if k != "kea"),
            flush=True,
        )
    dhcp = (
        "a real kea-dhcp4"
        if all(r["kea"] for r in runs)
        else "the Kea JSON read by the lab (no kea-dhcp4 here)"
    )
    print(f"\nday-0 of a 2-rack pod (10 switches, 16 servers, 64 GPUs), {args.runs} runs, DHCP from {dhcp}:")
    for stage in ("rack add", "ztp render", "lab up", "ztp boot", "accept", "place", "total"):
        print(f"  {stage:<11} median {statistics.median(r[stage] for r in runs):7.2f} s")
    print(
        f"  soak        {args.soak} per rack on the lab clock (x{args.time_scale}: part of accept's wall time)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
