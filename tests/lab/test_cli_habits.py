"""What engineers type, answered as each switch answers it: abbreviated interface names, `do`,
`show active`, one interface's config, errors pointing at the word that is wrong; and eAPI as
EOS serves it (the probe ANTA sends, text output of every command, an error that never drops
the connection); and the order EOS prints its configuration in.
"""

from __future__ import annotations

import base64
import http.client
import json
import ssl
from typing import Any

import pytest

from fabricctl.lab import LabFabric
from fabricctl.lab.devices.eos.render import EOS_SECTIONS, eos_order
from tests.avd_oracle import validate
from tests.conftest import json_object, send_text

from .conftest import PASSWORD, USER, connect, napalm_eos


def test_eos_takes_interface_names_as_engineers_type_them(lab: LabFabric) -> None:
    conn = connect(lab, "leaf01")
    try:
        conn.send_config_set(
            ["int Et7", "description typed short", "interface ethernet 8", "description typed long"]
        )
        running = lab.device("leaf01").running_config()
        assert "interface Ethernet7\n   description typed short" in running
        assert "interface Ethernet8\n   description typed long" in running
        assert send_text(conn, "show int Et7").startswith("Ethernet7 is ")
        assert send_text(conn, "show running-config interfaces Ethernet8") == (
            "interface Ethernet8\n   description typed long"
        )
        conn.config_mode()
        assert "Ethernet7 is " in send_text(conn, "do show interfaces ethernet 7", expect_string=r"\)#")
        send_text(conn, "interface Ethernet7", expect_string=r"\)#")
        active = send_text(conn, "show active", expect_string=r"\)#")
        assert active == "interface Ethernet7\n   description typed short"
        conn.exit_config_mode()
        # EOS counts tokens from 0 and names the first one it cannot take.
        assert send_text(conn, "show interfcaes status") == "% Invalid input (at token 1: 'interfcaes')"
        assert send_text(conn, "show lldp neighbours") == "% Invalid input (at token 2: 'neighbours')"
    finally:
        conn.disconnect()


def test_comware_takes_interface_names_as_engineers_type_them(lab: LabFabric) -> None:
    conn = connect(lab, "spine01")
    try:
        conn.send_config_set(
            [
                "int 400GE1/0/3",
                "description typed short",
                "interface fourhundredgige 1/0/4",
                "description typed long",
            ]
        )
        shown = send_text(conn, "display current-configuration interface FourHundredGigE 1/0/3")
        assert shown.splitlines() == [
            "#",
            "interface FourHundredGigE1/0/3",
            " port link-mode bridge",
            " description typed short",
            "#",
            "return",
        ]
        assert "description typed long" in send_text(conn, "dis cur int 400GE1/0/4")
        brief = send_text(conn, "display interface brief")
        assert "400GE1/0/3" in brief and "FourHundredGigE1/0/3" not in brief  # tables abbreviate
        # The caret stands under the word Comware cannot take (after the prompt `<spine01>`).
        refused = send_text(conn, "display interfcae brief").splitlines()
        assert refused[0].index("^") == len("<spine01>") + len("display ")
    finally:
        conn.disconnect()


# --- eAPI -----------------------------------------------------------------------------------------


def _http(
    lab: LabFabric, method: str, path: str, body: dict[str, Any] | None = None, login: bool = True
) -> http.client.HTTPResponse:
    ep = lab.endpoints()["leaf01"]
    conn = http.client.HTTPSConnection(
        ep.host, ep.eapi_port, context=ssl._create_unverified_context(), timeout=10
    )
    headers = {"Content-Type": "application/json-rpc"}
    if login:
        headers["Authorization"] = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    conn.request(method, path, body=json.dumps(body) if body else None, headers=headers)
    return conn.getresponse()


def test_eapi_answers_the_probes_clients_send(lab: LabFabric) -> None:
    """ANTA's AsyncEOSDevice sends `HEAD /command-api` and needs a 2xx before it runs a test."""
    assert _http(lab, "HEAD", "/command-api").status == 200
    assert _http(lab, "GET", "/command-api").status == 200
    assert _http(lab, "HEAD", "/command-api", login=False).status == 401
    root = _http(lab, "GET", "/")
    assert root.status == 301 and root.getheader("Location") == "/explorer.html"


def test_eapi_text_answers_every_command_and_an_error_keeps_the_connection(lab: LabFabric) -> None:
    ep = lab.endpoints()["leaf01"]
    conn = http.client.HTTPSConnection(
        ep.host, ep.eapi_port, context=ssl._create_unverified_context(), timeout=10
    )
    auth = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()

    def run(*cmds: str, fmt: str = "text") -> dict[str, Any]:
        body = {
            "jsonrpc": "2.0",
            "method": "runCmds",
            "params": {"version": 1, "cmds": list(cmds), "format": fmt},
            "id": "1",
        }
        conn.request("POST", "/command-api", body=json.dumps(body), headers={"Authorization": auth})
        return json_object(conn.getresponse().read())

    texts = run(
        "show ip bgp neighbors", "show ip interface", "show ipv6 bgp summary", "show lldp neighbors detail"
    )
    assert [type(r["output"]) for r in texts["result"]] == [str] * 4
    bad = run("show version", "show bogus")
    assert bad["error"]["code"] == 1002 and bad["error"]["data"][-1]["errors"] == [
        "Invalid input (at token 1: 'bogus')"
    ]
    assert run("show hostname", fmt="json")["result"][0]["hostname"] == "leaf01"  # the same connection


def test_every_switch_has_its_own_system_mac(lab: LabFabric) -> None:
    macs = set()
    for name in ("leaf01", "leaf02"):
        dev = napalm_eos(lab, name)
        try:
            macs.add(dev.device.run_commands(["show version"])[0]["systemMacAddress"])
        finally:
            dev.close()
    assert len(macs) == 2


# --- EOS's configuration order --------------------------------------------------------------------


def test_eos_sections_in_the_order_of_aristas_renderer() -> None:
    """pyavd renders each section the lab knows; the lab's order of their top-level lines is
    pyavd's, whatever order they are entered in."""
    import pyavd

    structured = {
        "hostname": "leaf1",
        "local_users": [
            {"name": "admin", "privilege": 15, "role": "network-admin", "sha512_password": "$6$x"}
        ],
        "service_routing_protocols_model": "multi-agent",
        "logging": {
            "buffered": {"size": 10000},
            "vrfs": [{"name": "default", "hosts": [{"name": "192.0.2.251"}]}],
        },
        "ntp": {"servers": [{"name": "192.0.2.250"}]},
        "snmp_server": {"location": "lab", "communities": [{"name": "x", "access": "ro"}]},
        "qos": {"map": {"dscp": ["26 to traffic-class 3"], "traffic_class": ["3 to tx-queue 3"]}},
        "priority_flow_control": {"watchdog": {"action": "drop", "timeout": "0.2"}},
        "qos_profiles": [{"name": "P", "trust": "dscp"}],
        "vlans": [{"id": 112, "name": "v"}, {"id": 20, "name": "w"}],
        "vrfs": [{"name": "b", "ip_routing": True}, {"name": "a", "ip_routing": True}],
        "ip_routing": True,
        "ip_access_lists": [
            {
                "name": "z",
                "entries": [
                    {
                        "sequence": 10,
                        "action": "deny",
                        "protocol": "ip",
                        "source": "any",
                        "destination": "any",
                    }
                ],
            }
        ],
        "ethernet_interfaces": [{"name": "Ethernet2"}, {"name": "Ethernet10"}],
        "loopback_interfaces": [{"name": "Loopback0"}],
        "vlan_interfaces": [{"name": "Vlan112"}],
        "vxlan_interface": {"vxlan1": {"vxlan": {"source_interface": "Loopback1"}}},
        "management_interfaces": [{"name": "Management1", "ip_address": "192.0.2.10/24"}],
        "ip_virtual_router_mac_address": "00:1c:73:00:00:99",
        "static_routes": [{"prefix": "0.0.0.0/0", "next_hop": "192.0.2.254"}],
        "router_bgp": {"as": "65000", "router_id": "1.1.1.1"},
        "management_api_http": {"enable_https": True},
        "bgp_groups": [{"name": "G", "neighbors": ["192.0.2.1"]}],
        "maintenance": {"units": [{"name": "G", "groups": {"bgp_groups": ["G"]}, "quiesce": True}]},
    }
    data, _ = validate(structured)
    lines = [ln for ln in pyavd.get_device_config(data).splitlines() if ln and ln[0] not in " !"]
    assert {eos_order(ln)[0] for ln in lines} == set(range(len(EOS_SECTIONS)))  # every section covered
    assert sorted(lines, key=eos_order) == lines  # pyavd's order is the lab's
    entered_backwards = sorted(reversed(lines), key=eos_order)
    assert [eos_order(ln) for ln in entered_backwards] == [eos_order(ln) for ln in lines]


def test_napalm_replace_with_the_switchs_own_config_changes_nothing(lab: LabFabric) -> None:
    """A switch's own running config, loaded back as a replace, is no change (real EOS: no diff),
    here after lines went in out of EOS's order."""
    lab.device("leaf01").configure(
        ["interface Loopback0", "ip address 10.0.0.1/32", "vlan 30", "hostname leaf01"]
    )
    dev = napalm_eos(lab, "leaf01")
    try:
        running = dev.get_config(retrieve="running")["running"]
        assert (
            running.index("hostname leaf01") < running.index("vlan 30") < running.index("interface Ethernet1")
        )
        dev.load_replace_candidate(config=running)
        assert dev.compare_config() == ""
        dev.discard_config()
    finally:
        dev.close()


@pytest.mark.parametrize("typed", ["Et1", "et 1", "ethernet1", "Ethernet 1", "e1"])
def test_eos_interface_spellings(typed: str) -> None:
    from fabricctl.lab.devices.eos.names import INTERFACE_TYPES
    from fabricctl.lab.names import canonical

    assert canonical(INTERFACE_TYPES, typed) == "Ethernet1"
