"""Deploy tests: a tmp copy of a fabric, its lab started in-process on port 0, CLI runs."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from fabricctl.cli import main
from fabricctl.lab import LabClock, LabFabric
from fabricctl.lab.runtime import lab_json, write_lab_json
from tests.conftest import EOS_SMALL, REFERENCE, copy_fabric, json_object, on_platform

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

    def run_apart(self, *argv: str) -> tuple[int, str, str]:
        """`fabricctl <argv> --root <root>` in a process of its own, against this in-process lab.

        For runs that drive many switches at once: their client threads (paramiko, TLS) then
        never take this process's interpreter lock from the lab's server thread. On a loaded
        machine they did, and the clients' own timeouts fired while the lab had not yet had a
        turn to answer (the lab's clock, its commit timers, stay this process's)."""
        done = subprocess.run(
            [sys.executable, "-m", "fabricctl", *argv, "--root", str(self.root)],
            capture_output=True,
            text=True,
            check=False,
            env=dict(os.environ),
        )
        self.outputs += [done.stdout, done.stderr]
        return done.returncode, done.stdout, done.stderr

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


def report_of(out: str) -> dict[str, Any]:
    return json_object(out)
