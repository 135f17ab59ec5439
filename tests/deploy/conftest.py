"""Deploy tests: a tmp copy of a fabric, its lab started in-process on port 0, CLI runs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from fabricctl.cli import main
from fabricctl.lab import LabClock, LabFabric
from fabricctl.lab.runtime import lab_json, write_lab_json
from tests.conftest import EOS_SMALL, REFERENCE, copy_fabric, on_platform

PASSWORD = "fabricctl-lab"


@dataclass
class LabRoot:
    root: Path
    lab: LabFabric
    outputs: list[str]

    def run(self, *argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
        """`fabricctl <argv> --root <root>`; exit code (SystemExit included), stdout, stderr."""
        capsys.readouterr()
        try:
            code = main([*argv, "--root", str(self.root)])
        except SystemExit as exc:
            code = int(exc.code or 0)
        out, err = capsys.readouterr()
        self.outputs += [out, err]
        return code, out, err

    def running(self, name: str) -> str:
        return self.lab.device(name).running_config()

    def all_text(self) -> str:
        """Every output and every file fabricctl wrote under root (plans, reports, lock)."""
        texts = list(self.outputs)
        for path in self.root.rglob("*"):
            if path.is_file() and "lab" not in path.relative_to(self.root).parts:
                texts.append(path.read_text(encoding="utf-8", errors="replace"))
        return "\n".join(texts)


def _lab_root(
    src: Path, tmp: Path, monkeypatch: pytest.MonkeyPatch, platform: str | None = None
) -> Iterator[LabRoot]:
    monkeypatch.delenv("FABRICCTL_LAB_USERNAME", raising=False)
    monkeypatch.delenv("FABRICCTL_LAB_PASSWORD", raising=False)
    root = copy_fabric(src, tmp / "fabric")
    if platform is not None:  # the same small fabric, every switch in the `platform` group
        on_platform(root, platform)
    lab = LabFabric.from_inventory(root, clock=LabClock.frozen())  # timers fire on lab.advance only
    with lab:
        write_lab_json(root, lab)  # `--lab` finds this in-process lab (our pid is alive)
        yield LabRoot(root, lab, [])
        lab_json(root).unlink(missing_ok=True)


@pytest.fixture
def eos_lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LabRoot]:
    yield from _lab_root(EOS_SMALL, tmp_path, monkeypatch)


@pytest.fixture(params=["comware", "eos"])
def small_lab(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[LabRoot]:
    """eos-small's 6 switches on each platform in turn."""
    yield from _lab_root(EOS_SMALL, tmp_path, monkeypatch, request.param)


@pytest.fixture
def reference_lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LabRoot]:
    yield from _lab_root(REFERENCE, tmp_path, monkeypatch)


def report_of(out: str) -> dict:  # type: ignore[type-arg]
    return json.loads(out)
