"""Releases are data: each NOS names the releases it renders for; a switch's `data.os_version`
picks one (the newest when unset), reaches its intent and its config, and a release a platform
does not render for is refused at the line that names it (tests/errors/*os-version*)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from fabricctl import pipeline
from fabricctl.compile.build import Compiled
from fabricctl.lab.reference import reference
from fabricctl.platforms import PLATFORMS, get_platform
from fabricctl.platforms.base import Release
from tests.conftest import NVUE_SMALL, copy_fabric, render_one


@pytest.mark.parametrize("name", sorted(PLATFORMS))
def test_every_platform_names_the_releases_it_renders_for(name: str) -> None:
    platform = get_platform(name)
    assert platform.releases and platform.release() is platform.releases[0]
    assert len(set(platform.release_names)) == len(platform.releases)
    assert all(r.reference for r in platform.releases)
    with pytest.raises(KeyError, match="known: "):
        platform.release("0.0")


def test_the_nvue_twin_runs_the_release_its_grammar_was_generated_for() -> None:
    assert reference("nvue").release == get_platform("nvue").release().name


def test_a_switch_without_os_version_runs_the_newest_release(nvue_small: Compiled) -> None:
    newest = get_platform("nvue").release()
    assert {sw.os_version for sw in nvue_small.fabric.switches} == {newest.name}
    intent = nvue_small.intents["leaf1"]
    assert intent.os_version == newest.name
    header = render_one(intent, NVUE_SMALL).splitlines()[:5]
    assert f"    version: {newest.label}" in header


def test_os_version_set_on_a_group_reaches_every_switch_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With an older release known besides the newest, a group's `os_version` picks it for each
    of its switches; the others keep the newest."""
    nvue = get_platform("nvue")
    older = Release("5.16", "an older command reference", label="Cumulus Linux 5.16")
    monkeypatch.setitem(PLATFORMS, "nvue", dataclasses.replace(nvue, releases=(*nvue.releases, older)))
    root = copy_fabric(NVUE_SMALL, tmp_path)
    groups = root / "inventory" / "groups.yaml"
    text = groups.read_text(encoding="utf-8")
    edited = text.replace("    model: SN5600\n", '    model: SN5600\n    os_version: "5.16"\n')
    assert edited != text
    groups.write_text(edited, "utf-8")
    compiled = pipeline.compile(root)
    versions = {i.os_version for i in compiled.intents.values()}
    by_model = {i.model: i.os_version for i in compiled.intents.values()}
    assert by_model["SN5600"] == "5.16" and versions <= {"5.16", nvue.release().name}
