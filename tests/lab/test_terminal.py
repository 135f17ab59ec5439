"""The lab terminal behaves like a switch: every key echoed, line editing, and scrapli (2026, libscrapli) drives it.

The EOS definition opens, runs exec commands and enters configuration mode; the hp_comware
definition opens and runs user-view commands, and configures once its generic prompt pattern also
ends in `]` (a gap in that definition, shown below). Legacy scrapli: test_scrapli_legacy.py.
"""

from __future__ import annotations

from netmiko.base_connection import BaseConnection
from scrapli import AuthOptions, Cli

from fabricctl.lab import LabFabric
from tests.conftest import send_text

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


def _configures(lab: LabFabric, name: str, definition: str, interface: str, show: str = "") -> str:
    """scrapli enters configuration mode and sets a description, which then runs on the switch;
    returns what `show` printed first (when given)."""
    conn = _cli(lab, name, definition)
    try:
        shown = conn.send_input(show, operation_timeout_ns=TIMEOUT_NS).result if show else ""
        conn.send_inputs(
            [f"interface {interface}", "description set-by-scrapli"],
            requested_mode="configuration",
            operation_timeout_ns=TIMEOUT_NS,
        )
    finally:
        conn.close()
    assert "description set-by-scrapli" in lab.device(name).running_config()
    return shown


def test_scrapli_arista_eos_reads_and_configures(lab: LabFabric) -> None:
    assert "Arista DCS-" in _configures(lab, "leaf01", "arista_eos", "Ethernet1", show="show version")


def test_scrapli_hp_comware_reads(lab: LabFabric) -> None:
    conn = _cli(lab, "spine01", "hp_comware")
    try:
        version = conn.send_input("display version", operation_timeout_ns=TIMEOUT_NS)
        assert "H3C Comware Software" in version.result
        brief = conn.send_input("display interface brief", operation_timeout_ns=TIMEOUT_NS)
        assert "Brief information on interfaces in bridge mode:" in brief.result
    finally:
        conn.close()


def _read_until(conn: BaseConnection, text: str) -> str:
    """What the channel says until `text` arrives (polled, with the suite's generous deadline)."""
    from tests.conftest import wait_until

    seen: list[str] = []

    def arrived() -> bool:
        if text in "".join(seen):
            return True
        seen.append(conn.read_channel())
        return False

    wait_until(arrived, f"{text!r} on the channel")
    return "".join(seen)


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
        plain = send_text(conn, "show running-config")
        clean = send_text(conn, "show running-config sanitized")
    finally:
        conn.disconnect()
    assert "secret sha512 $6$" in plain and "snmp-server community fabricctl-ro" in plain
    assert "$6$" not in clean and "fabricctl-ro" not in clean
    assert "secret sha512 <removed>" in clean and "snmp-server community <removed> ro" in clean


def test_unambiguous_abbreviations_work_as_on_a_switch(lab: LabFabric) -> None:
    from .conftest import connect

    comware = connect(lab, "spine01")
    try:
        assert "H3C Comware Software" in send_text(comware, "dis ver")
        comware.send_config_set(
            ["int FourHundredGigE1/0/1", "port link-m route", "desc abbreviated", "using twohundredg"]
        )
        assert "Maximum transmission unit: 1500" in send_text(comware, "dis int FourHundredGigE1/0/1")
    finally:
        comware.disconnect()
    running = lab.device("spine01").running_config()
    assert " port link-mode route" in running and " description abbreviated" in running  # stored in full
    assert " using twohundredgige" in running
    eos = connect(lab, "leaf01")
    try:
        assert "Hostname: leaf01" in send_text(eos, "sh hostn")
        assert "Invalid input" in send_text(eos, "sh ip")  # ambiguous (interface? bgp?): refused
    finally:
        eos.disconnect()


def test_question_mark_lists_what_may_come_next(lab: LabFabric) -> None:
    from .conftest import connect

    conn = connect(lab, "spine01")
    try:
        conn.write_channel("display inter?")
        out = _read_until(conn, "<spine01>display inter")  # the list, then the line typed again
        assert "  interface" in out
        conn.write_channel("\x15system-view\n")
        _read_until(conn, "[spine01]")
        conn.write_channel("interface FourHundredGigE1/0/1\n")
        _read_until(conn, "[spine01-FourHundredGigE1/0/1]")
        conn.write_channel("mtu ?")
        out = _read_until(conn, "FourHundredGigE1/0/1]mtu ")
        assert "<int:46-9008>" in out  # the documented range, from the command reference
        conn.write_channel("\x15")
    finally:
        conn.disconnect()


def test_output_filters(lab: LabFabric) -> None:
    from .conftest import connect

    eos = connect(lab, "leaf01")
    try:
        hostname = send_text(eos, "show running-config | include ^hostname")
        section = send_text(eos, "show running-config | section Management1")
        grep = send_text(eos, "show running-config | grep ^hostname")
        bad = send_text(eos, "show running-config | include (")
    finally:
        eos.disconnect()
    assert hostname.strip().splitlines() == ["hostname leaf01"] == grep.strip().splitlines()
    assert section.splitlines()[0] == "interface Management1" and all(
        ln.startswith("   ") for ln in section.splitlines()[1:]
    )
    assert bad.strip() == "% Invalid regular expression: ("
    comware = connect(lab, "spine01")
    try:
        begin = send_text(comware, "display current-configuration | begin ^interface M-GigabitEthernet")
        sysname = send_text(comware, "dis cur | inc sysname")
        section = send_text(comware, "dis cur | section sysname")  # EOS's filter, not Comware's
        bad = send_text(comware, "dis cur | inc (")
    finally:
        comware.disconnect()
    assert begin.splitlines()[0] == "interface M-GigabitEthernet0/0/0"
    assert sysname.strip() == "sysname spine01"
    assert "% Unrecognized command found at '^' position." in section
    caret = " " * len("<spine01>dis cur | inc ") + "^"  # under the regex it cannot read
    assert bad.splitlines()[-2:] == [caret, " % Unrecognized command found at '^' position."], bad


def test_tab_completes_a_word_that_only_one_command_takes(lab: LabFabric) -> None:
    from .conftest import connect

    conn = connect(lab, "leaf01")
    try:
        conn.write_channel("show hostn\t")
        assert "show hostname " in _read_until(conn, "show hostname ")
        conn.write_channel("\r")
        assert "Hostname: leaf01" in _read_until(conn, "Hostname: leaf01")
    finally:
        conn.disconnect()


def test_scrapli_hp_comware_configures_with_a_system_view_prompt(lab: LabFabric, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """scrapli 2026's hp_comware definition finds prompts with a generic pattern that must end in
    `>`, `#` or `$`, so the system-view prompt Comware prints (`[spine01]`) is never found and
    configuration mode times out. With that one pattern widened to `]`, the same definition
    enters system view on the lab and configures it: the lab's prompts are the switch's."""
    import re
    from importlib import resources

    import scrapli

    shipped = (resources.files(scrapli) / "definitions" / "hp_comware.yaml").read_text()
    generic = re.search(r"^prompt_pattern: '(.*)'$", shipped, re.M)
    assert generic is not None and re.search(generic[1], "[spine01]", re.M) is None  # still the bug
    fixed = tmp_path / "hp_comware.yaml"
    fixed.write_text(shipped.replace(generic[0], r"prompt_pattern: '^.*[>#$\]]\s?+$'", 1))
    _configures(lab, "spine01", str(fixed), "FourHundredGigE1/0/1")
