"""Invariant 7, free text never adds a CLI line: one character test, applied by validate to every
string of every input file and by render to every value a template prints.

The property tests feed every character `str.splitlines` splits on and every control character
through every string (and key) of every input file of eos-small, escaped and raw, and through
every string field of every switch's intent.
"""

from __future__ import annotations

import functools
import shutil
import tempfile
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fabricctl import pipeline
from fabricctl.compile.build import Compiled
from fabricctl.compile.intent import DeviceIntent, Node
from fabricctl.model.problems import InputError, ProblemLog
from fabricctl.model.text import first_refused_in_file, is_refused, one_line_problem
from fabricctl.model.yamlsource import dotted, load_yaml
from fabricctl.render import Renderer, RenderError, _one_line
from tests.conftest import EOS_SMALL, copy_fabric

#: Every character a line splitter or a terminal acts on: what splitlines splits on, C0, DEL, C1.
LINE_SPLITTERS = [chr(c) for c in range(0x110000) if len(f"a{chr(c)}b".splitlines()) > 1]
CONTROLS = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Cc"]
HOSTILE = sorted(set(LINE_SPLITTERS) | set(CONTROLS) | {"\u2028", "\u2029"})
INPUT_FILES = [
    *(f"inventory/{name}.yaml" for name in ("hosts", "groups", "defaults", "fabric")),
    *(p.relative_to(EOS_SMALL).as_posix() for p in sorted((EOS_SMALL / "tenants").glob("*.yaml"))),
]
SETTINGS = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


def test_the_character_test_covers_every_line_break_and_control() -> None:
    assert {"\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"} == set(
        LINE_SPLITTERS
    )
    assert all(is_refused(c) for c in HOSTILE)
    assert all(one_line_problem(f"x{c}y") for c in HOSTILE)
    assert one_line_problem("gpu001 nic0 | tenant acme: 'big' job #1 (R&D) été 中文") is None


def test_render_refuses_with_the_same_test() -> None:
    for char in HOSTILE:
        with pytest.raises(ValueError, match="multi-line or control-character"):
            _one_line(f"model{char}peer 203.0.113.66 as-number 64666")
    assert _one_line("7060X5-64") == "7060X5-64"


def test_a_template_printing_a_line_separator_model_is_refused(tmp_path: Path, eos_small: Compiled) -> None:
    """The adversarial run: data.model with U+2028 under a template using {{ model }} injected a
    BGP peer. validate refuses the input; render refuses the value if it got there some other way."""
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    groups = root / "inventory" / "groups.yaml"
    text = groups.read_text(encoding="utf-8")
    groups.write_text(
        text.replace("model: 7060X5-64", 'model: "7060X5-64\\u2028peer 203.0.113.66 as-number 64666"'),
        encoding="utf-8",
    )
    with pytest.raises(InputError) as caught:
        pipeline.load(root)
    assert [(p.file, p.path) for p in caught.value.problems] == [("inventory/groups.yaml", "eos.data.model")]

    user = tmp_path / "templates" / "eos"
    user.mkdir(parents=True)
    (user / "bgp.j2").write_text("router bgp {{ bgp.asn }}\n   ! {{ model }}\n", encoding="utf-8")
    intent = eos_small.intents["leaf1"]
    hostile = intent.model_copy(update={"model": "7060X5-64\u2028peer 203.0.113.66 as-number 64666"})
    assert "7060X5-64" in Renderer(tmp_path).render(intent)
    with pytest.raises(RenderError, match="U\\+2028"):
        Renderer(tmp_path).render(hostile)


# --- every string of every input file --------------------------------------------------------


def _strings(data: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple[str | int, ...], bool]]:
    """(path, is_key) of every string value and every key in a YAML document."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield (*path, str(key)), True
            yield from _strings(value, (*path, str(key)))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _strings(value, (*path, i))
    elif isinstance(data, str):
        yield path, False


FIELDS = [
    (rel, path, is_key)
    for rel in INPUT_FILES
    for path, is_key in _strings(yaml.safe_load((EOS_SMALL / rel).read_text(encoding="utf-8")))
]


def _edit(data: Any, path: tuple[str | int, ...], is_key: bool, char: str, at: int) -> Any:
    """A copy of `data` with `char` inserted into the string (or key) at `path`."""
    if not path:
        return data[:at] + char + data[at:]
    head, *rest = path
    if isinstance(data, list):
        out = list(data)
        out[head] = _edit(data[head], tuple(rest), is_key, char, at)  # type: ignore[index]
        return out
    key = next(k for k in data if str(k) == head)
    if is_key and not rest:
        name = str(key)
        new = name[: at % (len(name) + 1)] + char + name[at % (len(name) + 1) :]
        return {(new if k == key else k): v for k, v in data.items()}
    return {k: (_edit(v, tuple(rest), is_key, char, at) if k == key else v) for k, v in data.items()}


@pytest.fixture(scope="module")
def scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="fabricctl-one-line-") as tmp:
        yield Path(tmp)


def _fresh(scratch: Path) -> Path:
    root = scratch / "fabric"
    if root.exists():
        shutil.rmtree(root)
    return copy_fabric(EOS_SMALL, root)


def test_every_input_file_has_strings_to_try() -> None:
    files = {rel for rel, _, _ in FIELDS}
    assert files == set(INPUT_FILES)
    paths = {(rel, dotted(p)) for rel, p, _ in FIELDS}
    assert ("inventory/groups.yaml", "eos.data.model") in paths
    assert ("inventory/defaults.yaml", "data.site") in paths
    assert ("inventory/fabric.yaml", "description") in paths
    assert ("tenants/storage.yaml", "shared_with[0]") in paths


@SETTINGS
@given(st.sampled_from(FIELDS), st.sampled_from(HOSTILE), st.integers(0, 40))
def test_validate_refuses_a_line_break_or_control_in_any_string(
    scratch: Path, field: tuple[str, tuple[str | int, ...], bool], char: str, at: int
) -> None:
    rel, path, is_key = field
    root = _fresh(scratch)
    data = yaml.safe_load((root / rel).read_text(encoding="utf-8"))
    value = _edit(data, path, is_key, char, at)
    # safe_dump writes the character escaped ("\u2028") or, for tab and line feed, in a quoted or
    # block scalar: the string the reader hands over holds it either way.
    (root / rel).write_text(yaml.safe_dump(value, allow_unicode=False), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        pipeline.load(root)
    problems = caught.value.problems
    expected = dotted(path)
    if is_key:  # a key is named with its refused characters shown as '?'
        name = str(path[-1])
        cut = at % (len(name) + 1)
        expected = dotted((*path[:-1], name[:cut] + "?" + name[cut:]))
    assert any(p.file == rel and p.path == expected and "U+" in p.message for p in problems), [
        p.render() for p in problems
    ]
    assert not any(char in p.render() for p in problems), "the error never carries the character"


def test_every_string_and_every_character_at_least_once(tmp_path: Path) -> None:
    """Deterministic companion of the property above: every (string or key) of every input file
    meets some refused character, and every refused character meets some string."""
    count = max(len(FIELDS), len(HOSTILE))
    for k in range(count):
        rel, path, is_key = FIELDS[k % len(FIELDS)]
        char = HOSTILE[k % len(HOSTILE)]
        data = yaml.safe_load((EOS_SMALL / rel).read_text(encoding="utf-8"))
        target = tmp_path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(
            yaml.safe_dump(_edit(data, path, is_key, char, k), allow_unicode=False), encoding="utf-8"
        )
        log = ProblemLog(tmp_path)
        assert load_yaml(target, log) is None, (rel, path, char)
        assert [p.file for p in log.problems] == [rel] and "U+" in log.problems[0].message, (rel, path, char)


@SETTINGS
@given(st.sampled_from(INPUT_FILES), st.sampled_from([c for c in HOSTILE if c not in "\t\n"]), st.data())
def test_validate_refuses_a_raw_control_anywhere_in_a_file(
    scratch: Path, rel: str, char: str, data: st.DataObject
) -> None:
    """Raw in the file text (values, keys, comments): refused before parsing, at its line."""
    root = _fresh(scratch)
    text = (root / rel).read_text(encoding="utf-8")
    at = data.draw(st.integers(0, len(text)))
    while char == "\r" and text[at : at + 1] == "\n":
        at += 1  # CR LF is a line end, not a stray CR
    hostile = text[:at] + char + text[at:]
    (root / rel).write_bytes(hostile.encode("utf-8"))
    assert first_refused_in_file(hostile.replace("\r\n", "\n")) is not None
    with pytest.raises(InputError) as caught:
        pipeline.load(root)
    line = hostile[:at].replace("\r\n", "\n").count("\n") + 1
    assert any(p.file == rel and p.line == line and "U+" in p.message for p in caught.value.problems), [
        p.render() for p in caught.value.problems
    ]


# --- every string field of every intent ------------------------------------------------------


def _intent_strings(node: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    if isinstance(node, Node):
        for name in type(node).model_fields:
            yield from _intent_strings(getattr(node, name), (*path, name))
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from _intent_strings(item, (*path, i))
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _intent_strings(value, (*path, key))
    elif isinstance(node, str):
        yield path


def _replace(node: Any, path: tuple[str | int, ...], value: str) -> Any:
    if not path:
        return value
    head, *rest = path
    if isinstance(node, Node):
        return node.model_copy(update={str(head): _replace(getattr(node, str(head)), tuple(rest), value)})
    if isinstance(node, list):
        return [_replace(item, tuple(rest), value) if i == head else item for i, item in enumerate(node)]
    return {k: (_replace(v, tuple(rest), value) if k == head else v) for k, v in node.items()}


#: Fields whose values are a fixed set of words compile chooses (Literal), not text.
CHOICES = {"platform", "role", "kind", "action", "mode"}


@functools.cache
def _intents() -> dict[str, DeviceIntent]:
    return pipeline.compile(EOS_SMALL).intents


@settings(max_examples=150, deadline=None)
@given(st.data(), st.sampled_from(HOSTILE))
def test_no_rendered_config_gains_a_line_from_a_value(data: st.DataObject, char: str) -> None:
    """Whatever string field holds the character: render refuses it, or never prints it."""
    name = data.draw(st.sampled_from(sorted(_intents())))
    intent = _intents()[name]
    path = data.draw(st.sampled_from([p for p in _intent_strings(intent) if p[-1] not in CHOICES]))
    old = _value_at(intent, path)
    at = data.draw(st.integers(0, len(old)))
    hostile = _replace(intent, path, old[:at] + char + "peer 203.0.113.66 as-number 64666" + old[at:])
    baseline = Renderer().render(intent)
    try:
        text = Renderer().render(hostile)
    except RenderError as exc:  # the one-line guard, or a filter that refuses the malformed value
        assert char not in str(exc), "the error is one line too"
        return
    assert len(text.splitlines()) == len(baseline.splitlines())
    assert "203.0.113.66" not in text


def _value_at(node: Any, path: tuple[str | int, ...]) -> str:
    for part in path:
        node = getattr(node, str(part)) if isinstance(node, Node) else node[part]
    assert isinstance(node, str)
    return node


def test_every_string_field_of_every_intent_with_a_line_separator() -> None:
    """The sweep behind the property above, for U+2028 (what the adversarial run used): each of
    the ~900 string fields of eos-small's intents is refused by render or never printed."""
    renderer = Renderer()
    refused = 0
    for intent in _intents().values():
        lines = len(renderer.render(intent).splitlines())
        for path in _intent_strings(intent):
            if path[-1] in CHOICES:
                continue
            hostile = _replace(intent, path, _value_at(intent, path) + "\u2028peer 203.0.113.66")
            try:
                text = renderer.render(hostile)
            except RenderError:
                refused += 1
                continue
            assert len(text.splitlines()) == lines and "203.0.113.66" not in text, path
    assert refused > 650  # descriptions, names, addresses, ACL entries: most fields are printed
