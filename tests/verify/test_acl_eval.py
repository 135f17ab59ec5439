"""First-match ACL evaluation against the tenant blocks of the EOS example fabric."""

from __future__ import annotations

from fabricctl.platforms.eos.parse import parse_eos
from fabricctl.verify.acl_eval import acl_leaks
from fabricctl.verify.facts import Facts

from .conftest import Rendered

# team-llm 172.20.11.0/27 (peer: storage 172.20.90.0/29), team-hpc 172.20.12.0/27, intern-01 172.20.21.0/31


def leaks(rendered: dict[str, Rendered], entries: list[str], owner: str = "team-llm") -> set[str]:
    facts = Facts(rendered["eos"].compiled)
    text = "ip access-list a\n" + "".join(f"   {e}\n" for e in entries)
    acl = parse_eos("leaf1", text).acls["a"]
    return {t.name for t, _rule in acl_leaks(acl, facts.tenants[owner], facts)}


def test_own_block_and_declared_peer_are_not_leaks(rendered: dict[str, Rendered]) -> None:
    assert (
        leaks(
            rendered,
            [
                "10 permit ip 172.20.11.0/27 172.20.11.0/27",
                "20 permit ip 172.20.11.0/27 172.20.90.0/29",
                "30 deny ip any any",
            ],
        )
        == set()
    )


def test_permit_any_before_deny_reaches_everyone_but_peers(rendered: dict[str, Rendered]) -> None:
    assert leaks(rendered, ["5 permit ip any any", "65000 deny ip any any"]) == {"team-hpc", "intern-01"}


def test_first_match_order_is_by_sequence_number(rendered: dict[str, Rendered]) -> None:
    # the deny has the lower number, so it wins although it is written last
    assert leaks(rendered, ["20 permit ip any any", "10 deny ip any any"]) == set()


def test_earlier_deny_of_one_block_protects_only_that_block(rendered: dict[str, Rendered]) -> None:
    found = leaks(
        rendered, ["5 deny ip any 172.20.12.0/27", "10 permit ip any 172.20.0.0/16", "65000 deny ip any any"]
    )
    assert found == {"intern-01"}


def test_wide_permit_to_a_supernet_leaks_every_tenant_inside(rendered: dict[str, Rendered]) -> None:
    found = leaks(rendered, ["10 permit ip 172.20.11.0/27 172.20.0.0/19", "65000 deny ip any any"])
    assert found == {"team-hpc", "intern-01"}


def test_non_ip_or_inexact_deny_is_not_trusted_to_cover(rendered: dict[str, Rendered]) -> None:
    assert leaks(rendered, ["5 deny tcp any 172.20.12.0/27", "10 permit ip any 172.20.12.0/27"]) == {
        "team-hpc"
    }
    # non-contiguous wildcard: widened and never trusted to cover
    assert leaks(rendered, ["5 deny ip any 172.20.12.0 0.0.255.31", "10 permit ip any 172.20.12.0/27"]) == {
        "team-hpc"
    }


def test_no_permit_means_no_leak(rendered: dict[str, Rendered]) -> None:
    assert leaks(rendered, ["10 deny ip any any"]) == set()
    assert leaks(rendered, []) == set()  # an empty ACL denies everything (implicit deny)
