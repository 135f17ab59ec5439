"""A lab holds its whole address block, not only the addresses of switches that listen."""

from __future__ import annotations

import socket
import uuid
from ipaddress import IPv4Network

from fabricctl.lab.factory import DeviceSpec
from fabricctl.lab.faults import Faults
from fabricctl.lab.server import LabFabric, _claim, free_block


def _block(lab: LabFabric, name: str) -> IPv4Network:
    return IPv4Network(f"{lab.endpoints()[name].host}/16", strict=False)


def _ssh_answers(host: str, port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(5)
        try:
            sock.connect((host, port))
        except OSError:
            return False
        return sock.recv(4).startswith(b"SSH-")


def test_a_silent_switch_keeps_its_address_from_another_lab() -> None:
    """Switch `a` is unreachable (as a switch still in day-0 is): nothing listens at its address,
    yet a second lab of the same seed must take another block, so `a` listens once it is back."""
    seed = uuid.uuid4().hex
    specs = [DeviceSpec("a", "eos"), DeviceSpec("b", "eos")]
    first = LabFabric(specs, seed=seed, faults={"a": Faults(unreachable=True)})
    first.start()
    try:
        second = LabFabric([DeviceSpec("x", "eos")], seed=seed)
        second.start()
        try:
            assert _block(second, "x") != _block(first, "a")
            assert free_block(seed, first.ssh_port) not in {_block(first, "a"), _block(second, "x")}
            first.set_faults("a", Faults())  # back: it listens at its own address
            assert _ssh_answers(first.endpoints()["a"].host, first.ssh_port)
        finally:
            second.stop()
    finally:
        first.stop()


def test_the_claim_is_released_when_the_lab_stops() -> None:
    seed = uuid.uuid4().hex
    lab = LabFabric([DeviceSpec("a", "eos")], seed=seed, faults={"a": Faults(unreachable=True)})
    lab.start()
    held = _block(lab, "a")
    assert free_block(seed, lab.ssh_port) != held
    lab.stop()
    assert free_block(seed, lab.ssh_port) == held


def test_a_routed_block_claims_nothing() -> None:
    """A block other hosts route to (a lab on several hosts) has no loopback address to hold."""
    assert _claim(IPv4Network("198.51.100.0/24"), 20022) is None
