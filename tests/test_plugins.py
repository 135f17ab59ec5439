"""A NOS is a plugin: the built-in ones are found through their entry points, as any other
distribution's, and a name registered twice is an error, not a silent replacement."""

from __future__ import annotations

from importlib.metadata import entry_points

import pytest

from fabricctl.lab import nos as lab_registry
from fabricctl.platforms import (
    ENTRY_POINTS,
    PLATFORMS,
    DuplicatePlatform,
    get_platform,
    register,
)
from tests.conftest import REPO


def test_every_platform_comes_from_an_entry_point_in_both_groups() -> None:
    product = {ep.name: ep.value for ep in entry_points(group=ENTRY_POINTS)}
    twin = {ep.name: ep.value for ep in entry_points(group=lab_registry.ENTRY_POINTS)}
    assert {"comware", "eos", "nvue"} <= set(product) and set(product) == set(twin)
    assert set(PLATFORMS) == set(product) and lab_registry.known() == sorted(twin)
    for name, value in product.items():
        assert PLATFORMS.source(name) == f"entry point {value}"
        assert lab_registry.lab_nos(name).name == name


def test_registering_a_name_twice_is_an_error() -> None:
    eos = get_platform("eos")
    with pytest.raises(DuplicatePlatform, match=r"'eos' is registered twice: by entry point fabricctl"):
        register(eos)
    assert get_platform("eos") is eos
    twin = lab_registry.lab_nos("eos")
    with pytest.raises(lab_registry.DuplicateNos, match="'eos' is registered twice"):
        lab_registry.register(twin)
    assert lab_registry.lab_nos("eos") is twin


def test_configs_are_compared_only_through_the_platforms_differ() -> None:
    """The shared diff (config/diff.py `diff_device`) is named only as the default of
    `Platform.differ` and of `PushRequest.differ`: the plan, the apply and every push compare a
    switch's configs with its platform's differ, so a NOS's own one is used everywhere."""
    package = REPO / "fabricctl"
    naming = {
        p.relative_to(package).as_posix()
        for p in package.rglob("*.py")
        if "diff_device" in p.read_text(encoding="utf-8")
    }
    assert naming == {"config/diff.py", "platforms/base.py", "platforms/push.py"}, naming
