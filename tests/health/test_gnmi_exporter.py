"""The exporter over gNMI (`telemetry: gnmi`): the series a stream gives are the series a CLI poll
gives for the same lab state, a stream that breaks says why and comes back, an answer that
cannot be read is `up 0` with the reason, and a setup that cannot work is refused before any
switch is contacted."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pygnmi.spec.v080 import gnmi_pb2

from fabricctl import pipeline
from fabricctl.deploy.credentials import Credentials
from fabricctl.deploy.nornir_inv import build_nornir
from fabricctl.lab import LabFabric
from fabricctl.lab.runtime import write_lab_json
from fabricctl.platforms.counters import Optic, SwitchCounters
from fabricctl.platforms.eos.gnmi import GNMI as EOS_GNMI
from fabricctl.platforms.gnmi import gnmi_counters
from fabricctl.telemetry.exporter import Exposition, Snapshot
from fabricctl.telemetry.gnmi import CA_ENV, GnmiSetupError, Stream, Target, feeds, targets
from tests.conftest import EOS_SMALL, NVUE_SMALL, copy_fabric, wait_until
from tests.lab.conftest import loaded_lab

#: Series about the read itself (when, how long), not about the switch: not compared.
_ABOUT_THE_READ = ("fabricctl_switch_last_poll_timestamp_seconds", "fabricctl_switch_poll_duration_seconds")


def streamed(root: Path, platform: str, mode: str = "gnmi") -> Path:
    """The fabric at `root` with `telemetry: <mode>` on the `platform` group."""
    groups = root / "inventory" / "groups.yaml"
    text = groups.read_text(encoding="utf-8")
    head = f"{platform}:\n  platform: {platform}\n  data:\n"
    assert head in text
    groups.write_text(text.replace(head, f"{head}    telemetry: {mode}\n"), encoding="utf-8")
    return root


@pytest.fixture(params=[("eos", EOS_SMALL), ("nvue", NVUE_SMALL)], ids=["eos", "nvue"])
def lab(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[LabFabric, Path, str]]:
    platform, src = request.param
    lab, root = loaded_lab(src, tmp_path)
    try:
        streamed(root, platform)
        write_lab_json(root, lab)  # `--lab` finds this in-process lab
        yield lab, root, platform
    finally:
        lab.stop()


def _series(compiled: Any, snaps: dict[str, Snapshot]) -> list[str]:
    exposition = Exposition(compiled)
    for name, snap in sorted(snaps.items()):
        exposition.update(name, snap)
    lines = exposition.render().decode().splitlines()
    return [line for line in lines if not line.startswith(_ABOUT_THE_READ)]


def _readable_by_both(counters: SwitchCounters, unread: tuple[tuple[str, str], ...]) -> SwitchCounters:
    """`counters` without the fields no documented gNMI path gives (`GNMI.unread`: NVUE's
    optic thresholds), so the comparison is of exactly what both readers can read."""
    out = copy.deepcopy(counters)
    for field, _why in unread:
        part, leaf = field.split(".")
        for port in out.ports.values():
            if getattr(port, part) is not None:
                setattr(port, part, dataclasses.replace(getattr(port, part), **{leaf: None}))
    return out


def test_cli_and_gnmi_give_the_same_series(lab: tuple[LabFabric, Path, str]) -> None:
    """Every series the CLI poll gives, the stream gives with the same values: port state (line
    and admin), errors, discards, link changes, PFC, ECN, queue drops and CNPs, optics, BGP
    sessions. The one exception is declared by the platform (`GNMI.unread`): Cumulus Linux's
    gNMI metrics have no transceiver threshold path, so a streamed NVUE switch gives its optics'
    power without their floors, None rather than a guess, and the CLI's floors are left out of
    the comparison."""
    fabric, root, platform = lab
    prefix = "Ethernet" if platform == "eos" else "swp"

    def port(n: int) -> str:
        return f"{prefix}{n}"

    fabric.set_faults(
        "leaf1",
        pfc_storm=[port(3)],  # leaf uplinks, on both NOSes' fabrics
        congestion=[port(4)],
        lossless_drops=[port(5), port(1)],
        flapping=[port(6)],
        optic_degrading=[port(7)],
        links_down=[port(2)],
    )
    fabric.advance(900)  # the optic is past its low alarm: FCS errors count
    names = {"leaf1", "spine1"}
    got: dict[str, Snapshot] = {}

    def publish(name: str, snap: Snapshot) -> None:
        got.setdefault(name, snap)

    with feeds(root, True, names, 4, 120, publish) as (read, stream):
        assert stream == names
        polled = {name: read(name) for name in sorted(names)}
        wait_until(lambda: set(got) == names, "a snapshot from every stream")
    assert all(snap.up for snap in got.values()), {n: s.error for n, s in got.items()}
    assert all(isinstance(c, SwitchCounters) for c in polled.values()), polled
    unread = gnmi_counters(platform).unread  # type: ignore[union-attr]
    assert dict(unread) == (
        {
            "optic.rx_low_warn": "NVIDIA's gNMI metrics list no transceiver threshold path (tab Platform)",
            "optic.rx_low_alarm": "NVIDIA's gNMI metrics list no transceiver threshold path (tab Platform)",
        }
        if platform == "nvue"
        else {}
    )
    for snap in got.values():  # unread is None, never a zero or a guess
        optics = [p.optic for p in snap.counters.ports.values() if p.optic is not None]  # type: ignore[union-attr]
        assert optics
        for field, _ in unread:
            assert all(getattr(o, field.split(".")[1]) is None for o in optics), field
    compiled = pipeline.compile(root)
    both = {n: _readable_by_both(c, unread) for n, c in polled.items()}  # type: ignore[arg-type]
    by_cli = _series(compiled, {n: Snapshot(up=True, counters=c) for n, c in both.items()})
    by_gnmi = _series(compiled, got)
    assert by_gnmi == by_cli
    # and the faults are in them, so the comparison is not of empty series
    assert any(
        line.startswith("fabricctl_queue_dropped_packets_total") and " 0.0" not in line for line in by_gnmi
    )
    assert any(line.startswith("fabricctl_pfc_pause_frames_total") and " 0.0" not in line for line in by_gnmi)
    sessions = [line for line in by_gnmi if line.startswith("fabricctl_bgp_session_up{")]
    assert any(line.endswith(" 1.0") for line in sessions) and any(line.endswith(" 0.0") for line in sessions)
    assert any(line.startswith("fabricctl_port_admin_up{") for line in by_gnmi)
    assert any(line.startswith("fabricctl_optic_rx_power_dbm{") for line in by_gnmi)


@pytest.mark.parametrize("lab", [("nvue", NVUE_SMALL)], ids=["nvue"], indirect=True)
def test_a_session_that_goes_down_on_a_streamed_switch_is_0_at_once(lab: tuple[LabFabric, Path, str]) -> None:
    """`fabricctl_bgp_session_up` of a streamed switch comes from `session-state` watched on
    change: the session of a link taken down is 0 in the next snapshot, without a poll (so
    FabricctlBgpSessionDown can fire for it), and 1 again when the link is back."""
    fabric, root, _ = lab
    compiled = pipeline.compile(root)
    seen: list[Snapshot] = []

    def state(peer: str) -> float | None:
        lines = _series(compiled, {"leaf1": seen[-1]}) if seen and seen[-1].up else []
        hits = [ln for ln in lines if ln.startswith("fabricctl_bgp_session_up{") and f'peer="{peer}"' in ln]
        return float(hits[0].rsplit(" ", 1)[1]) if hits else None

    underlay = next(s for s in Exposition(compiled).sessions["leaf1"] if s.kind == "underlay" and s.port)
    with feeds(root, True, {"leaf1"}, 1, 60, lambda name, snap: seen.append(snap)):
        wait_until(lambda: state(underlay.peer) == 1.0, "the session Established")
        fabric.set_faults("leaf1", links_down=[underlay.port])
        wait_until(lambda: state(underlay.peer) == 0.0, "the session down on change")
        fabric.set_faults("leaf1", links_down=[])
        wait_until(lambda: state(underlay.peer) == 1.0, "the session back")


def _leaves(values: dict[str, Any]) -> dict[Any, Any]:
    from fabricctl.telemetry.gnmi import path_key, xpath

    return {path_key(xpath(p)): v for p, v in values.items()}


def test_the_openconfig_leaves_read_as_the_cli_reads_them() -> None:
    """One transceiver shared by two breakout ports gives both its optic; errors, discards and
    link changes need every leaf they sum; a session-state, an oper-status or an admin-status
    outside its YANG enum is an error, never a state."""
    from fabricctl.platforms.nvue.gnmi import parse

    swp = "/interfaces/interface[name={}]/state/{}"
    xcvr = "/components/component[name=swp16]/transceiver/physical-channels/channel[index={}]/state/input-power/instant"
    neighbor = (
        "/network-instances/network-instance[name=default]/protocols/protocol[identifier=BGP][name=bgp]"
        "/bgp/neighbors/neighbor[neighbor-address={}]/state/session-state"
    )
    got = parse(
        _leaves(
            {
                swp.format("swp16s0", "transceiver"): "swp16",
                swp.format("swp16s1", "transceiver"): "swp16",
                xcvr.format(1): -1.5,
                xcvr.format(2): "-3.25",
                swp.format("swp1", "counters/in-errors"): 2,
                swp.format("swp1", "counters/out-errors"): "3",
                swp.format("swp1", "counters/in-discards"): 4,
                swp.format("swp1", "admin-status"): "DOWN",
                swp.format("swp1", "oper-status"): "LOWER_LAYER_DOWN",
                neighbor.format("10.0.0.1"): "ESTABLISHED",
                neighbor.format("10.0.0.3"): "OPENCONFIRM",
            }
        )
    )
    for port in ("swp16s0", "swp16s1"):
        assert got.ports[port].optic == Optic(-3.25, None, None)
    one = got.ports["swp1"]
    assert (one.errors, one.discards, one.link_changes) == (5, None, None)  # no out-discards sent
    assert (one.up, one.admin_up) == (False, False)
    assert got.sessions == {"10.0.0.1": "Established", "10.0.0.3": "OpenConfirm"}
    assert parse({}).sessions == {}  # subscribed and none there: no session, not "unread"
    for bad in (
        {neighbor.format("10.0.0.1"): "UPISH"},
        {swp.format("swp1", "oper-status"): "up"},
        {swp.format("swp1", "admin-status"): 1},
        {swp.format("swp1", "transceiver"): ""},
        {xcvr.format(1): "bright"},
    ):
        with pytest.raises(ValueError):
            parse(_leaves(bad))


@pytest.mark.parametrize("lab", [("eos", EOS_SMALL)], ids=["eos"], indirect=True)  # paths do not matter here
def test_a_stream_that_breaks_is_up_0_with_why_and_comes_back(lab: tuple[LabFabric, Path, str]) -> None:
    fabric, root, _ = lab
    seen: list[Snapshot] = []
    with feeds(root, True, {"leaf1"}, 1, 60, lambda name, snap: seen.append(snap)):
        wait_until(lambda: seen and seen[-1].up, "the first snapshot")
        fabric.set_faults("leaf1", unreachable=True)
        wait_until(lambda: not seen[-1].up, "up 0 once the switch is gone")
        assert seen[-1].error.startswith("gNMI ") and seen[-1].counters is None
        fabric.set_faults("leaf1", unreachable=False)
        wait_until(lambda: seen[-1].up, "the stream opened again")


class _Stub:
    """A gNMI stub whose stream answers `responses`."""

    def __init__(self, responses: list[Any]) -> None:
        self.responses = responses

    def Subscribe(self, requests: Any, metadata: Any = None) -> Any:
        list(requests)
        return _Call(self.responses)


class _Call:
    def __init__(self, responses: list[Any]) -> None:
        self.responses = iter(responses)

    def __iter__(self) -> Any:
        return self.responses

    def cancel(self) -> None:
        pass


def _update(path: str, val: Any) -> Any:
    from fabricctl.telemetry.gnmi import xpath

    return gnmi_pb2.SubscribeResponse(
        update=gnmi_pb2.Notification(update=[gnmi_pb2.Update(path=xpath(path), val=val)])
    )


def test_an_answer_that_cannot_be_read_is_up_0_with_the_reason() -> None:
    published: list[Snapshot] = []
    target = Target("leaf1", "127.0.0.1", 1, "x", b"", "u", "p", EOS_GNMI)
    stream = Stream(target, lambda name, snap: published.append(snap))
    errors = "/interfaces/interface[name=Ethernet9]/state/counters/in-errors"
    good = _update(errors, gnmi_pb2.TypedValue(uint_val=3))
    sync = gnmi_pb2.SubscribeResponse(sync_response=True)
    assert stream._follow(_Stub([good, sync]), ()) == "the switch ended the stream"
    assert published[-1].up and published[-1].counters is not None
    for bad in (
        gnmi_pb2.TypedValue(json_val=b"not json"),
        gnmi_pb2.TypedValue(string_val="many"),
        gnmi_pb2.TypedValue(int_val=-1),
    ):
        reason = stream._follow(_Stub([_update(errors, bad), sync]), ())
        assert reason.startswith("gNMI answer unreadable"), reason
    stream._fail(reason)
    failed = published[-1]
    assert not failed.up and failed.error == reason and failed.counters is None


def _hosts(tmp_path: Path, platform: str, mode: str) -> Any:
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    if platform != "eos":
        hosts = root / "inventory" / "hosts.yaml"
        hosts.write_text(
            hosts.read_text(encoding="utf-8").replace(", eos]", f", {platform}]"), encoding="utf-8"
        )
    streamed(root, platform, mode)
    return root, build_nornir(root, Credentials("u", "p"))


def test_a_setup_that_cannot_stream_is_refused_before_contact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, nr = _hosts(tmp_path / "a", "comware", "gnmi")
    with pytest.raises(
        GnmiSetupError, match=r"host \S+: telemetry: gnmi, but fabricctl streams no counters from comware"
    ):
        targets(nr, root, lab=True)
    root, nr = _hosts(tmp_path / "b", "eos", "snmp")
    with pytest.raises(GnmiSetupError, match=r"telemetry: 'snmp' is not allowed \(allowed: cli, gnmi\)"):
        targets(nr, root, lab=True)
    root, nr = _hosts(tmp_path / "c", "eos", "gnmi")
    monkeypatch.delenv(CA_ENV, raising=False)
    with pytest.raises(GnmiSetupError, match=f"no CA file: {CA_ENV}="):
        targets(nr, root, lab=False)
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n", encoding="utf-8")
    monkeypatch.setenv(CA_ENV, str(ca))
    found = targets(nr, root, lab=False)
    assert {t.port for t in found} == {6030}  # EOS's own gNMI port on a real switch
    assert all(t.tls_name == t.address for t in found)
