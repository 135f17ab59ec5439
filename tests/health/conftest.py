"""A converged lab per platform (rendered configs loaded straight into running) with `--lab`
pointing at it, for the tenant health checks and the exporter."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from fabricctl.lab import LabFabric
from fabricctl.lab.runtime import lab_json, write_lab_json
from tests.conftest import EOS_SMALL
from tests.lab.conftest import loaded_lab


@dataclass
class Converged:
    lab: LabFabric
    root: Path
    platform: str

    def port(self, n: int) -> str:
        return f"Ethernet{n}" if self.platform == "eos" else f"FourHundredGigE1/0/{n}"


@pytest.fixture(params=["eos", "comware"])
def converged(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Converged]:
    monkeypatch.delenv("FABRICCTL_LAB_USERNAME", raising=False)
    monkeypatch.delenv("FABRICCTL_LAB_PASSWORD", raising=False)
    lab, root = loaded_lab(EOS_SMALL, tmp_path, request.param)
    try:
        write_lab_json(root, lab)  # `--lab` finds this in-process lab
        yield Converged(lab, root, request.param)
        lab_json(root).unlink(missing_ok=True)
    finally:
        lab.stop()
