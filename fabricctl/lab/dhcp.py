"""How a factory-default lab switch gets its address and boot file: from the generated Kea config.

Where the machine allows it, a real `kea-dhcp4` answers: it runs in a network namespace of its
own (`unshare --net`, a veth pair: the server's end holds the ZTP server's address, the lab's
switches ask on the other), and a DHCP client here sends DISCOVER and REQUEST with each switch's
MAC (RFC 2131) and reads the ACK: address and options, as the switch would. Elsewhere (no
kea-dhcp4 binary, no namespaces) the lab reads the reservations from the same JSON and says so.

Run as `python -m fabricctl.lab.dhcp CONFIG MAC...` inside the namespace (the parent starts it so);
it prints one JSON object: MAC -> lease (or the error).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fabricctl.outputs import write_file

#: DHCP options read from an ACK: 1 mask, 3 routers, 66 TFTP server name, 67 boot file name.
OPTION_NAMES = {1: "subnet-mask", 3: "routers", 66: "tftp-server-name", 67: "boot-file-name"}
_CODES = {"subnet-mask": 1, "routers": 3, "tftp-server-name": 66, "boot-file-name": 67}
SERVER_IF, CLIENT_IF = "ztp0", "ztp1"


@dataclass(frozen=True)
class Lease:
    address: str
    options: dict[str, str]

    @property
    def boot_file(self) -> str:
        return self.options.get("boot-file-name", "")


def leases(config: Path, macs: list[str], how: str = "auto") -> tuple[dict[str, Lease | str], str]:
    """MAC -> its lease (or why it got none), and how they were obtained. `how`: auto (a real
    kea-dhcp4 when the machine allows it), kea (only that), json (read the reservations)."""
    why = kea_unavailable() if how != "json" else "the JSON was asked for"
    if why is None:
        try:
            return _from_kea(config, macs), "kea-dhcp4 in a network namespace (DHCPDISCOVER/REQUEST per MAC)"
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            why = f"kea-dhcp4 did not answer ({exc})"
    if how == "kea":
        raise OSError(f"no real DHCP server: {why}")
    return _from_json(config, macs), f"read from {config.name} ({why})"


def kea_unavailable() -> str | None:
    """Why a real kea-dhcp4 cannot run here, or None."""
    if shutil.which("kea-dhcp4") is None:
        return "no kea-dhcp4 binary (Debian: apt-get install kea-dhcp4-server)"
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return "no unshare/ip to make a network namespace"
    probe = subprocess.run(["unshare", "--net", "--", "true"], capture_output=True, check=False)
    if probe.returncode != 0:
        return "network namespaces are not allowed here (unshare --net failed)"
    return None


def _from_json(config: Path, macs: list[str]) -> dict[str, Lease | str]:
    data = json.loads(config.read_text(encoding="utf-8"))
    out: dict[str, Lease | str] = {m: "no reservation for this MAC" for m in macs}
    for subnet in data["Dhcp4"]["subnet4"]:
        shared = {o["name"]: o["data"] for o in subnet.get("option-data", [])}
        for r in subnet.get("reservations", []):
            if r.get("hw-address") in out:
                options = {**shared, **{o["name"]: o["data"] for o in r.get("option-data", [])}}
                out[r["hw-address"]] = Lease(r["ip-address"], options)
    return out


def _from_kea(config: Path, macs: list[str]) -> dict[str, Lease | str]:
    cmd = ["unshare", "--net", "--", sys.executable, "-m", "fabricctl.lab.dhcp", str(config), *macs]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        raise ValueError((done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1])
    raw = json.loads(done.stdout)
    return {m: Lease(v["address"], v["options"]) if isinstance(v, dict) else str(v) for m, v in raw.items()}


# --- inside the namespace ------------------------------------------------------------------------


def _run(*cmd: str) -> None:
    subprocess.run(cmd, check=True, capture_output=True)


def _serve(config: Path, macs: list[str]) -> dict[str, Any]:
    data = json.loads(config.read_text(encoding="utf-8"))
    dhcp4 = data["Dhcp4"]
    subnet = dhcp4["subnet4"][0]["subnet"]
    prefix = int(subnet.split("/")[1])
    routers = {o["name"]: o["data"] for o in dhcp4["subnet4"][0].get("option-data", [])}.get("routers")
    reserved = {r["ip-address"] for r in dhcp4["subnet4"][0].get("reservations", [])}
    server = next(a for a in _hosts(subnet) if a not in reserved and a != routers)
    _run("ip", "link", "set", "lo", "up")
    _run("ip", "link", "add", SERVER_IF, "type", "veth", "peer", "name", CLIENT_IF)
    _run("ip", "addr", "add", f"{server}/{prefix}", "dev", SERVER_IF)
    _run("ip", "link", "set", SERVER_IF, "up")
    _run("ip", "link", "set", CLIENT_IF, "up", "promisc", "on")
    with tempfile.TemporaryDirectory() as tmp:
        # The same configuration, told to listen on the namespace's interface and to keep its
        # leases, pid and lock files in a scratch folder.
        dhcp4["interfaces-config"]["interfaces"] = [SERVER_IF]
        dhcp4["lease-database"] = {"type": "memfile", "persist": False}
        dhcp4["loggers"] = [
            {"name": "kea-dhcp4", "output_options": [{"output": f"{tmp}/kea.log"}], "severity": "INFO"}
        ]
        path = Path(tmp) / "kea-dhcp4.json"
        write_file(path, json.dumps(data), within=Path(tmp))
        env = {**os.environ, "KEA_PIDFILE_DIR": tmp, "KEA_LOCKFILE_DIR": tmp}
        kea = subprocess.Popen(
            ["kea-dhcp4", "-c", str(path)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            return {mac: _lease(mac, kea) for mac in macs}
        finally:
            kea.terminate()
            try:
                kea.wait(5)
            except subprocess.TimeoutExpired:
                kea.kill()


def _hosts(subnet: str) -> list[str]:
    from ipaddress import IPv4Network

    return [str(a) for a in list(IPv4Network(subnet).hosts())[-8:]][::-1]


def _packet(mac: bytes, kind: int, xid: int, extra: bytes = b"") -> bytes:
    """A BOOTREQUEST (RFC 2131 section 2) with the broadcast flag: the client has no address yet."""
    head = struct.pack("!BBBBIHH", 1, 1, 6, 0, xid, 0, 0x8000) + b"\0" * 16 + mac + b"\0" * 10 + b"\0" * 192
    wanted = bytes([55, 4, 1, 3, 66, 67])  # parameter request list
    return head + b"\x63\x82\x53\x63" + bytes([53, 1, kind]) + wanted + extra + b"\xff"


def _options(data: bytes) -> dict[int, bytes]:
    out, i = {}, 240
    while i < len(data) and data[i] != 255:
        if data[i] == 0:
            i += 1
            continue
        out[data[i]] = data[i + 2 : i + 2 + data[i + 1]]
        i += 2 + data[i + 1]
    return out


def _lease(mac_text: str, kea: subprocess.Popen[bytes]) -> dict[str, Any] | str:
    mac = bytes.fromhex(mac_text.replace(":", ""))
    xid = int.from_bytes(mac[-4:], "big")
    send = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    send.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    send.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    send.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, CLIENT_IF.encode())
    send.bind(("0.0.0.0", 68))
    # The client has no address: replies are read off the wire (as a DHCP client does).
    recv = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(0x0800))
    recv.bind((CLIENT_IF, 0x0800))
    recv.settimeout(0.25)
    try:
        offer = _exchange(send, recv, _packet(mac, 1, xid), xid, 2, kea)
        if isinstance(offer, str):
            return offer
        requested = bytes([50, 4]) + offer[16:20] + bytes([54, 4]) + _options(offer)[54]
        ack = _exchange(send, recv, _packet(mac, 3, xid, requested), xid, 5, kea)
        if isinstance(ack, str):
            return ack
        options = {OPTION_NAMES[c]: _text(c, v) for c, v in _options(ack).items() if c in OPTION_NAMES}
        return {"address": socket.inet_ntoa(ack[16:20]), "options": options}
    finally:
        send.close()
        recv.close()


def _text(code: int, value: bytes) -> str:
    if code in (1, 3):
        return socket.inet_ntoa(value[:4])
    return value.rstrip(b"\0").decode("utf-8", "replace")


def _exchange(
    send: socket.socket, recv: socket.socket, packet: bytes, xid: int, kind: int, kea: subprocess.Popen[bytes]
) -> bytes | str:
    """Send until the reply of `kind` comes (Kea may still be starting: RFC 2131 clients retransmit)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if kea.poll() is not None:
            return f"kea-dhcp4 exited ({kea.returncode})"
        send.sendto(packet, ("255.255.255.255", 67))
        until = time.monotonic() + 0.25
        while time.monotonic() < until:
            try:
                frame = recv.recv(4096)
            except TimeoutError:
                break
            ihl = (frame[0] & 15) * 4
            if frame[9] != 17 or struct.unpack("!H", frame[ihl + 2 : ihl + 4])[0] != 68:
                continue
            reply = frame[ihl + 8 :]
            if len(reply) > 240 and struct.unpack("!I", reply[4:8])[0] == xid:
                got = _options(reply).get(53, b"\0")[0]
                if got == kind:
                    return reply
                if got == 6:
                    return "DHCPNAK"
    return "no answer from kea-dhcp4 (the MAC has no reservation)"


def main(argv: list[str]) -> int:
    config, macs = Path(argv[0]), argv[1:]
    print(json.dumps(_serve(config, macs)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
