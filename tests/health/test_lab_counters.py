"""The lab's counter faults, read back through fabricctl's readers over SSH (Nornir + netmiko),
and rates from two reads a lab window apart."""

from __future__ import annotations

import math

import pytest

from fabricctl.deploy.context import open_fabric
from fabricctl.deploy.counters import read_counters, window
from fabricctl.lab.traffic import CONGESTION_ECN_PPS, FLAP_PERIOD, LOSSLESS_DROP_PPS, RX_LOW_ALARM_DBM
from fabricctl.platforms.counters import SwitchCounters

from .conftest import Converged


def _read(c: Converged, names: set[str]) -> dict[str, SwitchCounters]:
    with open_fabric(c.root, True, names) as nr:
        got = read_counters(nr, 60)
    assert all(isinstance(v, SwitchCounters) for v in got.values()), got
    return got  # type: ignore[return-value]


def test_faults_grow_the_counters_they_name(converged: Converged) -> None:
    c = converged
    congested, dropping, flapping, fading = (c.port(n) for n in (1, 2, 3, 4))
    c.lab.set_faults(
        "leaf1",
        congestion=[congested],
        lossless_drops=[dropping],
        flapping=[flapping],
        optic_degrading=[fading],
    )
    c.lab.advance(60)
    before = _read(c, {"leaf1"})["leaf1"]
    c.lab.advance(600)
    after = _read(c, {"leaf1"})["leaf1"]
    w = window(before, after, 0)
    assert w.seconds == 600  # by the switch's clock: the lab's
    lossless = 3
    drops = w.ports[dropping].queue_dropped
    assert drops is not None and w.rate(drops[lossless]) == LOSSLESS_DROP_PPS
    assert w.ports[flapping].flapped and not w.ports[congested].flapped
    optic = after.ports[fading].optic
    assert optic is not None and optic.rx_dbm < RX_LOW_ALARM_DBM
    assert optic.rx_low_alarm == RX_LOW_ALARM_DBM
    assert (w.ports[fading].errors or 0) > 0 and w.ports[congested].errors == 0
    if c.platform == "eos":  # ECN marks: EOS documents them per queue, Comware does not
        marked = w.ports[congested].ecn_marked
        assert marked is not None and w.rate(marked[lossless]) == CONGESTION_ECN_PPS
        assert w.ports[flapping].flapped is True and after.ports[flapping].link_changes == 1 + 2 * (
            int(660 // FLAP_PERIOD) + 1
        )
    else:
        assert after.ports[congested].ecn_marked is None


def test_cnps_come_back_through_the_far_end_on_comware(converged: Converged) -> None:
    c = converged
    if c.platform != "comware":
        pytest.skip("EOS prints no per-queue sent counts in the commands read (platforms/eos/counters.py)")
    spine_port = c.port(1)
    c.lab.set_faults("spine1", congestion=[spine_port])
    far = c.lab.state().far_end("spine1", spine_port)
    assert far is not None
    before = _read(c, {far[0]})[far[0]]
    c.lab.advance(300)
    w = window(before, _read(c, {far[0]})[far[0]], 0)
    sent = w.ports[far[1]].queue_sent
    assert sent is not None and (w.rate(sent[6]) or 0) > 0


#: A counters command of each platform, answered with garbage by the `garble` fault.
GARBLED = {"eos": "show interfaces counters errors", "comware": "display qos queue-statistics"}


def test_a_switch_that_answers_garbage_is_down_with_reason_unparsable(converged: Converged) -> None:
    """Through the exporter's own reader (one SSH session per switch, kept open) and collector:
    garbage in one reply takes the switch to `up 0`, reason `unparsable`, no port series; once it
    answers well again it is up with its ports."""
    from prometheus_client.parser import text_string_to_metric_families

    from fabricctl import pipeline
    from fabricctl.telemetry.exporter import Exposition, Poller
    from fabricctl.telemetry.gnmi import feeds

    c = converged
    exposition = Exposition(pipeline.compile(c.root))

    def series() -> dict[str, float]:
        text = exposition.render().decode()
        out = {}
        for family in text_string_to_metric_families(text):
            for s in family.samples:
                if s.labels.get("switch") == "leaf1" and (
                    s.name.startswith("fabricctl_switch_up") or s.name.endswith("errors_total")
                ):
                    out[f"{s.name}{{{s.labels.get('reason', '')}}}"] = s.value
                elif s.labels.get("switch") == "leaf1" and "port" in s.labels:
                    out.setdefault("port series", 0)
                    out["port series"] += 1
        return out

    with feeds(c.root, True, {"leaf1"}, 1, 60, exposition.update) as (read, _):
        poller = Poller({"leaf1"}, read, interval=3600, concurrency=1, on_update=exposition.update)
        try:
            poller._poll("leaf1")
            assert series()["fabricctl_switch_up{}"] == 1 and series()["port series"] > 0
            c.lab.set_faults("leaf1", garble=GARBLED[c.platform])
            poller._poll("leaf1")
            down = series()
            assert down["fabricctl_switch_up{unparsable}"] == 0, down
            assert down["fabricctl_switch_read_errors_total{unparsable}"] == 1 and "port series" not in down
            assert poller.snapshot()["leaf1"].error.startswith(f"'{GARBLED[c.platform]}")
            c.lab.clear_faults()
            poller._poll("leaf1")
            assert series()["fabricctl_switch_up{}"] == 1 and series()["port series"] > 0
        finally:
            poller.stop()


def test_a_reboot_starts_the_switchs_counters_again_and_bounces_its_neighbors_links(
    converged: Converged,
) -> None:
    """A switch counts from its boot, as a real one does; each switch cabled to it sees its link
    go down and up once (two link changes on EOS, a recent last flap on Comware)."""
    c = converged
    dropping = c.port(1)
    far = c.lab.state().far_end("spine1", dropping)
    assert far is not None
    c.lab.set_faults("spine1", lossless_drops=[dropping])
    c.lab.advance(600)
    before = _read(c, {"spine1", far[0]})
    c.lab.reboot(["spine1"])
    c.lab.advance(5)
    after = _read(c, {"spine1", far[0]})
    lossless = 3
    was, now = before["spine1"].ports[dropping].queue_dropped, after["spine1"].ports[dropping].queue_dropped
    assert was is not None and now is not None and now[lossless] < was[lossless]
    neighbor_was, neighbor_now = before[far[0]].ports[far[1]], after[far[0]].ports[far[1]]
    if c.platform == "eos":
        assert (neighbor_was.link_changes, neighbor_now.link_changes) == (1, 3)
    else:
        assert neighbor_was.last_flap_ago == math.inf and (neighbor_now.last_flap_ago or 0) <= 5
