"""Intent and config goldens: the reviewable artifacts of the example fabrics, byte for byte.

A failing golden prints a unified diff; `python tests/regen_goldens.py` rewrites them all.
"""

from __future__ import annotations

import pytest

from fabricctl.artifacts import intent_yaml
from fabricctl.compile.build import Compiled
from tests.conftest import EOS_SMALL, GOLDEN, NVUE_SMALL, REFERENCE, assert_golden, render_one

#: (golden folder, fixture name, fabric root, switches): a representative subset of the reference
#: fabric (a spine, a leaf of each pod, one leaf that carries many small tenants) and all of eos-small.
FABRICS = {
    "reference": ("reference", REFERENCE, ["spine01", "leaf01", "leaf17", "leaf25"]),
    "eos-small": ("eos_small", EOS_SMALL, ["spine1", "spine2", "leaf1", "leaf2", "leaf3", "leaf4"]),
    "nvue-small": ("nvue_small", NVUE_SMALL, ["spine1", "leaf1", "leaf2"]),
}
CASES = [(fabric, switch) for fabric, (_, _, switches) in FABRICS.items() for switch in switches]


def _compiled(request: pytest.FixtureRequest, fabric: str) -> Compiled:
    compiled = request.getfixturevalue(FABRICS[fabric][0])
    assert isinstance(compiled, Compiled)
    return compiled


@pytest.mark.parametrize(("fabric", "switch"), CASES)
def test_intent_golden(fabric: str, switch: str, request: pytest.FixtureRequest) -> None:
    intent = _compiled(request, fabric).intents[switch]
    assert_golden(GOLDEN / fabric / f"{switch}.intent.yaml", intent_yaml(intent))


@pytest.mark.parametrize(("fabric", "switch"), CASES)
def test_config_golden(fabric: str, switch: str, request: pytest.FixtureRequest) -> None:
    text = render_one(_compiled(request, fabric).intents[switch], FABRICS[fabric][1])
    assert_golden(GOLDEN / fabric / f"{switch}.cfg", text)


def test_no_stale_goldens() -> None:
    """Every file under tests/golden/ belongs to a case above (a renamed switch leaves none behind)."""
    expected = {
        f"{fabric}/{switch}{suffix}" for fabric, switch in CASES for suffix in (".intent.yaml", ".cfg")
    }
    found = {p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*") if p.is_file()}
    # tests/gitops, tests/test_expansion.py and tests/test_sonic.py check their own
    found = {f for f in found if not f.startswith(("gitops/", "expansion/", "sonic-small/"))}
    assert found <= expected, sorted(found - expected)
