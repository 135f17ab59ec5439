"""Property tests: determinism and stability of the compile stage on random valid tenant sets.

Tenant sets are generated on the eos-small fabric (8 servers x 4 GPUs on 4 leaves): random ids,
isolation, GPU picks without overlap (named by server, server+nics or leaf+ports), address blocks
without overlap, two-sided exceptions among the bystanders.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from fabricctl import pipeline
from fabricctl.artifacts import intent_yaml
from fabricctl.compile.build import Compiled
from fabricctl.compile.intent import DeviceIntent
from fabricctl.model.tenant import Tenant
from tests.conftest import EOS_SMALL, REFERENCE, copy_fabric

SERVERS = [f"node{n:02d}" for n in range(1, 9)]
NICS = 4
SLOTS = [(server, nic) for server in SERVERS for nic in range(NICS)]
PROPERTY_SETTINGS = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@dataclass(frozen=True)
class TenantSpec:
    """A generated tenant: everything needed to write its YAML file."""

    id: int
    isolation: str
    slots: tuple[tuple[str, int], ...]
    net: int  # third octet of 10.100.<net>.0: distinct per tenant, so blocks never overlap
    slack: int  # extra prefix bits beyond the smallest block that fits
    forms: tuple[int, ...]  # per server group: 0 servers / 1 server+nics / 2 leaf+ports
    shared_with: tuple[str, ...] = field(default=())

    @property
    def name(self) -> str:
        return f"t{self.id}"

    def block(self) -> str:
        need = 2 * len(self.slots) if self.isolation == "l3" else len(self.slots) + 3
        prefix = max(24, 32 - (need - 1).bit_length() - self.slack)
        return f"10.100.{self.net}.0/{prefix}"

    def yaml(self) -> str:
        lines = [
            "---",
            f"name: {self.name}",
            f"id: {self.id}",
            f"description: Generated tenant {self.id}",
            f"isolation: {self.isolation}",
            f"address_block: {self.block()}",
            "gpus:",
        ]
        groups: dict[str, list[int]] = {}
        for server, nic in self.slots:  # declared order: first appearance of each server
            groups.setdefault(server, []).append(nic)
        for k, (server, nics) in enumerate(groups.items()):
            form = self.forms[k % len(self.forms)]
            if form == 0 and sorted(nics) == list(range(NICS)) and nics == sorted(nics):
                lines.append(f"  - servers: [{server}]")
            elif form == 2:
                port = 9 + SERVERS.index(server)  # leaf r, port 8+s is server s NIC r
                for nic in nics:
                    lines.append(f"  - leaf: leaf{nic + 1}\n    ports: [{port}]")
            else:
                lines.append(f"  - server: {server}\n    nics: [{', '.join(map(str, nics))}]")
        if self.shared_with:
            lines.append(f"shared_with: [{', '.join(self.shared_with)}]")
        return "\n".join(lines) + "\n"


@st.composite
def tenant_specs(
    draw: st.DrawFn, ids: list[int], nets: list[int], slots: list[tuple[str, int]]
) -> TenantSpec:
    """One tenant on the given GPU slots (not empty), with the first of `ids`/`nets`."""
    return TenantSpec(
        id=ids[0],
        isolation=draw(st.sampled_from(["l3", "l2"])),
        slots=tuple(slots),
        net=nets[0],
        slack=draw(st.integers(0, 2)),
        forms=tuple(draw(st.lists(st.integers(0, 2), min_size=1, max_size=3))),
    )


@dataclass
class Scenario:
    """A valid tenant set, plus the spare ids, networks and GPU slots a change may use."""

    tenants: list[TenantSpec]
    spare_id: int
    spare_net: int
    free: list[tuple[str, int]]


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    n = draw(st.integers(1, 5))
    ids = draw(st.lists(st.integers(1, 600), min_size=n + 1, max_size=n + 1, unique=True))
    nets = draw(st.lists(st.integers(0, 255), min_size=n + 1, max_size=n + 1, unique=True))
    order = draw(st.permutations(SLOTS))
    sizes = [draw(st.integers(1, 5)) for _ in range(n)]
    tenants: list[TenantSpec] = []
    pos = 0
    for i, size in enumerate(sizes):
        tenants.append(draw(tenant_specs([ids[i]], [nets[i]], list(order[pos : pos + size]))))
        pos += size
    # Two-sided exceptions among the bystanders (tenants[1:]); tenants[0] is the one that changes.
    names = [t.name for t in tenants[1:]]
    pairs = (
        draw(st.lists(st.tuples(st.sampled_from(names), st.sampled_from(names)), max_size=3)) if names else []
    )
    peers: dict[str, set[str]] = {}
    for a, b in pairs:
        if a != b:
            peers.setdefault(a, set()).add(b)
            peers.setdefault(b, set()).add(a)
    tenants = [replace(t, shared_with=tuple(sorted(peers.get(t.name, ())))) for t in tenants]
    return Scenario(tenants, ids[n], nets[n], list(order[pos:]))


@contextmanager
def fabric_with(tenants: list[TenantSpec], reverse: bool = False) -> Iterator[Path]:
    """A temporary copy of eos-small whose tenants/ holds exactly `tenants`."""
    with tempfile.TemporaryDirectory(prefix="fabricctl-prop-") as tmp:
        root = Path(tmp) / "fabric"
        copy_fabric(EOS_SMALL, root)
        for f in (root / "tenants").iterdir():
            f.unlink()
        for t in reversed(tenants) if reverse else tenants:
            (root / "tenants" / f"{t.name}.yaml").write_text(t.yaml(), encoding="utf-8")
        yield root


def compile_specs(tenants: list[TenantSpec], reverse: bool = False) -> Compiled:
    with fabric_with(tenants, reverse) as root:
        return pipeline.compile(root)


def _yamls(compiled: Compiled) -> dict[str, str]:
    return {name: intent_yaml(intent) for name, intent in compiled.intents.items()}


# --- (a) determinism --------------------------------------------------------------------------


@PROPERTY_SETTINGS
@given(scenarios())
def test_same_inputs_give_byte_identical_intents(scenario: Scenario) -> None:
    first = _yamls(compile_specs(scenario.tenants))
    again = _yamls(compile_specs(scenario.tenants))
    other_order = _yamls(compile_specs(scenario.tenants, reverse=True))  # other dir, other write order
    assert first == again == other_order
    assert list(first) == ["spine1", "spine2", "leaf1", "leaf2", "leaf3", "leaf4"]


def _fingerprint(root: Path, seed: str) -> str:
    code = (
        "import hashlib, sys; from pathlib import Path;"
        "from fabricctl import pipeline; from fabricctl.artifacts import intent_yaml;"
        "c = pipeline.compile(Path(sys.argv[1]));"
        "print(hashlib.sha256(''.join(intent_yaml(i) for i in c.intents.values()).encode()).hexdigest())"
    )
    env = {**os.environ, "PYTHONHASHSEED": seed}
    out = subprocess.run(
        [sys.executable, "-c", code, str(root)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return out.stdout.strip()


def test_reference_intents_do_not_depend_on_hash_seed(reference: Compiled) -> None:
    """Set/dict iteration order must never leak into output: two processes, two hash seeds."""
    here = hashlib.sha256("".join(intent_yaml(i) for i in reference.intents.values()).encode()).hexdigest()
    assert _fingerprint(REFERENCE, "1") == _fingerprint(REFERENCE, "4242") == here


# --- (b) stability ----------------------------------------------------------------------------


def _objects(intent: DeviceIntent, tenant: str) -> dict[str, Any]:
    """Everything on one switch that belongs to `tenant`, keyed per object."""
    out: dict[str, Any] = {}
    for vrf in intent.vrfs:
        if vrf.tenant == tenant:
            out[f"vrf {vrf.name}"] = vrf.model_dump()
    for vlan in intent.vlans:
        if vlan.tenant == tenant:
            out[f"vlan {vlan.id}"] = vlan.model_dump()
    for acl in intent.acls:
        if acl.tenant == tenant:
            out[f"acl {acl.name}"] = acl.model_dump()
    for intf in intent.interfaces:
        if intf.tenant == tenant:
            out[f"interface {intf.name}"] = intf.model_dump()
    return out


@st.composite
def changes(draw: st.DrawFn) -> tuple[Scenario, str, list[TenantSpec]]:
    """A scenario, what happens to one tenant, and the tenant set after that change."""
    scenario = draw(scenarios())
    target = scenario.tenants[0]
    op = draw(st.sampled_from(["add", "remove", "resize"]))
    if op == "add":
        take = draw(st.integers(1, min(6, len(scenario.free))))
        new = draw(tenant_specs([scenario.spare_id], [scenario.spare_net], scenario.free[:take]))
        return scenario, new.name, [*scenario.tenants, new]
    if op == "remove":
        return scenario, target.name, scenario.tenants[1:]
    grow = draw(st.integers(-(len(target.slots) - 1), min(6, len(scenario.free))))
    if grow == 0:
        grow = 1
    slots = target.slots[:grow] if grow < 0 else (*target.slots, *scenario.free[:grow])
    return scenario, target.name, [replace(target, slots=tuple(slots)), *scenario.tenants[1:]]


@PROPERTY_SETTINGS
@given(changes())
def test_one_tenant_change_touches_only_that_tenant(change: tuple[Scenario, str, list[TenantSpec]]) -> None:
    scenario, changed, after_specs = change
    before = compile_specs(scenario.tenants)
    after = compile_specs(after_specs)
    lands: set[str] = set()
    for compiled in (before, after):
        lands |= {leaf for a in compiled.allocation.tenants if a.name == changed for leaf in a.leaves}
    assert lands, "the changed tenant lands somewhere"
    others = [t.name for t in after_specs if t.name != changed]
    old_numbers = {a.name: (a.l3vni, a.l2vni, a.vlan, a.route_target) for a in before.allocation.tenants}
    for a in after.allocation.tenants:
        if a.name != changed:
            assert (a.l3vni, a.l2vni, a.vlan, a.route_target) == old_numbers[a.name], a.name
    for switch, intent in after.intents.items():
        old = before.intents[switch]
        if switch not in lands:
            assert intent_yaml(intent) == intent_yaml(old), (
                f"{switch} changed but {changed} does not land there"
            )
            continue
        for other in others:
            assert _objects(intent, other) == _objects(old, other), f"{other} changed on {switch}"
    # The change is real: the changed tenant's objects differ on at least one switch.
    assert any(_objects(after.intents[s], changed) != _objects(before.intents[s], changed) for s in lands)


# --- free text can never inject a CLI line ----------------------------------------------------


BASE_TENANT: dict[str, Any] = {
    "name": "alpha",
    "id": 1,
    "isolation": "l3",
    "address_block": "10.0.0.0/31",
    "gpus": [{"server": "node01", "nics": [0]}],
}


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=90))
def test_accepted_descriptions_are_single_safe_lines(text: str) -> None:
    try:
        tenant = Tenant.model_validate({**BASE_TENANT, "description": text})
    except ValidationError:
        return
    desc = tenant.description
    assert 1 <= len(desc) <= 80
    assert desc[0].isalnum() and desc.isprintable() and desc.isascii()
    assert not set(desc) & set("\n\r\t|?!#;\"'`$\\<>{}[]~^*%")


@pytest.mark.parametrize(
    "text", ["x\n shutdown", "a | b", "?", "ok! no", "#comment", "end\r", "tab\there", " lead"]
)
def test_injection_attempts_are_rejected(text: str) -> None:
    with pytest.raises(ValidationError):
        Tenant.model_validate({**BASE_TENANT, "description": text})


@PROPERTY_SETTINGS
@given(scenarios())
def test_intent_yaml_reads_back_as_the_intent(scenario: Scenario) -> None:
    """The hand-laid YAML emitter (artifacts.py) round-trips through a YAML parser, every time."""
    for intent in compile_specs(scenario.tenants).intents.values():
        assert yaml.safe_load(intent_yaml(intent)) == intent.model_dump(mode="json"), intent.name
