"""The import graph: no cycle anywhere, and every import points down the pipeline (docs/architecture.md).

Every `import` counts, at module level or inside a function (a lazy import is still a dependency).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO

PACKAGE = REPO / "fabricctl"

#: Layers, lowest first. A module may import its own layer's modules and those of layers below.
LAYERS: list[tuple[str, ...]] = [
    (
        "fabricctl",
        "fabricctl.errors",
        "fabricctl.outputs",
        "fabricctl.secrets",
        "fabricctl.procs",
        "fabricctl.stamps",
        "fabricctl.store",
        "fabricctl.logs",
        "fabricctl.gitinfo",
        "fabricctl.httpserve",
    ),
    ("fabricctl.config",),  # config text as data: line tree, read-back model, remediation
    ("fabricctl.platforms",),  # one package per NOS
    ("fabricctl.model",),  # the inputs people write
    ("fabricctl.compile",),  # topology, allocation, DeviceIntent
    ("fabricctl.lab",),  # the twin fabric (inventory and cabling in, SSH/eAPI out)
    ("fabricctl.render", "fabricctl.artifacts"),
    ("fabricctl.verify",),
    ("fabricctl.deploy", "fabricctl.telemetry"),  # telemetry: the exporter, over compile and platforms
    ("fabricctl.pipeline",),  # one public function per stage: what cli/, GitOps and tests call
    ("fabricctl.report",),
    ("fabricctl.cli", "fabricctl.__main__"),
]
#: The lab is an independent device model: it must not learn from what fabricctl emits.
LAB_MAY_NOT_IMPORT = ("fabricctl.platforms", "fabricctl.config", "fabricctl.render", "fabricctl.templates")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}


def imports_of(name: str) -> set[str]:
    """fabricctl modules `name` imports, anywhere in its body."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            targets = [f"{node.module}.{alias.name}" for alias in node.names] + [node.module]
        else:
            continue
        for target in targets:
            if target.startswith("fabricctl"):
                while target not in MODULES and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in MODULES and target != name:
                    found.add(target)
    return found


GRAPH = {name: imports_of(name) for name in MODULES}


def layer_of(name: str) -> int:
    best = (-1, -1)  # (prefix length, layer): the longest matching prefix decides
    for rank, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if name == prefix or name.startswith(prefix + "."):
                best = max(best, (len(prefix), rank))
    assert best[1] >= 0, f"{name} is in no layer: add it to LAYERS (and docs/architecture.md)"
    return best[1]


def test_every_module_has_a_layer() -> None:
    for name in MODULES:
        if not name.startswith("fabricctl.templates"):
            layer_of(name)


def test_imports_point_down() -> None:
    upward = [
        f"{name} (layer {layer_of(name)}) imports {dep} (layer {layer_of(dep)})"
        for name, deps in sorted(GRAPH.items())
        for dep in sorted(deps)
        if not name.startswith("fabricctl.templates") and layer_of(dep) > layer_of(name)
    ]
    assert not upward, "\n".join(upward)


def test_no_import_cycle() -> None:
    """Tarjan's strongly connected components: any component of two or more modules is a cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    assert not cycles, cycles


def test_the_lab_is_independent_of_what_fabricctl_emits() -> None:
    leaks = [
        f"{name} imports {dep}"
        for name, deps in sorted(GRAPH.items())
        if name.startswith("fabricctl.lab")
        for dep in sorted(deps)
        if dep.startswith(LAB_MAY_NOT_IMPORT)
    ]
    assert not leaks, "\n".join(leaks)
