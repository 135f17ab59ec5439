"""Lab fabric benchmark (prints figures, asserts nothing).

1. The reference inventory (48 devices) served by one detached lab process; Nornir with
   the real nornir_netmiko plugin fetches every running config: median of 5 runs, lab RSS.
2. One lab process serving 500 generated devices: start time, RSS, fetch from a sample.

Run: python bench/bench_lab.py [--root DIR]   (default: this repository)
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
from typing import Any

import yaml

from fabricctl.lab.runtime import running_lab

USER, PASSWORD = "admin", "fabricctl-lab"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def start_lab(root: Path) -> tuple[subprocess.Popen[bytes], dict[str, Any], float]:
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "fabricctl.lab", "--root", str(root)])
    while True:
        data = running_lab(root)
        if data is not None and data["pid"] == proc.pid:
            return proc, data, time.perf_counter() - t0
        if proc.poll() is not None:
            raise SystemExit("lab failed to start")
        time.sleep(0.02)


def nornir_for(data: dict[str, Any], names: list[str] | None = None) -> Any:
    from nornir import InitNornir

    hosts = {}
    for d in data["devices"]:
        if names is not None and d["name"] not in names:
            continue
        platform = "arista_eos" if d["platform"] == "eos" else "hp_comware"
        hosts[d["name"]] = {
            "hostname": d["host"],
            "port": d["port"],
            "username": USER,
            "password": PASSWORD,
            "platform": platform,
        }
    inv = Path(tempfile.mkdtemp(prefix="bench-inv-"))
    (inv / "hosts.yaml").write_text(yaml.safe_dump(hosts))
    return InitNornir(
        runner={"plugin": "threaded", "options": {"num_workers": len(hosts)}},
        inventory={"plugin": "SimpleInventory", "options": {"host_file": str(inv / "hosts.yaml")}},
        logging={"enabled": False},
    )


def fetch(nr: Any) -> float:
    from nornir_netmiko.tasks import netmiko_send_command

    t0 = time.perf_counter()
    res = nr.run(
        task=lambda task: netmiko_send_command(
            task,
            command_string="show running-config"
            if task.host.platform == "arista_eos"
            else "display current-configuration",
        )
    )
    elapsed = time.perf_counter() - t0
    if res.failed:
        raise SystemExit(f"fetch failed on {sorted(res.failed_hosts)}")
    for host in nr.inventory.hosts.values():
        host.close_connections()
    return elapsed


def bench_reference(root: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        lab_root = Path(tmp)
        shutil.copytree(root / "inventory", lab_root / "inventory")
        proc, data, started = start_lab(lab_root)
        try:
            nr = nornir_for(data)
            runs = [fetch(nr) for _ in range(5)]
            print(f"reference inventory: {len(data['devices'])} devices, lab start {started:.2f} s")
            print(
                f"  fetch all running configs (nornir_netmiko, {len(data['devices'])} workers):"
                f" median {statistics.median(runs):.2f} s  runs {[round(r, 2) for r in runs]}"
            )
            print(f"  lab process RSS after fetches: {rss_mb(proc.pid):.0f} MB")
        finally:
            proc.terminate()
            proc.wait(10)


def bench_500(sample: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        lab_root = Path(tmp)
        (lab_root / "inventory").mkdir()
        hosts = {}
        for i in range(500):
            platform = "eos" if i % 2 else "comware"
            hosts[f"sw{i:03d}"] = {
                "hostname": f"10.{i // 250}.{i % 250}.1",
                "groups": [platform],
            }
        groups = {"eos": {"platform": "eos"}, "comware": {"platform": "comware"}}
        (lab_root / "inventory" / "hosts.yaml").write_text(yaml.safe_dump(hosts))
        (lab_root / "inventory" / "groups.yaml").write_text(yaml.safe_dump(groups))
        proc, data, started = start_lab(lab_root)
        try:
            print("500 devices (250 EOS with eAPI, 250 Comware) in one process:")
            print(f"  start until all ports listen: {started:.2f} s, RSS {rss_mb(proc.pid):.0f} MB")
            names = [d["name"] for d in data["devices"]][:: 500 // sample][:sample]
            nr = nornir_for(data, names)
            runs = [fetch(nr) for _ in range(3)]
            print(
                f"  fetch from a sample of {len(names)}: median {statistics.median(runs):.2f} s;"
                f" RSS after {rss_mb(proc.pid):.0f} MB"
            )
        finally:
            proc.terminate()
            proc.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--sample", type=int, default=50)
    args = parser.parse_args()
    bench_reference(args.root)
    bench_500(args.sample)


if __name__ == "__main__":
    main()
