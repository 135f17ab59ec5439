"""What users install is what the tests run: the wheel's package list is complete and the
built-in templates are found through importlib.resources (the wheel itself is checked in CI)."""

from __future__ import annotations

import importlib.resources
import tomllib
from pathlib import Path

from fabricctl.render import BUILTIN_TEMPLATES
from tests.conftest import REPO


def test_every_package_ships() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    found = {
        ".".join(p.parent.relative_to(REPO).parts)
        for p in (REPO / "fabricctl").rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    platforms = {f"fabricctl.templates.{d.name}" for d in (REPO / "templates").iterdir() if d.is_dir()}
    platforms.discard("fabricctl.templates.__pycache__")
    assert set(config["packages"]) == found | {"fabricctl.templates"} | platforms
    assert config["package-dir"] == {"fabricctl.templates": "templates"}


def test_builtin_templates_are_the_repositorys_templates_folder() -> None:
    """Editable installs map `fabricctl.templates` onto the top-level templates/ (the wheel copies it)."""
    assert (
        Path(str(importlib.resources.files("fabricctl.templates"))).resolve()
        == (REPO / "templates").resolve()
    )
    assert BUILTIN_TEMPLATES.resolve() == (REPO / "templates").resolve()
    for platform in ("comware", "eos"):
        assert (BUILTIN_TEMPLATES / platform / "device.j2").is_file()


#: Import name -> the distribution that provides it (pydantic_core comes with pydantic).
DISTRIBUTION = {
    "yaml": "pyyaml",
    "ruamel": "ruamel.yaml",
    "pydantic_core": "pydantic",
    "passlib": "libpass",
    "grpc": "grpcio",
}


#: Declared though nothing imports it: the C parser ruamel's safe loader uses on its own when it
#: is installed (Nornir reads the inventory with it; ruamel 0.19 no longer installs it, and the
#: pure-Python parser took 4.4 CPU s against 1.0 s on the 100k inventory, docs/scale.md).
ACCELERATORS = {"ruamel.yaml.clib": "ruamel.yaml"}


def test_declared_dependencies_are_exactly_what_fabricctl_imports() -> None:
    """Declare only what is imported; import only what is declared (tests bring their own; the
    `gnmi` extra is what the lab's gNMI servers and the exporter's streams import)."""
    import ast
    import re
    import sys

    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = config["dependencies"] + config["optional-dependencies"]["gnmi"]
    declared = {re.split(r"[<>=!~ ]", d)[0].lower() for d in runtime}
    imported: set[str] = set()
    for path in (REPO / "fabricctl").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            imported |= {n.split(".")[0] for n in names}
    third_party = {n for n in imported if n not in sys.stdlib_module_names and n != "fabricctl"}
    wanted = {DISTRIBUTION.get(n, n.replace("_", "-")) for n in third_party}
    assert {base for base in ACCELERATORS.values()} <= wanted, "an accelerator of nothing imported"
    assert wanted | set(ACCELERATORS) == declared
