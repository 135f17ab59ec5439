"""The lab terminal behaves like a switch: every key echoed, line editing, and scrapli (2026, libscrapli) drives it.

The EOS definition opens, runs exec commands and enters configuration mode; the hp_comware
definition opens and runs user-view commands.
"""

from __future__ import annotations

from scrapli import AuthOptions, Cli

from fabricctl.lab import LabFabric

from .conftest import PASSWORD, USER

TIMEOUT_NS = 30_000_000_000  # a generous bound: the lab answers at once; a slow machine is slower


def _cli(lab: LabFabric, name: str, definition: str) -> Cli:
    ep = lab.endpoints()[name]
    conn = Cli(
        ep.host,
        port=ep.ssh_port,
        definition_file_or_name=definition,
        auth_options=AuthOptions(username=USER, password=PASSWORD),
    )
    conn.open()
    return conn


def test_scrapli_arista_eos_reads_and_configures(lab: LabFabric) -> None:
    conn = _cli(lab, "leaf01", "arista_eos")
    try:
        version = conn.send_input("show version", operation_timeout_ns=TIMEOUT_NS)
        assert "Arista DCS-" in version.result
        conn.send_inputs(
            ["interface Ethernet1", "description set-by-scrapli"],
            requested_mode="configuration",
            operation_timeout_ns=TIMEOUT_NS,
        )
    finally:
        conn.close()
    assert "description set-by-scrapli" in lab.device("leaf01").running_config()


def test_scrapli_hp_comware_reads(lab: LabFabric) -> None:
    conn = _cli(lab, "spine01", "hp_comware")
    try:
        version = conn.send_input("display version", operation_timeout_ns=TIMEOUT_NS)
        assert "H3C Comware Software" in version.result
        brief = conn.send_input("display interface brief", operation_timeout_ns=TIMEOUT_NS)
        assert "Brief information on interfaces in bridge mode:" in brief.result
    finally:
        conn.close()


def _read_until(conn, text: str) -> str:  # type: ignore[no-untyped-def]
    """Poll the channel until `text` arrives (a generous deadline, never a timing assert)."""
    import time

    seen, deadline = "", time.monotonic() + 30
    while text not in seen and time.monotonic() < deadline:
        seen += conn.read_channel()
        time.sleep(0.01)
    return seen


def test_each_key_is_echoed_and_line_editing_works(lab: LabFabric) -> None:
    from .conftest import connect

    conn = connect(lab, "leaf01")
    try:
        conn.write_channel("show hox")
        assert "show hox" in _read_until(conn, "show hox")  # echoed before Enter, as a terminal does
        conn.write_channel("\x7fstname\r")  # Backspace fixes the typo
        assert "Hostname: leaf01" in _read_until(conn, "Hostname: leaf01")
        conn.write_channel("show nothing-at-all\x15show hostname\n")  # Ctrl-U erases the line
        out = _read_until(conn, "FQDN")
        assert "Invalid input" not in out and "Hostname: leaf01" in out
    finally:
        conn.disconnect()


def test_eos_sanitized_running_config_hides_secrets(lab: LabFabric) -> None:
    from .conftest import connect

    conn = connect(lab, "leaf01")
    try:
        plain = conn.send_command("show running-config")
        clean = conn.send_command("show running-config sanitized")
    finally:
        conn.disconnect()
    assert "secret sha512 $6$" in plain and "snmp-server community fabricctl-ro" in plain
    assert "$6$" not in clean and "fabricctl-ro" not in clean
    assert "secret sha512 <removed>" in clean and "snmp-server community <removed> ro" in clean
