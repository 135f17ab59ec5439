"""The NVUE REST API on HTTPS, as NVIDIA's NVUE API guide shows it (basic auth, /nvue_v1).

Revisions (NVUE API, "Make a Configuration Change"): POST /nvue_v1/revision creates one and
answers `{"<id>": {"state": "pending", "transition": {...}}}`; PATCH /nvue_v1/<path>?rev=<id>
with a JSON object sets (a `null` member unsets) below <path>, or with `Content-Type: text/plain`
a batch of `nv set` / `nv unset` lines ("Patch a Batch of Configuration Commands"); DELETE
/nvue_v1/<path>?rev=<id> unsets <path>; PATCH /nvue_v1/revision/<id> with `{"state": "apply",
"auto-prompt": {"ays": "ays_yes"}}` applies it; GET /nvue_v1/revision/<id> reads its state
(`applied`); PATCH /nvue_v1/revision/applied `{"state": "save"}` saves; DELETE of a revision
detaches it (NVOS manual, `nv config detach`). GET /nvue_v1/<path> answers as `nv show <path>`
(`?rev=applied|startup|<id>` reads a revision's configuration, `&diff=<rev>` the difference).

The guide shows no REST form of `nv config apply --confirm`: here an apply body may carry
`"confirm": "<time>"` (the CLI's time syntax) and the revision is then `confirm` until a PATCH
`{"state": "confirm_yes"}` keeps it or `{"state": "confirm_no"}` (or the lab clock) rolls it back
(state `confirm_fail`), the states the CLI's `--confirm-yes` / `--confirm-no` name.

Every change goes through the same object reference as the CLI (cli.stage), so the API accepts
exactly the paths and values `nv set` does.
"""

from __future__ import annotations

import asyncio
import copy
import json
import re
import shlex
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import fabricctl.lab.devices.nvue.revisions as revisions
import fabricctl.lab.devices.nvue.show as show
from fabricctl.lab.device import LabDevice
from fabricctl.lab.devices.nvue.cli import NvueError, stage
from fabricctl.lab.devices.nvue.revisions import RevisionError
from fabricctl.lab.devices.nvue.tree import Tree, diff, get_path
from fabricctl.lab.dialect import Disconnect
from fabricctl.lab.http import Credentials, basic_user, requests
from fabricctl.lab.view import View

PREFIX = "/nvue_v1"
REASONS = {200: "OK", 204: "No Content", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found"}


class ApiError(Exception):
    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail

    def body(self) -> dict[str, Any]:
        return {
            "detail": self.detail,
            "status": self.status,
            "title": REASONS[self.status],
            "type": "about:blank",
        }


def _nest(words: list[str], body: Any) -> Tree:
    for word in reversed(words):
        body = {word: body}
    return body if isinstance(body, dict) else {}


def _lines(payload: Tree) -> list[tuple[list[str], bool]]:
    """A PATCH body as the `nv set` / `nv unset` commands it stands for (a null: unset)."""
    out: list[tuple[list[str], bool]] = []

    def walk(node: Tree, path: list[str]) -> None:
        for key, value in node.items():
            here = [*path, str(key)]
            if value is None:
                out.append((here, True))
            elif isinstance(value, dict) and value:
                walk(value, here)
            elif isinstance(value, dict):
                out.append((here, False))
            else:
                out.append(([*here, str(value)], False))

    walk(payload, [])
    return out


def _stage_all(dev: LabDevice, rev: revisions.Revision, lines: list[tuple[list[str], bool]]) -> None:
    """All or nothing: a line the reference refuses leaves the revision as it was."""
    trial = copy.deepcopy(rev.config)
    reject = dev.faults.reject
    for words, negated in lines:
        if reject and re.search(reject, " ".join(words)):
            raise ApiError(400, f"Invalid Command: {'unset' if negated else 'set'} {' '.join(words)}")
        try:
            stage(dev.grammar, trial, words, negated)
        except NvueError as exc:
            raise ApiError(400, str(exc).removeprefix("Error: ")) from None
    rev.config = trial


def _pending(dev: LabDevice, query: dict[str, list[str]]) -> revisions.Revision:
    rev_id = query.get("rev", [""])[0]
    if not rev_id:
        raise ApiError(400, "A change needs a revision: ?rev=<revision id> (POST /nvue_v1/revision)")
    try:
        rev = revisions.revision(dev, rev_id)
    except RevisionError as exc:
        raise ApiError(404, str(exc)) from None
    if rev.state != "pending":
        raise ApiError(400, f"Revision {rev_id} is {rev.state}, not pending")
    return rev


def handle(dev: LabDevice, method: str, target: str, ctype: str, body: bytes, user: str) -> tuple[int, Any]:
    """One request -> (status, JSON body or None)."""
    url = urlsplit(target)
    if not url.path.startswith(PREFIX):
        raise ApiError(404, f"The requested URL {url.path} was not found")
    words = [unquote(w) for w in url.path[len(PREFIX) :].split("/") if w]
    query = parse_qs(url.query)
    if words[:1] == ["revision"]:
        return _revision(dev, method, words[1:], body, user)
    if method == "GET":
        read = query.get("rev", [None])[0]
        try:
            if read is not None and "diff" in query:
                sets, unsets = diff(revisions.named(dev, read), revisions.named(dev, query["diff"][0]))
                return 200, _subtree({"set": sets, "unset": unsets}, words)
            source = revisions.named(dev, read) if read is not None else None
        except RevisionError as exc:
            raise ApiError(404, str(exc)) from None
        data = show.answer(View(dev), words, source)
        if data is None:
            raise ApiError(404, f"The requested item does not exist: {'/'.join(words)}")
        return 200, data
    if method == "PATCH":
        rev = _pending(dev, query)
        if ctype.startswith("text/plain"):
            lines = []
            for n, raw in enumerate(body.decode().splitlines(), start=1):
                parts = shlex.split(raw, comments=True)
                if not parts:
                    continue
                if parts[:2] not in (["nv", "set"], ["nv", "unset"]):
                    raise ApiError(400, f"line {n}: only nv set and nv unset commands can be patched: {raw}")
                lines.append((parts[2:], parts[1] == "unset"))
            _stage_all(dev, rev, lines)
            return 200, {}
        try:
            payload = json.loads(body or b"{}")
        except ValueError:
            raise ApiError(400, "The request body is not JSON") from None
        _stage_all(dev, rev, _lines(_nest(words, payload)) if words or isinstance(payload, dict) else [])
        return 200, payload
    if method == "DELETE":
        rev = _pending(dev, query)
        _stage_all(dev, rev, [(words, True)])
        return 204, None
    raise ApiError(400, f"{method} is not supported on {url.path}")


def _subtree(data: Tree, words: list[str]) -> Tree:
    return {k: get_path(v, words) or {} for k, v in data.items()}


def _revision(dev: LabDevice, method: str, words: list[str], body: bytes, user: str) -> tuple[int, Any]:
    st = revisions.state_of(dev)
    if not words:
        if method == "POST":
            rev = revisions.new_revision(dev)
            return 200, {rev.id: rev.as_json()}
        if method == "GET":
            return 200, {r.id: r.as_json() for r in st.revisions.values()}
        raise ApiError(400, f"{method} is not supported on /nvue_v1/revision")
    name = words[0]
    if name == "applied" and method == "PATCH":
        request = _json(body)
        if request.get("state") != "save":
            raise ApiError(400, "The applied revision can only be saved")
        dev.save()
        return 200, {"state": "save", "transition": {"issue": {}, "progress": ""}}
    try:
        rev = revisions.revision(dev, name)
    except RevisionError as exc:
        raise ApiError(404, str(exc)) from None
    if method == "GET":
        return 200, rev.as_json()
    if method == "DELETE":
        rev.state = "detached"
        return 204, None
    if method != "PATCH":
        raise ApiError(400, f"{method} is not supported on a revision")
    request = _json(body)
    state = request.get("state")
    try:
        if state == "apply":
            confirm = request.get("confirm")
            seconds = revisions.confirm_seconds(str(confirm)) if confirm is not None else None
            if rev.config == revisions.applied(dev) and rev.state == "pending":
                rev.state, rev.progress = "applied", "Nothing to apply"
            else:
                revisions.apply(dev, rev, seconds, user, "REST API")
        elif state == "confirm_yes" and st.confirm is not None and st.confirm.rev == rev.id:
            revisions.confirm_apply(dev)
        elif state == "confirm_no" and st.confirm is not None and st.confirm.rev == rev.id:
            revisions.roll_back(dev)
        else:
            raise ApiError(400, f"Revision {rev.id} cannot go to state {state!r} (it is {rev.state})")
    except RevisionError as exc:
        rev.issue = {"0": {"code": "config_invalid", "data": {}, "message": str(exc), "severity": "error"}}
        raise ApiError(400, str(exc)) from None
    return 200, {"state": state, "transition": {"issue": rev.issue, "progress": rev.progress}}


def _json(body: bytes) -> dict[str, Any]:
    try:
        data = json.loads(body or b"{}")
    except ValueError:
        raise ApiError(400, "The request body is not JSON") from None
    if not isinstance(data, dict):
        raise ApiError(400, "The request body must be a JSON object")
    return data


def _response(status: int, data: Any) -> bytes:
    body = b"" if data is None else json.dumps(data, indent=2).encode()
    fields = {"Server": "nginx", "Content-Type": "application/json", "Content-Length": str(len(body))}
    head = "".join(f"{k}: {v}\r\n" for k, v in fields.items())
    return f"HTTP/1.1 {status} {REASONS[status]}\r\n{head}Connection: keep-alive\r\n\r\n".encode() + body


async def serve_connection(
    dev: LabDevice, creds: Credentials, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    """Serve keep-alive HTTP/1.1 requests on one TLS connection."""
    try:
        async for request in requests(reader):
            if dev.faults.latency:
                await dev.clock.sleep(dev.faults.latency)
            user = (
                None if dev.faults.auth_failure else basic_user(request.headers.get("authorization"), creds)
            )
            if user is None:
                status, data = 401, ApiError(401, "Authentication required").body()
            else:
                try:
                    ctype = request.headers.get("content-type", "")
                    status, data = handle(dev, request.method, request.target, ctype, request.body, user)
                except ApiError as exc:
                    status, data = exc.status, exc.body()
            writer.write(_response(status, data))
            await writer.drain()
    except (Disconnect, ConnectionError, asyncio.IncompleteReadError, ValueError):
        pass
    except asyncio.CancelledError:  # the lab stops while a client keeps its connection open
        pass
    finally:
        writer.close()
