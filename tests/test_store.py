"""The store of derived artifacts (store.py): an entry is right or absent, and it stays bounded."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabricctl import pipeline, store
from fabricctl import render as render_module
from fabricctl.compile.build import Compiled
from fabricctl.render import Renderer
from tests.conftest import EOS_SMALL, copy_fabric


@pytest.fixture
def kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> store.Store:
    monkeypatch.setenv("FABRICCTL_CACHE_DIR", str(tmp_path / "cache"))
    found = store.open_store()
    assert found is not None and found.path == tmp_path / "cache" / "store.sqlite"
    return found


def test_entries_by_kind_and_key(kept: store.Store) -> None:
    kept.put("config", {"a": b"one", "b": b"two"})
    kept.put("other", {"a": b"three"})
    assert kept.get("config", ["a", "b", "c"]) == {"a": b"one", "b": b"two"}
    assert kept.get("other", ["a"]) == {"a": b"three"}


def test_other_fabricctl_code_finds_nothing(kept: store.Store, monkeypatch: pytest.MonkeyPatch) -> None:
    kept.put("config", {"a": b"one"})
    monkeypatch.setattr(store, "code_fingerprint", lambda: "another fabricctl")
    assert kept.get("config", ["a"]) == {}


def test_past_its_bound_what_was_used_longest_ago_goes(
    kept: store.Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store, "MAX_BYTES", 1000)
    for i in range(4):
        kept.put("config", {f"k{i}": bytes(200)})
    assert len(kept.get("config", ["k0"])) == 1  # used just now: the newest use
    kept.put("config", {"k4": bytes(200)})  # 1,000 bytes: at the bound, nothing goes
    kept.put("config", {"k5": bytes(200)})  # over it: down to 750 bytes, oldest use first
    assert sorted(kept.get("config", [f"k{i}" for i in range(6)])) == ["k0", "k4", "k5"]


def test_an_unreadable_store_is_done_without(kept: store.Store) -> None:
    kept.path.parent.mkdir(parents=True, exist_ok=True)
    kept.path.write_bytes(b"not a database" * 100)
    kept.put("config", {"a": b"one"})
    assert kept.get("config", ["a"]) == {}


def test_off_means_no_store(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FABRICCTL_CACHE_DIR", "off")
    assert store.cache_dir() is None and store.open_store() is None


@pytest.fixture(scope="module")
def eos_small_copy(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Compiled]:
    root = copy_fabric(EOS_SMALL, tmp_path_factory.mktemp("store") / "fabric")
    return root, pipeline.compile(root)


def test_configs_from_the_store_are_the_configs_rendered(
    kept: store.Store, eos_small_copy: tuple[Path, Compiled], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, compiled = eos_small_copy
    fresh = {n: Renderer(root).render(i) for n, i in compiled.intents.items()}
    assert Renderer(root).render_all(compiled.intents) == fresh  # rendered, and kept

    def refuse(self: Renderer, intent: object) -> str:
        raise AssertionError("rendered again")

    with monkeypatch.context() as patch:
        patch.setattr(Renderer, "render", refuse)
        assert Renderer(root).render_all(compiled.intents) == fresh  # every one from the store
    override = root / "templates" / "eos" / "acl.j2"
    override.parent.mkdir(parents=True)
    builtin = (render_module.BUILTIN_TEMPLATES / "eos" / "acl.j2").read_text(encoding="utf-8")
    override.write_text(builtin.replace("counters per-entry", "statistics per-entry"), encoding="utf-8")
    edited = Renderer(root).render_all(compiled.intents)  # another template: another key
    override.unlink()
    assert edited != fresh and any("statistics per-entry" in text for text in edited.values())
