"""A sharded lab (`fabricctl lab up --shards N --detach`) serving a gen_100k fabric: switches served
per shard, resident memory per idle switch, start time until every port listens, and what one
client login per shard costs (prints figures, asserts nothing).

    python bench/bench_lab_shards.py --pods 5 --shards 2            # examples/multipod-10k's size
    python bench/bench_lab_shards.py --pods 49 --shards 8           # the 100k fabric (4,160 switches)

RSS is each shard's VmRSS summed (shared library pages counted once per process), and PSS the
same from /proc/PID/smaps_rollup (shared pages split between the processes that map them).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gen_100k

from fabricctl.lab.runtime import running_lab, shards_dir


def memory_kb(pid: int, field: str, name: str = "status") -> int:
    for line in Path(f"/proc/{pid}/{name}").read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1])
    return 0


def fabricctl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fabricctl", *args], capture_output=True, text=True, check=False
    )


def one_run(root: Path, shards: int, login: bool) -> dict[str, float]:
    t0 = time.perf_counter()
    up = fabricctl(
        "lab", "up", "--detach", "--root", str(root), *(["--shards", str(shards)] if shards > 1 else [])
    )
    started = time.perf_counter() - t0
    if up.returncode != 0:
        raise SystemExit(f"lab up failed: {up.stdout}{up.stderr}")
    try:
        data = running_lab(root)
        assert data is not None
        pids = [int(p) for p in data.get("pids", [data["pid"]])]
        switches = len(data["devices"])
        per_shard = [s["devices"] for s in data.get("shards", [])] or [switches]
        rss = sum(memory_kb(p, "VmRSS:") for p in pids) / 1024
        pss = sum(memory_kb(p, "Pss:", "smaps_rollup") for p in pids) / 1024
        out = {"start": started, "switches": switches, "rss": rss, "pss": pss, "shards": len(pids)}
        print(
            f"  run: {switches} switches over {len(pids)} process(es) {per_shard}, start {started:.1f} s, "
            f"RSS {rss:.0f} MiB ({rss * 1024 / switches:.0f} KiB/switch), PSS {pss:.0f} MiB "
            f"({pss * 1024 / switches:.0f} KiB/switch)",
            flush=True,
        )
        if login:  # one switch per shard read over SSH: its tree is built then, not before
            from netmiko import ConnectHandler

            firsts = (
                [data["devices"][0]]
                if shards == 1
                else [
                    json.loads(p.read_text())["devices"][0]
                    for p in sorted(shards_dir(root).glob("[0-9]*.json"))
                    if p.stem.isdigit()
                ]
            )
            t1 = time.perf_counter()
            for d in firsts:
                kind = {"eos": "arista_eos", "comware": "hp_comware"}[str(d["platform"])]
                conn = ConnectHandler(
                    device_type=kind,
                    host=d["host"],
                    port=d["port"],
                    username="admin",
                    password="fabricctl-lab",
                )
                conn.send_command(
                    "display lldp neighbor-information list"
                    if kind == "hp_comware"
                    else "show lldp neighbors"
                )
                conn.disconnect()
            after = sum(memory_kb(p, "VmRSS:") for p in pids) / 1024
            out["login"] = (time.perf_counter() - t1) / len(firsts)
            print(
                f"  one login + LLDP read per shard: {out['login']:.2f} s each; RSS after {after:.0f} MiB",
                flush=True,
            )
        return out
    finally:
        fabricctl("lab", "down", "--root", str(root))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pods", type=int, default=5)
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--platform", default="comware", choices=["comware", "eos"])
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--root", type=Path, default=None, help="an existing fabric root (else one is generated)")
    ap.add_argument("--login", action="store_true", help="also log in to one switch per shard")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-lab-shards-") as tmp:
        root = args.root or Path(tmp) / "fabric"
        if args.root is None:
            gen_100k.write_fabric(root, pods=args.pods, platform=args.platform)
        print(f"fabric {root.name}: {args.pods} pods, {args.shards} shard(s), {args.runs} run(s)", flush=True)
        runs = [one_run(root, args.shards, args.login) for _ in range(args.runs)]
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        print(
            f"median: {med['switches']:.0f} switches served, start {med['start']:.1f} s, "
            f"RSS {med['rss']:.0f} MiB = {med['rss'] * 1024 / med['switches']:.0f} KiB per switch, "
            f"PSS {med['pss'] * 1024 / med['switches']:.0f} KiB per switch"
        )


if __name__ == "__main__":
    main()
