"""The lab behind its boundary: nothing fabricctl ships imports the lab, except the lab's own CLI.

The product reaches the lab as it reaches real switches, through what a running lab publishes
(fabricctl/endpoints.py); `fabricctl lab` (cli/lab.py) starts and inspects it and is the one
module outside fabricctl/lab/ allowed to import it (docs/architecture.md). Every import counts:
at module level or in a function, absolute or relative, `from fabricctl import lab`, and
`importlib.import_module("fabricctl.lab...")`.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO

PACKAGE = REPO / "fabricctl"
LAB = "fabricctl.lab"
#: The modules outside fabricctl/lab/ that may import it.
ALLOWED = frozenset({"fabricctl.cli.lab"})


def module_name(path: Path, package: Path) -> str:
    parts = [package.name, *path.relative_to(package).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The module an `from X import ...` names, relative imports resolved against `module`."""
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    base = base[: len(base) - node.level + (1 if is_package else 0)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _is_lab(target: str) -> bool:
    return target == LAB or target.startswith(LAB + ".")


def lab_imports(path: Path, module: str) -> list[str]:
    """`line: target` of every import of the lab in the module at `path`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"
    found = []
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, module, is_package)
            targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        elif (
            isinstance(node, ast.Call)
            and (getattr(node.func, "attr", None) or getattr(node.func, "id", None))
            in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            targets = [node.args[0].value]
        hits = sorted({t for t in targets if _is_lab(t)})
        if hits:
            found.append(f"{getattr(node, 'lineno', 0)}: {hits[0]}")
    return found


def violations(package: Path) -> list[str]:
    """Imports of `<package>.lab` from any module of `package` outside its lab/ and ALLOWED."""
    out = []
    for path in sorted(package.rglob("*.py")):
        module = module_name(path, package)
        if _is_lab(module) or module in ALLOWED:
            continue
        out += [f"{path.relative_to(package.parent)}:{hit}" for hit in lab_imports(path, module)]
    return out


def test_nothing_shipped_imports_the_lab() -> None:
    found = violations(PACKAGE)
    assert not found, (
        "the product imports the lab (read what it publishes: fabricctl/endpoints.py):\n" + "\n".join(found)
    )


def test_the_allowed_module_exists_and_is_the_labs_cli() -> None:
    """An exception for a module that no longer exists would hide nothing; this one must still
    be the lab's CLI (it does import the lab)."""
    path = PACKAGE / "cli" / "lab.py"
    assert lab_imports(path, "fabricctl.cli.lab")


def test_a_planted_import_of_the_lab_is_found(tmp_path: Path) -> None:
    """The test of the test: a copy of the package layout with one lab import of each kind."""
    package = tmp_path / "fabricctl"
    for folder in ("lab", "deploy", "cli", "telemetry"):
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "lab" / "runtime.py").write_text("from fabricctl.outputs import write_file\n")
    (package / "cli" / "lab.py").write_text("from fabricctl.lab.runtime import running_lab\n")
    (package / "deploy" / "clean.py").write_text(
        "import subprocess\nfrom fabricctl.endpoints import running_lab\n"
        "CMD = ['python', '-m', 'fabricctl.lab']  # a program started, not an import\n"
    )
    planted = {
        "deploy/in_function.py": "def f():\n    from fabricctl.lab.runtime import running_lab\n",
        "deploy/plain.py": "import fabricctl.lab.tls\n",
        "deploy/from_package.py": "from fabricctl import lab\n",
        "deploy/relative.py": "from ..lab import Endpoint\n",
        "telemetry/__init__.py": "from ..lab.tls import TLS_NAME\n",
        "cli/dynamic.py": "import importlib\nmod = importlib.import_module('fabricctl.lab.server')\n",
        "typed.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from fabricctl.lab import Endpoint\n",
    }
    for name, text in planted.items():
        (package / name).write_text(text)
    found = violations(package)
    assert sorted(hit.split(":")[0] for hit in found) == sorted(f"fabricctl/{name}" for name in planted)
    for name in planted:
        (package / name).unlink()
    (package / "telemetry" / "__init__.py").write_text("")
    assert violations(package) == []
