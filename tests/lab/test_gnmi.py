"""The lab's gNMI targets, driven by a third-party client (pygnmi): Capabilities, Get, Subscribe
SAMPLE on the lab clock, ON_CHANGE when a link goes down or flaps, ONCE and POLL, and the values
agree with what the switch's show commands print at the same lab time.

gnmic, the other client engineers use, is a Go binary with no Debian, npm or PyPI package: it
cannot be installed here, so pygnmi is the client these tests run.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyeapi
import pytest
from pygnmi.client import gNMIclient, gNMIException

from fabricctl.lab import DeviceSpec, LabClock, LabFabric
from fabricctl.lab.fabric_state import Cabling
from fabricctl.lab.runtime import lab_credentials
from fabricctl.lab.tls import TLS_NAME, certificate_pem
from fabricctl.lab.traffic import LOSSLESS_DROP_PPS
from tests.conftest import EOS_SMALL, NVUE_SMALL

from .conftest import loaded_lab

SECOND = 1_000_000_000  # gNMI intervals are nanoseconds
#: pygnmi's reader thread raises CANCELLED when a test closes a stream it no longer reads.
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")


def client(lab: LabFabric, name: str, tmp: Path, password: str | None = None) -> gNMIclient:
    """pygnmi, verifying the lab's certificate, logged in with the lab's credentials."""
    ca = tmp / "lab-ca.pem"
    ca.write_bytes(certificate_pem())
    ep = lab.endpoints()[name]
    user, secret = lab_credentials()
    assert ep.gnmi_port is not None
    return gNMIclient(
        target=(ep.host, ep.gnmi_port),
        username=user,
        password=password or secret,
        path_root=str(ca),
        override=TLS_NAME,
    )


class Feed:
    """A pygnmi stream read on its own thread: `next()` waits (bounded) for the next message."""

    def __init__(self, stream: Any) -> None:
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream: Any) -> None:
        for message in stream:
            self.messages.put(message)

    def next(self) -> dict[str, Any]:
        return self.messages.get(timeout=30)

    def updates(self) -> dict[str, Any]:
        return {u["path"]: u["val"] for u in self.next()["update"]["update"]}


@pytest.fixture(scope="module")
def eos(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LabFabric, Path]]:
    tmp = tmp_path_factory.mktemp("gnmi-eos")
    lab, _ = loaded_lab(EOS_SMALL, tmp)
    try:
        yield lab, tmp
    finally:
        lab.stop()


@pytest.fixture
def pair(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[LabFabric]:
    """Two switches of one NOS, port 1 cabled to port 1, on a frozen clock."""
    platform, port = request.param
    cabling = Cabling()
    cabling.add(("a", port), ("b", port))
    specs = [DeviceSpec("a", platform), DeviceSpec("b", platform)]
    with LabFabric(specs, state_dir=tmp_path / "state", clock=LabClock.frozen(), cabling=cabling) as lab:
        yield lab


def eapi(lab: LabFabric, name: str, command: str) -> dict[str, Any]:
    ep = lab.endpoints()[name]
    user, password = lab_credentials()
    node = pyeapi.connect(
        transport="https", host=ep.host, port=ep.eapi_port, username=user, password=password, return_node=True
    )
    result: dict[str, Any] = node.enable(command)[0]["result"]
    return result


def test_eos_capabilities_list_the_models_of_its_release(eos: tuple[LabFabric, Path]) -> None:
    lab, tmp = eos
    with client(lab, "leaf1", tmp) as gc:
        caps = gc.capabilities()
    assert caps["gnmi_version"] == "0.7.0"
    models = {m["name"]: m["version"] for m in caps["supported_models"]}
    assert models["openconfig-interfaces"] == "3.6.0" and models["arista-intf-augments"] == "1.7.3"
    assert models["arista-qos-augments"] == "0.0.4"
    assert set(caps["supported_encodings"]) == {"json", "json_ietf", "ascii"}


def test_eos_get_agrees_with_the_show_commands(eos: tuple[LabFabric, Path]) -> None:
    lab, tmp = eos
    lab.set_faults("leaf1", pfc_storm=["Ethernet9"], congestion=["Ethernet10"], lossless_drops=["Ethernet11"])
    lab.advance(10)
    try:
        with client(lab, "leaf1", tmp) as gc:
            got = gc.get(path=["/interfaces/interface[name=Ethernet11]/state"], encoding="json_ietf")
            state = got["notification"][0]["update"][0]["val"]
            pfc = gc.get(
                path=["/interfaces/interface[name=Ethernet9]/ethernet/pfc/priorities"], encoding="json"
            )
            ecn = gc.get(
                path=[
                    "/qos/interfaces/interface[interface-id=Ethernet10]/output/queues/queue[name=3]/state/ecn-marked-pkts"
                ],
                encoding="json",
            )
        shown = eapi(lab, "leaf1", "show interfaces Ethernet11")["interfaces"]["Ethernet11"]
        counters = state["openconfig-interfaces:counters"]
        assert (
            int(counters["out-discards"])
            == shown["interfaceCounters"]["outDiscards"]
            == 11 * LOSSLESS_DROP_PPS
        )
        assert int(counters["carrier-transitions"]) == shown["interfaceCounters"]["linkStatusChanges"]
        assert state["openconfig-interfaces:oper-status"] == "UP"
        frames = eapi(lab, "leaf1", "show priority-flow-control counters")["interfaceCounters"]["Ethernet9"]
        updates = pfc["notification"][0]["update"]
        assert len(updates) == 1  # a container: one JSON tree
        rx = sum(p["state"]["in-frames"] for p in updates[0]["val"]["priority"])
        assert rx == frames["rxFrames"] > 0
        queues = eapi(lab, "leaf1", "show qos interfaces ecn counters queue")["intfQueueCounters"][
            "Ethernet10"
        ]
        assert ecn["notification"][0]["update"][0]["val"] == int(queues["queueCounters"]["3"]) > 0
    finally:
        lab.clear_faults()


def test_eos_sample_every_lab_second_and_on_change_when_a_link_drops(eos: tuple[LabFabric, Path]) -> None:
    lab, tmp = eos
    port = "/interfaces/interface[name=Ethernet12]/state"
    with client(lab, "leaf1", tmp) as gc:
        feed = Feed(
            gc.subscribe2(
                subscribe={
                    "mode": "stream",
                    "encoding": "json",
                    "subscription": [
                        {
                            "path": f"{port}/counters/out-discards",
                            "mode": "sample",
                            "sample_interval": SECOND,
                        },
                        {"path": f"{port}/oper-status", "mode": "on_change"},
                    ],
                }
            )
        )
        first = feed.updates()  # the values now, then sync
        assert first[f"{port[1:]}/oper-status"] == "UP"
        lab.set_faults("leaf1", lossless_drops=["Ethernet12"])
        lab.advance(1)
        sampled = feed.updates()
        assert sampled == {
            f"{port[1:]}/counters/out-discards": 2 * LOSSLESS_DROP_PPS
        }  # a second run, +1 at onset
        lab.set_faults("leaf1", lossless_drops=[], links_down=["Ethernet12"])
        assert feed.updates() == {f"{port[1:]}/oper-status": "DOWN"}
        lab.set_faults("leaf1", links_down=[])
        assert feed.updates() == {f"{port[1:]}/oper-status": "UP"}
        lab.set_faults("leaf1", flapping=["Ethernet12"])  # down and up at once, then every 30 s
        assert feed.updates() == {f"{port[1:]}/oper-status": "DOWN"}
        assert feed.updates() == {f"{port[1:]}/oper-status": "UP"}
    lab.clear_faults()


def test_eos_once_and_poll(eos: tuple[LabFabric, Path]) -> None:
    lab, tmp = eos
    path = "/interfaces/interface[name=Ethernet1]/state/oper-status"
    with client(lab, "leaf1", tmp) as gc:
        once = Feed(gc.subscribe2(subscribe={"mode": "once", "subscription": [{"path": path}]}))
        assert once.updates() == {path[1:]: "UP"}
        poll = gc.subscribe2(subscribe={"mode": "poll", "subscription": [{"path": path}]})
        assert poll.get_update(timeout=30)["update"]["update"][0]["val"] == "UP"


def test_a_wrong_password_is_refused(eos: tuple[LabFabric, Path]) -> None:
    lab, tmp = eos
    wrong = client(lab, "leaf1", tmp, password="not-the-lab-password")
    with pytest.raises(gNMIException, match="authentication failed"), wrong:  # pygnmi asks Capabilities first
        pass


def test_cumulus_streams_its_qos_paths_and_serves_no_get(tmp_path: Path) -> None:
    lab, _ = loaded_lab(NVUE_SMALL, tmp_path)
    try:
        with client(lab, "leaf1", tmp_path) as gc:
            caps = gc.capabilities()
            assert caps["gnmi_version"] == "0.10.0" and "proto" in caps["supported_encodings"]
            with pytest.raises(gNMIException, match="Get is not supported"):
                gc.get(path=["/interfaces"], encoding="json")
            queue_state = "/qos/interfaces/interface[interface-id=swp1]/output/queues/queue[name=3]/state"
            feed = Feed(
                gc.subscribe2(
                    subscribe={
                        "mode": "stream",
                        "encoding": "proto",
                        "subscription": [
                            {
                                "path": f"{queue_state}/no-buffer-uc-dropped-pkts",
                                "mode": "sample",
                                "sample_interval": SECOND // 2,
                            },
                            {
                                "path": "/interfaces/interface[name=swp1]/state/oper-status",
                                "mode": "on_change",
                            },
                        ],
                    }
                )
            )
            assert feed.updates()["interfaces/interface[name=swp1]/state/oper-status"] == "UP"
            lab.set_faults("leaf1", lossless_drops=["swp1"])
            lab.advance(1)  # half a second asked: Cumulus Linux samples every second at the most
            assert feed.updates() == {f"{queue_state[1:]}/no-buffer-uc-dropped-pkts": 2 * LOSSLESS_DROP_PPS}
            lab.set_faults("leaf1", links_down=["swp1"])
            assert feed.updates() == {"interfaces/interface[name=swp1]/state/oper-status": "DOWN"}
    finally:
        lab.stop()


@pytest.mark.parametrize("pair", [("comware", "FourHundredGigE1/0/1")], indirect=True)
def test_comware_serves_interface_state_and_counters(pair: LabFabric, tmp_path: Path) -> None:
    lab = pair
    lab.set_faults("a", optic_degrading=["FourHundredGigE1/0/1"])
    lab.advance(600)  # 10 dB down: past the low alarm for about 70 s
    port = "/interfaces/interface[name=FourHundredGigE1/0/1]/state"
    with client(lab, "a", tmp_path) as gc:
        got = gc.get(path=[f"{port}/counters/in-errors", f"{port}/oper-status"], encoding="json")
    values = [n["update"][0]["val"] for n in got["notification"]]
    assert values[1] == "UP" and values[0] > 0
