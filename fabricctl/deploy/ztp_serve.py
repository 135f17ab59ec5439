"""`fabricctl ztp serve`: the day-0 files over HTTP, each to its own switch only.

Both vendors' auto-configuration fetch their boot file over HTTP (platforms/<nos>/ztp.py), so
no TFTP server is needed. A request is answered only when it comes from an address the DHCP
reservations gave a rack switch, and only with that switch's own files: the address stands for
the MAC (Kea hands it to that MAC alone), and where the kernel knows the MAC behind the address
(an on-link client in the neighbour table) it must be the reserved one. Everything else is
refused with 403 and logged: an unknown client (a MAC without a reservation has no address
it could ask from) gets nothing. Every request is logged, to stderr and as one JSON line in
`fetches.jsonl` next to the files: time, client address, switch, MAC, path, status, bytes and
the file's sha256, so the record shows which switch fetched what. The HTTP server is
httpserve.py's: a client that is slow, idle or sends huge heads is cut off and never holds a
thread (the management network a factory-default switch boots on is anyone's).

In the lab (`--lab`) switches fetch from their lab address (127.x.y.z: lab/ztp.py), which the
running lab's lab.json maps to the switch; the checks are the same.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fabricctl.deploy.ztp import read_manifest
from fabricctl.httpserve import BoundedHttpServer, Request, Response
from fabricctl.outputs import open_append, write_file

FETCH_LOG, SERVE_FILE = "fetches.jsonl", "serve.json"


def neighbour_mac(address: str, table: Path = Path("/proc/net/arp")) -> str | None:
    """The MAC the kernel's neighbour table holds for `address` (None: not on-link, or unknown)."""
    try:
        lines = table.read_text(encoding="ascii").splitlines()[1:]
    except OSError:
        return None
    for line in lines:
        words = line.split()
        if len(words) >= 4 and words[0] == address and words[3] != "00:00:00:00:00:00":
            return words[3].lower()
    return None


class ZtpServer:
    """The files of one `ztp render` folder, served to the switches its manifest names."""

    def __init__(
        self,
        folder: Path,
        host: str = "0.0.0.0",
        port: int = 8080,
        lab_addresses: dict[str, str] | None = None,
        echo: Callable[[str], None] = print,
    ) -> None:
        self.folder = folder
        manifest = read_manifest(folder)
        self.switches: dict[str, dict[str, Any]] = manifest.get("switches", {})
        #: client address -> switch: the reserved management addresses, and lab addresses.
        self.by_address = {e["address"]: name for name, e in self.switches.items()}
        self.by_address |= {a: n for a, n in (lab_addresses or {}).items() if n in self.switches}
        self.lab = set((lab_addresses or {}).values())
        self.echo = echo
        self._lock = threading.Lock()
        self.http = BoundedHttpServer(self.answer, host, port)
        self.address = self.http.address

    def answer(self, req: Request) -> Response:
        client = req.client
        switch = self.by_address.get(client)
        entry = self.switches.get(switch or "", {})
        parts = req.path.split("?")[0].strip("/").split("/")
        asked, file = (parts[0], parts[1]) if len(parts) == 2 else ("", "")
        seen_mac = neighbour_mac(client) if switch is not None and switch not in self.lab else None
        status, body, why = 200, b"", ""
        if switch is None:
            status, why = 403, f"{client} holds no reserved address: an unknown MAC gets no file"
        elif seen_mac is not None and seen_mac != entry["mac"]:
            status, why = (
                403,
                f"{client} is {seen_mac} in the neighbour table, not {switch}'s reserved {entry['mac']}",
            )
        elif asked != switch:
            status, why = (
                403,
                f"{switch} asked for {asked or 'a path'}'s file; a switch gets its own files only",
            )
        elif file not in entry.get("files", {}):
            status, why = 404, f"{switch} has no file {file!r} (files: {', '.join(entry['files'])})"
        else:
            body = (self.folder / file).read_bytes()
            if hashlib.sha256(body).hexdigest() != entry["files"][file]:
                status, body, why = 409, b"", f"{file} changed since ztp render (render again)"
        self._log(
            client, switch, entry.get("mac"), req.path, status, len(body), body, why
        )  # before the answer
        return Response(status, body if status == 200 else (why + "\n").encode())

    def _log(
        self,
        client: str,
        switch: str | None,
        mac: str | None,
        path: str,
        status: int,
        size: int,
        body: bytes,
        why: str,
    ) -> None:
        now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        record = {
            "time": now,
            "client": client,
            "switch": switch,
            "mac": mac,
            "path": path,
            "status": status,
            "bytes": size,
            "sha256": hashlib.sha256(body).hexdigest() if status == 200 else None,
            "refused": why or None,
        }
        with self._lock, open_append(self.folder / FETCH_LOG, within=self.folder) as fh:
            fh.write((json.dumps(record, sort_keys=True) + "\n").encode())
        who = f"{switch} ({mac}, {client})" if switch else client
        self.echo(
            f"{now} {who} fetched {path} ({size} bytes)"
            if status == 200
            else f"{now} {who} {path}: {status} {why}"
        )

    def start(self) -> ZtpServer:
        """Serve from a thread of its own (tests, the lab bench); `serve_forever` for the CLI."""
        self.write_serve_file()
        self.http.start()
        return self

    def serve_forever(self) -> None:
        """Serve until interrupted (KeyboardInterrupt reaches the caller)."""
        self.start()
        while True:
            time.sleep(3600)

    def write_serve_file(self) -> None:
        host, port = self.address
        shown = "127.0.0.1" if host == "0.0.0.0" else host
        # Whole or not at all: a reader that polls for the file never sees it half written.
        write_file(
            self.folder / SERVE_FILE, json.dumps({"host": shown, "port": port}) + "\n", within=self.folder
        )

    def stop(self) -> None:
        self.http.stop()
        (self.folder / SERVE_FILE).unlink(missing_ok=True)


def fetches(folder: Path) -> list[dict[str, Any]]:
    """The fetch log, oldest first."""
    path = folder / FETCH_LOG
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
