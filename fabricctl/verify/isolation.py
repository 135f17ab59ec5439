"""Tenant isolation, proven from the config text read back (not from the intent).

Five ways one tenant's port could reach another tenant's addresses, each closed by one check:
  ports   - a held port sits in its tenant's VRF/segment and applies an ACL that denies every other
            tenant block (first match); a port no tenant holds is shut down; no other port joins a
            tenant VRF or segment.
  RTs     - a VRF imports only route targets exported by its own tenant or a declared peer.
  VNIs    - one VNI maps to one VRF/segment fabric-wide, and it is the one the allocation gave it.
  SVIs    - a segment's gateway is in the segment tenant's VRF and applies its ACL.
  transit - spines and super-spines hold no tenant VRF, segment or VNI: a packet between two
            leaves, in its pod or across pods (leaf-spine-superspine-spine-leaf), stays inside
            VXLAN with its source VRF's VNI and is decapsulated only by a leaf, whose VRFs and
            ports the checks above prove.
Everything is indexed (RT -> exporters, VNI -> owners, block intervals), never checked pairwise.
"""

from __future__ import annotations

from dataclasses import dataclass

from fabricctl.compile.build import Compiled
from fabricctl.compile.topology import GpuPort
from fabricctl.config.readback import At, Interface, RtHolder, Src, SwitchConfig
from fabricctl.verify.acl_eval import AclCache
from fabricctl.verify.facts import Facts, TenantFacts
from fabricctl.verify.report import AllowedException, Violation


@dataclass(frozen=True)
class Holder:
    """An RT/VNI-bearing object on one switch and the tenant it belongs to (None = not a tenant's)."""

    switch: str
    obj: RtHolder
    owner: TenantFacts | None

    @property
    def label(self) -> str:
        kind = "VRF" if self.obj.kind == "vrf" else "segment"
        return f"{kind} {self.obj.name}"

    @property
    def owner_name(self) -> str:
        return self.owner.name if self.owner else f"({self.label}, no tenant)"


def check_isolation(
    compiled: Compiled, parsed: dict[str, SwitchConfig], facts: Facts
) -> tuple[list[Violation], list[AllowedException]]:
    """All isolation violations, and the declared exceptions the configs actually use."""
    out: list[Violation] = []
    allowed: dict[tuple[str, str, str], int] = {}
    acls = AclCache(facts)
    holders = _holders(parsed, facts)
    for _name, cfg in parsed.items():
        out += _ports(compiled, cfg, facts, acls, allowed)
        out += _svis(cfg, facts, acls)
    out += _route_targets(holders, facts, allowed)
    out += _vnis(holders, facts)
    out += _transit(compiled, holders)
    exceptions = [
        AllowedException((a, b), mech, f"used on {n} switch object(s)")
        for (a, b, mech), n in sorted(allowed.items())
    ]
    return out, exceptions


def _holders(parsed: dict[str, SwitchConfig], facts: Facts) -> list[Holder]:
    out = []
    for name, cfg in parsed.items():
        for vrf in cfg.vrfs.values():
            out.append(Holder(name, vrf, facts.by_vrf.get(vrf.name)))
        for seg in cfg.segments.values():
            out.append(Holder(name, seg, facts.segment_owner(seg.name, getattr(seg, "label", ""))))
    return out


def _v(check: str, sw: str, obj: str, src: Src | None, missing: str, why: str) -> Violation:
    return Violation(
        check, sw, obj, src.line if src and src.line else None, src.text if src else missing, why
    )


def _ports(
    compiled: Compiled,
    cfg: SwitchConfig,
    facts: Facts,
    acls: AclCache,
    allowed: dict[tuple[str, str, str], int],
) -> list[Violation]:
    out: list[Violation] = []
    sw = cfg.name
    held_names: set[str] = set()
    seen_acl: set[tuple[str, str]] = set()
    for gp in compiled.topology.gpu_ports.get(sw, []):
        intf = cfg.interfaces.get(gp.name)
        held = compiled.allocation.port_owner.get((sw, gp.name))
        where = f"{sw} {gp.name}"
        if intf is None:
            out.append(
                _v(
                    "port-missing",
                    sw,
                    gp.name,
                    None,
                    f"(no interface {gp.name})",
                    f"{gp.server} nic{gp.nic} ({where}): the port's configuration cannot be proven",
                )
            )
            continue
        if held is None:
            out += _unheld(sw, gp, intf)
            continue
        held_names.add(gp.name)
        t = facts.tenants[held[0].name]
        me = f"{held[1].gpu_ip or t.host.split()[0]} ({t.name}, {where})"
        out += _membership(sw, intf, t, me, cfg, facts)
        out += _port_acl(cfg, gp, intf, t, me, facts, acls, allowed, seen_acl)
    out += _foreign_members(compiled, cfg, facts, held_names)
    return out


def _unheld(sw: str, gp: GpuPort, intf: Interface) -> list[Violation]:
    """A GPU port no tenant holds is shut down."""
    out: list[Violation] = []
    where = f"{sw} {gp.name}"
    if intf.shutdown is None:
        reach = f" and is in VRF {intf.vrf.value}" if intf.vrf else ""
        reach += f" and in segment {intf.segment.value}" if intf.segment else ""
        out.append(
            _v(
                "port-not-shut",
                sw,
                gp.name,
                intf.src,
                "",
                f"{gp.server} nic{gp.nic} ({where}) is held by no tenant but is up{reach}: whoever plugs in there joins the fabric (no 'shutdown')",
            )
        )
    return out


def _port_acl(
    cfg: SwitchConfig,
    gp: GpuPort,
    intf: Interface,
    t: TenantFacts,
    me: str,
    facts: Facts,
    acls: AclCache,
    allowed: dict[tuple[str, str, str], int],
    seen_acl: set[tuple[str, str]],
) -> list[Violation]:
    """A held port applies its tenant's inbound ACL, defined on the switch and leaking to no other
    tenant (each ACL proven once per tenant: `seen_acl`); the peerings it lets through are
    counted in `allowed`."""
    out: list[Violation] = []
    sw = cfg.name
    if intf.acl_in is None:
        out.append(
            _v(
                "acl-missing",
                sw,
                gp.name,
                intf.src,
                "",
                f"{me} has no inbound ACL '{t.acl}': nothing filters spoofed or mis-routed traffic to other tenants (defence in depth lost)",
            )
        )
        return out
    acl = cfg.acls.get(intf.acl_in.value)
    if acl is None:
        out.append(
            _v(
                "acl-undefined",
                sw,
                gp.name,
                intf.acl_in.src,
                "",
                f"{me} applies ACL {intf.acl_in.value!r}, which is not defined on {sw}",
            )
        )
        return out
    if intf.acl_in.value != t.acl:
        other = facts.by_acl.get(intf.acl_in.value)
        whose = f" (tenant {other.name}'s)" if other else ""
        out.append(
            _v(
                "acl-foreign",
                sw,
                gp.name,
                intf.acl_in.src,
                "",
                f"{me} applies ACL {intf.acl_in.value}{whose} instead of {t.acl}",
            )
        )
    key = (acl.name, t.name)
    if key in seen_acl:
        return out
    seen_acl.add(key)
    for peer in t.peers:
        if facts.peers(t.name, peer):
            k = tuple(sorted((t.name, peer)))
            allowed[(k[0], k[1], "acl")] = allowed.get((k[0], k[1], "acl"), 0) + 1
    for other, rule in acls.leaks(acl, t):
        out.append(
            _v(
                "acl-leak",
                sw,
                f"ACL {acl.name}",
                rule.src,
                "",
                f"{me} reaches {other.host} through ACL {acl.name}: first match is '{rule.src.text}' (line {rule.src.line}), before any deny",
            )
        )
    return out


def _membership(
    sw: str, intf: Interface, t: TenantFacts, me: str, cfg: SwitchConfig, facts: Facts
) -> list[Violation]:
    """A held port must be in its tenant's VRF (l3) or segment (l2), and nothing else."""
    name = intf.name
    if t.isolation == "l3":
        if intf.vrf is None:
            return [
                _v(
                    "port-vrf",
                    sw,
                    name,
                    intf.src,
                    f"(no VRF {t.vrf})",
                    f"{me} is routed in the global table (the underlay) instead of VRF {t.vrf}",
                )
            ]
        if intf.vrf.value != t.vrf:
            return [_foreign_vrf(sw, name, intf.vrf, t, me, facts)]
        return []
    out = []
    if intf.vrf is not None:
        out.append(
            _foreign_vrf(sw, name, intf.vrf, t, me, facts)
            if intf.vrf.value != t.vrf
            else _v(
                "port-vrf",
                sw,
                name,
                intf.vrf.src,
                "",
                f"{me} is an l2 port but is routed in VRF {intf.vrf.value}",
            )
        )
    if intf.segment is None:
        out.append(
            _v(
                "port-segment",
                sw,
                name,
                intf.src,
                "(no access VLAN/VSI)",
                f"{me} is in no segment of {t.name}",
            )
        )
    else:
        seg = cfg.segments.get(intf.segment.value)
        owner = facts.segment_owner(intf.segment.value, seg.label if seg else "")
        if owner is None or owner.name != t.name:
            whose = owner.host if owner else f"segment {intf.segment.value} (no tenant)"
            out.append(
                _v(
                    "port-segment",
                    sw,
                    name,
                    intf.segment.src,
                    "",
                    f"{me} is bridged into {whose}'s segment {intf.segment.value}",
                )
            )
    return out


def _foreign_vrf(sw: str, name: str, vrf: At[str], t: TenantFacts, me: str, facts: Facts) -> Violation:
    other = facts.by_vrf.get(vrf.value)
    target = other.host if other else f"whatever VRF {vrf.value} routes"
    return _v(
        "port-vrf",
        sw,
        name,
        vrf.src,
        "",
        f"{me} reaches {target} via VRF {vrf.value} (the port belongs to {t.name})",
    )


def _foreign_members(compiled: Compiled, cfg: SwitchConfig, facts: Facts, held: set[str]) -> list[Violation]:
    """Interfaces in a tenant VRF/segment that neither the tenant holds nor serve as its gateway/L3VNI."""
    out = []
    gateways = {seg.gateway.value: seg for seg in cfg.segments.values() if seg.gateway}
    gpu = {gp.name for gp in compiled.topology.gpu_ports.get(cfg.name, [])}
    for intf in cfg.interfaces.values():
        if intf.name in held or (intf.name in gpu and intf.shutdown is not None):
            continue
        if intf.name in gpu:
            continue  # unassigned GPU ports that are up are reported as port-not-shut
        if intf.name in gateways or intf.l3vni is not None:
            continue  # checked by _svis / _vnis
        for at, kind in ((intf.vrf, "VRF"), (intf.segment, "segment")):
            if at is None:
                continue
            owner = facts.by_vrf.get(at.value) if kind == "VRF" else facts.segment_owner(at.value)
            if owner is not None and intf.shutdown is None:
                out.append(
                    _v(
                        "foreign-port",
                        cfg.name,
                        intf.name,
                        at.src,
                        "",
                        f"{cfg.name} {intf.name} is not a port of {owner.name} but joins its {kind} {at.value}: it reaches {owner.host}",
                    )
                )
    return out


def _svis(cfg: SwitchConfig, facts: Facts, acls: AclCache) -> list[Violation]:
    """The anycast gateway of an l2 tenant routes into that tenant's VRF only, behind its ACL."""
    out = []
    for seg in cfg.segments.values():
        owner = facts.segment_owner(seg.name, seg.label)
        if owner is None or seg.gateway is None:
            continue
        svi = cfg.interfaces.get(seg.gateway.value)
        if svi is None:
            out.append(
                _v(
                    "svi-vrf",
                    cfg.name,
                    seg.gateway.value,
                    seg.gateway.src,
                    "",
                    f"segment {seg.name} of {owner.name} names gateway {seg.gateway.value}, which is not configured",
                )
            )
            continue
        me = f"{owner.sample}"
        if svi.vrf is None or svi.vrf.value != owner.vrf:
            other = facts.by_vrf.get(svi.vrf.value) if svi.vrf else None
            target = other.host if other else "the global table (underlay)"
            out.append(
                _v(
                    "svi-vrf",
                    cfg.name,
                    svi.name,
                    svi.vrf.src if svi.vrf else svi.src,
                    "",
                    f"{me} reaches {target} via gateway {svi.name} in VRF {svi.vrf.value if svi.vrf else '(global)'}",
                )
            )
        if svi.acl_in is None:
            out.append(
                _v(
                    "acl-missing",
                    cfg.name,
                    svi.name,
                    svi.src,
                    "",
                    f"gateway {svi.name} of {owner.name} has no inbound ACL '{owner.acl}'",
                )
            )
        elif (acl := cfg.acls.get(svi.acl_in.value)) is None:
            out.append(
                _v(
                    "acl-undefined",
                    cfg.name,
                    svi.name,
                    svi.acl_in.src,
                    "",
                    f"gateway {svi.name} applies ACL {svi.acl_in.value!r}, not defined on {cfg.name}",
                )
            )
        else:
            for other, rule in acls.leaks(acl, owner):
                out.append(
                    _v(
                        "acl-leak",
                        cfg.name,
                        svi.name,
                        rule.src,
                        "",
                        f"{me} reaches {other.host} through gateway {svi.name} ACL {acl.name}: first match is '{rule.src.text}' (line {rule.src.line})",
                    )
                )
    return out


def _route_targets(
    holders: list[Holder], facts: Facts, allowed: dict[tuple[str, str, str], int]
) -> list[Violation]:
    """A VRF/segment may import only RTs its own tenant (or a declared peer VRF) exports."""
    exporters: dict[str, dict[str, Holder | None]] = {}
    for rt, t in facts.by_rt.items():
        # The allocated RT counts as exported by its tenant even where its VRF is not configured yet.
        exporters[rt] = {t.name: None}
    for h in holders:
        for at in h.obj.exports:
            found = exporters.setdefault(at.value, {})
            if found.get(h.owner_name) is None:
                found[h.owner_name] = h
    imports: set[tuple[str, str]] = set()  # (importer, exporter) owner names
    leaks: list[tuple[Holder, At[str], str, Holder | None]] = []
    for h in holders:
        for at in h.obj.imports:
            for other_name, other_h in exporters.get(at.value, {}).items():
                if other_name == h.owner_name:
                    continue
                imports.add((h.owner_name, other_name))
                if h.owner and h.obj.kind == "vrf" and facts.peers(h.owner.name, other_name):
                    k = sorted((h.owner.name, other_name))
                    allowed[(k[0], k[1], "route-target")] = allowed.get((k[0], k[1], "route-target"), 0) + 1
                else:
                    leaks.append((h, at, other_name, other_h))
    out: list[Violation] = []
    for h, at, other_name, other_h in leaks:
        me = h.owner.sample if h.owner else f"every address in {h.label} (no tenant)"
        other_t = facts.tenants.get(other_name)
        target = other_t.host if other_t else other_name
        via = (
            f" (exported by {other_h.label} on {other_h.switch})"
            if other_h
            else f" ({other_name}'s route target)"
        )
        side = (
            "mutual, and not declared by both tenants"
            if (other_name, h.owner_name) in imports
            else f"one-sided: {other_name} does not import it back, and no two-sided exception is declared"
        )
        why = f"{me} reaches {target} via {h.label} importing RT {at.value}{via}; {side}"
        out.append(_v("rt-leak", h.switch, h.label, at.src, "", why))
    present = {h.owner_name for h in holders}
    for a, b in sorted(imports):
        if facts.peers(a, b) and (b, a) not in imports and b in present:
            t, u = facts.tenants[a], facts.tenants[b]
            out.append(
                Violation(
                    "rt-one-sided",
                    "(fabric)",
                    f"VRF {u.vrf}",
                    None,
                    f"(no VRF {u.vrf} imports {t.rt})",
                    f"{a} imports {b}'s routes but {b} never imports {a}'s: the declared exception is "
                    "configured on one side only, so return traffic has no route",
                )
            )
    return out


def _transit(compiled: Compiled, holders: list[Holder]) -> list[Violation]:
    """A spine or super-spine that holds a tenant's VRF or segment, or any VNI, could terminate
    tunnelled tenant traffic in the middle of the fabric, where no port ACL stands."""
    out = []
    for h in holders:
        sw = compiled.fabric.switch(h.switch)
        if sw is None or sw.role == "leaf" or (h.owner is None and not h.obj.vnis):
            continue
        tier = "super-spine" if sw.role == "superspine" else sw.role
        src = h.obj.src if h.obj.src.line else (h.obj.vnis[0].src if h.obj.vnis else None)
        out.append(
            _v(
                "transit-tenant",
                h.switch,
                h.label,
                src,
                f"({h.label})",
                f"{h.switch} is a {tier}: it carries only the underlay and EVPN transit, but holds "
                f"{h.label} of {h.owner_name}, so tenant traffic could leave VXLAN there",
            )
        )
    return out


def _vnis(holders: list[Holder], facts: Facts) -> list[Violation]:
    """One VNI, one VRF/segment, fabric-wide (also on disjoint leaves); and the allocated one."""
    out: list[Violation] = []
    first: dict[int, Holder] = {}
    for h in holders:
        distinct = {at.value for at in h.obj.vnis}
        if len(distinct) > 1:
            at = h.obj.vnis[-1]
            out.append(
                _v(
                    "vni-conflict",
                    h.switch,
                    h.label,
                    at.src,
                    "",
                    f"{h.label} is mapped to VNIs {sorted(distinct)} on {h.switch}",
                )
            )
        for at in h.obj.vnis:
            owner = facts.by_vni.get(at.value)
            if h.owner is not None:
                want = h.owner.l3vni if h.obj.kind == "vrf" else h.owner.l2vni
                if at.value != want:
                    whose = f" which belongs to {owner.name}" if owner and owner.name != h.owner.name else ""
                    out.append(
                        _v(
                            "vni-mismatch",
                            h.switch,
                            h.label,
                            at.src,
                            "",
                            f"{h.label} of {h.owner.name} uses VNI {at.value}{whose} instead of {want}: traffic decapsulated from VNI {at.value} lands in {h.owner.name}'s table",
                        )
                    )
            elif owner is not None:
                out.append(
                    _v(
                        "vni-mismatch",
                        h.switch,
                        h.label,
                        at.src,
                        "",
                        f"{h.label} (no tenant) uses VNI {at.value} of {owner.name}: {owner.host}'s traffic lands there",
                    )
                )
            prev = first.setdefault(at.value, h)
            if prev is not h and (prev.owner_name, prev.obj.kind) != (h.owner_name, h.obj.kind):
                me = h.owner.sample if h.owner else h.label
                target = prev.owner.host if prev.owner else prev.label
                out.append(
                    _v(
                        "vni-shared",
                        h.switch,
                        h.label,
                        at.src,
                        "",
                        f"{me} reaches {target} via VNI {at.value}, mapped to {h.label} on {h.switch} and to {prev.label} on {prev.switch}",
                    )
                )
    return out
