"""Process helpers: the cyclic GC pause around bulk builds leaves the collector as it found it."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from fabricctl.procs import paused_gc


@pytest.fixture
def gc_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def test_paused_gc_restores_the_collector(gc_restored: None) -> None:
    gc.enable()
    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():  # nested: the inner exit must not switch it back on
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), paused_gc():
        raise RuntimeError("an error inside still restores it")
    assert gc.isenabled()


def test_a_collector_already_off_stays_off(gc_restored: None) -> None:
    gc.disable()
    with paused_gc():
        assert not gc.isenabled()
    assert not gc.isenabled()
