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
