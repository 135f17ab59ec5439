"""Arista's design as the oracle: the same fabric through pyavd's eos_designs, compared section by section.

tests/avd_designs.py writes eos_designs inputs from fabricctl's inventory and tenants (switches,
cabling, pools, ASNs, VRFs, GPU ports, segments, ACLs) and renders every EOS switch with Arista's
l3ls-evpn design. Each switch's two configs are read as sections of value-free lines (an
interface by its role, addresses and the fabric's own numbers as placeholders). A line only one
side writes passes only when DIFFERENCES names it with the reason it is deliberate; what AVD's
design adds and fabricctl had no reason to leave out was adopted (ADOPTED). docs/eos-design.md is
the reviewed list a person reads; the last test keeps the two in step.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fabricctl import pipeline
from fabricctl.compile.build import Compiled
from tests import avd_designs
from tests.conftest import EOS_SMALL, REPO

#: (side that writes it, regex on "section > line" or a whole section, why the other side does not).
DIFFERENCES: list[tuple[str, str, str]] = [
    (
        "avd",
        r"hostname <name>|no aaa root|no enable password|vrf instance MGMT|no ip routing vrf MGMT"
        r"|transceiver qsfp default-mode 4x10G|vlan internal order ascending range \d+ \d+|spanning-tree mode none",
        "device management and platform defaults: outside what fabricctl owns (platforms/eos/rules.py)",
    ),
    (
        "avd",
        r"interface \([^)]*\) > no shutdown|interface (Loopback|Vlan)\S* > no shutdown",
        "`no shutdown` is the EOS default; fabricctl writes only `shutdown`, on ports no tenant holds",
    ),
    (
        "avd",
        r"interface \(gpu l2\) > switchport( mode access)?",
        "an Ethernet port is a switched access port by default; `switchport access vlan` says the rest",
    ),
    (
        "avd",
        r"interface (Vlan<n>|Vxlan1) > description <text>",
        "descriptions are cosmetic; fabricctl names peers and tenants on physical ports only",
    ),
    (
        "avd",
        r"ip prefix-list PL-LOOPBACKS-EVPN-OVERLAY|route-map RM-CONN-2-BGP permit 10"
        r"|router bgp <n> > redistribute connected route-map RM-CONN-2-BGP",
        "the loopbacks are announced by `network` statements (below): no prefix list or route map to own",
    ),
    (
        "ours",
        r"router bgp <n> > address-family ipv4 > network <ip>",
        "each loopback announced by name: exactly the prefixes verify's ECMP proof routes to",
    ),
    (
        "avd",
        r"router bgp <n> > address-family ipv4 > no neighbor <name> activate",
        "redundant: `no bgp default ipv4-unicast` leaves the overlay group out of IPv4 unicast",
    ),
    (
        "ours",
        r"router bgp <n> > graceful-restart",
        "fabric.yaml underlay.graceful_restart (on by default): a routing-agent restart keeps forwarding",
    ),
    (
        "ours",
        r"router bgp <n> > neighbor <ip> bfd",
        "fabric.yaml underlay.bfd (on by default): a failed link leaves ECMP in milliseconds",
    ),
    (
        "ours",
        r"interface \((uplink|downlink|gpu l3|gpu l2)\) > service-profile ROCE-LOSSLESS|qos .*|priority-flow-control .*"
        r"|interface Vxlan1 > vxlan qos .*",
        "eos_designs has no RoCE lossless design; these lines are checked by the eos_cli_config_gen oracle",
    ),
    (
        "ours",
        r"interface \(gpu l2\) > ip access-group <name> in",
        "tenant isolation on bridged GPU ports too (eos_designs' network ports take no IPv4 ACL)",
    ),
    (
        "ours",
        r"interface \((gpu|unused)\)",
        "GPU ports no tenant holds are shut down, the secure default (eos_designs does not know them); "
        "ports outside the cabling plan are never configured",
    ),
]

#: eos_designs defaults fabricctl adopted: both fabrics carry these lines.
ADOPTED = [
    "router bgp <n> > update wait-install",
    "router bgp <n> > neighbor <name> maximum-routes 256000",
    "router bgp <n> > neighbor <name> maximum-routes 0",
    "router bgp <n> > neighbor <name> bfd",
    "router bfd > multihop interval 300 min-rx 300 multiplier 3",
    "router bgp <n> > vrf <name> > router-id <ip>",
]


@pytest.fixture(scope="module")
def fabric() -> tuple[Compiled, dict[str, str], dict[str, str]]:
    compiled = pipeline.compile(EOS_SMALL)
    ours = pipeline.render({n: i for n, i in compiled.intents.items() if i.platform == "eos"}, EOS_SMALL)
    return compiled, ours, avd_designs.render(compiled)


def _differences(
    compiled: Compiled, ours: dict[str, str], theirs: dict[str, str]
) -> dict[tuple[str, str], set[str]]:
    """(side, "section > line" or "section") -> the switches where only that side writes it."""
    out: dict[tuple[str, str], set[str]] = {}
    for name, text in ours.items():
        mine = avd_designs.sections(text, compiled.intents[name])
        avd = avd_designs.sections(theirs[name], compiled.intents[name])
        for side, have, other in (("ours", mine, avd), ("avd", avd, mine)):
            for section, lines in have.items():
                if section not in other:
                    out.setdefault((side, section), set()).add(name)
                    continue
                for line in lines - other[section]:
                    out.setdefault((side, f"{section} > {line}"), set()).add(name)
    return out


def _reason(side: str, key: str) -> str | None:
    return next((why for s, rx, why in DIFFERENCES if s == side and re.fullmatch(rx, key)), None)


def test_every_switch_is_designed(fabric: tuple[Compiled, dict[str, str], dict[str, str]]) -> None:
    _, ours, theirs = fabric
    assert set(theirs) == set(ours) == {"spine1", "spine2", "leaf1", "leaf2", "leaf3", "leaf4"}


def test_every_difference_from_arista_design_is_a_reviewed_one(
    fabric: tuple[Compiled, dict[str, str], dict[str, str]],
) -> None:
    """A setting Arista's design puts on a switch that fabricctl does not (or the other way round)
    fails here until it is adopted or listed in DIFFERENCES with its reason."""
    unexplained = [
        f"{side}: {key} ({', '.join(sorted(where))})"
        for (side, key), where in sorted(_differences(*fabric).items())
        if _reason(side, key) is None
    ]
    assert not unexplained, "\n".join(unexplained)


def test_no_stale_difference(fabric: tuple[Compiled, dict[str, str], dict[str, str]]) -> None:
    """Every listed difference still happens (a fixed one leaves the list)."""
    found = _differences(*fabric)
    stale = [
        rx for side, rx, _ in DIFFERENCES if not any(s == side and re.fullmatch(rx, k) for s, k in found)
    ]
    assert not stale, stale


def test_adopted_defaults_are_in_both_fabrics(
    fabric: tuple[Compiled, dict[str, str], dict[str, str]],
) -> None:
    compiled, ours, theirs = fabric
    for name in ("leaf1", "spine1"):
        for text in (ours[name], theirs[name]):
            lines = {
                f"{section} > {line}"
                for section, body in avd_designs.sections(text, compiled.intents[name]).items()
                for line in body
            }
            missing = [a for a in ADOPTED if a not in lines and not (name == "spine1" and "vrf <name>" in a)]
            assert not missing, (name, missing)


def test_the_reviewed_list_is_documented() -> None:
    doc = (REPO / "docs" / "eos-design.md").read_text(encoding="utf-8")
    for _side, _rx, why in DIFFERENCES:
        assert why in doc, why
    for line in ADOPTED:
        assert f"`{line}`" in doc, line


def test_inputs_come_from_the_fabric_not_the_templates() -> None:
    """The design inputs read the compiled fabric only (a template change cannot move them)."""
    source = Path(avd_designs.__file__).read_text(encoding="utf-8")
    assert "templates" not in source.split('"""', 2)[2] and "Renderer" not in source
