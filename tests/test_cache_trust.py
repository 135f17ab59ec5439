"""Caches no one else can poison: no code in anything read back, and files that are not the
user's alone are ignored with one line (store.py, compile/cache.py).

Each case hands fabricctl a hostile cache (a snapshot or store another user could have written,
a symlink, a pickle that would run a command, rows of the wrong shape) and checks that validate
and render still answer exactly what a whole compile answers, that nothing ran, and what was said.
"""

from __future__ import annotations

import ast
import os
import pickle
import sqlite3
import stat
from pathlib import Path

import pytest

from fabricctl import stamps, store
from fabricctl.compile import cache
from tests.conftest import EOS_SMALL, REPO, copy_fabric, run_cli

NOBODY = 65534
AS_ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")


class Payload:
    """Unpickling this runs `touch <marker>`: what a poisoned pickle cache did before."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, ...]:
        return (os.system, (f"touch {self.marker}",))


@pytest.fixture(autouse=True)
def settled_stamps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stamps, "RACY_NS", 0)
    monkeypatch.setattr(cache, "RACY_NS", 0)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder of this test's own (0700), as fabricctl creates it."""
    path = tmp_path / "cache"
    monkeypatch.setenv("FABRICCTL_CACHE_DIR", str(path))
    monkeypatch.setattr(store, "_WARNED", set())
    return path


@pytest.fixture
def root(tmp_path: Path, folder: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """eos-small rendered whole once: its snapshot and the store are in `folder`."""
    fabric = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    assert cli(["render", "--root", str(fabric)], capsys)[0] == 0
    assert cache.cache_file(fabric) is not None and cache.cache_file(fabric).is_file()  # type: ignore[union-attr]
    return fabric


def cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    return run_cli(argv, capsys)


def edit(root: Path) -> None:
    """A change of one tenant's intent (its port's lossless class), on leaf3 only."""
    path = root / "tenants" / "intern-01.yaml"
    text = path.read_text(encoding="utf-8")
    assert "lossless: false" in text
    path.write_text(text.replace("lossless: false", "lossless: true"), encoding="utf-8")


def snapshot(root: Path) -> Path:
    path = cache.cache_file(root)
    assert path is not None
    return path


def test_no_module_of_fabricctl_imports_pickle_or_marshal() -> None:
    """Nothing fabricctl reads back from disk is a format that can carry code."""
    for path in (REPO / "fabricctl").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            assert not {"pickle", "marshal", "shelve", "dill", "cloudpickle"} & set(names), path


def test_the_snapshot_is_data_with_a_schema(root: Path) -> None:
    with sqlite3.connect(snapshot(root)) as db:
        (fabric,) = db.execute("SELECT v FROM fabric").fetchone()
        pods = [v for (v,) in db.execute("SELECT v FROM pod")]
    assert isinstance(fabric, str) and fabric.startswith("{") and all(p.startswith("{") for p in pods)
    cache._FabricRecord.model_validate_json(fabric)
    for pod in pods:
        cache._PodRecord.model_validate_json(pod)
    assert "properties" in cache._PodRecord.model_json_schema()


@pytest.mark.parametrize("table", ["fabric", "pod"])
def test_a_pickle_in_the_snapshot_runs_nothing(
    root: Path, tmp_path: Path, table: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A snapshot with the right key (anyone who can read the install can compute it) whose rows
    are pickles: read as JSON, refused by the schema, compiled whole; the command never ran."""
    marker = tmp_path / "pwned"
    with sqlite3.connect(snapshot(root)) as db:
        db.execute(f"UPDATE {table} SET v = ?", (pickle.dumps(Payload(marker)),))
    edit(root)
    found = cache.scan(root)
    assert found is not None and cache.changes(found) is None
    assert cli(["validate", "--root", str(root)], capsys)[0] == 0
    assert "rendered 1 switches" in cli(["render", "--root", str(root)], capsys)[1]
    assert not marker.exists()


def test_rows_of_the_wrong_shape_fall_back_to_a_whole_compile(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with sqlite3.connect(snapshot(root)) as db:
        (pod,) = db.execute("SELECT v FROM pod LIMIT 1").fetchone()
        db.execute("UPDATE pod SET v = ?", (pod.replace('"gpu_ports"', '"gpu_ports_x"'),))
    edit(root)
    found = cache.scan(root)
    assert found is not None and cache.changes(found) is None
    with sqlite3.connect(snapshot(root)) as db:  # an index that points nowhere
        db.execute(
            "UPDATE pod SET v = ?", (pod.replace('"by_leaf_port":[[', '"by_leaf_port":[["leaf1","9",999],['),)
        )
    assert cache.changes(found) is None
    assert "rendered 1 switches" in cli(["render", "--root", str(root)], capsys)[1]


@pytest.mark.parametrize("mode", [0o664, 0o646, 0o666])
def test_a_snapshot_others_can_write_is_ignored_with_one_line(
    root: Path, mode: int, capsys: pytest.CaptureFixture[str]
) -> None:
    path = snapshot(root)
    path.chmod(mode)
    edit(root)
    assert cache.scan(root) is not None and cache.changes(cache.scan(root)) is None  # type: ignore[arg-type]
    store._WARNED.clear()  # one line per place and process: the CLI run below says it again
    code, out, err = cli(["validate", "--root", str(root)], capsys)
    assert code == 0 and "ok" in out.lower()
    warnings = [ln for ln in err.splitlines() if ln.startswith("warning: cache ignored")]
    assert len(warnings) == 1 and str(path) in warnings[0] and "writable by" in warnings[0], err
    code, out, err = cli(["render", "--root", str(root)], capsys)
    assert code == 0 and "rendered 1 switches" in out
    assert stat.S_IMODE(path.stat().st_mode) == mode, "never read or rewritten"


@AS_ROOT
def test_a_snapshot_and_a_store_owned_by_another_user_are_ignored(
    root: Path, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for path in (snapshot(root), folder / "store.sqlite"):
        os.chown(path, NOBODY, NOBODY)
    edit(root)
    code, out, err = cli(["render", "--root", str(root)], capsys)
    assert code == 0 and "rendered 1 switches" in out
    assert f"owned by uid {NOBODY}" in err and err.count("warning: cache ignored") == 2, err
    assert os.stat(snapshot(root)).st_uid == NOBODY


@AS_ROOT
def test_a_cache_folder_of_another_user_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = tmp_path / "shared-cache"
    shared.mkdir(mode=0o755)
    os.chown(shared, NOBODY, NOBODY)
    monkeypatch.setenv("FABRICCTL_CACHE_DIR", str(shared))
    monkeypatch.setattr(store, "_WARNED", set())
    fabric = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    code, _, err = cli(["validate", "--root", str(fabric)], capsys)
    assert code == 0 and f"{shared} is owned by uid {NOBODY}" in err
    assert list(shared.iterdir()) == [], "nothing written into it"


@pytest.mark.parametrize("mode", [0o770, 0o777, 0o1777])
def test_a_cache_folder_others_can_write_is_ignored(
    folder: Path, tmp_path: Path, mode: int, capsys: pytest.CaptureFixture[str]
) -> None:
    folder.mkdir(mode=0o700)
    folder.chmod(mode)
    fabric = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    code, out, err = cli(["render", "--root", str(fabric)], capsys)
    assert code == 0 and "rendered 6 switches" in out
    assert err.count("warning: cache ignored") == 1 and "writable by" in err, err
    assert list(folder.iterdir()) == []
    assert store.open_store() is None and cache.cache_file(fabric) is None


def test_a_cache_folder_in_a_folder_others_can_write_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without a sticky bit, anyone who can write the parent can swap the folder for their own."""
    parent = tmp_path / "open"
    parent.mkdir()
    parent.chmod(0o777)
    monkeypatch.setenv("FABRICCTL_CACHE_DIR", str(parent / "cache"))
    monkeypatch.setattr(store, "_WARNED", set())
    assert store.open_store() is None
    assert "which others can write (no sticky bit)" in capsys.readouterr().err
    parent.chmod(0o1777)  # /tmp's kind: a sticky folder is fine
    monkeypatch.setattr(store, "_WARNED", set())
    assert store.open_store() is not None


def test_a_symlinked_snapshot_is_ignored(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = snapshot(root)
    elsewhere = tmp_path / "elsewhere.sqlite"
    path.rename(elsewhere)
    path.symlink_to(elsewhere)
    edit(root)
    code, out, err = cli(["render", "--root", str(root)], capsys)
    assert code == 0 and "rendered 1 switches" in out and "is not a regular file" in err


def test_new_cache_files_are_the_users_alone(
    root: Path, folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Created 0600 (the folder 0700) whatever the umask lets through."""
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for path in folder.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path
    old = os.umask(0o002)  # a user-private-group umask: group-writable by default
    try:
        snapshot(root).unlink()
        (folder / "store.sqlite").unlink()
        assert cli(["render", "--root", str(root)], capsys)[0] == 0
    finally:
        os.umask(old)
    for path in folder.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path
    assert "warning" not in capsys.readouterr().err


def test_a_store_value_that_is_not_text_is_rendered_again(
    root: Path, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with sqlite3.connect(folder / "store.sqlite") as db:
        db.execute("UPDATE blob SET v = ?", (b"\xff\xfe not text",))
    out_dir = root / "elsewhere"
    assert cli(["render", "--root", str(root), "--out", str(out_dir)], capsys)[0] == 0
    assert (out_dir / "leaf1.cfg").read_text(encoding="utf-8") == (root / "out" / "leaf1.cfg").read_text(
        encoding="utf-8"
    )


def test_a_store_of_another_format_is_emptied(folder: Path, root: Path) -> None:
    with sqlite3.connect(folder / "store.sqlite") as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == store.STORE_FORMAT
        db.execute("PRAGMA user_version = 1")
    kept = store.open_store()
    assert kept is not None
    assert kept.get("config", ["anything"]) == {}
    with sqlite3.connect(folder / "store.sqlite") as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == store.STORE_FORMAT
        assert db.execute("SELECT COUNT(*) FROM blob").fetchone()[0] == 0
