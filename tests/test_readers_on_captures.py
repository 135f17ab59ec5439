"""fabricctl's readers of switch output, on what real switches printed (tests/captures/README.md).

Each capture was recorded on a switch by someone else (ntc-templates' and NAPALM's test data,
netutils' config fixtures); the health readers, the running-config readers (fetch, parse, diff)
and the pending-push markers must read them as the switch meant. A reader that only ever saw the
lab's spelling would pass the lab and fail a real S9825 or 7060X5: abbreviated port names
(`XGE1/0/1`, `Et1`) are the first thing this catches.
"""

from __future__ import annotations

import calendar
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from ntc_templates.parse import parse_output

from fabricctl.config.diff import diff_device
from fabricctl.platforms import get_platform
from fabricctl.platforms.comware import health as cw_health
from fabricctl.platforms.comware.terminal import (
    MARK,
    armed_delay,
    mark_lines,
    marked_run,
    proven,
    unmark_lines,
    unmarked,
)
from fabricctl.platforms.eos import health as eos_health
from fabricctl.platforms.eos.terminal import pending as eos_pending
from fabricctl.platforms.eos.terminal import sessions
from fabricctl.platforms.nvue.terminal import describe, mark_of, revision_rows
from fabricctl.platforms.push import normalize_running

CAPTURES = Path(__file__).parent / "captures"
NTC = CAPTURES / "ntc-templates"
RAWS = sorted(NTC.rglob("*.raw"))


def ntc(platform: str, command: str) -> dict[str, Any]:
    """file name -> rows ntc-templates parses out of each capture of `command`."""
    folder = NTC / platform / command.replace(" ", "_")
    return {
        raw.name: parse_output(platform=platform, command=command, data=raw.read_text())
        for raw in sorted(folder.glob("*.raw"))
    }


@pytest.mark.parametrize("raw", RAWS, ids=lambda p: p.name)
def test_the_installed_templates_parse_each_capture_as_recorded(raw: Path) -> None:
    """The rows each capture's `.yml` records: a template release that reads them otherwise is
    a change to review before fabricctl's readers are trusted with it."""
    platform, command = raw.parent.parent.name, raw.parent.name.replace("_", " ")
    expected = yaml.safe_load(raw.with_suffix(".yml").read_text())["parsed_sample"]
    assert parse_output(platform=platform, command=command, data=raw.read_text()) == expected


# --- Comware health ----------------------------------------------------------------------------


def test_comware_reads_abbreviated_port_names_in_full() -> None:
    """`display interface brief` prints GE/XGE/Loop/Vlan...; the reader gives the names the
    config and the plan use, so a planned port is found (the health gate once found none)."""
    brief = ntc("hp_comware", "display interface brief")
    ports = cw_health.parse(
        {cw_health.BRIEF: brief["hp_comware_display_interface_brief_release_9119P17.raw"]}
    ).ports
    assert ports["GigabitEthernet0/0/0"] == (False, False)  # ADM: administratively down
    assert ports["GigabitEthernet0/0/3"] == (True, True)
    assert ports["Ten-GigabitEthernet0/0/10"] == (True, False)
    assert {"InLoopBack0", "NULL0", "Register-Tunnel0", "Vlan-interface1"} <= set(ports)
    older = cw_health.parse({cw_health.BRIEF: brief["hp_comware_display_interface_brief.raw"]}).ports
    assert {"LoopBack0", "GigabitEthernet0/1", "Aux0", "Cellular0/0"} <= set(older)
    for rows in brief.values():  # no abbreviation is left in any capture
        names = cw_health.parse({cw_health.BRIEF: rows}).ports
        assert all(cw_health.long_name(n) == n for n in names), names


def test_comware_abbreviations_expand_to_the_names_neighbors_print() -> None:
    """In `display lldp neighbor-information list` the local port is abbreviated and the
    neighbor's Port ID (what an H3C neighbor advertises) is the full name: the reader's
    expansion must land on the same spelling."""
    captures = ntc("hp_comware", "display lldp neighbor-information list")
    lldp = cw_health.parse(
        {cw_health.LLDP: captures["hp_comware_display_lldp_neighbor-information_list.raw"]}
    ).lldp
    assert lldp["Ten-GigabitEthernet1/0/1"] == ("SW-TEST-001", "Ten-GigabitEthernet1/0/30")
    local_types = {n.rstrip("0123456789/") for n in lldp}
    far_types = {p.rstrip("0123456789/") for _, p in lldp.values()}
    assert local_types == far_types == {"Ten-GigabitEthernet"}
    mixed = cw_health.parse(
        {cw_health.LLDP: captures["hp_comware_display_lldp_neighbor-information_list2.raw"]}
    ).lldp
    assert mixed["GigabitEthernet1/0/24"][1] == "AABBCCDDEEFF:P1"  # a phone's port ID is left alone
    assert mixed["Ten-GigabitEthernet1/0/29"] == ("SWITCH01", "Ten-GigabitEthernet1/0/17")


def test_comware_finds_the_planned_400g_ports() -> None:
    """An S9825 prints its 400G and 200G ports as 400GE/200GE in the tables; the plan names them
    FourHundredGigE1/0/N and TwoHundredGigE1/0/N:L (platform.port_name)."""
    comware = get_platform("comware")
    rows = [
        {"interface": "400GE1/0/1", "link": "UP"},
        {"interface": "200GE1/0/33:2", "link": "ADM"},
    ]
    ports = cw_health.parse({cw_health.BRIEF: rows}).ports
    assert ports == {comware.port_name(1, None): (True, True), comware.port_name(33, 2): (False, False)}


def test_comware_bgp_and_vrfs_from_captures() -> None:
    bgp = ntc("hp_comware", "display bgp peer ipv4")
    states = cw_health.parse({cw_health.BGP: bgp["hp_comware_display_bgp_peer_ipv4.raw"]}).bgp
    assert states == {
        "12.123.123.189": "Established",
        "2.114.82.34": "Connect",
        "2.114.82.38": "Connect",
        "2.114.82.42": "Established",
        "2.114.82.46": "Established",
    }
    vrf_rows = ntc("hp_comware", "display ip vpn-instance")["hp_comware_display_ip_vpn-instance.raw"]
    assert cw_health.parse({cw_health.VRF: vrf_rows}).vrfs == {"red", "green", "blue", "black"}


# --- EOS health ----------------------------------------------------------------------------------


def test_eos_reads_short_port_names_in_full() -> None:
    status = ntc("arista_eos", "show interfaces status")
    ports = eos_health.parse({eos_health.STATUS: status["arista_eos_show_interfaces_status.raw"]}).ports
    assert ports["Ethernet3/1/1"] == (True, True)
    assert ports["Ethernet3/2/1"] == (True, False)  # notconnect
    assert ports["Ethernet3/2/2"] == (True, False)  # errdisabled: configured up, not forwarding
    assert ports["Ethernet3/2/4"] == (False, False)  # disabled
    flagged = eos_health.parse(
        {eos_health.STATUS: status["arista_eos_show_interfaces_status_flags.raw"]}
    ).ports
    assert {"Ethernet1", "Management1", "Port-Channel49"} <= set(flagged)
    for rows in status.values():
        names = eos_health.parse({eos_health.STATUS: rows}).ports
        assert all(eos_health.long_name(n) == n for n in names), names


def test_eos_lldp_from_captures() -> None:
    lldp = ntc("arista_eos", "show lldp neighbors")
    seen = eos_health.parse({eos_health.LLDP: lldp["arista_eos_show_lldp_neighbors.raw"]}).lldp
    assert seen["Ethernet1"] == ("localhost", "Ethernet1")
    assert seen["Ethernet3/1"] == ("tg104.sjc.aristanetworks.com", "Ethernet3/2")
    assert seen["Management1/1"] == ("dc1-rack11-tor1.sjc", "1/1")
    second = eos_health.parse({eos_health.LLDP: lldp["arista_eos_show_lldp_neighbors2.raw"]}).lldp
    assert len(second) == len(lldp["arista_eos_show_lldp_neighbors2.raw"]) and "Ethernet2" in second


def test_eos_bgp_states_from_every_summary_layout() -> None:
    """EOS printed the state three ways over the years: `Estab`, a spelled-out state, and (in
    releases with one `State/PfxRcd` column) the prefix count of an Established session."""
    summaries = ntc("arista_eos", "show ip bgp summary")
    states = {name: eos_health.parse({eos_health.BGP: rows}).bgp for name, rows in summaries.items()}
    assert states["arista_eos_show_ip_bgp_summary.raw"] == {
        "10.17.254.78": "Established",
        "10.17.254.2": "Established",
    }
    assert states["arista_eos_show_ip_bgp_summary4.raw"] == {
        "10.17.254.78": "Established",
        "10.17.254.79": "Active",
    }
    for name, rows in summaries.items():  # every row read, none lost to a layout
        assert len(states[name]) == len({r["bgp_neigh"] for r in rows}), name
    evpn = ntc("arista_eos", "show bgp evpn summary")["arista_eos_show_bgp_evpn_summary.raw"]
    seen = eos_health.parse({eos_health.EVPN: evpn}).bgp
    assert len(seen) == 8 and set(seen.values()) == {"Established"}


def test_eos_vnis_and_vteps_from_aristas_own_replies() -> None:
    """`show vxlan vni | json` and `show vxlan vtep | json` as Arista's ANTA developers record
    them: VNIs bound to VLANs and to VRFs, and the remote VTEPs."""
    vni = json.loads((CAPTURES / "anta" / "show_vxlan_vni.json").read_text())
    vtep = json.loads((CAPTURES / "anta" / "show_vxlan_vtep.json").read_text())
    health = eos_health.parse({eos_health.VNI: vni, eos_health.VTEP: vtep})
    assert health.vnis == {10020, 500, 600}
    assert health.remote_vteps == {"10.1.1.5", "10.1.1.6"}


# --- fetch, parse and diff of real running configs -------------------------------------------


def _as_terminal_prints(text: str) -> str:
    """A listing as an SSH terminal hands it over: CRLF line ends, trailing blanks."""
    return "\r\n".join(line + "  " for line in text.splitlines()) + "\r\n"


def test_a_real_comware_config_reads_and_diffs_to_nothing() -> None:
    text = (CAPTURES / "netutils" / "hp_comware" / "hp_comware_full_sent.txt").read_text()
    fetched = normalize_running(_as_terminal_prints(text))
    assert fetched.endswith("return\n")  # the push protocol's check that a listing is whole
    comware = get_platform("comware")
    cfg = comware.parse("sw", fetched)
    vpn1 = cfg.vrfs["vpn1"]
    assert [a.value for a in vpn1.imports] == ["65001:1"] and [a.value for a in vpn1.exports] == ["65001:1"]
    assert str(cfg.interfaces["LoopBack1"].ipv4[0].value) == "192.0.2.1/32"
    assert cfg.bgp_neighbors == {}  # its peers sit in `ip vpn-instance vpn2` under bgp: not the underlay
    assert not diff_device("sw", fetched, normalize_running(text), comware.dialect).changed


def test_the_comware_pending_mark_on_a_real_config() -> None:
    """No false alarm on a switch nobody pushed to; the mark found, and removed cleanly."""
    text = normalize_running((CAPTURES / "netutils" / "hp_comware" / "hp_comware_full_sent.txt").read_text())
    assert marked_run(text) is None
    comware = get_platform("comware")
    assert comware.pending(text, text, None) is None
    block = [line for line in mark_lines("run-42-a1b2c3") if line.strip() != "quit"]  # as the switch lists it
    head, tail = text.split("#\nvlan 1\n", 1)
    marked = head + "#\n" + "\n".join(block) + "\n#\nvlan 1\n" + tail
    assert f"{MARK}a1b2c3" in marked and marked_run(marked) == "run-42-a1b2c3"
    assert proven("run-42-a1b2c3", frozenset({"run-42-a1b2c3"}))
    assert not proven("run-42-a1b2c3", frozenset({"run-42-ffffff"}))
    assert unmarked(marked) == text
    assert unmark_lines(marked) == [f"undo {MARK}a1b2c3"]
    # Killed between the mark's first line and its description: the name alone proves it.
    bare = head + "#\n" + block[0] + "\n#\nvlan 1\n" + tail
    assert marked_run(bare) == "a1b2c3" and proven("a1b2c3", frozenset({"run-42-a1b2c3"}))


def test_a_real_eos_config_reads_and_diffs_to_nothing() -> None:
    eos = get_platform("eos")
    leaf = (CAPTURES / "netutils" / "arista_eos" / "eos_full_sent.txt").read_text()
    cfg = eos.parse("nyc-leaf-01", normalize_running(leaf))
    assert str(cfg.interfaces["Loopback0"].ipv4[0].value) == "10.0.20.6/32"
    assert str(cfg.interfaces["Ethernet2"].ipv4[0].value) == "10.11.11.14/30"
    assert cfg.bgp_neighbors["10.11.11.13"].value == 65253
    veos = (
        CAPTURES / "napalm" / "eos" / "test_get_config" / "normal" / "show_running_config.text"
    ).read_text()
    for text in (leaf, veos):
        fetched = normalize_running(_as_terminal_prints(text))
        assert not diff_device("sw", fetched, normalize_running(text), eos.dialect).changed


def test_eos_sessions_of_a_real_switch_are_not_a_pending_push() -> None:
    """`show configuration sessions detail` as eAPI returns it (asynceapi's recorded example):
    a user's pending session and a completed one are none of fabricctl's business."""
    output = (CAPTURES / "anta" / "show_configuration_sessions_detail.json").read_text()
    assert sessions(output) == {"jeremy1": "pending", "ansible_167510439362": "completed"}
    assert eos_pending("", "", output) is None
    timer = json.loads(output)
    timer["sessions"]["jeremy1"]["state"] = "pendingCommitTimer"  # the same switch, a timer armed
    assert "jeremy1 is committed on a timer" in (eos_pending("", "", json.dumps(timer)) or "")


def test_ecmp_next_hops_from_real_routing_tables() -> None:
    """The ecmp check counts the next hops a switch installed: EOS lists each `via` under one
    prefix, Comware prints a row per next hop with the prefix only on the first."""
    eos = ntc("arista_eos", "show ip route")
    routes = eos_health.parse({eos_health.ROUTES: eos["arista_eos_show_ip_route2.raw"]}).routes
    assert routes == {"74.119.147.148/32": 2}
    single = eos_health.parse({eos_health.ROUTES: eos["arista_eos_show_ip_route.raw"]}).routes
    assert single is not None and single["10.1.31.100/32"] == 1
    comware = ntc("hp_comware", "display ip routing-table")
    table = cw_health.parse({cw_health.ROUTES: comware["hp_comware_display_ip_routing-table.raw"]}).routes
    assert table is not None
    assert (table["1.1.1.0/24"], table["0.0.0.0/0"], table["10.211.0.0/16"]) == (3, 1, 1)


def test_nvue_revisions_from_nvidias_example() -> None:
    """`nv config revision` as NVIDIA's command reference prints it: columns found by their dashes,
    a message with spaces kept whole, a mark found only in fabricctl's own apply message."""
    text = "".join(
        line
        for line in (CAPTURES / "nvue" / "nv-config-revision.txt").read_text().splitlines(keepends=True)
        if not line.startswith("#")
    )
    rows = revision_rows(text)
    assert [r["Rev ID"] for r in rows] == ["1", "2", "3", "4"]
    assert rows[0]["Message"] == "Password sync for user: cumulus" and rows[1]["User"] == "cumulus"
    assert (
        describe(rows[3])
        == "revision 4 (by cumulus, at 2024-04-26 16:34:04, message 'Config update by cumulus')"
    )
    assert (
        mark_of(rows[3]) is None
        and mark_of({"Message": "fabricctl 20250101T0-1-a1b2c3"}) == "20250101T0-1-a1b2c3"
    )


#: SHELL_CMD lines as public Comware logs show them: a log file's (with a sequence number; DISA's
#: HP FlexFabric Switch NDM STIG quotes it) and the log buffer's layout (H3C's log format table).
SHELL = (
    "%@9377%Jan 20 23:31:03:567 2011 HP5930_SUT SHELL/6/SHELL_CMD: -Line=vty0-IPAddr=16.123.122.155-User=admin; Command is dis info-center",
    "%Jan 20 23:31:09:342 2011 HP5930_SUT SHELL/6/SHELL_CMD: -Line=vty0-IPAddr=16.123.122.155-User=admin; Command is qui",
)


def test_comware_armed_delay_from_the_switchs_own_command_log() -> None:
    armed_at = calendar.timegm((2011, 1, 20, 23, 32, 0, 0, 0, 0))

    def line(command: str, minute: int = 32, user: str = "alice") -> str:
        return f"%Jan 20 23:{minute}:00:000 2011 HP5930_SUT SHELL/6/SHELL_CMD: -Line=vty1-IPAddr=192.0.2.7-User={user}; Command is {command}"

    log = "\n".join(["Log buffer: Enabled", *SHELL, line("con com del 5")])
    armed = armed_delay(log, armed_at + 60)
    assert armed is not None and (armed.minutes, armed.user, armed.address, armed.line) == (
        5,
        "alice",
        "192.0.2.7",
        "vty1",
    )
    assert armed.deadline == armed_at + 300
    assert armed_delay(log, armed_at + 300) is None  # run out: the switch rolled back by itself
    assert armed_delay(log, None) is not None  # no clock: never assumed gone
    assert armed_delay(log + "\n" + line("configuration commit", 33), armed_at + 60) is None
    again = log + "\n" + line("configuration commit delay 10", 34, "bob")
    assert armed_delay(again, armed_at + 400) is not None  # armed again: the deadline moved
    assert armed_delay("\n".join(SHELL), armed_at) is None  # commands, none of them a delay
