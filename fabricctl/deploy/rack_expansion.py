"""Expansion without touching live pods: what a plan that brings new racks does to the switches
already in service, proven from its diffs.

New switches are those of racks not accepted yet (racks/<rack>.yaml without a passing record).
On every other switch the plan changes, each changed line must belong to a new link's port (the
`interface` section of a port whose cable goes to a new switch) or to a BGP session with a new
switch (a line naming one of its addresses); and no tenant's objects may change there
(deploy/impact.py attributes each line). Anything else is named: line, switch and section. So a
plan for a new rack can be applied to the rack and its far ends only (`--limit rack:NAME`).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from fabricctl.deploy.impact import FREE, attribute, changed_lines, tenant_tokens

if TYPE_CHECKING:
    from fabricctl.compile.build import Compiled
    from fabricctl.deploy.plan import Plan


@dataclass
class ExpansionProof:
    racks: list[str]  # the racks not accepted yet
    new: list[str]  # their switches
    existing: list[str] = field(default_factory=list)  # switches in service the plan changes
    port_lines: int = 0  # changed lines in the new links' ports
    session_lines: int = 0  # changed lines of BGP sessions with new switches
    ports: int = 0  # new links' ports on switches in service
    violations: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ok": self.ok}


def new_racks(compiled: Compiled) -> dict[str, list[str]]:
    """rack -> its switches, for the racks not accepted (as they are now)."""
    from fabricctl.model.problems import ProblemLog
    from fabricctl.model.rack import accepted, load_racks

    root = compiled.fabric.root
    return {
        rd.rack.name: [s.name for s in rd.rack.switches if s.name in compiled.intents]
        for rd in load_racks(root, ProblemLog(root))
        if not accepted(root, rd)[0]
    }


def switch_addresses(compiled: Compiled, names: set[str]) -> set[str]:
    """The loopback and interface addresses of `names` (what BGP sessions with them name)."""
    out: set[str] = set()
    for name in names:
        intent = compiled.intents[name]
        out |= {lo.ipv4.split("/")[0] for lo in intent.loopbacks}
        out |= {i.ipv4.split("/")[0] for i in intent.interfaces if i.ipv4}
    return out


def expansion_proof(compiled: Compiled, plan: Plan) -> ExpansionProof | None:
    """The proof for `plan`, or None when no rack waits for acceptance or the plan changes
    nothing of theirs (a tenant change while racks arrive is judged as any other)."""
    racks = new_racks(compiled)
    new = {s for names in racks.values() for s in names}
    if not new:
        return None
    proof = ExpansionProof(sorted(racks), [s for s in compiled.intents if s in new])
    ports: dict[str, set[str]] = {}
    for ln in compiled.topology.links:
        if ln.leaf in new and ln.spine not in new:
            ports.setdefault(ln.spine, set()).add(ln.spine_port)
        elif ln.spine in new and ln.leaf not in new:
            ports.setdefault(ln.leaf, set()).add(ln.leaf_port)
    proof.ports = sum(len(p) for p in ports.values())
    addresses = switch_addresses(compiled, new)
    theirs = re.compile(r"(?<![\w.])(" + "|".join(re.escape(a) for a in sorted(addresses)) + r")(?![\w.])")
    for name in plan.changed:
        if name in new:
            continue
        proof.existing.append(name)
        diff = plan.switches[name].diff
        mine = ports.get(name, set())
        for kind, path in changed_lines(diff):
            top = path[0]
            if top.startswith("interface ") and top.split(" ", 1)[1] in mine:
                proof.port_lines += 1
            elif addresses and theirs.search(path[-1]):
                proof.session_lines += 1
            else:
                where = f" (in {top})" if len(path) > 1 else ""
                proof.violations.append(
                    f"{name}: {kind}{path[-1]}{where} is neither a new link's port nor a session with a new switch"
                )
        intent = compiled.intents.get(name)
        owners = attribute(diff, tenant_tokens(intent)) if intent is not None else {}
        for tenant in sorted(t for t in owners if t not in ("", FREE)):
            proof.violations.append(f"{name}: tenant {tenant}'s config changes on a switch in service")
    if not (proof.port_lines or proof.session_lines or any(n in new for n in plan.changed)):
        return None  # the plan brings no new rack closer: it is not an expansion
    return proof


def proof_line(data: dict[str, Any]) -> str:
    """One line for the plan report from `plan.changes["racks"]`."""
    racks = ", ".join(data["racks"])
    if not data["existing"]:
        return f"racks {racks} (not accepted): no switch in service changes"
    head = (
        f"racks {racks} (not accepted): on {len(data['existing'])} switch(es) in service "
        f"({', '.join(data['existing'])}) "
    )
    if data["ok"]:
        return head + (
            f"only the new links' ports ({data['ports']} ports, {data['port_lines']} lines) and BGP sessions "
            f"with the new switches ({data['session_lines']} lines) change; no tenant's config changes"
        )
    return (
        head
        + f"{len(data['violations'])} change(s) outside the new links: "
        + "; ".join(data["violations"][:5])
    )
