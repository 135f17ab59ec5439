"""The import graph: no cycle anywhere, and every import points down the pipeline (docs/architecture.md);
and no function over 80 lines without the reason written next to it.

Every `import` counts, at module level or inside a function (a lazy import is still a dependency),
relative imports too. Each rule is a function of a module graph that returns what breaks it; the
tests run them on fabricctl/ and, to show they can fail, on small packages with a planted
violation.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.conftest import REPO

PACKAGE = REPO / "fabricctl"

Layers = Sequence[tuple[str, ...]]
Graph = Mapping[str, set[str]]

#: Layers, lowest first. A module may import its own layer's modules and those of layers below.
#: A name with a dot covers its modules below it; the top package's name (`fabricctl`) only itself.
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
        "fabricctl.endpoints",
        "fabricctl.macs",
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
    ("fabricctl.report", "fabricctl.scaffold"),  # scaffold: the files `fabricctl init` writes
    ("fabricctl.cli", "fabricctl.__main__"),
]
#: The lab is an independent device model: it must not learn from what fabricctl emits.
LAB_MAY_NOT_IMPORT = ("fabricctl.platforms", "fabricctl.config", "fabricctl.render", "fabricctl.templates")


def source_modules(package: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every module of `package` (a folder with __init__.py)."""
    modules: dict[str, Path] = {}
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _absolute(name: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The module an ImportFrom names, relative imports resolved against module `name`."""
    if node.level == 0:
        return node.module or ""
    base = name.split(".")
    base = base[: len(base) - node.level + (1 if is_package else 0)]
    return ".".join([*base, node.module] if node.module else base)


def imports_of(name: str, modules: Mapping[str, Path]) -> set[str]:
    """The modules of `modules` that module `name` imports, anywhere in its body."""
    path = modules[name]
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(name, is_package, node)
            targets = [f"{module}.{alias.name}" for alias in node.names] + [module]
        else:
            continue
        for target in targets:
            while target not in modules and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in modules and target != name:
                found.add(target)
    return found


def import_graph(modules: Mapping[str, Path]) -> dict[str, set[str]]:
    return {name: imports_of(name, modules) for name in modules}


def layer_of(name: str, layers: Layers) -> int | None:
    """The layer of module `name`: its longest matching entry decides; None when none matches."""
    best: tuple[int, int] | None = None  # (entry length, layer)
    for rank, entries in enumerate(layers):
        for entry in entries:
            covers = name == entry or ("." in entry and name.startswith(entry + "."))
            if covers and (best is None or len(entry) > best[0]):
                best = (len(entry), rank)
    return None if best is None else best[1]


def unlayered(modules: Mapping[str, Path], layers: Layers) -> list[str]:
    """Modules in no layer."""
    return [name for name in sorted(modules) if layer_of(name, layers) is None]


def upward_imports(graph: Graph, layers: Layers) -> list[str]:
    """Every import of a module in a higher layer than the importer's."""
    found = []
    for name, deps in sorted(graph.items()):
        mine = layer_of(name, layers)
        for dep in sorted(deps):
            theirs = layer_of(dep, layers)
            if mine is not None and theirs is not None and theirs > mine:
                found.append(f"{name} (layer {mine}) imports {dep} (layer {theirs})")
    return found


def import_cycles(graph: Graph) -> list[list[str]]:
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
        for w in sorted(graph.get(v, set())):
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

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def forbidden_imports(graph: Graph, importers: str, forbidden: tuple[str, ...]) -> list[str]:
    """Imports by the modules under `importers` of modules under any of `forbidden`."""
    return [
        f"{name} imports {dep}"
        for name, deps in sorted(graph.items())
        if name == importers or name.startswith(importers + ".")
        for dep in sorted(deps)
        if dep.startswith(forbidden)
    ]


#: A function or method longer than this (its `def` line to its body's last) needs a reason.
LONG_FUNCTION = 80
#: The reason, alone on the line directly above the function (above its decorators, if any).
LONG_REASON = re.compile(r"^\s*# long: \S")


def long_functions(package: Path, limit: int = LONG_FUNCTION) -> list[str]:
    """Every function or method of `package` (nested ones too) over `limit` lines, its `def` line
    to its body's last, without a `# long: <reason>` line directly above it."""
    found = []
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])  # 1-based
            above = lines[first - 2] if first >= 2 else ""
            if length > limit and not LONG_REASON.match(above):
                rel = path.relative_to(package.parent).as_posix()
                found.append(f"{rel}:{node.lineno} {node.name} is {length} lines")
    return found


MODULES = source_modules(PACKAGE)
GRAPH = import_graph(MODULES)


def test_every_module_has_a_layer() -> None:
    assert not unlayered(MODULES, LAYERS), "add them to LAYERS (and docs/architecture.md)"


def test_imports_point_down() -> None:
    upward = upward_imports(GRAPH, LAYERS)
    assert not upward, "\n".join(upward)


def test_no_import_cycle() -> None:
    cycles = import_cycles(GRAPH)
    assert not cycles, cycles


def test_the_lab_is_independent_of_what_fabricctl_emits() -> None:
    leaks = forbidden_imports(GRAPH, "fabricctl.lab", LAB_MAY_NOT_IMPORT)
    assert not leaks, "\n".join(leaks)


def test_no_long_function_without_a_reason() -> None:
    long = long_functions(PACKAGE)
    assert not long, "split them, or write `# long: <reason>` directly above:\n" + "\n".join(long)


# --- the checks catch what they are for: a small package with each violation planted ----------


def _package(root: Path, files: dict[str, str]) -> dict[str, Path]:
    """A package `pkg` under `root` with `files` (path -> source), and its modules."""
    for rel, text in {"pkg/__init__.py": "", **files}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return source_modules(root / "pkg")


PLANTED_LAYERS = [("pkg", "pkg.base"), ("pkg.mid",), ("pkg.top",)]


def test_a_planted_upward_import_is_reported(tmp_path: Path) -> None:
    modules = _package(
        tmp_path,
        {
            "pkg/base.py": "def f() -> None:\n    from pkg.top import g  # a lazy import counts\n",
            "pkg/mid/__init__.py": "",
            "pkg/mid/one.py": "from ..top import g\nfrom . import two\n",  # relative imports count
            "pkg/mid/two.py": "import pkg.base\n",
            "pkg/top.py": "from pkg.mid import one\n\ndef g() -> None: ...\n",
        },
    )
    graph = import_graph(modules)
    assert graph["pkg.mid.one"] == {"pkg.top", "pkg.mid", "pkg.mid.two"}
    assert upward_imports(graph, PLANTED_LAYERS) == [
        "pkg.base (layer 0) imports pkg.top (layer 2)",
        "pkg.mid.one (layer 1) imports pkg.top (layer 2)",
    ]
    # and the real graph with one planted edge: errors (the lowest layer) importing the CLI
    planted = {**GRAPH, "fabricctl.errors": GRAPH["fabricctl.errors"] | {"fabricctl.cli"}}
    assert upward_imports(planted, LAYERS) == [
        f"fabricctl.errors (layer 0) imports fabricctl.cli (layer {len(LAYERS) - 1})"
    ]


def test_a_planted_module_without_a_layer_is_reported(tmp_path: Path) -> None:
    modules = _package(tmp_path, {"pkg/base.py": "", "pkg/stray.py": "", "pkg/mid/__init__.py": ""})
    # `pkg` covers only itself: a module beside the listed ones is in no layer
    assert unlayered(modules, PLANTED_LAYERS) == ["pkg.stray"]
    assert unlayered({**MODULES, "fabricctl.newcomer": PACKAGE / "newcomer.py"}, LAYERS) == [
        "fabricctl.newcomer"
    ]


def test_a_planted_circle_is_reported(tmp_path: Path) -> None:
    modules = _package(
        tmp_path,
        {
            "pkg/base.py": "",
            "pkg/mid/__init__.py": "",
            "pkg/mid/a.py": "from pkg.mid import b\n",
            "pkg/mid/b.py": "def f() -> None:\n    from pkg.mid.c import x\n",
            "pkg/mid/c.py": "import pkg.mid.a\nx = 1\n",
        },
    )
    assert import_cycles(import_graph(modules)) == [["pkg.mid.a", "pkg.mid.b", "pkg.mid.c"]]


def test_a_planted_lab_import_of_the_emitter_is_reported() -> None:
    planted = {**GRAPH, "fabricctl.lab.server": GRAPH["fabricctl.lab.server"] | {"fabricctl.render"}}
    assert forbidden_imports(planted, "fabricctl.lab", LAB_MAY_NOT_IMPORT) == [
        "fabricctl.lab.server imports fabricctl.render"
    ]


def _body(lines: int) -> str:
    """A function body of `lines` lines (the def line excluded)."""
    return "".join(f"    x{i} = {i}\n" for i in range(lines))


def test_planted_long_functions_are_reported(tmp_path: Path) -> None:
    _package(
        tmp_path,
        {
            # 81 lines: over the limit, no reason
            "pkg/base.py": "def plain():\n" + _body(80) + "\n\ndef short():\n" + _body(79),
            "pkg/mid/__init__.py": "",
            # a method; a nested function, counted apart and within the function around it
            "pkg/mid/one.py": "class C:\n    def method(self):\n" + _body(80).replace("    ", "        "),
            "pkg/mid/two.py": (
                "def outer():\n    def inner():\n"
                + _body(85).replace("    ", "        ")
                + "    return inner\n"
            ),
            # a reason that is not directly above, or is empty, does not count
            "pkg/top.py": "# long: too far above\n\ndef far():\n"
            + _body(80)
            + "\n# long:\ndef empty():\n"
            + _body(80),
            # a reason directly above, above the decorators, or a short function: nothing to say
            "pkg/fine.py": (
                "# long: a table\ndef table():\n"
                + _body(100)
                + "\n# long: a command with many options\n@a\n@b(\n    c=1,\n)\nasync def command():\n"
                + _body(90)
                + "\ndef exactly():\n"
                + _body(79)
            ),
        },
    )
    assert long_functions(tmp_path / "pkg") == [
        "pkg/base.py:1 plain is 81 lines",
        "pkg/mid/one.py:2 method is 81 lines",
        "pkg/mid/two.py:1 outer is 88 lines",
        "pkg/mid/two.py:2 inner is 86 lines",
        "pkg/top.py:3 far is 81 lines",
        "pkg/top.py:86 empty is 81 lines",
    ]
    # the same functions under a higher limit: nothing over it
    assert long_functions(tmp_path / "pkg", limit=200) == []
