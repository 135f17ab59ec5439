"""`fabricctl render` re-renders exactly when something that shapes a config changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fabricctl import render as render_module
from fabricctl.artifacts import MANIFEST
from tests.conftest import EOS_SMALL, copy_fabric, run_cli


@pytest.fixture
def fabric(tmp_path: Path) -> Path:
    return copy_fabric(EOS_SMALL, tmp_path / "fabric")


def render(root: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    code, out, err = run_cli(["render", "--root", str(root), *extra], capsys)
    assert code == 0, err
    return out


def test_second_render_skips_every_switch(fabric: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "rendered 6 switches" in render(fabric, capsys)
    assert "rendered 0 switches (0 config lines), 6 unchanged" in render(fabric, capsys)
    manifest = json.loads((fabric / "out" / MANIFEST).read_text(encoding="utf-8"))
    assert sorted(manifest) == ["leaf1", "leaf2", "leaf3", "leaf4", "spine1", "spine2"]


def test_template_edit_re_renders_its_platform(fabric: Path, capsys: pytest.CaptureFixture[str]) -> None:
    render(fabric, capsys)
    before = (fabric / "out" / "leaf1.cfg").read_text(encoding="utf-8")
    override = fabric / "templates" / "eos" / "acl.j2"
    override.parent.mkdir(parents=True)
    builtin = (render_module.BUILTIN_TEMPLATES / "eos" / "acl.j2").read_text(encoding="utf-8")
    override.write_text(builtin.replace("counters per-entry", "statistics per-entry"), encoding="utf-8")
    assert "rendered 6 switches" in render(fabric, capsys)  # every EOS switch uses acl.j2
    after = (fabric / "out" / "leaf1.cfg").read_text(encoding="utf-8")
    assert after != before and "statistics per-entry" in after
    override.unlink()  # back to the built-in template: rendered again, identical to the first time
    assert "rendered 6 switches" in render(fabric, capsys)
    assert (fabric / "out" / "leaf1.cfg").read_text(encoding="utf-8") == before


def test_a_new_fabricctl_version_re_renders(
    fabric: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    render(fabric, capsys)
    monkeypatch.setattr(render_module, "__version__", "99.0.0")
    assert "rendered 6 switches" in render(fabric, capsys)


def test_edited_or_deleted_output_is_rewritten(fabric: Path, capsys: pytest.CaptureFixture[str]) -> None:
    render(fabric, capsys)
    cfg = fabric / "out" / "spine1.cfg"
    good = cfg.read_text(encoding="utf-8")
    cfg.write_text(good + "hand edit\n", encoding="utf-8")
    (fabric / "out" / "leaf2.intent.yaml").unlink()
    assert "rendered 2 switches" in render(fabric, capsys)
    assert cfg.read_text(encoding="utf-8") == good
    assert (fabric / "out" / "leaf2.intent.yaml").is_file()


def test_force_renders_all(fabric: Path, capsys: pytest.CaptureFixture[str]) -> None:
    render(fabric, capsys)
    assert "rendered 6 switches" in render(fabric, capsys, "--force")
