"""Minimal EOS eAPI endpoint: HTTP/1.1 JSON-RPC `runCmds` at /command-api, basic auth.

Each request runs in a fresh CLI (starting privileged), like real eAPI; config sessions
outlive the request. Errors follow eAPI: code 1002 with per-command `errors`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from fabricctl.lab.device import LabDevice
from fabricctl.lab.devices.eos.cli import EosCli
from fabricctl.lab.dialect import CliError, Disconnect, Logout, Reboot
from fabricctl.lab.http import Credentials, basic_user, requests


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
