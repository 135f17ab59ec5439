"""The exporter at scale: how long one poll round of 448 lab switches takes (the shortest poll
interval the defaults sustain), how big and slow a scrape is at 4,160 switches, and how long a
scrape takes while hostile clients lean on the server.

    python bench/bench_exporter.py [--rounds 5] [--concurrency 32]   # poll and scrape
    python bench/bench_exporter.py --part poll | --part scrape | --part hostile

poll: examples/multipod-10k in one lab process (448 switches, factory configs: every port's
counters, no PFC or ECN queues yet) and `fabricctl exporter --lab --interval 1` in another;
/metrics is read until every switch has been polled once after a mark, `--rounds` times. Prints
the first round (SSH logins included), the median round (no switch is read twice at once, so a
round is as long as the slowest concurrency-bound sweep: an --interval below it is not kept), and
the median of the switches' own poll durations.

scrape: the 49-pod fabric of bench/gen_100k.py (3,136 pod switches + 1,024 super-spines = 4,160;
100,352 GPUs, 99,999 single-GPU tenants) compiled, every switch given the counters a Comware
switch reports for every cabled port (errors, PFC on the lossless priority, 8 queues of drops and
sent packets, flap age, optic), then the collector's exposition: series count, bytes and the
median seconds to produce it.

hostile: examples/multipod-10k's 448 switches with the same synthetic counters behind the
exporter's HTTP server (httpserve.py, its default limits); the median seconds of a scrape over a
real socket, quiet, then while 300 silent sockets, 50 slowloris clients (a header byte every
0.1 s), 50 idle keep-alive connections and a client sending 1 MB heads in a loop lean on it; and
the server's threads (its loop and its workers) before and during the load.
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
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fabricctl.compile.build import Compiled
    from fabricctl.telemetry.exporter import Exposition

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))


def _metrics(url: str) -> str:
    with urllib.request.urlopen(url, timeout=60) as reply:
        body: bytes = reply.read()
    return body.decode()


def _polled(text: str) -> dict[str, float]:
    return {
        m[1]: float(m[2])
        for m in re.finditer(
            r'^fabricctl_switch_last_poll_timestamp_seconds\{switch="([^"]+)"\} (\S+)$', text, re.M
        )
    }


def poll(rounds: int, concurrency: int) -> None:
    root = Path(tempfile.mkdtemp(prefix="fabricctl-bench-exp-"))
    for folder in ("inventory", "tenants"):
        shutil.copytree(REPO / "examples" / "multipod-10k" / folder, root / folder)
    fab = [sys.executable, "-m", "fabricctl"]
    started = time.monotonic()
    subprocess.run([*fab, "lab", "up", "--detach", "--root", str(root)], check=True, capture_output=True)
    print(f"lab up (448 switches, one process): {time.monotonic() - started:.1f} s")
    exporter = subprocess.Popen(
        [*fab, "exporter", "--lab", "--root", str(root), "--port", "0", "--interval", "1",
         "--concurrency", str(concurrency)],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=dict(os.environ),
    )  # fmt: skip
    try:
        assert exporter.stderr is not None
        line = ""
        for line in exporter.stderr:
            if line.startswith("serving http://"):
                break
        url = line.split()[1]
        t0 = time.time()
        marks, durations = [], []
        mark = t0
        for n in range(rounds + 1):
            while True:
                text = _metrics(url)
                seen = _polled(text)
                if seen and len(seen) == 448 and min(seen.values()) > mark:
                    break
                time.sleep(0.5)
            now = time.time()
            marks.append(now - mark)
            up = len(re.findall(r"^fabricctl_switch_up\{[^}]*\} 1\.0$", text, re.M))
            durations += [
                float(m[1])
                for m in re.finditer(r"^fabricctl_switch_poll_duration_seconds\{[^}]*\} (\S+)$", text, re.M)
            ]
            label = "first round (logins)" if n == 0 else f"round {n}"
            print(f"{label}: every switch polled again in {marks[-1]:.1f} s ({up}/448 up)")
            mark = now
        print(
            f"poll 448 lab switches, concurrency {concurrency}: median round {statistics.median(marks[1:]):.1f} s "
            f"over {rounds} rounds (the shortest --interval kept), median switch read "
            f"{statistics.median(durations):.2f} s"
        )
    finally:
        exporter.terminate()
        exporter.wait(timeout=60)
        subprocess.run([*fab, "lab", "down", "--root", str(root)], check=False, capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


def scrape(runs: int) -> None:
    from gen_100k import write_fabric, write_tenants

    from fabricctl.compile.build import compile_fabric
    from fabricctl.platforms.counters import Optic, PortCounters, SwitchCounters
    from fabricctl.telemetry.exporter import Exposition, Snapshot
    from fabricctl.telemetry.labels import port_labels

    root = Path(tempfile.mkdtemp(prefix="fabricctl-bench-scrape-"))
    try:
        write_fabric(root, pods=49)
        write_tenants(root, 99_999)
        started = time.monotonic()
        compiled = compile_fabric(root)
        print(f"compiled {len(compiled.fabric.switches)} switches, {len(compiled.allocation.tenants)} tenants "
              f"in {time.monotonic() - started:.1f} s")  # fmt: skip
        by_switch: dict[str, list[str]] = {}
        for switch, port in port_labels(compiled):
            by_switch.setdefault(switch, []).append(port)
        exposition = Exposition(compiled)
        formatting = []
        for switch, ports in by_switch.items():
            counters = SwitchCounters(clock=0.0)
            for port in ports:
                counters.ports[port] = PortCounters(
                    errors=12,
                    pfc={3: (123456, 654321)},
                    queue_dropped=dict.fromkeys(range(8), 0),  # 8 queues read, 2 exported
                    queue_sent=dict.fromkeys(range(8), 987654321),
                    up=True,
                    last_flap_ago=86400.0,
                    optic=Optic(-2.31, None, -10.0),
                )
            t = time.monotonic()
            exposition.update(switch, Snapshot(up=True, counters=counters, polled_at=time.time()))
            formatting.append(time.monotonic() - t)
        print(
            f"formatting one switch's series after its read (poller thread): median "
            f"{statistics.median(formatting) * 1000:.0f} ms, {sum(formatting):.1f} s for all"
        )
        times: list[float] = []
        size = series = 0
        for _ in range(runs):
            t = time.monotonic()
            body = exposition.render()
            times.append(time.monotonic() - t)
            size = len(body)
            series = sum(1 for line in body.splitlines() if line and not line.startswith(b"#"))
        port_count = sum(len(p) for p in by_switch.values())
        print(
            f"scrape at {len(by_switch)} switches ({port_count} ports): {series} series, {size / 1e6:.1f} MB "
            f"uncompressed, median {statistics.median(times):.2f} s to serve ({runs} runs)"
        )
        print(json.dumps({"switches": len(by_switch), "ports": port_count, "series": series, "bytes": size}))
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _synthetic(compiled: Compiled) -> Exposition:
    """An exposition of `compiled` with every cabled port's counters (as `scrape` gives them)."""
    from fabricctl.platforms.counters import Optic, PortCounters, SwitchCounters
    from fabricctl.telemetry.exporter import Exposition, Snapshot
    from fabricctl.telemetry.labels import port_labels

    exposition = Exposition(compiled)
    by_switch: dict[str, list[str]] = {}
    for switch, port in port_labels(compiled):
        by_switch.setdefault(switch, []).append(port)
    for switch, ports in by_switch.items():
        counters = SwitchCounters(clock=0.0)
        for port in ports:
            counters.ports[port] = PortCounters(
                errors=12, pfc={3: (123456, 654321)}, queue_dropped=dict.fromkeys(range(8), 0),
                queue_sent=dict.fromkeys(range(8), 987654321), up=True, last_flap_ago=86400.0,
                optic=Optic(-2.31, None, -10.0),
            )  # fmt: skip
        exposition.update(switch, Snapshot(up=True, counters=counters, polled_at=time.time()))
    return exposition


def hostile(runs: int) -> None:
    import contextlib
    import http.client
    import socket
    import threading

    from fabricctl.compile.build import compile_fabric
    from fabricctl.telemetry.exporter import serve

    compiled = compile_fabric(REPO / "examples" / "multipod-10k")
    server = serve(_synthetic(compiled), "127.0.0.1", 0)

    def scrape_once() -> tuple[float, int]:
        t = time.monotonic()
        conn = http.client.HTTPConnection(*server.address, timeout=120)
        try:
            conn.request("GET", "/metrics")
            body = conn.getresponse().read()
        finally:
            conn.close()
        return time.monotonic() - t, len(body)

    def threads() -> int:
        return sum(1 for t in threading.enumerate() if t.name.startswith("fabricctl-http"))

    stop = threading.Event()
    sockets: list[socket.socket] = []
    try:
        quiet = [scrape_once() for _ in range(runs)]
        size = quiet[0][1]
        print(f"scrape of {len(compiled.fabric.switches)} switches ({size / 1e6:.1f} MB), quiet: median "
              f"{statistics.median(t for t, _ in quiet):.3f} s over {runs} runs; server threads {threads()}")  # fmt: skip
        sockets += [socket.create_connection(server.address) for _ in range(300)]
        slow = [socket.create_connection(server.address) for _ in range(50)]
        for sock in slow:
            sock.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        sockets += slow
        for _ in range(50):
            keep = socket.create_connection(server.address)
            keep.sendall(b"GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n")  # answered, then idle
            sockets.append(keep)

        def drip() -> None:
            while not stop.is_set():
                for sock in slow:
                    with contextlib.suppress(OSError):
                        sock.send(b"X")
                time.sleep(0.1)

        def huge_heads() -> None:
            while not stop.is_set():
                with contextlib.suppress(OSError), socket.create_connection(server.address) as sock:
                    sock.sendall(b"GET / HTTP/1.1\r\nX-Pad: " + b"a" * (1 << 20) + b"\r\n\r\n")
                    sock.recv(4096)

        load = [threading.Thread(target=f, daemon=True) for f in (drip, huge_heads)]
        for t in load:
            t.start()
        time.sleep(1.0)
        loaded = [scrape_once()[0] for _ in range(runs)]
        print(f"scrape under hostile load (300 silent sockets, 50 slowloris, 50 idle keep-alive, 1 MB heads "
              f"in a loop): median {statistics.median(loaded):.3f} s over {runs} runs; server threads "
              f"{threads()}, connections open {server.open}, idle ones closed for room {server.evicted}")  # fmt: skip
    finally:
        stop.set()
        for sock in sockets:
            sock.close()
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--part", choices=["poll", "scrape", "hostile", "both"], default="both")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    if args.part in ("poll", "both"):
        poll(args.rounds, args.concurrency)
    if args.part in ("scrape", "both"):
        scrape(args.rounds)
    if args.part == "hostile":
        hostile(args.rounds)


if __name__ == "__main__":
    main()
