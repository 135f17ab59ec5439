"""The exporter over gNMI: how long a counter change on a lab switch takes to reach the
exporter's /metrics, and how much CPU a streamed switch costs.

    python bench/bench_gnmi.py [--fabric examples/eos-small] [--changes 20] [--window 20]

The fabric (every switch with `telemetry: gnmi`) runs in a lab on the wall clock (factory
configs: every cabled port counts, no PFC queues needed), with the exporter's pieces in the same
process: one gNMI stream per switch (SAMPLE every second, port state ON_CHANGE), the exposition,
and /metrics on a local port read every 10 ms.

- counter lag: `--changes` times, a `lossless_drops` fault is set on (or cleared from) a fabric
  port and /metrics is read until that port's `fabricctl_port_discards_total` changes; the lag
  from the fault to the series, median and p99 (a sample every second: between 0 and 1 s, plus
  the time to format and serve it).
- port-down lag: the same with `links_down` and `fabricctl_port_up` (ON_CHANGE, no sampling wait).
- CPU: user + system seconds of this process (the lab's gNMI servers and the exporter's streams)
  per wall second over `--window` seconds with every switch streaming, and per switch.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from functools import partial
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def _metrics(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as reply:
        return str(reply.read().decode())


def _value(text: str, metric: str, switch: str, port: str) -> float | None:
    m = re.search(
        rf'^{metric}\{{[^}}]*port="{re.escape(port)}"[^}}]*switch="{switch}"[^}}]*\}} (\S+)$', text, re.M
    )
    return float(m[1]) if m else None


_PHASE = random.Random(39)


def _lag(url: str, change: Callable[[], object], metric: str, switch: str, port: str) -> float:
    """Seconds from `change()` to the series of (switch, port) showing another value (the series
    present before: a stream that was being opened again is waited for, not timed)."""
    deadline = time.monotonic() + 120
    while (before := _value(_metrics(url), metric, switch, port)) is None:
        if time.monotonic() > deadline:
            raise SystemExit(f"no {metric} series for {switch} {port}")
        time.sleep(0.05)
    time.sleep(_PHASE.uniform(0, 1))  # anywhere in the sample interval, not just after a sample
    started = time.monotonic()
    change()
    while time.monotonic() - started < 120:
        if _value(_metrics(url), metric, switch, port) != before:
            return time.monotonic() - started
        time.sleep(0.01)
    raise SystemExit(f"{metric} of {switch} {port} did not change within 120 s")


def _p99(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.99 * len(values)) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--fabric", type=Path, default=REPO / "examples" / "eos-small")
    parser.add_argument("--changes", type=int, default=20)
    parser.add_argument("--window", type=float, default=20.0)
    args = parser.parse_args()

    from fabricctl.compile.build import compile_fabric
    from fabricctl.lab import LabFabric
    from fabricctl.lab.runtime import lab_json, write_lab_json
    from fabricctl.telemetry.exporter import Exposition, Snapshot, serve
    from fabricctl.telemetry.gnmi import feeds

    root = Path(tempfile.mkdtemp(prefix="fabricctl-bench-gnmi-"))
    for folder in ("inventory", "tenants"):
        shutil.copytree(args.fabric / folder, root / folder)
    defaults = root / "inventory" / "defaults.yaml"
    text = defaults.read_text(encoding="utf-8")
    defaults.write_text(text.replace("data:\n", "data:\n  telemetry: gnmi\n", 1), encoding="utf-8")
    compiled = compile_fabric(root)
    names = {s.name for s in compiled.fabric.switches}
    link = compiled.topology.links[0]
    switch, port = link.leaf, link.leaf_port

    lab = LabFabric.from_inventory(root).start()
    write_lab_json(root, lab)
    exposition = Exposition(compiled)
    for name in sorted(names):
        exposition.update(name, Snapshot())
    try:
        with feeds(root, True, names, 8, 60, exposition.update) as (_, streamed):
            server = serve(exposition, "127.0.0.1", 0)
            url = f"http://127.0.0.1:{server.address[1]}/metrics"
            lags: dict[str, list[float]] = {}
            for fault, metric in (
                ("lossless_drops", "fabricctl_port_discards_total"),
                ("links_down", "fabricctl_port_up"),
            ):
                lags[fault] = [
                    _lag(
                        url,
                        partial(lab.set_faults, switch, None, **{fault: [port] if i % 2 == 0 else []}),
                        metric,
                        switch,
                        port,
                    )
                    for i in range(args.changes)
                ]
            lab.clear_faults()
            cpu0, wall0 = sum(os.times()[:2]), time.monotonic()
            time.sleep(args.window)
            cpu = (sum(os.times()[:2]) - cpu0) / (time.monotonic() - wall0)
            server.stop()
        print(
            f"fabric: {args.fabric.name}, {len(streamed)} switches streamed over gNMI (SAMPLE 1 s, oper-status ON_CHANGE)"
        )
        for fault, what in (("lossless_drops", "counter change"), ("links_down", "port down/up  ")):
            got = lags[fault]
            print(
                f"{what} -> /metrics: median {statistics.median(got):.3f} s, p99 {_p99(got):.3f} s "
                f"over {len(got)} changes ({fault} set or cleared)"
            )
        print(
            f"CPU (lab gNMI servers + exporter streams, one process): {cpu:.3f} s/s, "
            f"{1000 * cpu / len(streamed):.1f} ms per switch per second"
        )
    finally:
        lab.stop()
        lab_json(root).unlink(missing_ok=True)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
