"""The checklist of docs/architecture.md ("Adding a NOS") names every file a NOS has: each file
it marks *every NOS* is in every NOS's packages, and each file of a NOS's packages is in it. It
is compared with every installed NOS (found through its entry points, as fabricctl finds it) and
with TinyOS, the test NOS of its own distribution (tests/fake_nos), so it cannot drift. A module
the checklist marks *own* (any other module a NOS needs) is accepted only where the package's
`__init__.py` docstring names it, and never counts for a file every NOS has."""

from __future__ import annotations

import ast
import fnmatch
import importlib.util
import re
import tomllib
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from fabricctl.lab.nos import ENTRY_POINTS as LAB_ENTRY_POINTS
from fabricctl.platforms import ENTRY_POINTS, get_platform
from fabricctl.render import BUILTIN_TEMPLATES
from tests.conftest import REPO, TESTS

ARCHITECTURE = REPO / "docs" / "architecture.md"
FAKE_NOS = TESTS / "fake_nos"
SIDES = ("Product side", "Templates", "Lab side")
_ITEM = re.compile(r"- ((?:`[^`]+`(?:, )?)+) \((every NOS|optional|own)\): ")
_MODULE = re.compile(r"\b\w+\.py\b")


@dataclass(frozen=True)
class Side:
    required: tuple[str, ...]  # file names (patterns) every NOS has
    optional: tuple[str, ...]
    own: tuple[str, ...] = ()  # patterns of a NOS's own modules, each named by its package

    def drift(self, files: set[str], named: frozenset[str] = frozenset()) -> list[str]:
        """What differs between the list and one NOS's folder, in words (`named`: the modules its
        package's docstring names, the own modules it may hold)."""
        missing = [f"{name} missing" for name in self.required if not fnmatch.filter(files, name)]
        listed = (*self.required, *self.optional)
        extra = [
            f"{name} not in the checklist"
            for name in sorted(files)
            if not any(fnmatch.fnmatch(name, p) for p in listed)
            and not (name in named and any(fnmatch.fnmatch(name, p) for p in self.own))
        ]
        return missing + extra


def checklist(text: str) -> dict[str, Side]:
    """Side -> its list, from the checklist's `### <side>` sections."""
    section = text.split("## Adding a NOS: a checklist", 1)[1]
    out: dict[str, Side] = {}
    for side in SIDES:
        body = section.split(f"### {side}\n", 1)[1].split("\n### ", 1)[0]
        kinds: dict[str, list[str]] = {"every NOS": [], "optional": [], "own": []}
        for m in _ITEM.finditer(body):
            kinds[m[2]].extend(re.findall(r"`([^`]+)`", m[1]))
        out[side] = Side(tuple(kinds["every NOS"]), tuple(kinds["optional"]), tuple(kinds["own"]))
    return out


def _files(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir() if p.name != "__pycache__"}


def _named(folder: Path) -> frozenset[str]:
    """The modules a package's `__init__.py` docstring names (its own modules among them)."""
    init = folder / "__init__.py"
    if not init.is_file():
        return frozenset()
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
    return frozenset(_MODULE.findall(doc))


def _folder(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.submodule_search_locations, module
    return Path(next(iter(spec.submodule_search_locations)))


def installed() -> dict[str, dict[str, Path]]:
    """Each installed NOS's folders, found through its entry points."""
    out: dict[str, dict[str, Path]] = {}
    twins = {ep.name: ep.module for ep in entry_points(group=LAB_ENTRY_POINTS)}
    for ep in entry_points(group=ENTRY_POINTS):
        platform = get_platform(ep.name)
        templates = Path(platform.templates) if platform.templates else Path(BUILTIN_TEMPLATES)
        out[ep.name] = {
            "Product side": _folder(ep.module),
            "Templates": templates / platform.template_folder,
            "Lab side": _folder(twins[ep.name]),
        }
    return out


def fake_nos() -> dict[str, Path]:
    """TinyOS's folders in its source, from its own pyproject's entry points."""
    project = tomllib.loads((FAKE_NOS / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    groups: dict[str, dict[str, str]] = project["entry-points"]
    ((name, product),) = groups[ENTRY_POINTS].items()
    ((twin_name, twin),) = groups[LAB_ENTRY_POINTS].items()
    assert name == twin_name

    def folder(value: str) -> Path:
        return FAKE_NOS.joinpath(*value.partition(":")[0].split("."))

    package = FAKE_NOS / product.partition(":")[0].split(".")[0]
    return {
        "Product side": folder(product),
        "Templates": package / "templates" / name,
        "Lab side": folder(twin),
    }


LIST = checklist(ARCHITECTURE.read_text(encoding="utf-8"))
NOSES = {**installed(), "tinyos (tests/fake_nos)": fake_nos()}


def test_the_checklist_has_each_side() -> None:
    assert set(LIST) == set(SIDES)
    assert {"__init__.py", "parse.py", "push.py", "counters.py", "ztp.py"} <= set(
        LIST["Product side"].required
    )
    assert {"device.j2", "day0.j2"} <= set(LIST["Templates"].required)
    assert {"__init__.py", "commands.yaml", "cli.py", "facts.py"} <= set(LIST["Lab side"].required)
    assert {"comware", "eos", "nvue", "tinyos (tests/fake_nos)"} <= set(NOSES)


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("nos", sorted(NOSES))
def test_the_checklist_names_every_file_a_nos_has(nos: str, side: str) -> None:
    folder = NOSES[nos][side]
    assert folder.is_dir(), folder
    drift = LIST[side].drift(_files(folder), _named(folder))
    assert not drift, f"{nos} {side} ({folder}): docs/architecture.md's checklist differs: {'; '.join(drift)}"


def test_a_file_the_checklist_misses_or_lacks_is_named() -> None:
    side = LIST["Product side"]
    files = set(side.required) - {"counters.py"} | {"failures.py"}
    assert side.drift(files) == ["counters.py missing", "failures.py not in the checklist"]
    assert not side.drift(set(side.required) | {"gnmi.py"})
    # A NOS's own module passes only where its package names it, and never for a required file.
    assert side.own == ("*.py",)
    assert side.drift(files, frozenset({"failures.py"})) == ["counters.py missing"]
    assert side.drift(files, frozenset({"failures.py", "counters.py"})) == ["counters.py missing"]
    assert side.drift(set(side.required) | {"failures.py"}, frozenset({"other.py"})) == [
        "failures.py not in the checklist"
    ]
    assert not LIST["Templates"].own and not LIST["Lab side"].own
