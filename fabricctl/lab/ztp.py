"""A factory-default lab switch boots the way its NOS documents (platforms/<nos>/ztp.py cites it).

1. DHCP: its management MAC gets an address and a boot file URL from the generated Kea
   configuration (lab/dhcp.py: a real kea-dhcp4 where the machine allows it, else the JSON).
2. HTTP: it downloads the boot file from `fabricctl ztp serve`, from its own lab address (the
   lab's stand-in for the address DHCP gave it: the server knows it by that address).
3. It runs what it got: Comware runs the configuration file over its defaults; EOS runs the
   `#!/usr/bin/Cli -p2` boot script, whose `copy <url> flash:startup-config` downloads the
   startup-config, then reboots with it. Anything else in a script is refused, as a switch would.
4. It listens on SSH (and eAPI) from then on.

The lab cannot reach the ZTP server's management address, so it sends the request to where
`ztp serve` listens (its serve.json) and says so in the boot record; the URL path, the Host
header and everything the server checks are the switch's.
"""

from __future__ import annotations

import http.client
import json
import urllib.parse
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from fabricctl.lab.dhcp import leases
from fabricctl.lab.server import LabFabric

KEA_FILE, SERVE_FILE = "kea-dhcp4.json", "serve.json"
#: Where `fabricctl ztp render` writes by default (under the fabric root).
ZTP_FOLDER = Path(".fabricctl") / "ztp"


@dataclass
class Boot:
    switch: str
    mac: str
    ok: bool
    address: str = ""  # from DHCP
    boot_file: str = ""  # the URL DHCP option 67 gave
    fetched: tuple[str, ...] = ()  # URLs downloaded
    detail: str = ""  # why it failed, or what it ran

    def line(self) -> str:
        if not self.ok:
            return f"{self.switch} ({self.mac}): ZTP failed: {self.detail}"
        return f"{self.switch} ({self.mac}): {self.address}, boot file {self.boot_file}: {self.detail}"


class BootFailed(Exception):
    pass


def serve_address(folder: Path) -> tuple[str, int]:
    """Where `fabricctl ztp serve` listens (it writes serve.json into the ZTP folder)."""
    data = json.loads((folder / SERVE_FILE).read_text(encoding="utf-8"))
    return str(data["host"]), int(data["port"])


def boot(
    lab: LabFabric, folder: Path, names: list[str] | None = None, how: str = "auto"
) -> tuple[list[Boot], str]:
    """Boot every waiting switch (or `names`); returns each outcome and how DHCP was answered."""
    waiting = [n for n in lab.ztp_waiting() if names is None or n in names]
    if not waiting:
        return [], "no switch waits in its auto-configuration"
    macs = {lab.devices[n].spec.mac: n for n in waiting}
    got, source = leases(folder / KEA_FILE, sorted(macs), how)
    serve = serve_address(folder)
    out = []
    for mac, name in sorted(macs.items(), key=lambda x: x[1]):
        lease = got.get(mac, "no lease")
        if isinstance(lease, str):
            out.append(Boot(name, mac, False, detail=f"DHCP: {lease}"))
            continue
        record = Boot(name, mac, False, lease.address, lease.boot_file)
        try:
            record.detail = _run(lab, name, lease.boot_file, serve, record)
            record.ok = True
        except BootFailed as exc:
            record.detail = str(exc)
        out.append(record)
    return out, source


def _fetch(lab: LabFabric, name: str, url: str, serve: tuple[str, int]) -> str:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "http" or not parts.path:
        raise BootFailed(f"boot file {url!r} is not an http:// URL")
    source = lab.endpoints()[name].host
    conn = http.client.HTTPConnection(*serve, timeout=30, source_address=(source, 0))
    try:
        conn.request("GET", parts.path, headers={"Host": parts.netloc, "User-Agent": f"lab-ztp/{name}"})
        reply = conn.getresponse()
        body = reply.read().decode("utf-8", "replace")
    except OSError as exc:
        raise BootFailed(f"GET {url}: {exc} (is fabricctl ztp serve running?)") from None
    finally:
        conn.close()
    if reply.status != 200:
        raise BootFailed(f"GET {url}: HTTP {reply.status} {body.strip()[:120]}")
    return body


def _run(lab: LabFabric, name: str, url: str, serve: tuple[str, int], record: Boot) -> str:
    text = _fetch(lab, name, url, serve)
    fetched = [url]
    how = f"fetched from {serve[0]}:{serve[1]} (the lab's ztp serve)"

    def fetch(more: str) -> str:
        fetched.append(more)
        return _fetch(lab, name, more, serve)

    try:  # what the NOS does with its boot file (lab/devices/<nos>/ztp.py)
        config, reboot = lab.devices[name].nos.ztp_boot(url, text, fetch)
    except ValueError as exc:
        raise BootFailed(str(exc)) from None
    record.fetched = tuple(fetched)
    if reboot:
        lab.ztp_done(name, config, reboot=True, how=json.dumps(_done(record, how)))
        return f"took its boot file, rebooted with the startup-config it gave ({how})"
    try:
        lab.ztp_done(name, config, reboot=False, how=json.dumps(_done(record, how)))
    except Exception as exc:  # a line the switch refuses: the auto-configuration fails
        raise BootFailed(f"{url}: the switch refused the file: {exc}") from None
    return f"ran its boot file as its configuration ({how})"


def _done(record: Boot, how: str) -> dict[str, Any]:
    return {**asdict(record), "how": how}
