"""Which tenants a plan's diffs touch, read from the diffs themselves (no git REF needed).

Each switch's intent names the objects a tenant owns there (VRF, ACL, VLAN, VNIs, GPU ports).
A changed diff line belongs to the tenant named by the outermost element of its section path
(`ip vpn-instance X` > `address-family evpn` > `vpn-target ...`), so a peer's route target inside
another tenant's VRF is counted for that VRF's tenant. VRFs that are only removed belong to
tenants no longer defined: those are reported as removed, by name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fabricctl.config.rules import TENANT_PREFIX, Dialect
from fabricctl.deploy.changed import RefFabric, TenantChange, tenant_changes
from fabricctl.deploy.disruption import ADDED, DISRUPTIVE, MOVED, TenantEffect, classify
from fabricctl.platforms import get_platform

if TYPE_CHECKING:
    from fabricctl.compile.build import Compiled
    from fabricctl.compile.intent import DeviceIntent
    from fabricctl.compile.moves import GpuMove
    from fabricctl.config.readback import SwitchConfig
    from fabricctl.deploy.plan import Plan

_EDGE = r"[\w/:.-]"
FREE = "\0free"  # owner of GPU ports no tenant holds (they return to the secure default)


def _pattern(tokens: Iterable[str]) -> re.Pattern[str]:
    alts = "|".join(re.escape(t) for t in sorted(set(tokens), key=len, reverse=True))
    return re.compile(rf"(?<!{_EDGE})(?:{alts})(?!{_EDGE})")


def tenant_tokens(intent: DeviceIntent) -> dict[str, set[str]]:
    """tenant -> the names and numbers of its objects on this switch (as its platform spells them)."""
    dialect = get_platform(intent.platform).dialect
    out: dict[str, set[str]] = {}
    for vrf in intent.vrfs:
        names = {f.format(number=vrf.l3vni_interface) for f in dialect.l3vni_objects}
        out.setdefault(vrf.tenant, set()).update({vrf.name, str(vrf.l3vni), *names})
    for vlan in intent.vlans:
        names = {f.format(id=vlan.id) for f in dialect.vlan_objects}
        out.setdefault(vlan.tenant, set()).update({vlan.name, str(vlan.l2vni), *names})
    for acl in intent.acls:
        out.setdefault(acl.tenant, set()).add(acl.name)
    for intf in intent.interfaces:
        if intf.tenant:
            out.setdefault(intf.tenant, set()).add(intf.name)
    return out


def changed_lines(diff: str) -> Iterator[tuple[str, list[str]]]:
    """(kind, section path) for every '+'/'-' line of a plan diff (headers skipped)."""
    path: list[tuple[int, str]] = []
    for raw in diff.splitlines():
        if raw.startswith(("--- ", "+++ ")) or not raw:
            continue
        kind, body = raw[0], raw[1:]
        depth = len(body) - len(body.lstrip(" "))
        while path and path[-1][0] >= depth:
            path.pop()
        path.append((depth, body.strip()))
        if kind in "+-":
            yield kind, [p for _, p in path]


def whole_vrfs(diff: str, kind: str, dialect: Dialect) -> set[str]:
    """Names of VRFs a diff adds ('+') or removes ('-') whole (top-level headers)."""
    out = set()
    header = re.compile(dialect.vrf_header)
    for k, path in changed_lines(diff):
        m = header.match(path[0]) if k == kind and len(path) == 1 else None
        if m:
            out.add(m.group(1))
    return out


def attribute(diff: str, tokens: dict[str, set[str]]) -> dict[str, set[str]]:
    """tenant -> kinds ('+', '-') of the changed lines that belong to it; '' for fabric lines."""
    patterns = {t: _pattern(toks) for t, toks in tokens.items() if toks}
    out: dict[str, set[str]] = {}
    for kind, path in changed_lines(diff):
        owners: list[str] = []
        for element in path:
            owners = [t for t, pat in patterns.items() if pat.search(element)]
            if owners:
                break
        for owner in owners or [""]:
            out.setdefault(owner, set()).add(kind)
    return out


@dataclass
class Impact:
    """What a plan's diffs touch: tenants, GPU ports returned to the free pool, fabric-wide lines."""

    tenants: list[TenantChange] = field(default_factory=list)
    freed_ports: list[str] = field(default_factory=list)  # switches where free GPU ports change
    fabric_wide: list[str] = field(default_factory=list)  # switches with lines of no tenant
    by_switch: dict[str, list[str]] = field(default_factory=dict)  # switch -> tenants its diff touches


def _switch_tokens(
    intent: DeviceIntent | None, diff: str, defined: set[str], dialect: Dialect
) -> dict[str, set[str]]:
    tokens = tenant_tokens(intent) if intent is not None else {}
    for vrf in whole_vrfs(diff, "-", dialect):
        gone = vrf.removeprefix(TENANT_PREFIX)  # a VRF fabricctl made is named after its tenant
        if gone not in defined:
            tokens.setdefault(gone, set()).update({vrf, f"{vrf}-in"})
    if intent is not None:
        free = {i.name for i in intent.interfaces if i.role == "gpu" and not i.tenant}
        if free:
            tokens[FREE] = free
    return tokens


def impact_of(compiled: Compiled, plan: Plan, known: Iterable[str] | None = None) -> Impact:
    """Attribute every changed line of the plan.

    Without REF (`known` None) a tenant still defined is `added` when its VRF is created on
    every switch it touches (or every line of it is new), else `changed`; a VRF that is only removed names a tenant no longer defined (`removed`).
    With REF, `known` are the tenants whose files changed (reported from git, left out here);
    any other tenant whose objects change is `affected` (a peer's ACL rule, a template change).
    """
    gpus = {a.name: len(a.ports) for a in compiled.allocation.tenants}
    skip = set(known or ())
    kinds: dict[str, set[str]] = {}
    leaves: dict[str, set[str]] = {}
    result = Impact()
    new_vrf: dict[str, bool] = {}  # tenant -> its VRF is created on every switch it touches
    for name in plan.changed:
        diff = plan.switches[name].diff
        dialect = get_platform(plan.switches[name].platform).dialect
        owners = attribute(diff, _switch_tokens(compiled.intents.get(name), diff, set(gpus), dialect))
        created = whole_vrfs(diff, "+", dialect)
        for tenant in owners:
            new_vrf[tenant] = new_vrf.get(tenant, True) and tenant in created
        if "" in owners:
            result.fabric_wide.append(name)
        if FREE in owners:
            result.freed_ports.append(name)
        result.by_switch[name] = sorted(t for t in owners if t not in ("", FREE))
        for tenant, ks in owners.items():
            if tenant not in ("", FREE) and tenant not in skip:
                kinds.setdefault(tenant, set()).update(ks)
                leaves.setdefault(tenant, set()).add(name)
    for tenant in sorted(kinds):
        if known is not None:
            change = "affected"
        elif tenant not in gpus:
            change = "removed"
        else:
            change = "added" if kinds[tenant] == {"+"} or new_vrf.get(tenant) else "changed"
        result.tenants.append(TenantChange(tenant, change, gpus.get(tenant, 0), None, sorted(leaves[tenant])))
    return result


def annotate(
    plan: Plan,
    compiled: Compiled,
    ref: RefFabric | None,
    running: dict[str, SwitchConfig] | None = None,
    moves: list[GpuMove] | None = None,
) -> None:
    """Record in the plan what it was compared with, which tenants it touches, and what it does
    to each one's running service (classes from the switches' running configs, when given).

    With a usable REF, tenants come from git (added / changed / removed files) plus the tenants
    whose objects change anyway (`affected`); otherwise they are read from the diffs.
    """
    tenants: list[TenantChange] = []
    known: list[str] | None = None
    if ref is not None:
        plan.changed_since = ref.ref
        plan.changed_since_commit = ref.commit
        if ref.problem is None:
            tenants = tenant_changes(ref.compiled, compiled)
            known = [t.name for t in tenants]
    found = impact_of(compiled, plan, known)
    rows = tenants + found.tenants
    readdressed: list[dict[str, str]] = []
    if running is not None:
        effects = classify(compiled, plan, running)
        for move in moves or ():
            effects.setdefault(move.tenant, TenantEffect(move.tenant)).add(MOVED, move.text())
        _classes(rows, effects, known is None)
        rows += _unlisted(compiled, plan, rows, effects)
        readdressed = [{"tenant": t, **nic} for t, e in sorted(effects.items()) for nic in e.readdressed]
    plan.changes = {
        "tenants": [t.to_dict() for t in rows],
        "tenants_by_switch": found.by_switch,
        "fabric_wide": found.fabric_wide,
        "freed_ports": found.freed_ports,
        "disruptive": sorted(t.name for t in rows if any(c in DISRUPTIVE for c in t.classes)),
        #: Every server NIC to re-address: tenant, nic ("gpu079 nic0"), switch, port, old, new, note.
        "readdressed": readdressed,
    }


def _unlisted(
    compiled: Compiled, plan: Plan, rows: list[TenantChange], effects: dict[str, TenantEffect]
) -> list[TenantChange]:
    """Tenants the running configs show the plan changes though no diff line names them: a
    tenant that returns GPU ports has only its freed ports in the diff."""
    listed = {r.name for r in rows}
    allocs = {a.name: a for a in compiled.allocation.tenants}
    out = []
    for name, effect in sorted(effects.items()):
        if name in listed or name not in allocs or not effect.differs:
            continue
        leaves = sorted(set(allocs[name].leaves) & set(plan.changed))
        row = TenantChange(name, "changed", len(allocs[name].ports), None, leaves)
        row.classes, row.evidence = list(effect.classes), {k: list(v) for k, v in effect.evidence.items()}
        out.append(row)
    return out


def _classes(rows: list[TenantChange], effects: dict[str, TenantEffect], from_diffs: bool) -> None:
    """Each row gets its tenant's classes; read from the diffs, added/removed come from them too
    (a tenant new to the switches is `added` even where its ports were configured as free)."""
    for row in rows:
        effect = effects.get(row.name)
        if effect is None:
            continue
        row.classes = list(effect.classes)
        row.evidence = {k: list(v) for k, v in effect.evidence.items()}
        if from_diffs and row.change in ("added", "changed"):
            row.change = "added" if ADDED in effect.classes else "changed"
