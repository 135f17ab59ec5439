"""`fabricctl ztp serve`: each switch gets its own files over HTTP, nothing goes to an address or
MAC the DHCP reservations do not give a rack switch, and every request is logged."""

from __future__ import annotations

import http.client
import json
from pathlib import Path

import pytest

from fabricctl.deploy import ztp_serve
from fabricctl.deploy.ztp_serve import ZtpServer, fetches, neighbour_mac
from tests.conftest import run_cli
from tests.day0.helpers import day0_pod


def get(server: ZtpServer, path: str, source: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection(*server.address, timeout=10, source_address=(source, 0))
    try:
        conn.request("GET", path)
        reply = conn.getresponse()
        return reply.status, reply.read()
    finally:
        conn.close()


@pytest.fixture
def served(tmp_path: Path, capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    root = day0_pod(tmp_path / "pod")
    assert run_cli(["ztp", "render", "--root", str(root), "--lab"], capsys)[0] == 0
    folder = root / ".fabricctl" / "ztp"
    lines: list[str] = []
    server = ZtpServer(
        folder, "127.0.0.1", 0, {"127.0.3.5": "leaf5", "127.0.3.6": "leaf6"}, lines.append
    ).start()
    yield server, folder, lines
    server.stop()


def test_a_switch_gets_its_own_files_and_the_fetch_is_logged(served) -> None:  # type: ignore[no-untyped-def]
    server, folder, lines = served
    status, body = get(server, "/leaf5/leaf5.ztp", "127.0.3.5")
    assert status == 200 and body == (folder / "leaf5.ztp").read_bytes()
    status, body = get(server, "/leaf5/leaf5.startup-config", "127.0.3.5")
    assert status == 200 and body.startswith(b"hostname leaf5\n")
    log = fetches(folder)
    assert [(r["switch"], r["mac"], r["path"], r["status"]) for r in log] == [
        ("leaf5", "02:1c:73:02:02:00", "/leaf5/leaf5.ztp", 200),
        ("leaf5", "02:1c:73:02:02:00", "/leaf5/leaf5.startup-config", 200),
    ]
    assert "leaf5 (02:1c:73:02:02:00, 127.0.3.5) fetched /leaf5/leaf5.ztp" in lines[0]


def test_unknown_clients_and_other_switches_files_are_refused(served) -> None:  # type: ignore[no-untyped-def]
    server, folder, _ = served
    status, body = get(server, "/leaf5/leaf5.ztp", "127.0.3.99")
    assert status == 403 and b"holds no reserved address: an unknown MAC gets no file" in body
    status, body = get(server, "/leaf6/leaf6.startup-config", "127.0.3.5")
    assert status == 403 and b"leaf5 asked for leaf6's file" in body
    status, _ = get(server, "/leaf5/../kea-dhcp4.json", "127.0.3.5")
    assert status in (403, 404)
    assert [r["status"] for r in fetches(folder)] == [403, 403, status]
    assert all(r["sha256"] is None for r in fetches(folder))


def test_a_reserved_address_behind_another_mac_is_refused(served, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    server, _folder, _ = served
    server.lab.clear()  # as on a management network: the neighbour table stands for the MAC
    monkeypatch.setattr(ztp_serve, "neighbour_mac", lambda address: "02:aa:bb:cc:dd:ee")
    status, body = get(server, "/leaf5/leaf5.ztp", "127.0.3.5")
    assert (
        status == 403
        and b"is 02:aa:bb:cc:dd:ee in the neighbour table, not leaf5's reserved 02:1c:73:02:02:00" in body
    )
    monkeypatch.setattr(ztp_serve, "neighbour_mac", lambda address: "02:1c:73:02:02:00")
    assert get(server, "/leaf5/leaf5.ztp", "127.0.3.5")[0] == 200


def test_a_file_changed_after_render_is_not_served(served) -> None:  # type: ignore[no-untyped-def]
    server, folder, _ = served
    (folder / "leaf5.ztp").write_text("#!/usr/bin/Cli -p2\nbash rm -rf /mnt/flash\n", encoding="utf-8")
    status, body = get(server, "/leaf5/leaf5.ztp", "127.0.3.5")
    assert status == 409 and b"changed since ztp render" in body


def test_neighbour_table(tmp_path: Path) -> None:
    table = tmp_path / "arp"
    table.write_text(
        "IP address       HW type     Flags       HW address            Mask     Device\n"
        "192.0.2.106      0x1         0x2         02:1c:73:02:02:00     *        eth1\n"
        "192.0.2.107      0x1         0x0         00:00:00:00:00:00     *        eth1\n"
    )
    assert neighbour_mac("192.0.2.106", table) == "02:1c:73:02:02:00"
    assert neighbour_mac("192.0.2.107", table) is None and neighbour_mac("192.0.2.9", table) is None
    assert json.loads(json.dumps({"ok": True}))


@pytest.mark.lab
def test_ztp_serve_cli_serves_the_labs_switches_and_logs(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    from tests.day0.helpers import booted_pod

    with booted_pod(tmp_path / "pod", how="json", boot_now=False) as pod:
        pod.server.stop()  # the command under test serves instead
        argv = [
            sys.executable,
            "-m",
            "fabricctl",
            "ztp",
            "serve",
            "--lab",
            "--port",
            "0",
            "--root",
            str(pod.root),
        ]
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            serve_file = pod.folder / "serve.json"
            deadline = time.monotonic() + 60
            while not serve_file.is_file() and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.05)
            where = json.loads(serve_file.read_text(encoding="utf-8"))
            leaf5 = pod.lab.endpoints()["leaf5"].host
            conn = http.client.HTTPConnection(
                where["host"], where["port"], timeout=10, source_address=(leaf5, 0)
            )
            conn.request("GET", "/leaf5/leaf5.ztp")
            assert conn.getresponse().status == 200
            conn.close()
            conn = http.client.HTTPConnection(
                where["host"], where["port"], timeout=10, source_address=("127.0.0.1", 0)
            )
            conn.request("GET", "/leaf5/leaf5.ztp")
            assert conn.getresponse().status == 403
            conn.close()
        finally:
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=30)
        assert "serving 10 switches' day-0 files" in err
        assert f"leaf5 (02:1c:73:02:02:00, {leaf5}) fetched /leaf5/leaf5.ztp" in err
        assert "127.0.0.1 /leaf5/leaf5.ztp: 403 127.0.0.1 holds no reserved address" in err
        assert not serve_file.exists()
