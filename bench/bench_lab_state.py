"""The lab's derived fabric state: how long one derivation takes on a rendered fabric.

Every state read (`show interfaces status`, `show lldp neighbors`, `display bgp peer ...`) after a
config change derives the fabric's state again, so this cost bounds how fast health checks and
the apply health gate run against the lab. Prints medians; asserts nothing.

    python bench/bench_lab_state.py [--root .] [-n 5]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from fabricctl.compile.build import compile_fabric
from fabricctl.lab import LabClock, LabFabric
from fabricctl.render import Renderer


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path("."))
    ap.add_argument("-n", "--runs", type=int, default=5)
    args = ap.parse_args()
    compiled = compile_fabric(args.root)
    renderer = Renderer(args.root)
    with tempfile.TemporaryDirectory() as tmp:
        lab = LabFabric.from_inventory(args.root, state_dir=Path(tmp), clock=LabClock.frozen())
        for name, intent in compiled.intents.items():
            dev = lab.devices[name]
            dev.set_running(dev.parse(renderer.render(intent), base=dev.hardware()))
        links, full = [], []
        for _ in range(args.runs):
            for dev in lab.devices.values():
                dev.persist_running()  # every switch changed: nothing cached
            t = time.perf_counter()
            state = lab.state()
            for name in lab.devices:
                state.lldp(name)
            links.append(time.perf_counter() - t)
            t = time.perf_counter()
            up = sum(
                s.state == "Established" for by_peer in state.sessions.values() for s in by_peer.values()
            )
            full.append(time.perf_counter() - t)
        sessions = sum(len(by_peer) for by_peer in state.sessions.values())
        print(
            f"{len(lab.devices)} switches, {len(lab.cabling.peer) // 2} cables, {sessions} BGP sessions ({up} Established)"
        )
        print(f"links + LLDP of every switch, all facts re-read: median {statistics.median(links):.3f} s")
        print(f"BGP sessions of every switch (first use):       median {statistics.median(full):.3f} s")


if __name__ == "__main__":
    main()
