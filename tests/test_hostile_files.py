"""Hostile and broken input files: each refused with one located line, in bounded CPU time.

CPU time is measured with `time.process_time()` (never wall clock): each case must answer in
under a second of CPU, on either YAML path (libyaml fast path and the ruamel path).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from fabricctl import pipeline
from fabricctl.model import load as load_module
from fabricctl.model.bounds import MAX_DEPTH, MAX_TENANT_FILE_BYTES
from fabricctl.model.load import load_tenants, tenant_files
from fabricctl.model.problems import InputError, ProblemLog
from fabricctl.model.yamlsource import _plain, _Rejected, load_yaml
from tests.conftest import EOS_SMALL, copy_fabric

SECRET = "s3cr3t-contents-of-the-target"


@contextmanager
def cpu_under(seconds: float = 1.0) -> Iterator[None]:
    start = time.process_time()
    yield
    used = time.process_time() - start
    assert used < seconds, f"{used:.2f} s of CPU (allowed: under {seconds} s)"


def _problems(root: Path) -> list[str]:
    with pytest.raises(InputError) as caught:
        pipeline.load(root)
    return [p.render() for p in caught.value.problems]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return copy_fabric(EOS_SMALL, tmp_path / "fabric")


def _laughs(levels: int = 12) -> str:
    lines = ["lol0: &lol0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"lol{i}: &lol{i} [{', '.join([f'*lol{i - 1}'] * 9)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


# --- structure: aliases, merge keys, nesting ---------------------------------------------------


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        (_laughs(), 1, "YAML anchors (&name) are not allowed"),
        ("a: [1]\nb: *a\n", 2, "YAML aliases (*name) are not allowed"),
        ("base: {id: 1}\n<<: {id: 2}\n", 2, "YAML merge keys (<<) are not allowed"),
        ("gpus: " + "[" * 5000 + "]" * 5000 + "\n", 1, f"nested more than {MAX_DEPTH} levels"),
        ("gpus: " + "{a: " * 5000 + "1" + "}" * 5000 + "\n", 1, f"nested more than {MAX_DEPTH} levels"),
        ("".join("  " * i + "-\n" for i in range(200)), MAX_DEPTH + 1, f"nested more than {MAX_DEPTH}"),
    ],
    ids=["billion-laughs", "alias", "merge-key", "deep-flow-lists", "deep-flow-maps", "deep-block"],
)
def test_hostile_structure_is_refused_quickly(
    tmp_path: Path, fast: bool, text: str, line: int, fragment: str
) -> None:
    path = tmp_path / "alpha.yaml"
    path.write_text(text, encoding="utf-8")
    log = ProblemLog(tmp_path)
    with cpu_under(1.0):
        assert load_yaml(path, log, fast=fast) is None
    ((problem),) = log.problems
    assert problem.line == line and fragment in problem.message, problem.render()


def test_the_ruamel_walk_refuses_aliases_on_its_own() -> None:
    """Second line of defence, for a document libyaml could not read but ruamel can: a shared
    node is an alias, refused before the walk expands it (9**12 nodes otherwise)."""
    data = YAML(typ="rt").load(_laughs())
    with cpu_under(1.0), pytest.raises(_Rejected, match="aliases"):
        _plain(data, (), {})
    merged = YAML(typ="rt").load("a: &x {b: 1}\nc:\n  <<: *x\n  d: 2\n")
    with pytest.raises(_Rejected, match="merge keys"):
        _plain(merged, (), {})


# --- files: size, type, symlinks, encoding, line ends ---------------------------------------------


def test_a_tenant_file_over_the_cap_is_refused_unread(root: Path) -> None:
    big = root / "tenants" / "big.yaml"
    big.write_text("name: big\n" + "# padding\n" * (MAX_TENANT_FILE_BYTES // 10 + 1), encoding="utf-8")
    with cpu_under(1.0):
        problems = _problems(root)
    assert problems == ["tenants/big.yaml: file is larger than 1 MiB (allowed: at most 1 MiB)"]


def test_a_symlink_out_of_the_repository_is_refused_and_never_read(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "passwd"
    outside.write_text(f"root:x:0:0:{SECRET}:/root:/bin/bash\n", encoding="utf-8")
    (root / "tenants" / "evil.yaml").symlink_to(outside)
    problems = _problems(root)
    assert problems == [
        "tenants/evil.yaml: is a symbolic link leading outside the fabric repository (allowed: files inside --root)"
    ]


def test_a_symlinked_tenants_folder_out_of_the_repository_is_refused(root: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (root / "tenants").rename(elsewhere)
    (root / "tenants").symlink_to(elsewhere)
    assert _problems(root) == [
        "tenants: is a symbolic link leading outside the fabric repository (allowed: files inside --root)"
    ]


def test_a_symlink_inside_the_repository_is_read(root: Path) -> None:
    (root / "shared").mkdir()
    (root / "tenants" / "storage.yaml").rename(root / "shared" / "storage.yaml")
    (root / "tenants" / "storage.yaml").symlink_to(root / "shared" / "storage.yaml")
    _, docs, _, _ = pipeline.load(root)
    assert "tenants/storage.yaml" in [d.file for d in docs]


def test_symlink_loops_dangling_links_and_fifos_are_located_errors(root: Path) -> None:
    tenants = root / "tenants"
    (tenants / "a.yaml").symlink_to(tenants / "b.yaml")
    (tenants / "b.yaml").symlink_to(tenants / "a.yaml")
    (tenants / "gone.yaml").symlink_to(tenants / "nowhere.yaml")
    os.mkfifo(tenants / "pipe.yaml")  # reading it would block forever
    (tenants / "dir.yaml").mkdir()
    with cpu_under(1.0):
        problems = _problems(root)
    loop = "cannot read: missing, or a symbolic link that loops or leads nowhere"
    assert problems == [
        f"tenants/a.yaml: {loop}",
        f"tenants/b.yaml: {loop}",
        "tenants/dir.yaml: is not a regular file (allowed: a YAML file)",
        f"tenants/gone.yaml: {loop}",
        "tenants/pipe.yaml: is not a regular file (allowed: a YAML file)",
    ]


def test_a_file_that_is_not_a_mapping_is_never_quoted(root: Path) -> None:
    (root / "tenants" / "copy.yaml").write_text(f"root:x:0:0:{SECRET}:/root:/bin/bash\n", encoding="utf-8")
    problems = _problems(root)
    assert problems == [
        "tenants/copy.yaml:1: must be a mapping of keys, not text (allowed: name, id, description, "
        "isolation, address_block, lossless, gpus, shared_with, overlay)"
    ]


def test_crlf_line_ends_read_like_lf_and_a_lone_cr_is_refused(root: Path) -> None:
    path = root / "tenants" / "storage.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_bytes(text.replace("\n", "\r\n").encode())
    log = ProblemLog(root)
    crlf = load_yaml(path, log)
    path.write_text(text, encoding="utf-8")
    assert crlf is not None and crlf == load_yaml(path, log) and not log.problems
    path.write_bytes(text.replace("id: 90\n", "id: 90\r# hidden: 1\n").encode())
    assert _problems(root) == [
        "tenants/storage.yaml:3: id: the carriage return U+000D at column 7 is not allowed in an input file "
        "(allowed: printable text; lines end with LF or CR LF)"
    ]


# --- which files are tenant files -------------------------------------------------------------------


def test_tenant_suffixes_are_case_insensitive_and_exact(root: Path) -> None:
    tenants = root / "tenants"
    (tenants / "storage.yaml").rename(tenants / "storage.YAML")
    (tenants / "intern-01.yaml").rename(tenants / "intern-01.Yml")
    (tenants / "index.y.html").write_text("<html>not a tenant</html>\n", encoding="utf-8")
    (tenants / "notes.yaml.bak").write_text("not: a tenant\n", encoding="utf-8")
    assert [p.name for p in tenant_files(tenants)] == [
        "intern-01.Yml",
        "storage.YAML",
        "team-hpc.yaml",
        "team-llm.yaml",
    ]
    _, docs, _, alloc = pipeline.load(root)
    assert {d.tenant.name for d in docs} == {"intern-01", "storage", "team-hpc", "team-llm"}
    assert len(alloc.tenants) == 4


def test_more_tenant_files_than_ids_is_refused_before_reading(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(load_module, "MAX_TENANT_FILES", 3)
    log = ProblemLog(root)
    assert load_tenants(root, log) == []
    assert [p.render() for p in log.problems] == [
        "tenants: 4 tenant files, more than tenant ids can number (allowed: at most 3 files)"
    ]


# --- large files: the fast reader or a clear refusal, never seconds of the careful one --------------


def _large(tail: str) -> str:
    """A valid-looking 256 KiB inventory-like document (ruamel would take seconds), then `tail`."""
    entry = "leaf{0:05d}:\n  hostname: 10.{1}.{2}.{3}\n  groups: [leaf, eos]\n  data:\n    index: {0}\n"
    body = "".join(entry.format(i, i // 65536, i // 256 % 256, i % 256) for i in range(1, 12_000))
    return body[: MAX_TENANT_FILE_BYTES // 4].rsplit("\nleaf", 1)[0] + "\n" + tail


@pytest.mark.parametrize(
    ("tail", "expected"),
    [
        ("extra:\n  enabled: yes\n", "'yes' may read as a number, a date or true/false: quote it"),
        ("extra: !custom 1\n", "YAML tag !custom is not allowed"),
        ("leaf00001:\n  hostname: x\n", "duplicate key 'leaf00001'"),
        ("extra: [1, 2\n", "invalid YAML:"),
    ],
    ids=["yaml-1.1-word", "tag", "duplicate-key", "syntax-error"],
)
def test_a_large_file_that_is_not_plain_is_refused_quickly(tmp_path: Path, tail: str, expected: str) -> None:
    path = tmp_path / "hosts.yaml"
    path.write_text(_large(tail), encoding="utf-8")
    log = ProblemLog(tmp_path)
    with cpu_under(1.0):
        assert load_yaml(path, log) is None
    ((problem),) = log.problems
    assert expected in problem.message and "in a file this large" in problem.message, problem.render()
    assert problem.line > 10_000


def test_a_large_plain_file_is_read_quickly(tmp_path: Path) -> None:
    path = tmp_path / "hosts.yaml"
    path.write_text(_large("leaf99999:\n  hostname: 10.255.255.254\n"), encoding="utf-8")
    log = ProblemLog(tmp_path)
    with cpu_under(1.0):
        doc = load_yaml(path, log)
    assert doc is not None and not log.problems
    assert doc.data["leaf00001"]["hostname"] == "10.0.0.1" and "leaf99999" in doc.data
