"""Property: any valid tenant set on the EOS example fabric renders configs that verify clean.

Random ids, isolation models, lossless flags, GPU picks without overlap, address blocks without
overlap and random mutual shared_with pairs; the declared pairs are exactly the exceptions shown.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import TypedDict

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fabricctl import pipeline

from .conftest import FABRICS

EOS_SMALL = FABRICS["eos"]
GPUS = [(server, nic) for server in range(1, 9) for nic in range(4)]  # node01..08 x 4 NICs


class GenTenant(TypedDict):
    name: str
    id: int
    isolation: str
    lossless: bool
    block: str  # an address block
    gpus: list[tuple[int, list[int]]]  # (server number, NICs)
    shared: set[str]  # shared_with


@st.composite
def tenant_sets(draw: st.DrawFn) -> list[GenTenant]:
    n = draw(st.integers(1, 6))
    ids = draw(st.lists(st.integers(1, 900), min_size=n, max_size=n, unique=True))
    picked = draw(st.permutations(GPUS))[: draw(st.integers(n, len(GPUS)))]
    cuts = (
        sorted(draw(st.lists(st.integers(1, len(picked) - 1), max_size=n - 1, unique=True))) if n > 1 else []
    )
    if len(cuts) < n - 1:  # not enough distinct cut points: fewer tenants
        n = len(cuts) + 1
    bounds = [0, *cuts, len(picked)]
    blocks = draw(st.lists(st.integers(0, 4095), min_size=n, max_size=n, unique=True))
    tenants: list[GenTenant] = []
    for i in range(n):
        gpus = picked[bounds[i] : bounds[i + 1]]
        by_server: dict[int, list[int]] = {}
        for server, nic in gpus:
            by_server.setdefault(server, []).append(nic)
        b = blocks[i]
        tenants.append(
            {
                "name": f"t{ids[i]}",
                "id": ids[i],
                "isolation": draw(st.sampled_from(["l3", "l2"])),
                "lossless": draw(st.booleans()),
                "block": f"172.{16 + b // 256}.{b % 256}.0/{draw(st.sampled_from([24, 25, 26]))}",
                "gpus": sorted(by_server.items()),
                "shared": set(),
            }
        )
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=4))
    for a, b in pairs:
        if a != b:
            tenants[a]["shared"].add(tenants[b]["name"])
            tenants[b]["shared"].add(tenants[a]["name"])
    return tenants


def write(root: Path, tenants: list[GenTenant]) -> None:
    shutil.copytree(EOS_SMALL / "inventory", root / "inventory")
    (root / "tenants").mkdir()
    for t in tenants:
        gpus = "".join(f"  - server: node{s:02d}\n    nics: {sorted(nics)}\n" for s, nics in t["gpus"])
        shared = f"shared_with: [{', '.join(sorted(t['shared']))}]\n" if t["shared"] else ""
        (root / "tenants" / f"{t['name']}.yaml").write_text(
            f"name: {t['name']}\nid: {t['id']}\ndescription: Property tenant\nisolation: {t['isolation']}\n"
            f"address_block: {t['block']}\nlossless: {str(t['lossless']).lower()}\ngpus:\n{gpus}{shared}",
            encoding="utf-8",
        )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tenant_sets())
def test_random_valid_tenant_sets_verify_clean(tenants: list[GenTenant]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write(root, tenants)
        compiled = pipeline.compile(root)
        report = pipeline.verify(compiled, pipeline.render(compiled.intents, root))
    assert report.violations == [], report.violations[:5]
    declared = {tuple(sorted((str(t["name"]), p))) for t in tenants for p in t["shared"]}
    shown = {e.tenants for e in report.exceptions}
    assert shown == declared
    assert {row.scope for row in report.capacity if row.metric == "tenant GPUs"} == {
        t["name"] for t in tenants
    }
