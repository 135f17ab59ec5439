"""The compiler reads the model once (compile/view.py): the view answers as the model does, and
no other compile module asks the model's own queries again."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from fabricctl.compile.view import read_fabric, switch_model
from fabricctl.model.fabric import cable_meters, expand_ports
from fabricctl.model.load import load_fabric
from fabricctl.model.problems import ProblemLog
from tests.conftest import EOS_SMALL, NVUE_SMALL, REFERENCE, REPO

#: What only compile/view.py may call: the model's queries the view answers from what it read.
MODEL_QUERIES = frozenset({"expand_ports", "cable_meters", "switch_model"})


def model_queries(source: str) -> list[str]:
    """Calls of MODEL_QUERIES in `source`, and `Fabric` role lists asked of a `fabric` (line: what)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = (
                func.id
                if isinstance(func, ast.Name)
                else func.attr
                if isinstance(func, ast.Attribute)
                else ""
            )
            if name in MODEL_QUERIES:
                out.append(f"line {node.lineno}: {name}()")
    return out


def test_only_the_view_asks_the_model_its_queries() -> None:
    found = [
        f"{path.relative_to(REPO)} {q}"
        for path in sorted((REPO / "fabricctl" / "compile").glob("*.py"))
        if path.name != "view.py"
        for q in model_queries(path.read_text(encoding="utf-8"))
    ]
    assert not found, "\n".join(found)


def test_a_planted_query_is_found() -> None:
    """The check above finds what it is for (a test of the test)."""
    assert model_queries("def f(cab):\n    return expand_ports(cab.leaf_uplink_ports)\n")
    assert model_queries("x = fabric_model.cable_meters('3m')\n")
    assert not model_queries("x = view.ports.leaf_uplinks\n")


@pytest.mark.parametrize("root", [REFERENCE, EOS_SMALL, NVUE_SMALL, REPO / "examples" / "multipod-10k"])
def test_the_view_answers_as_the_model_does(root: Path) -> None:
    fabric = load_fabric(root, ProblemLog(root))
    assert fabric is not None
    view = read_fabric(fabric)
    assert read_fabric(view) is view
    assert list(view.switches) == fabric.switches
    assert (list(view.spines), list(view.leaves), list(view.superspines)) == (
        fabric.spines,
        fabric.leaves,
        fabric.superspines,
    )
    assert list(view.pods) == fabric.pods
    cab, pods = fabric.settings.cabling, fabric.settings.pods
    assert list(view.ports.leaf_uplinks) == expand_ports(cab.leaf_uplink_ports)
    assert list(view.ports.leaf_gpu_ports) == expand_ports(cab.leaf_gpu_ports)
    assert list(view.ports.spine_downlinks) == expand_ports(cab.spine_downlink_ports)
    if pods is not None:
        assert list(view.ports.spine_uplinks) == expand_ports(pods.spine_uplink_ports)
        assert list(view.ports.superspine_downlinks) == expand_ports(pods.superspine_downlink_ports)
    assert (view.uplink_meters, view.gpu_meters) == (
        cable_meters(cab.uplink_cable),
        cable_meters(cab.gpu_cable),
    )
    for sw in fabric.switches:
        assert view.switch(sw.name) is sw and view.model(sw) == switch_model(sw)
    for pod in fabric.pods:
        for role in ("leaf", "spine"):
            assert view.in_pod(role, pod) == fabric.in_pod(role, pod)
    for plane in range(1, 65):
        for role in ("spine", "superspine"):
            assert view.in_plane(role, plane) == fabric.in_plane(role, plane)
