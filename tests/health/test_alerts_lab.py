"""The shipped alert rules in a real Prometheus (Debian's package), scraping `fabricctl exporter`
against the lab of each NOS after `apply`: silent on a healthy fabric, including a tenant being
added and a spine restarting while it watches; then one fault per rule, injected through the
lab's faults, and each fault fires its alert and no other, naming switch, port and tenant.

The rules are the shipped file with its time scaled down (a minute of a rule is a second here:
`for: 5m` waits 5 s, `rate(...[1m])` looks 3 s back, the shortest window that holds three 1 s
scrapes); thresholds are untouched. The lab's clock runs faster than the machine's while the
test waits (`tick`), so a fault's counters grow at many times their per-lab-second rate: every
rate-based rule sees its fault clearly, whatever the machine's speed. Waits poll a condition.
"""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from fabricctl import pipeline
from fabricctl.compile.build import Compiled
from fabricctl.lab.traffic import FLAP_PERIOD
from tests.conftest import EOS_SMALL, NVUE_SMALL
from tests.deploy.conftest import LabRoot, _lab_root

from .test_prometheus import RULES, Prometheus, get, running_exporter, running_prometheus

pytestmark = pytest.mark.skipif(
    shutil.which("prometheus") is None, reason="Debian's prometheus package is not installed here"
)

#: A minute of a rule lasts this many seconds here; range windows are at least MIN_RANGE.
SECONDS_PER_MINUTE = 1
MIN_RANGE = 3
#: Lab seconds each tick adds (a tick every 0.2 s): a flap every FLAP_PERIOD lab seconds comes
#: many times a second, a degrading optic loses its decibels in seconds. Not a multiple of the
#: flap period: Comware prints only the age of the last flap, and a clock that always moved by
#: whole periods would read the same age at every poll, as if nothing flapped.
LAB_SECONDS_PER_TICK = 47
assert LAB_SECONDS_PER_TICK % FLAP_PERIOD
HEALTHY_WALL_SECONDS = 10  # longer than every scaled `for:` a disturbance could start
PATIENCE = 180.0


def scaled_rules(target: Path) -> Path:
    """The shipped rules with every duration in minutes scaled to SECONDS_PER_MINUTE seconds."""
    doc = yaml.safe_load(RULES.read_text(encoding="utf-8"))

    def window(m: re.Match[str]) -> str:
        return f"[{max(int(m[1]) * SECONDS_PER_MINUTE, MIN_RANGE)}s]"

    for group in doc["groups"]:
        for rule in group["rules"]:
            rule["expr"] = re.sub(r"\[(\d+)m\]", window, rule["expr"])
            if "for" in rule:
                rule["for"] = f"{int(str(rule['for']).rstrip('m')) * SECONDS_PER_MINUTE}s"
    target.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return target


@dataclass(frozen=True)
class Expected:
    """One alert that must fire: its name and the labels that say where."""

    alert: str
    labels: tuple[tuple[str, str], ...]

    def matches(self, alert: dict[str, Any]) -> bool:
        got = alert["labels"]
        return got["alertname"] == self.alert and all(got.get(k) == v for k, v in self.labels)


def held_ports(compiled: Compiled, leaf: str) -> list[tuple[str, str, str, int]]:
    """(port, tenant, server, nic) of the lossless tenants' GPU ports on `leaf`."""
    return [
        (port, a.name, pa.gpu.server, pa.gpu.nic)
        for (sw, port), (a, pa) in sorted(compiled.allocation.port_owner.items())
        if sw == leaf and a.tenant.lossless
    ]


def _where(alert: dict[str, Any]) -> str:
    got = alert["labels"]
    return " ".join(got.get(k, "-") for k in ("alertname", "switch", "port", "peer", "tenant"))


class Watch:
    def __init__(self, prometheus: Prometheus, tick: Callable[[], None]) -> None:
        self.prometheus, self.tick = prometheus, tick

    def alerts(self) -> list[dict[str, Any]]:
        got = get(f"{self.prometheus.base}/api/v1/alerts") or {}
        return [a for a in got.get("data", {}).get("alerts", []) if a["state"] == "firing"]

    def until(self, condition: Callable[[], Any], what: str) -> Any:
        deadline = time.monotonic() + PATIENCE
        while True:
            got = condition()
            if got:
                return got
            if time.monotonic() > deadline:
                firing = sorted(_where(a) for a in self.alerts())
                raise AssertionError(f"gave up waiting for {what}; firing: {firing}")
            self.tick()
            time.sleep(0.2)

    def quiet_for(self, seconds: float, during: Callable[[], None] = lambda: None) -> None:
        """No alert fires for `seconds` (wall), `during` run once at the start."""
        during()
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            firing = self.alerts()
            assert not firing, sorted(_where(a) for a in firing)
            self.tick()
            time.sleep(0.2)


@pytest.fixture(params=["eos", "comware", "nvue"])
def applied(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Iterator[tuple[LabRoot, str]]:
    """The NOS's small fabric applied to its lab, and a new tenant's file written but not yet
    applied (its ports labelled with it and still shut: a tenant being added)."""
    nos = request.param
    src = NVUE_SMALL if nos == "nvue" else EOS_SMALL
    for lab in _lab_root(src, tmp_path, monkeypatch, None if nos in ("eos", "nvue") else nos):
        code, out, err = lab.run("apply", "--lab", "--auto-approve", capsys=capsys)
        assert code == 0, out + err
        code, out, err = lab.run("tenant", "new", "newco", "--gpus", "2", capsys=capsys)
        assert code == 0, out + err
        yield lab, nos


@pytest.fixture
def watched(applied: tuple[LabRoot, str], tmp_path: Path) -> Iterator[tuple[LabRoot, str, Watch]]:
    """The exporter (polling every second) and Prometheus (scraping and evaluating every
    second, the scaled rules) watching the applied lab."""
    lab, nos = applied
    rules = scaled_rules(tmp_path / "rules.yml")
    with (
        running_exporter(lab.root, concurrency=6) as url,
        running_prometheus(tmp_path, url, rules) as prometheus,
    ):
        watch = Watch(prometheus, lambda: lab.lab.advance(LAB_SECONDS_PER_TICK))
        switches = len(lab.lab.devices)
        watch.until(
            lambda: len(prometheus.query("fabricctl_switch_up == 1") or []) == switches, "every switch read"
        )
        yield lab, nos, watch


def test_the_shipped_alerts_are_silent_on_a_healthy_fabric_and_fire_on_each_fault(
    watched: tuple[LabRoot, str, Watch], capsys: pytest.CaptureFixture[str]
) -> None:
    lab, nos, watch = watched
    compiled = pipeline.compile(lab.root)

    # Healthy: free GPU ports shut (fabricctl's secure default), uncabled ports without optics,
    # a tenant's ports labelled but still shut; then that tenant applied while Prometheus
    # watches, and a spine restarting (its counters start again, every leaf's link to it
    # goes down and up once).
    watch.quiet_for(HEALTHY_WALL_SECONDS / 2)

    def add_tenant_and_restart_a_spine() -> None:
        code, out, err = lab.run("apply", "--lab", "--auto-approve", capsys=capsys)
        assert code == 0 and "changed" in out, out + err
        lab.lab.reboot(["spine1"])

    watch.quiet_for(HEALTHY_WALL_SECONDS, during=add_tenant_and_restart_a_spine)

    # One fault per rule, each on a port of its own.
    storm, drops, optic, flap = held_ports(compiled, "leaf1")[:4]
    down = held_ports(compiled, "leaf2")[0]
    hot = held_ports(compiled, "leaf3")[0]
    uplink = next(ln for ln in compiled.topology.links if ln.leaf == "leaf3")
    session = next(ln for ln in compiled.topology.links if ln.leaf == "leaf2" and ln.spine == "spine2")
    spine_peer = compiled.intents["leaf2"].bgp.neighbors
    peer_ip = next(n.ip for n in spine_peer if n.description == "spine2 underlay")
    lab.lab.set_faults(
        "leaf1",
        pfc_storm=[storm[0]],
        lossless_drops=[drops[0]],
        optic_degrading=[optic[0]],
        flapping=[flap[0]],
    )
    lab.lab.set_faults("leaf2", links_down=[down[0]], bgp_down=[peer_ip])
    lab.lab.set_faults("leaf3", links_down=[uplink.leaf_port], congestion=[hot[0]])
    lab.lab.set_faults("leaf4", unreachable=True)

    def gpu(alert: str, where: tuple[str, str, str, int], switch: str, **more: str) -> Expected:
        port, tenant, server, nic = where
        labels = {"switch": switch, "port": port, "tenant": tenant, "server": server, "nic": str(nic), **more}
        return Expected(alert, tuple(labels.items()))

    def at(alert: str, **labels: str) -> Expected:
        return Expected(alert, tuple(labels.items()))

    expected = [
        gpu("FabricctlPfcPauseStorm", storm, "leaf1", direction="received"),
        gpu("FabricctlLosslessQueueDrops", drops, "leaf1", **{"class": "lossless"}),
        gpu("FabricctlOpticLowReceivePower", optic, "leaf1"),
        gpu("FabricctlLinkFlapping", flap, "leaf1"),
        gpu("FabricctlTenantGpuPortDown", down, "leaf2"),
        at("FabricctlFabricLinkDown", switch="leaf3", port=uplink.leaf_port),
        at("FabricctlFabricLinkDown", switch=uplink.spine, port=uplink.spine_port),
        at(
            "FabricctlBgpSessionDown", switch="leaf2", peer=peer_ip, neighbor="spine2", port=session.leaf_port
        ),
        at("FabricctlBgpSessionDown", switch="spine2", neighbor="leaf2", port=session.spine_port),
        at("FabricctlBgpSessionDown", switch="leaf3", neighbor=uplink.spine, port=uplink.leaf_port),
        at("FabricctlBgpSessionDown", switch=uplink.spine, neighbor="leaf3", port=uplink.spine_port),
        at("FabricctlSwitchUnreadable", switch="leaf4"),
    ]
    if nos != "comware":  # Comware documents no per-queue ECN counter (docs/tenant-health.md)
        expected.append(gpu("FabricctlTenantCongested", hot, "leaf3", **{"class": "lossless"}))

    def all_fired() -> list[dict[str, Any]] | None:
        firing = watch.alerts()
        missing = [e for e in expected if not any(e.matches(a) for a in firing)]
        return None if missing else firing

    firing = watch.until(all_fired, f"every fault's alert on {nos} ({expected})")
    stray = [a["labels"] for a in firing if not any(e.matches(a) for e in expected)]
    assert not stray, stray
    for a in firing:  # each names where: its summary carries the switch (and port, but a switch's own)
        assert a["labels"]["switch"] in a["annotations"]["summary"], a
