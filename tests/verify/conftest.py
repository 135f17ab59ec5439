"""Fixtures for verify tests: both example fabrics compiled and rendered once per session."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from fabricctl import pipeline
from fabricctl.compile.build import Compiled

REPO = Path(__file__).resolve().parents[2]
FABRICS = {"comware": REPO, "eos": REPO / "examples" / "eos-small"}


@dataclass
class Rendered:
    root: Path
    compiled: Compiled
    configs: dict[str, str]


@pytest.fixture(scope="session")
def rendered() -> dict[str, Rendered]:
    """Platform -> the example fabric of that platform, compiled and freshly rendered."""
    out = {}
    for platform, root in FABRICS.items():
        compiled = pipeline.compile(root)
        out[platform] = Rendered(root, compiled, pipeline.render(compiled.intents, root))
    return out
