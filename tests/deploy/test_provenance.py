"""fabricctl touches only what it made: the operator's look-alike objects survive apply and tenant removal.

A VRF, an ACL, a VSI or VLAN and its SVI, a VRF under BGP and a VXLAN mapping, made by hand and
shaped exactly like tenant objects but not named with the tenant prefix, on both platforms.
"""

from __future__ import annotations

import pytest

from fabricctl.compile.build import compile_fabric
from fabricctl.config.diff import Node, owned_view, parse_config
from fabricctl.platforms import get_platform

from .conftest import LabRoot

VICTIM = "leaf3"  # intern-01 lands here, alone


def look_alikes(platform: str, asn: int) -> list[str]:
    if platform == "comware":
        return [
            "ip vpn-instance oob",
            "route-distinguisher 192.0.2.1:1",
            "acl advanced name snmp-in",
            "rule 5 permit ip source 192.0.2.0 0.0.0.255 destination 192.0.2.0 0.0.0.255",
            "vsi legacy-ops",
            "vxlan 9000",
            "interface Vsi-interface50",
            "ip binding vpn-instance oob",
            "ip address 192.0.2.129 255.255.255.128",
            f"bgp {asn}",
            "ip vpn-instance oob",
            "address-family ipv4 unicast",
            "import-route direct",
        ]
    return [
        "vrf instance oob",
        "ip routing vrf oob",
        "ip access-list snmp-in",
        "10 permit ip 192.0.2.0/24 192.0.2.0/24",
        "vlan 3000",
        "name legacy",
        "interface Vlan3000",
        "vrf oob",
        "ip address 192.0.2.129/25",
        "interface Vxlan1",
        "vxlan vlan 3000 vni 3000",
        f"router bgp {asn}",
        "vrf oob",
        "rd 192.0.2.1:1",
    ]


def foreign(text: str, platform: str) -> list[str]:
    """Every line of the config that fabricctl does not own, with its parents, as paths."""
    tree = parse_config(text)
    owned = owned_view(tree, get_platform(platform).dialect)
    out: list[str] = []

    def walk(node: Node, mine: Node | None, path: str) -> None:
        for line, child in node.children.items():
            here = f"{path} > {line}" if path else line
            sub = mine.children.get(line) if mine is not None else None
            if sub is None:
                out.append(here)
            walk(child, sub, here)

    walk(tree, owned, "")
    return out


@pytest.mark.parametrize("small_lab", ["comware", "eos"], indirect=True)
def test_look_alikes_survive_apply_and_tenant_removal(
    small_lab: LabRoot, capsys: pytest.CaptureFixture[str]
) -> None:
    lab = small_lab
    platform = lab.lab.devices[VICTIM].platform
    assert lab.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
    asn = compile_fabric(lab.root).intents[VICTIM].bgp.asn
    lab.lab.device(VICTIM).configure(look_alikes(platform, asn))
    hand_made = foreign(lab.running(VICTIM), platform)
    assert any("oob" in line for line in hand_made) and any("snmp-in" in line for line in hand_made)
    assert lab.run("plan", "--lab", "--detailed-exitcode", capsys=capsys)[0] == 0, "not drift: not ours"

    (lab.root / "tenants" / "intern-01.yaml").unlink()  # a tenant on leaf3 goes: its objects go
    assert lab.run("apply", "--lab", "--auto-approve", "--allow-disruptive", capsys=capsys)[0] == 0
    after = lab.running(VICTIM)
    assert "tnt-intern-01" not in after
    assert foreign(after, platform) == hand_made, "every hand-made line exactly as it was"
    assert lab.run("plan", "--lab", "--detailed-exitcode", capsys=capsys)[0] == 0
