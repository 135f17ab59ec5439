"""One YAML reading, two paths: libyaml's fast path gives exactly what ruamel gives, or steps aside.

Checked on every YAML file the project has (inventories, tenants, error cases, fixtures) and on
generated documents; and the intent emitter's output reads back, through a YAML parser, as the
intent it was made from.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from fabricctl.artifacts import intent_yaml
from fabricctl.compile.build import Compiled
from fabricctl.model._fastyaml import Refused, fast_load
from fabricctl.model.problems import ProblemLog
from fabricctl.model.yamlsource import load_yaml
from tests.conftest import REPO

FILES = sorted(
    p
    for pattern in ("*.yaml", "*.yml", "*.YAML")
    for p in REPO.rglob(pattern)
    if not {".venv", ".git", ".fabricctl", "golden"} & set(p.relative_to(REPO).parts)
)


def both(path: Path) -> tuple[tuple[object, object, list[str]], tuple[object, object, list[str]]]:
    out = []
    for fast in (True, False):
        log = ProblemLog(path.parent)
        doc = load_yaml(path, log, fast=fast)
        out.append(
            (doc.data if doc else None, doc.lines if doc else None, [p.render() for p in log.problems])
        )
    return out[0], out[1]


def _takes_fast_path(text: str) -> bool:
    try:
        return fast_load(text) is not None
    except Refused:  # the error cases of hostile YAML: refused on both paths alike
        return False


def test_there_are_files_to_compare() -> None:
    assert len(FILES) > 80


def test_both_paths_agree_on_every_yaml_file_of_the_project() -> None:
    fast_taken = 0
    for path in FILES:
        quick, careful = both(path)
        assert quick == careful, path.relative_to(REPO)
        fast_taken += _takes_fast_path(path.read_text(encoding="utf-8"))
    assert fast_taken > len(FILES) // 2, "the fast path should serve the plain files"


SCALARS = st.one_of(
    st.integers(-(10**12), 10**12),
    st.booleans(),
    st.none(),
    st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), max_size=12),
    st.sampled_from(
        [
            *("yes", "no", "on", "off", "1e3", "0x1f", "0o17", "1_000", "12:30", "~", ".inf", "-.5"),
            *("10.1.2.3", "10.64.0.0/26", "1.2.3", "1.2.3.4.5", "2024-01-02", "1-32", "0.0.0.0/0"),
        ]
    ),
)
DOCS = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text("abcdefgh-_", min_size=1, max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(DOCS, st.sampled_from(["block", "flow"]))
def test_generated_documents_read_the_same_on_both_paths(tmp_path_factory, data: object, style: str) -> None:  # type: ignore[no-untyped-def]
    text = yaml.safe_dump({"doc": data}, default_flow_style=style == "flow", allow_unicode=True)
    path = tmp_path_factory.mktemp("yaml") / "doc.yaml"
    path.write_text(text, encoding="utf-8")
    quick, careful = both(path)
    assert quick == careful


def test_intent_emitter_reads_back_as_the_intent(reference: Compiled, eos_small: Compiled) -> None:
    for compiled in (reference, eos_small):
        for intent in compiled.intents.values():
            assert yaml.safe_load(intent_yaml(intent)) == intent.model_dump(mode="json"), intent.name
