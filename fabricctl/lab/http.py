"""The HTTP/1.1 both lab APIs speak (EOS eAPI, NVUE's REST API): keep-alive requests read off one
connection, and HTTP basic auth checked against the lab login."""

from __future__ import annotations

import asyncio
import base64
import hmac
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

Credentials = Callable[[], tuple[str, str]]


@dataclass(frozen=True)
class Request:
    method: str
    target: str  # path and query, as sent
    headers: dict[str, str]  # names in lower case
    body: bytes


async def requests(reader: asyncio.StreamReader) -> AsyncIterator[Request]:
    """The requests of one keep-alive connection, until the client closes it."""
    while True:
        request_line = await reader.readline()
        if not request_line:
            return
        method, target, *_ = request_line.decode("latin-1").split()
        headers: dict[str, str] = {}
        while True:
            raw = await reader.readline()
            if raw in (b"\r\n", b"\n", b""):
                break
            key, _, value = raw.decode("latin-1").partition(":")
            headers[key.strip().lower()] = value.strip()
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        yield Request(method, target, headers, body)


def basic_user(header: str | None, creds: Credentials) -> str | None:
    """The user an `Authorization: Basic` header names, when its password is the lab login's."""
    if not header or not header.startswith("Basic "):
        return None
    try:
        user, _, password = base64.b64decode(header[6:]).decode().partition(":")
    except ValueError:
        return None
    want_user, want_password = creds()
    return (
        user
        if hmac.compare_digest(user, want_user) and hmac.compare_digest(password, want_password)
        else None
    )
