"""An HTTP/1.1 server no client can take down: what fabricctl serves (the exporter's /metrics,
`ztp serve`'s day-0 files) to clients it does not control.

Every client is a claim: it may open a socket and say nothing, send its headers a byte a
minute (slowloris), keep a connection idle, send megabytes of headers, or open hundreds of
sockets at once. So connections are served by one asyncio loop (an idle socket costs no
thread), and:

- a request's head (request line and headers) must arrive whole within `header_timeout` of the
  connection opening or of the previous response: a slow or idle client is closed then;
- a head is at most `max_header_bytes` and `max_headers` lines (larger: 431, closed); a request
  with a body is refused (400): these are GET-only services;
- at most `max_connections` are open at once: one more closes the connection that has waited
  longest for a request head (so idle sockets never lock out a client that asks), or, when every
  open one is being answered, is itself closed at once, unanswered;
- the handler runs on a pool of `workers` threads (a request waits for a free one), so the
  process has the loop's thread and those workers, however many clients come;
- a response is written in slices, each of which must drain within `write_timeout`: a client
  that does not read is closed, and never holds more than a slice in memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http import HTTPStatus

#: Bytes written to a client before waiting for it to take them.
SLICE = 256 * 1024


@dataclass(frozen=True)
class Request:
    method: str  # GET or HEAD
    path: str  # the request target, as sent
    client: str  # the client's address
    headers: dict[str, str]  # lower-case names


@dataclass
class Response:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


Handler = Callable[[Request], Response]


@dataclass
class Limits:
    header_timeout: float = 10.0
    write_timeout: float = 30.0
    max_header_bytes: int = 16 * 1024
    max_headers: int = 64
    max_connections: int = 256
    workers: int = 4


class BoundedHttpServer:
    """Serve `handler` on host:port (port 0: any free port) from a thread of its own."""

    def __init__(self, handler: Handler, host: str, port: int, limits: Limits | None = None) -> None:
        self.handler = handler
        self.limits = limits or Limits()
        self.open = 0  # connections open now
        self.refused = 0  # connections closed at once: too many open, none idle
        self.evicted = 0  # idle connections closed to make room for a new one
        #: The connections waiting for a request head, and since when (the loop's clock).
        self._waiting: dict[asyncio.Task[None], float] = {}
        self._pool = ThreadPoolExecutor(max_workers=self.limits.workers, thread_name_prefix="fabricctl-http")
        self._loop = asyncio.new_event_loop()
        self._server = self._loop.run_until_complete(
            asyncio.start_server(self._client, host, port, limit=self.limits.max_header_bytes, backlog=512)
        )
        sock = self._server.sockets[0].getsockname()
        self.address: tuple[str, int] = (str(sock[0]), int(sock[1]))
        self._thread: threading.Thread | None = None

    def start(self) -> BoundedHttpServer:
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="fabricctl-http-loop", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop listening and close every connection (a second call does nothing)."""

        async def close() -> None:
            self._server.close()
            others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in others:  # the clients still connected
                task.cancel()
            await asyncio.gather(*others, return_exceptions=True)
            await self._server.wait_closed()

        if self._loop.is_closed():  # stopped already
            return
        if self._thread is not None:
            asyncio.run_coroutine_threadsafe(close(), self._loop).result(timeout=30)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=30)
        else:  # never started
            self._loop.run_until_complete(close())
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._loop.close()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.open >= self.limits.max_connections:
            if not self._waiting:
                self.refused += 1
                writer.transport.abort()
                return
            oldest = min(self._waiting, key=self._waiting.__getitem__)
            del self._waiting[oldest]
            oldest.cancel()  # its handler closes it; the count drops when it has
            self.evicted += 1
        self.open += 1
        done = False
        try:
            peer = writer.get_extra_info("peername")
            client = str(peer[0]) if peer else ""
            while await self._one(reader, writer, client):
                pass
            done = True
        except (TimeoutError, ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass  # cancelled: evicted for room, or the server stopping; the task ends quietly
        finally:
            self.open -= 1
            if done:
                writer.close()  # everything written has drained: a plain close
            else:  # too slow, gone, cut short or the server stopping: no lingering close
                writer.transport.abort()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, client: str) -> bool:
        """Read one request and answer it; False when the connection is done."""
        task = asyncio.current_task()
        assert task is not None
        self._waiting[task] = asyncio.get_running_loop().time()
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), self.limits.header_timeout)
        except (asyncio.LimitOverrunError, ValueError):
            too_large = Response(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, b"request head too large\n")
            await self._send(writer, too_large, False, False)
            return False
        finally:
            self._waiting.pop(task, None)
        lines = head.decode("latin-1").split("\r\n")[:-2]
        parsed = _parse(lines, self.limits.max_headers)
        if isinstance(parsed, Response):
            await self._send(writer, parsed, False, False)
            return False
        method, path, version, headers = parsed
        keep = version == "HTTP/1.1" and headers.get("connection", "").lower() != "close"
        request = Request(method, path, client, headers)
        response = await asyncio.get_running_loop().run_in_executor(self._pool, self._answer, request)
        await self._send(writer, response, keep, method == "HEAD")
        return keep

    def _answer(self, request: Request) -> Response:
        try:
            return self.handler(request)
        except Exception:  # a handler's bug is a 500 for this request, never a dead server
            return Response(HTTPStatus.INTERNAL_SERVER_ERROR, b"internal error\n")

    async def _send(
        self, writer: asyncio.StreamWriter, response: Response, keep: bool, head_only: bool
    ) -> None:
        status = HTTPStatus(response.status)
        headers = {
            "Content-Type": "text/plain; charset=utf-8",
            **response.headers,
            "Content-Length": str(len(response.body)),
            "Connection": "keep-alive" if keep else "close",
        }
        lines = [f"HTTP/1.1 {status.value} {status.phrase}", *(f"{k}: {v}" for k, v in headers.items())]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        body = b"" if head_only else memoryview(response.body)
        for start in range(0, len(body), SLICE):
            writer.write(body[start : start + SLICE])
            await asyncio.wait_for(writer.drain(), self.limits.write_timeout)
        await asyncio.wait_for(writer.drain(), self.limits.write_timeout)


def _parse(lines: list[str], max_headers: int) -> tuple[str, str, str, dict[str, str]] | Response:
    """(method, target, version, headers) of a request head, or the error to answer."""
    words = lines[0].split(" ") if lines else []
    if len(words) != 3 or not words[2].startswith("HTTP/1."):
        return Response(HTTPStatus.BAD_REQUEST, b"not an HTTP/1 request line\n")
    method, path, version = words
    if method not in ("GET", "HEAD"):
        return Response(HTTPStatus.METHOD_NOT_ALLOWED, b"GET or HEAD only\n", {"Allow": "GET, HEAD"})
    if len(lines) - 1 > max_headers:
        return Response(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, b"too many header lines\n")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip():
            return Response(HTTPStatus.BAD_REQUEST, b"malformed header line\n")
        headers[name.lower()] = value.strip()
    with contextlib.suppress(ValueError):
        if int(headers.get("content-length", "0")) == 0 and "transfer-encoding" not in headers:
            return method, path, version, headers
    return Response(HTTPStatus.BAD_REQUEST, b"a request with a body: GET or HEAD only\n")
