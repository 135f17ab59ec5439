"""The exporter's HTTP server against hostile clients, over real sockets: idle sockets by the
hundred, slowloris, idle keep-alive, huge heads. None takes it down, none grows its threads past
the bound, and a scrape is answered while they try; each of them is closed in the end."""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from prometheus_client.parser import text_string_to_metric_families

from fabricctl import pipeline
from fabricctl.httpserve import BoundedHttpServer, Limits
from fabricctl.telemetry.exporter import Exposition, Snapshot, serve
from tests.conftest import EOS_SMALL, wait_until

LIMITS = Limits(header_timeout=1.0, write_timeout=5.0, max_connections=64, workers=2)


@pytest.fixture
def server() -> Iterator[BoundedHttpServer]:
    compiled = pipeline.compile(EOS_SMALL)
    exposition = Exposition(compiled)
    for s in compiled.fabric.switches:
        exposition.update(s.name, Snapshot())
    started = serve(exposition, "127.0.0.1", 0, LIMITS)
    try:
        yield started
    finally:
        started.stop()


def scrape(server: BoundedHttpServer) -> int:
    """One scrape, as Prometheus does it: the switches it lists."""
    conn = http.client.HTTPConnection(*server.address, timeout=30)
    try:
        conn.request("GET", "/metrics")
        reply = conn.getresponse()
        assert reply.status == 200
        text = reply.read().decode()
    finally:
        conn.close()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    return len(families["fabricctl_switch_up"].samples)


def server_threads() -> int:
    return sum(1 for t in threading.enumerate() if t.name.startswith("fabricctl-http"))


def closed(sock: socket.socket) -> bool:
    """Has the server closed this socket? (EOF or reset; False while it is still open)."""
    sock.setblocking(False)
    try:
        return sock.recv(65536) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def test_hostile_clients_neither_stop_a_scrape_nor_grow_the_threads(server: BoundedHttpServer) -> None:
    bound = 1 + LIMITS.workers  # the loop's thread and the handler pool
    assert scrape(server) == 6
    idle = [socket.create_connection(server.address) for _ in range(250)]  # 200+ sockets, silent
    slow = [socket.create_connection(server.address) for _ in range(20)]
    for sock in slow:
        sock.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")  # a head that never ends
    stop = threading.Event()

    def drip() -> None:  # slowloris: one more header byte now and then, on every slow socket
        while not stop.is_set():
            for sock in slow:
                try:
                    sock.send(b"X")
                except OSError:
                    continue
            time.sleep(0.1)

    dripper = threading.Thread(target=drip, daemon=True)
    dripper.start()
    huge = socket.create_connection(server.address)
    with contextlib.suppress(OSError):  # the server may close it before the whole megabyte is in
        huge.sendall(b"GET /metrics HTTP/1.1\r\n" + b"X-Pad: " + b"a" * (1 << 20) + b"\r\n\r\n")
    keep = http.client.HTTPConnection(*server.address, timeout=30)
    keep.request("GET", "/metrics")
    assert keep.getresponse().read()  # then idle on its keep-alive connection
    try:
        # Scrapes are answered all along, the idle sockets' slots given to them.
        for _ in range(5):
            assert scrape(server) == 6
        assert server_threads() <= bound, [t.name for t in threading.enumerate()]
        assert server.open <= LIMITS.max_connections + 1
        reply = huge.recv(4096)
        assert reply == b"" or reply.startswith(b"HTTP/1.1 431"), reply[:80]
        # Every hostile socket is closed in the end: by its head's deadline, or for room.
        wait_until(lambda: all(closed(s) for s in slow), "the slowloris sockets to be closed")
        wait_until(lambda: all(closed(s) for s in idle), "the idle sockets to be closed")
        assert keep.sock is not None
        wait_until(lambda: closed(keep.sock), "the idle keep-alive connection to be closed")
        assert server.evicted > 0  # the silent sockets beyond the cap made room for the rest
        wait_until(lambda: server.open == 0, "every connection to be gone")
        assert scrape(server) == 6
        assert server_threads() <= bound
    finally:
        stop.set()
        dripper.join(10)
        for sock in [*idle, *slow, huge]:
            sock.close()
        keep.close()


def test_what_is_not_a_get_is_refused_and_the_server_lives_on(server: BoundedHttpServer) -> None:
    cases = {
        b"POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc": b"HTTP/1.1 405",
        b"GARBAGE\r\n\r\n": b"HTTP/1.1 400",
        b"GET /metrics HTTP/1.1\r\n" + b"X: y\r\n" * 100 + b"\r\n": b"HTTP/1.1 431",
        b"GET /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n": b"HTTP/1.1 400",
        b"GET /other HTTP/1.1\r\n\r\n": b"HTTP/1.1 404",
    }
    for request, status in cases.items():
        with socket.create_connection(server.address, timeout=30) as sock:
            sock.sendall(request)
            assert sock.recv(4096).startswith(status), request[:40]
    assert scrape(server) == 6
