"""Persistence across restarts, reset, and the grammar tables against emitted syntax."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabricctl.lab import LabFabric, lab_endpoints
from fabricctl.lab.config_tree import Node
from fabricctl.lab.devices.comware.render import render_comware
from fabricctl.lab.devices.eos.render import render_eos
from fabricctl.lab.editor import Editor, InvalidInput
from fabricctl.lab.reference import reference

from .conftest import connect, make_specs

FIXTURE_ROOT = Path(__file__).parent / "fixtures" / "small"

REPO = Path(__file__).resolve().parents[2]
CW_G = reference("comware").grammar
EOS_G = reference("eos").grammar


def _rendered(root: Path, platform: str) -> list[str]:
    """A spine's and a leaf's rendered config of a shipped fabric (what the templates emit)."""
    from fabricctl import pipeline
    from fabricctl.compile.intent import DeviceIntent

    compiled = pipeline.compile(root)
    picked: dict[str, DeviceIntent] = {}
    for intent in compiled.intents.values():
        if intent.platform == platform:
            picked.setdefault(intent.role, intent)
    return list(pipeline.render({i.name: i for i in picked.values()}, root).values())


@pytest.mark.parametrize(
    ("platform", "root", "render"),
    [
        ("eos", REPO / "examples" / "eos-small", lambda t: render_eos(t, "x", "7060X5-64")),
        ("comware", REPO, render_comware),
    ],
    ids=["eos", "comware"],
)
def test_rendered_configs_are_accepted_and_round_trip(platform, root, render) -> None:  # type: ignore[no-untyped-def]
    grammar = reference(platform).grammar
    for text in _rendered(root, platform):
        tree = Node("", block=True)
        editor = Editor(grammar, tree)
        for line in text.splitlines():  # unindented, like napalm sends it
            if line.strip() and line.strip()[0] not in "!#" and line.strip() != "end":
                editor.apply(line.strip())
        rendered = render(tree)
        again = Node("", block=True)
        Editor(grammar, again).load(rendered)
        assert render(again) == rendered


@pytest.mark.parametrize(
    ("grammar", "line"),
    [
        (EOS_G, "interface Ethernet1 extra"),
        (EOS_G, "router bgp notanumber"),
        (EOS_G, "qos map dscp 26 to traffic-klass 3"),
        (EOS_G, "ip address 10.0.0.1/31"),  # valid only inside an interface
        (CW_G, "interface FourHundredGigE1/0/x"),
        (CW_G, "qos wrr af9 group sp"),
        (CW_G, "tunnel global source-address 300.1.1.1"),
        # Shapes the vendor documents do not accept (the lab once took them because templates emitted them):
        (CW_G, "priority-flow-control deadlock recover-mode auto"),  # an Ethernet-interface command
        (CW_G, "interface FourHundredGigE1/0/1\n mtu 9214"),  # IP MTU 46-9008
        (CW_G, "interface FourHundredGigE1/0/1\n jumboframe enable 1000"),  # 1536-9416
        (EOS_G, "ip virtual-router mac-address 001c.7300"),
    ],
)
def test_wrong_shapes_are_rejected(grammar, line) -> None:  # type: ignore[no-untyped-def]
    editor = Editor(grammar, Node("", block=True))
    *before, last = line.split("\n")
    for ok in before:
        editor.apply(ok.strip())
    with pytest.raises(InvalidInput):
        editor.apply(last.strip())


def test_eos_prints_a_dotted_mac_in_colon_form() -> None:
    """EOS takes `hhhh.hhhh.hhhh` and shows `hh:hh:hh:hh:hh:hh`; a dotted `no` form still removes it."""
    root = Node("", block=True)
    editor = Editor(EOS_G, root)
    editor.apply("ip virtual-router mac-address 001C.7300.0099")
    assert list(root.children) == ["ip virtual-router mac-address 00:1c:73:00:00:99"]
    editor.apply("ip virtual-router mac-address 00:1c:73:00:00:98")
    assert list(root.children) == ["ip virtual-router mac-address 00:1c:73:00:00:98"]
    editor.apply("no ip virtual-router mac-address 001c.7300.0098")
    assert root.children == {}


@pytest.mark.parametrize(
    ("lines", "word"),
    [
        # RFC 4364 section 4.2: an IP-address RD holds a 16-bit number; a 2-byte ASN a 32-bit one;
        # a 4-byte ASN a 16-bit one (H3C/HPE route-distinguisher reference)
        (["ip vpn-instance a", "route-distinguisher 10.0.2.1:1000101"], 1),
        (["ip vpn-instance a", "route-distinguisher 4200000001:65536"], 1),
        (["ip vpn-instance a", "address-family evpn", "vpn-target 10.0.0.1:70000 import-extcommunity"], 1),
        (["vlan 4095"], 1),
        (["interface FourHundredGigE1/0/1", "mtu 9214"], 1),
        (["qos wred queue table T", "queue 3 low-limit 6000 high-limit 20000 discard-probability 40"], 5),
    ],
)
def test_comware_refuses_out_of_range_values_as_wrong_parameters(lines: list[str], word: int) -> None:
    """A value of the right shape outside its documented range is `Wrong parameter` on Comware, at
    that value; a word no command takes is `Unrecognized command`."""
    editor = Editor(CW_G, Node("", block=True))
    *before, last = lines
    for ok in before:
        editor.apply(ok)
    with pytest.raises(InvalidInput) as info:
        editor.apply(last)
    assert info.value.out_of_range
    assert info.value.words[info.value.index] == last.split()[word]
    for fits in ("10.0.2.1:65535", "65000:4294967295", "4200000001:65535"):
        editor = Editor(CW_G, Node("", block=True))
        editor.apply("ip vpn-instance b")
        editor.apply(f"route-distinguisher {fits}")
    with pytest.raises(InvalidInput) as info:
        editor.apply("route-distinguisher 10.0.2.1:x")
    assert not info.value.out_of_range


def test_error_token_index() -> None:
    with pytest.raises(InvalidInput) as info:
        Editor(EOS_G, Node("", block=True)).apply("qos map dscp 26 to traffic-klass 3")
    assert info.value.index == 5


def test_restart_keeps_state_and_reset_restores_factory(state_dir: Path) -> None:
    with LabFabric(make_specs(), state_dir=state_dir) as lab:
        factory = lab.device("spine01").running_config()
        conn = connect(lab, "spine01")
        conn.send_config_set(["vlan 700"], error_pattern="Unrecognized")
        conn.disconnect()
        running = lab.device("spine01").running_config()
    assert not list(state_dir.rglob("*.tmp"))
    assert (state_dir / "spine01" / "running-config").read_text() == running
    with LabFabric(make_specs(), state_dir=state_dir) as lab:
        assert lab.device("spine01").running_config() == running
        assert "vlan 700" not in lab.device("spine01").startup_config()
        lab.reset("spine01")
        assert lab.device("spine01").running_config() == factory


def test_lab_endpoints_in_process(tmp_path: Path) -> None:
    import shutil

    shutil.copytree(FIXTURE_ROOT / "inventory", tmp_path / "inventory")
    with lab_endpoints(tmp_path) as eps:
        assert set(eps) == {"leaf01", "spine01"}
        assert eps["leaf01"].eapi_port is not None and eps["spine01"].eapi_port is None
        assert eps["leaf01"].platform == "eos"
        from netmiko import ConnectHandler

        ep = eps["leaf01"]
        conn = ConnectHandler(
            device_type="arista_eos",
            host=ep.host,
            port=ep.ssh_port,
            username="admin",
            password="fabricctl-lab",
        )
        assert "interface Management1\n   ip address 192.0.2.11/24" in conn.send_command(
            "show running-config"
        )
        conn.disconnect()
    assert (tmp_path / ".fabricctl" / "lab" / "state" / "leaf01" / "running-config").is_file()
