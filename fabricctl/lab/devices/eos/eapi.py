"""Minimal EOS eAPI endpoint: HTTP/1.1 JSON-RPC `runCmds` at /command-api, basic auth.

Each request runs in a fresh CLI (starting privileged), like real eAPI; config sessions
outlive the request. Errors follow eAPI: code 1002 with per-command `errors`.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable
from typing import Any

from fabricctl.lab.device import LabDevice
from fabricctl.lab.devices.eos.cli import EosCli
from fabricctl.lab.dialect import CliError, Disconnect, Logout, Reboot
from fabricctl.lab.http import Credentials, basic_user, requests

#: EOS reads its log with `tail` over the log file, slower than a `send log` writes to it: a
#: `send log` sent together with a `show logging` on another connection is in the log the show
#: reads, as on a switch. ANTA's logging tests send both at once (`send log ... message WORD
#: ...` and `show logging <severity> last N seconds | grep WORD`), and its client may send one
#: seconds after the other. So a read of the log waits until the switch's requests have
#: settled (none arrived for QUIET seconds), and such a windowed `| grep WORD` read until as
#: many messages with the word were sent since boot as reads of it came (each read has its
#: message); at most SETTLE_MAX.
QUIET, SETTLE_MAX = 0.25, 20.0
_ARRIVED: dict[str, float] = {}  # switch -> wall time its last eAPI request arrived
_READS: dict[tuple[str, float, str], int] = {}  # (switch, its boot, word) -> windowed grep reads
_WINDOWED_GREP = re.compile(r"show logging .*\blast \d+ \w+\s*\|\s*grep\s+(?P<word>.+)$")


async def _settle(dev: LabDevice, cmd: str) -> None:
    grep = _WINDOWED_GREP.fullmatch(cmd)
    key = (dev.name, dev.boot, grep["word"].strip() if grep else "")
    if grep:
        _READS[key] = _READS.get(key, 0) + 1
    start = time.monotonic()
    while time.monotonic() - start < SETTLE_MAX:
        quiet = time.monotonic() - _ARRIVED.get(dev.name, 0.0) >= QUIET
        sent = sum(1 for *_, text in dev.log if key[2] in text) if grep else 0
        if quiet and (grep is None or sent >= _READS[key]):
            return
        await asyncio.sleep(QUIET / 4)


async def run_cmds(
    dev: LabDevice, request: dict[str, Any], gone: Callable[[], bool] = lambda: False
) -> dict[str, Any]:
    """Execute one JSON-RPC request; raises Disconnect for the fault."""
    rid = request.get("id")
    params = request.get("params") or {}
    cmds = params.get("cmds") or []
    fmt = params.get("format") or "json"
    if request.get("method") != "runCmds" or fmt not in ("json", "text"):
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "bad request"}}
    cli = EosCli(dev)
    cli.gone = gone
    results: list[Any] = []
    for i, item in enumerate(cmds):
        cmd = item["cmd"] if isinstance(item, dict) else str(item)
        if dev.faults.latency:
            await dev.clock.sleep(dev.faults.latency)
        if cmd.startswith("show logging"):
            await _settle(dev, cmd)
        try:
            out = await cli.execute(cmd, as_json=fmt == "json")
        except Logout:
            out = {} if fmt == "json" else ""
        except Reboot as reboot:  # `reload now` over eAPI: the answer, then the switch is gone
            out = {} if fmt == "json" else reboot.text
        except (Disconnect, asyncio.CancelledError):
            raise
        except Exception as exc:  # a command error, never a dropped connection
            code, message = (
                (exc.code, exc.eapi) if isinstance(exc, CliError) else (1000, f"internal error: {exc}")
            )
            what = {1002: "invalid command", 1003: "could not be converted"}.get(
                code, "could not run command"
            )
            error = {
                "code": code,
                "message": f"CLI command {i + 1} of {len(cmds)} '{cmd}' failed: {what}",
                "data": [*results, {"errors": [message]}],
            }
            return {"jsonrpc": "2.0", "id": rid, "error": error}
        if fmt == "text":
            text = out if isinstance(out, str) else json.dumps(out, indent=2)
            out = {"output": text + "\n" if text else ""}
        results.append(out)
    return {"jsonrpc": "2.0", "id": rid, "result": results}


def _response(
    status: str,
    body: bytes,
    ctype: str = "application/json",
    extra: dict[str, str] | None = None,
    head: bool = False,
) -> bytes:
    """An HTTP/1.1 response (`head`: the headers of the response, without its body)."""
    fields = {"Server": "nginx", "Content-Type": ctype, "Content-Length": str(len(body)), **(extra or {})}
    lines = "".join(f"{k}: {v}\r\n" for k, v in fields.items())
    return f"HTTP/1.1 {status}\r\n{lines}Connection: keep-alive\r\n\r\n".encode() + (b"" if head else body)


async def serve_connection(
    dev: LabDevice, creds: Credentials, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    """Serve keep-alive HTTP requests on one TCP connection."""
    try:
        async for request in requests(reader):
            method, path, headers, body = request.method, request.target, request.headers, request.body
            _ARRIVED[dev.name] = time.monotonic()
            endpoint = path.split("?")[0].rstrip("/") == "/command-api"
            authorized = (
                not dev.faults.auth_failure and basic_user(headers.get("authorization"), creds) is not None
            )
            if method in ("GET", "HEAD") and path in ("/", ""):
                writer.write(
                    _response("301 Moved Permanently", b"", "text/html", {"Location": "/explorer.html"})
                )
            elif not endpoint or method not in ("GET", "HEAD", "POST"):
                writer.write(_response("404 Not Found", b"not found", "text/plain"))
            elif not authorized:
                writer.write(_response("401 Unauthorized", b"Unable to authenticate user"))
            elif method in ("GET", "HEAD"):  # the probe ANTA and load balancers send: the API is up
                writer.write(_response("200 OK", b"", "application/json", head=method == "HEAD"))
            else:
                try:
                    payload = json.loads(body)
                except ValueError:
                    payload = {}
                result = await run_cmds(dev, payload, writer.is_closing)
                writer.write(_response("200 OK", json.dumps(result).encode()))
            await writer.drain()
    except (Disconnect, ConnectionError, asyncio.IncompleteReadError, ValueError):
        pass
    except asyncio.CancelledError:  # the lab stops while a client keeps its connection open
        pass
    finally:
        writer.close()
