"""The exporter's poller and collector: a scrape never waits on a switch, a switch still being
read is not read twice, labels come from the intent."""

from __future__ import annotations

import threading

from prometheus_client.parser import text_string_to_metric_families

from fabricctl import pipeline
from fabricctl.platforms.counters import PortCounters, SwitchCounters, Unread
from fabricctl.telemetry.exporter import Exposition, Poller, Snapshot
from tests.conftest import EOS_SMALL, wait_until


def _samples(exposition: Exposition) -> list:  # type: ignore[type-arg]
    text = exposition.render().decode()  # what prometheus-client's own parser reads back
    return [s for family in text_string_to_metric_families(text) for s in family.samples]


def test_a_hung_switch_never_blocks_a_scrape_and_is_not_read_twice() -> None:
    compiled = pipeline.compile(EOS_SMALL)
    release, reads = threading.Event(), {"leaf2": 0}

    def read(name: str) -> SwitchCounters | str:
        if name == "leaf2":
            reads["leaf2"] += 1
            release.wait()  # a switch that never answers
            return "timed out"
        counters = SwitchCounters(clock=0.0)
        counters.ports["Ethernet9"] = PortCounters(pfc={None: (7, 0)}, queue_dropped={3: 5, 0: 0}, up=True)
        return counters

    exposition = Exposition(compiled)
    poller = Poller(
        [s.name for s in compiled.fabric.switches],
        read,
        interval=3600,
        concurrency=2,
        on_update=exposition.update,
    )
    try:
        poller.poll_round()
        others = {s.name for s in compiled.fabric.switches} - {"leaf2"}
        wait_until(lambda: all(poller.snapshot()[n].polled_at for n in others), "every other switch read")
        poller.poll_round()  # leaf2 is still being read: not queued again
        samples = _samples(exposition)  # answers while leaf2 hangs
    finally:
        release.set()
        poller.stop()
    assert reads["leaf2"] == 1
    up = {s.labels["switch"]: s.value for s in samples if s.name == "fabricctl_switch_up"}
    assert "leaf2" not in up  # never read yet: no series (the CLI starts every switch at up 0)
    assert set(up) == {s.name for s in compiled.fabric.switches} - {"leaf2"}
    pause = [
        s for s in samples if s.name == "fabricctl_pfc_pause_frames_total" and s.labels["switch"] == "leaf1"
    ]
    received = next(s for s in pause if s.labels["direction"] == "received")
    owner, assignment = compiled.allocation.port_owner[("leaf1", "Ethernet9")]
    assert received.value == 7
    assert received.labels["tenant"] == owner.tenant.name and received.labels["priority"] == "3"
    assert received.labels["server"] == assignment.gpu.server and received.labels["nic"] == str(
        assignment.gpu.nic
    )
    drops = {
        s.labels["class"]: s.value
        for s in samples
        if s.name == "fabricctl_queue_dropped_packets_total" and s.labels["switch"] == "leaf1"
    }
    assert drops == {"lossless": 5.0}  # only the lossless and CNP queues are exported


def _poll_once(poller: Poller, names: set[str]) -> None:
    before = {n: poller.snapshot()[n].polled_at for n in names}
    poller.poll_round()
    wait_until(lambda: all(poller.snapshot()[n].polled_at > before[n] for n in names), f"{names} polled")


def test_an_unparsable_switch_is_down_with_its_reason_and_its_ports_are_not_exported_stale() -> None:
    """A switch that answered well, then garbage: `up 0` with reason `unparsable`, its error
    counter grows each failed poll, and none of its port series stays behind as if fresh."""
    compiled = pipeline.compile(EOS_SMALL)
    answers: dict[str, SwitchCounters | str] = {}

    def read(name: str) -> SwitchCounters | str:
        if name in answers:
            return answers[name]
        counters = SwitchCounters(clock=0.0)
        counters.ports["Ethernet9"] = PortCounters(errors=3, pfc={None: (7, 0)}, up=True)
        return counters

    exposition = Exposition(compiled)
    names = {s.name for s in compiled.fabric.switches}
    poller = Poller(names, read, interval=3600, concurrency=2, on_update=exposition.update)
    try:
        _poll_once(poller, names)
        assert any(
            s.labels["switch"] == "leaf1" and s.name.startswith("fabricctl_port")
            for s in _samples(exposition)
        )
        answers["leaf1"] = Unread(
            "'show interfaces counters errors | json': Ethernet9 inErrors: 'lots' is not a count",
            "unparsable",
        )
        answers["leaf2"] = Unread("no answer in 30 s", "timeout")
        for _ in range(2):
            _poll_once(poller, names)
    finally:
        poller.stop()
    samples = _samples(exposition)
    up = {
        (s.labels["switch"], s.labels["reason"]): s.value for s in samples if s.name == "fabricctl_switch_up"
    }
    assert up[("leaf1", "unparsable")] == 0 and up[("leaf2", "timeout")] == 0 and up[("leaf3", "")] == 1
    errors = {
        (s.labels["switch"], s.labels["reason"]): s.value
        for s in samples
        if s.name == "fabricctl_switch_read_errors_total"
    }
    assert errors == {("leaf1", "unparsable"): 2.0, ("leaf2", "timeout"): 2.0}
    stale = [
        s
        for s in samples
        if s.labels.get("switch") == "leaf1" and s.name.startswith(("fabricctl_port", "fabricctl_pfc"))
    ]
    assert stale == []
    assert poller.snapshot()["leaf1"].error.startswith("'show interfaces counters errors | json'")


def test_a_reader_that_raises_is_a_failed_poll_never_a_dead_poller() -> None:
    compiled = pipeline.compile(EOS_SMALL)

    def read(name: str) -> SwitchCounters | str:
        raise RuntimeError("reader bug")

    exposition = Exposition(compiled)
    poller = Poller(["leaf1"], read, interval=3600, concurrency=1, on_update=exposition.update)
    try:
        _poll_once(poller, {"leaf1"})
    finally:
        poller.stop()
    up = [s for s in _samples(exposition) if s.name == "fabricctl_switch_up"]
    assert [(s.labels["reason"], s.value) for s in up] == [("error", 0.0)]


def test_admin_state_and_every_planned_bgp_session_are_exported() -> None:
    """A shut port says so (rules keep it silent); each session the intent plans is 1 only when
    Established, and one the switch does not list at all is 0."""
    compiled = pipeline.compile(EOS_SMALL)
    counters = SwitchCounters(clock=0.0)
    counters.ports["Ethernet9"] = PortCounters(up=True, admin_up=True)
    counters.ports["Ethernet10"] = PortCounters(up=False, admin_up=False)
    planned = compiled.intents["leaf1"].bgp.neighbors
    counters.sessions = {n.ip: "Established" for n in planned[1:]} | {planned[1].ip: "Idle"}
    exposition = Exposition(compiled)
    exposition.update("leaf1", Snapshot(up=True, counters=counters))
    samples = _samples(exposition)
    admin = {s.labels["port"]: s.value for s in samples if s.name == "fabricctl_port_admin_up"}
    assert admin == {"Ethernet9": 1.0, "Ethernet10": 0.0}
    sessions = {s.labels["peer"]: s for s in samples if s.name == "fabricctl_bgp_session_up"}
    assert set(sessions) == {n.ip for n in planned}
    assert sessions[planned[0].ip].value == 0.0  # not listed by the switch
    assert sessions[planned[1].ip].value == 0.0  # Idle
    assert {s.value for p, s in sessions.items() if p not in (planned[0].ip, planned[1].ip)} == {1.0}
    first = sessions[planned[0].ip].labels
    assert first["neighbor"] == "spine1" and first["kind"] == "underlay" and first["port"] == "Ethernet1"
    overlay = next(s.labels for s in sessions.values() if s.labels["kind"] == "overlay")
    assert "port" not in overlay or overlay["port"] == ""  # between loopbacks
