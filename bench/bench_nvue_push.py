"""NVUE twin benchmark (prints figures, asserts nothing).

One NVUE twin (SN5600) in this process, a first push of 64 routed ports (about 320 `nv set`
lines): the push over SSH (platforms/nvue/push.py: stage line by line, apply with confirm,
read-back, confirm, read-back), the same lines as one text/plain PATCH of a REST revision and
its apply, and one read of the applied config. Medians of --runs, the twin reset between runs.

Run: python bench/bench_nvue_push.py [--runs 5] [--ports 64]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from fabricctl.config.diff import diff_device
from fabricctl.config.rules import Dialect
from fabricctl.config.syntax import ObjectTree
from fabricctl.lab import DeviceSpec, LabClock, LabFabric
from fabricctl.platforms.nvue.push import PUSHER
from fabricctl.platforms.push import PushRequest, Target, running_hash

USER, PASSWORD = "admin", "fabricctl-lab"
DIALECT = Dialect(
    syntax=ObjectTree(
        collections=("interface", "vrf", "acl"), set_command="nv set", unset_command="nv unset"
    ),
    owned=(r"qos$",),
    ports=r"interface swp",
    single_value=(r"[^ ]+: ",),
)


def intended(ports: int) -> str:
    lines = ["interface:"]
    for n in range(1, ports + 1):
        lines += [
            f"  swp{n}:",
            f"    description: 'fabricctl bench port {n}'",
            f"    ipv4: {{address: {{10.64.{n // 128}.{(n % 128) * 2}/31: {{}}}}}}",
            "    link: {mtu: 9216, state: {up: {}}}",
            "    type: swp",
        ]
    return "\n".join([*lines, "qos:", "  roce:", "    mode: lossless", ""])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--ports", type=int, default=64)
    args = ap.parse_args()
    want = intended(args.ports)
    pushes, patches, reads = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        spec = DeviceSpec("leaf01", "nvue", mgmt_ip="192.0.2.11")
        with LabFabric([spec], state_dir=Path(tmp) / "state", clock=LabClock.frozen()) as lab:
            ep = lab.endpoints()["leaf01"]
            target = Target("leaf01", "nvue", ep.host, ep.ssh_port, USER, PASSWORD, timeout=30)
            commands: list[str] = []
            for _ in range(args.runs):
                lab.device("leaf01").reset()
                t0 = time.perf_counter()
                running = PUSHER.fetch(target)
                reads.append(time.perf_counter() - t0)
                commands = diff_device("leaf01", running, want, DIALECT).commands
                request = PushRequest(commands, want, DIALECT, running_hash(running), run_id="bench")
                t0 = time.perf_counter()
                result = PUSHER.push(target, request)
                pushes.append(time.perf_counter() - t0)
                assert result.status == "changed", result.message
                lab.device("leaf01").reset()
                base = f"https://{ep.host}:{ep.eapi_port}/nvue_v1"
                with httpx.Client(base_url=base, auth=(USER, PASSWORD), verify=False) as api:
                    t0 = time.perf_counter()
                    rev = next(iter(api.post("/revision").json()))
                    api.patch(
                        "/",
                        params={"rev": rev},
                        content="\n".join(commands),
                        headers={"Content-Type": "text/plain"},
                    )
                    api.patch(f"/revision/{rev}", json={"state": "apply", "auto-prompt": {"ays": "ays_yes"}})
                    patches.append(time.perf_counter() - t0)
    n = len(commands)
    print(f"NVUE twin, first push of {args.ports} routed ports: {n} nv set lines, {args.runs} runs")
    print(
        f"  read applied config (nv config show -o yaml, SSH): median {statistics.median(reads) * 1000:.0f} ms"
    )
    push_s = statistics.median(pushes)
    print(
        f"  push over SSH (stage, apply --confirm, read-back, confirm, read-back): median {push_s:.2f} s"
        f" ({push_s / n * 1000:.1f} ms per line)"
    )
    print(f"  REST: revision + one text/plain PATCH + apply: median {statistics.median(patches):.2f} s")


if __name__ == "__main__":
    main()
