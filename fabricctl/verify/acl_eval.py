"""First-match ACL evaluation against every tenant block at once.

An ACL entry is a rectangle (source prefix x destination prefix). Traffic from a tenant port to
another tenant's block is possible when some permit entry overlaps that block and no earlier deny
entry covers the overlap. Sources are taken as *any* address (a GPU can spoof), so only the
destination decides. A deny that is not a plain `ip` entry with exact prefixes is never trusted to
cover: the check may over-report an odd ACL, never miss a leak.
"""

from __future__ import annotations

from ipaddress import IPv4Network

from fabricctl.config.readback import Acl, AclRule
from fabricctl.verify.facts import Facts, TenantFacts

Leak = tuple[TenantFacts, AclRule]


def _within(inner: IPv4Network | None, outer: IPv4Network | None) -> bool:
    if outer is None:
        return True
    return inner is not None and inner.subnet_of(outer)


def _overlap(a: IPv4Network | None, b: IPv4Network) -> IPv4Network:
    if a is None or b.subnet_of(a):
        return b
    return a  # prefixes that overlap are nested


def acl_leaks(acl: Acl, owner: TenantFacts, facts: Facts) -> list[Leak]:
    """Other tenants (not declared peers) that the first-match ACL lets `owner`'s port reach."""
    allowed = {owner.name} | {p for p in owner.peers if facts.peers(owner.name, p)}
    denies: list[AclRule] = []
    leaked: dict[str, Leak] = {}
    for rule in acl.ordered():
        if rule.action != "permit":
            if rule.exact and rule.proto == "ip":
                denies.append(rule)
            continue
        for other in facts.touching(rule.destination):
            if other.name in allowed or other.name in leaked:
                continue
            dst = _overlap(rule.destination, other.block)
            if any(_within(rule.source, d.source) and _within(dst, d.destination) for d in denies):
                continue
            leaked[other.name] = (other, rule)
    return list(leaked.values())


class AclCache:
    """Each distinct (ACL text, owner) is evaluated once, however many ports and leaves apply it."""

    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self._memo: dict[tuple[object, ...], list[tuple[TenantFacts, int]]] = {}

    def leaks(self, acl: Acl, owner: TenantFacts) -> list[Leak]:
        key = (
            owner.name,
            tuple((r.seq, r.action, r.proto, r.source, r.destination, r.exact) for r in acl.rules),
        )
        ordered = acl.ordered()
        found = self._memo.get(key)
        if found is None:
            # Positions, not rules: the same ACL sits on other lines of other switches.
            found = [(t, ordered.index(r)) for t, r in acl_leaks(acl, owner, self.facts)]
            self._memo[key] = found
        return [(t, ordered[i]) for t, i in found]
