"""A real Prometheus (Debian's `prometheus` package) scrapes `fabricctl exporter` running against
the lab: a PromQL query over its HTTP API returns the per-tenant pause rate during an injected
storm, with the storm on the right tenant and none on the others; a switch that stops answering
turns its `up` to 0 while scrapes go on; the shipped rules load and every dashboard query runs."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from fabricctl.deploy.health import PAUSE_PPS_MAX

from .conftest import Converged

PACKAGE = Path(__file__).resolve().parents[2] / "fabricctl" / "telemetry"
RULES = PACKAGE / "prometheus" / "fabricctl-rules.yml"
DASHBOARD = PACKAGE / "grafana" / "fabricctl-tenant.json"
#: Give up on a condition after this long (a hung server, not a slow one: the waits poll).
PATIENCE = 180.0

pytestmark = pytest.mark.skipif(
    shutil.which("prometheus") is None, reason="Debian's prometheus package is not installed here"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def until(condition: Callable[[], Any], what: str, tick: Callable[[], None] = lambda: None) -> Any:
    """Poll `condition` until it returns something truthy; `tick` runs between tries."""
    deadline = time.monotonic() + PATIENCE
    while True:
        got = condition()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        tick()
        time.sleep(0.2)


def get(url: str) -> Any:
    try:
        with urllib.request.urlopen(url, timeout=10) as reply:
            return json.loads(reply.read())
    except (OSError, ValueError):
        return None


class Prometheus:
    def __init__(self, base: str) -> None:
        self.base = base

    def query(self, expr: str) -> list[dict[str, Any]] | None:
        got = get(f"{self.base}/api/v1/query?" + urllib.parse.urlencode({"query": expr}))
        return got["data"]["result"] if got and got.get("status") == "success" else None


@contextlib.contextmanager
def running_exporter(root: Path, concurrency: int = 4) -> Iterator[str]:
    """`fabricctl exporter --lab` in a process of its own, polling every second: its URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "fabricctl", "exporter", "--lab", "--root", str(root),
         "--port", "0", "--interval", "1", "--concurrency", str(concurrency)],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=dict(os.environ),
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        line = ""
        for line in proc.stderr:
            if line.startswith("serving http://"):
                break
        assert line.startswith("serving http://"), line
        yield line.split()[1]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # a read of an unreachable switch still waits its timeout
            proc.kill()
            proc.wait(timeout=60)


@pytest.fixture
def exporter(converged: Converged) -> Iterator[str]:
    with running_exporter(converged.root) as url:
        yield url


@contextlib.contextmanager
def running_prometheus(tmp_path: Path, exporter: str, rules: Path) -> Iterator[Prometheus]:
    """Debian's Prometheus scraping `exporter` and evaluating `rules`, every second."""
    target = urllib.parse.urlparse(exporter).netloc
    config = tmp_path / "prometheus.yml"
    config.write_text(
        json.dumps(
            {
                "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
                "rule_files": [str(rules)],
                "scrape_configs": [{"job_name": "fabricctl", "static_configs": [{"targets": [target]}]}],
            }
        )
    )
    port = free_port()
    proc = subprocess.Popen(
        ["prometheus", f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'tsdb'}",
         f"--web.listen-address=127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL, stderr=(tmp_path / "prometheus.log").open("w"),
    )  # fmt: skip
    try:
        server = Prometheus(f"http://127.0.0.1:{port}")
        until(lambda: get(f"{server.base}/-/ready") is not None or _ready(server.base), "prometheus to start")
        yield server
    finally:
        proc.terminate()
        proc.wait(timeout=60)


@pytest.fixture
def prometheus(exporter: str, tmp_path: Path) -> Iterator[Prometheus]:
    with running_prometheus(tmp_path, exporter, RULES) as server:
        yield server


def _ready(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/-/ready", timeout=5) as reply:
            status: int = reply.status  # urlopen's answer is untyped
            return status == 200
    except OSError:
        return False


def test_prometheus_sees_the_storm_on_the_right_tenant(converged: Converged, prometheus: Prometheus) -> None:
    c = converged
    up = until(lambda: prometheus.query("fabricctl_switch_up == 1"), "every switch to be read")
    until(
        lambda: len(prometheus.query("fabricctl_switch_up == 1") or []) == len(c.lab.devices),
        "all switches up",
    )
    assert up
    # Tenants group as the intent says: team-llm's GPU ports carry its label.
    ports = until(
        lambda: prometheus.query('count by (tenant) (fabricctl_port_up{role="gpu",tenant!=""})'), "GPU ports"
    )
    assert {r["metric"]["tenant"] for r in ports} == {"team-llm", "team-hpc", "storage", "intern-01"}

    c.lab.set_faults("leaf1", pfc_storm=[c.port(9)])  # team-llm's GPU on leaf1
    c.lab.set_faults("leaf2", lossless_drops=[c.port(13)])  # team-hpc's GPU on leaf2
    per_tenant = (
        'sum by (tenant) (rate(fabricctl_pfc_pause_frames_total{role="gpu",direction="received"}[5s]))'
    )

    def storm_seen() -> dict[str, float] | None:
        rows = prometheus.query(per_tenant) or []
        rates = {r["metric"].get("tenant", ""): float(r["value"][1]) for r in rows}
        return rates if rates.get("team-llm", 0.0) > PAUSE_PPS_MAX else None

    rates = until(storm_seen, "the storm in the per-tenant pause rate", tick=lambda: c.lab.advance(1))
    assert all(rate == 0.0 for tenant, rate in rates.items() if tenant != "team-llm"), rates
    # The shipped recording rule says the same once it has evaluated.
    recorded = until(
        lambda: [
            r
            for r in prometheus.query('tenant:fabricctl_pfc_pause_frames:rate1m{direction="received"} > 0')
            or []
        ],
        "the recording rule",
        tick=lambda: c.lab.advance(1),
    )
    assert {r["metric"]["tenant"] for r in recorded} == {"team-llm"}

    # The running server fires the shipped lossless-drops alert, for team-hpc's port.
    def firing() -> list[dict[str, Any]]:
        got = get(f"{prometheus.base}/api/v1/alerts") or {}
        alerts = got.get("data", {}).get("alerts", [])
        return [
            a
            for a in alerts
            if a["labels"]["alertname"] == "FabricctlLosslessQueueDrops" and a["state"] == "firing"
        ]

    alerts = until(firing, "the lossless-drops alert", tick=lambda: c.lab.advance(1))
    assert {(a["labels"]["switch"], a["labels"]["tenant"], a["labels"]["class"]) for a in alerts} == {
        ("leaf2", "team-hpc", "lossless")
    }

    # Every dashboard query is valid PromQL on this server.
    for panel in json.loads(DASHBOARD.read_text())["panels"]:
        expr = panel["targets"][0]["expr"].replace("$__rate_interval", "1m").replace("$tenant", ".*")
        assert prometheus.query(expr) is not None, (panel["title"], expr)

    # A switch that stops answering: its `up` goes to 0, scrapes go on for the others.
    c.lab.set_faults("leaf4", unreachable=True)
    until(lambda: prometheus.query('fabricctl_switch_up{switch="leaf4"} == 0'), "leaf4 to be marked down")
    assert len(prometheus.query("fabricctl_switch_up == 1") or []) == len(c.lab.devices) - 1


def test_promtool_checks_and_tests_the_shipped_rules() -> None:
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip("promtool (Debian's prometheus package) is not installed here")
    check = subprocess.run([promtool, "check", "rules", str(RULES)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    here = Path(__file__).parent
    test = subprocess.run(
        [promtool, "test", "rules", "rules_test.yml"], cwd=here, capture_output=True, text=True
    )
    assert test.returncode == 0, test.stdout + test.stderr
