"""The command reference (fabricctl/lab/devices/*/commands.yaml): sourced, and the only thing the lab takes.

- every entry has a source that names a URL, a section and the device it is for, and at least
  one source its platform's vendor published (never fabricctl's own files);
- every line the templates render for every example fabric (and the reference fabric split
  2x200G, and each with a switch and a link drained: maintenance.yaml), every day-0 file `ztp render` writes for examples/day0's racks on each platform, and
  every line of every golden config, matches an entry in the view it is written in
  (a rendered line without an entry fails here: the fix is the template, or a vendor source for a
  new entry, never an entry copied from the template);
- docs/emitted-syntax.md is generated from the reference and the rendered lines (regenerate with
  `python tests/regen_goldens.py`).
"""

from __future__ import annotations

import copy
import functools
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from fabricctl.config.tree import Node, parse_tree
from fabricctl.lab.grammar import Rule
from fabricctl.lab.reference import CONFIDENCE, Reference, ReferenceError, parse_reference, reference
from fabricctl.platforms import get_platform
from tests.conftest import yaml_mapping

REPO = Path(__file__).resolve().parents[2]
#: The reference fabric and every example that compiles on its own (examples/day0 is racks only).
FABRICS = [REPO, *sorted({p.parent for p in REPO.glob("examples/*/tenants")})]
GOLDEN = REPO / "tests" / "golden"
#: Who writes each platform's vendor documents (a source's `publisher`).
VENDORS = {"comware": {"H3C", "HPE", "HP"}, "eos": {"Arista"}}
#: What a source that cites fabricctl itself would name.
PROJECT_MARKS = ("fabricctl", "commands.yaml", "emitted-syntax", "citations.md", "tests/", "templates/")
PLATFORMS = ("comware", "eos")
DOC = REPO / "docs" / "emitted-syntax.md"


def _raw(platform: str) -> dict[str, Any]:
    path = REPO / "fabricctl" / "lab" / "devices" / platform / "commands.yaml"
    return yaml_mapping(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("platform", PLATFORMS)
def test_every_source_is_in_the_reviewed_citation_table(platform: str) -> None:
    """docs/citations.md reviews every source id: a new one is reviewed before it is cited."""
    table = (REPO / "docs" / "citations.md").read_text(encoding="utf-8")
    for sid, src in reference(platform).sources.items():
        assert f"| {platform} | `{sid}` | <{src.url}> |" in table, sid


@pytest.mark.parametrize("platform", PLATFORMS)
def test_every_entry_has_a_source_with_url_section_and_device(platform: str) -> None:
    ref = reference(platform)
    assert ref.rules(), "an empty reference accepts nothing"
    for view, rule in ref.rules():
        assert rule.sources, f"{view}: {rule.pattern} has no source"
        assert rule.confidence in CONFIDENCE, f"{view}: {rule.pattern}"
        for sid in rule.sources:
            src = ref.sources[sid]
            assert src.url.startswith("http"), f"{sid}: {src.url}"
            assert src.section and src.device, sid


@pytest.mark.parametrize("platform", PLATFORMS)
def test_every_entry_cites_a_document_its_vendor_published(platform: str) -> None:
    """A line shape the lab takes rests on the vendor's word: at least one source of every entry
    is a document its platform's vendor published, and no source is fabricctl's own file."""
    ref = reference(platform)
    for sid, src in ref.sources.items():
        assert src.publisher, f"{sid}: no publisher"
        assert src.url.startswith("http"), sid
        text = f"{src.url} {src.section} {src.device}".lower()
        assert not [m for m in PROJECT_MARKS if m in text], f"{sid} points at fabricctl's own files"
    for view, rule in ref.rules():
        publishers = {ref.sources[sid].publisher for sid in rule.sources}
        assert publishers & VENDORS[platform], f"{view}: {rule.pattern} cites no {platform} vendor document"


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d["views"]["global"]["commands"][0].pop("src"), "no source"),
        (lambda d: d["views"]["global"]["commands"][0].update(src=["nowhere"]), "unknown source ids"),
        (lambda d: d["views"]["global"]["commands"][0].update(conf="U"), "confidence must be one of"),
        (lambda d: next(iter(d["sources"].values())).pop("url"), "missing url"),
        (lambda d: d["views"]["global"]["commands"][0].update(enters="nowhere"), "enters unknown view"),
        (lambda d: d["views"]["global"]["commands"][0].update(colour="red"), "unknown fields"),
    ],
    ids=["no-source", "unknown-source", "bad-confidence", "source-without-url", "unknown-view", "typo"],
)
@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_malformed_reference_is_refused(platform: str, mutate, message: str) -> None:  # type: ignore[no-untyped-def]
    data = copy.deepcopy(_raw(platform))
    mutate(data)
    with pytest.raises(ReferenceError, match=message):
        parse_reference(platform, data)


def _split(root: Path) -> Path:
    """A copy of a shipped fabric with its GPU ports split 2x200G (the breakout shapes)."""
    dst = Path(tempfile.mkdtemp(prefix="fabric-split-")) / root.name
    shutil.copytree(root / "inventory", dst / "inventory")
    (dst / "tenants").mkdir()
    for tenant in (root / "tenants").glob("*.yaml"):  # tenants that name ports would name lanes now
        if "ports:" not in tenant.read_text(encoding="utf-8"):
            shutil.copy(tenant, dst / "tenants" / tenant.name)
    fabric = dst / "inventory" / "fabric.yaml"
    text = fabric.read_text(encoding="utf-8")
    fabric.write_text(text.replace("gpu_port_breakout: none", "gpu_port_breakout: 2x200G"), encoding="utf-8")
    return dst


def _drained(root: Path) -> Path:
    """A copy of a shipped fabric with a spine drained whole and a leaf's uplink drained (both
    forms of each NOS's graceful shutdown: maintenance.yaml)."""
    from fabricctl import pipeline

    links = pipeline.compile(root).topology.links
    spine = links[0].spine
    link = next(ln for ln in links if ln.spine != spine)
    dst = Path(tempfile.mkdtemp(prefix="fabric-drained-")) / root.name
    for folder in ("inventory", "tenants"):
        shutil.copytree(root / folder, dst / folder)
    (dst / "maintenance.yaml").write_text(
        f"drained:\n  - switch: {spine}\n  - switch: {link.leaf}\n    port: {link.leaf_port}\n",
        encoding="utf-8",
    )
    return dst


@functools.cache
def _rendered() -> dict[str, list[tuple[str, str]]]:
    """platform -> [(switch, config text)] for every switch of the shipped fabrics (the reference
    also split, and each also with a switch and a link drained), the day-0 configs of examples/day0's racks on the platform, and every golden
    config (its platform from the intent next to it)."""
    from fabricctl import pipeline
    from fabricctl.deploy.ztp import render_ztp
    from tests.day0.helpers import day0_pod

    out: dict[str, list[tuple[str, str]]] = {p: [] for p in PLATFORMS}
    shipped: dict[tuple[str, str], object] = {}  # (fabric, switch) -> intent, as shipped
    for root in [*FABRICS, _split(REPO), *(_drained(f) for f in FABRICS)]:
        drained = root.parent.name.startswith("fabric-drained-")
        intents = {}
        for name, intent in pipeline.compile(root).intents.items():
            if drained and shipped.get((root.name, name)) == intent:
                continue  # the drain left this switch's intent, so its config, as shipped
            if root in FABRICS:
                shipped[(root.name, name)] = intent
            if intent.platform in out:
                intents[name] = intent
        for name, text in pipeline.render(intents, root).items():
            out[intents[name].platform].append((f"{root.name}/{name}", text))
    for platform in PLATFORMS:  # the day-0 header (login, management address) and the fabric config
        pod = day0_pod(Path(tempfile.mkdtemp(prefix="day0-")) / "pod", platform)
        made = render_ztp(pod, lab=True)
        for name, switch in sorted(made.switches.items()):
            config = next(f for f in switch["files"] if f.endswith((".cfg", ".startup-config")))
            out[platform].append((f"day0/{name}", (made.out / config).read_text(encoding="utf-8")))
    for cfg in sorted(GOLDEN.glob("*/*.cfg")):
        intent = yaml.safe_load(cfg.with_suffix(".intent.yaml").read_text(encoding="utf-8"))
        if intent["platform"] in out:
            out[intent["platform"]].append(
                (f"golden {cfg.parent.name}/{cfg.name}", cfg.read_text(encoding="utf-8"))
            )
    return out


def _walk(ref: Reference, nodes: list[Node], view: str, where: str, seen: dict[tuple[str, str], int]) -> None:
    """Match each line in exactly the view its indentation puts it in (no falling back to parents)."""
    for node in nodes:
        words = node.text.split()
        if words[0] in ("!", "#", "end", "return") or node.text.startswith("version "):
            continue
        rule = ref.grammar.find(view, words)
        assert rule is not None, (
            f"{where} line {node.line}: '{node.text}' matches no command of view '{view}' in "
            f"fabricctl/lab/devices/{ref.platform}/commands.yaml"
        )
        seen[(view, rule.pattern)] = seen.get((view, rule.pattern), 0) + 1
        if node.children:
            assert rule.child is not None, f"{where} line {node.line}: '{node.text}' opens no view"
            _walk(ref, node.children, rule.child, where, seen)


@functools.cache
def _emitted(platform: str) -> dict[tuple[str, str], int]:
    ref = reference(platform)
    seen: dict[tuple[str, str], int] = {}
    for where, text in _rendered()[platform]:
        _walk(ref, parse_tree(text), ref.grammar.root, where, seen)
    return seen


@pytest.mark.parametrize("platform", PLATFORMS)
def test_every_rendered_line_is_a_reference_command_in_its_view(platform: str) -> None:
    assert _rendered()[platform], f"no shipped fabric has {platform} switches"
    assert _emitted(platform)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _sources(ref: Reference, rule: Rule) -> str:
    return "; ".join(f"[{sid}]({ref.sources[sid].url})" for sid in rule.sources)


def emitted_syntax_doc() -> str:
    """docs/emitted-syntax.md: every emitted line shape per platform, from the reference."""
    out = [
        "# What fabricctl emits, per platform",
        "",
        "Generated by `python tests/regen_goldens.py` from the command references",
        "(fabricctl/lab/devices/<platform>/commands.yaml) and the configs rendered for the shipped fabrics;",
        "do not edit by hand. Each line shape fabricctl renders is listed with the view it is written",
        "in, the documented default (the value in force without the line), where the switch shows it,",
        "the confidence of its source and the source itself.",
        "",
        "Confidence: " + "; ".join(f"**{k}** {v}" for k, v in CONFIDENCE.items()) + ".",
        "Angle brackets are values (`<int:lo-hi>` a bounded number); every tenant `<name>` of a VRF,",
        "ACL, VSI or VLAN is `tnt-<tenant>` (docs/plan-apply.md).",
    ]
    for platform in PLATFORMS:
        ref = reference(platform)
        emitted = _emitted(platform)
        out += ["", f"## {ref.title}", "", ref.intro, ""]
        out += [
            "| view | command | default | shown by | conf | source | note |",
            "|---|---|---|---|---|---|---|",
        ]
        for view, rule in ref.rules():
            if (view, rule.pattern) not in emitted:
                continue
            title = ref.grammar.modes[view].title
            out.append(
                f"| {_cell(title)} | `{_cell(rule.pattern)}` | {_cell(rule.default or '')} | "
                f"{_cell(rule.shows or '')} | {rule.confidence} | {_sources(ref, rule)} | {_cell(rule.note)} |"
            )
        checks = [(v, r) for v, r in ref.rules() if (v, r.pattern) in emitted and r.confidence == "P"]
        out += ["", "To check with `?` on the device before production (confidence P):", ""]
        out += [
            f"- `{r.pattern}` ({ref.grammar.modes[v].title}): {_cell(r.note) or 'its syntax for this device was not read in the cited document'}"
            for v, r in checks
        ]
        out += [
            "",
            f"Values no vendor document settles are fabric settings (fabric.yaml `qos.{platform}`), not constants:",
            "",
        ]
        for field, info in get_platform(platform).qos_tuning.model_fields.items():
            out.append(f"- `{field}`: default `{info.default}`")
        others = [(v, r) for v, r in ref.rules() if (v, r.pattern) not in emitted]
        out += [
            "",
            f"Also accepted by the lab (factory, operator or alternative lines): {len(others)} commands,",
        ]
        out.append(f"listed in fabricctl/lab/devices/{platform}/commands.yaml.")
        out += _source_list(
            ref, {sid for v, r in ref.rules() if (v, r.pattern) in emitted for sid in r.sources}
        )
    out += _nvue_section()
    return "\n".join(out) + "\n"


@functools.cache
def _nvue_emitted() -> dict[Rule, int]:
    """Each `nv set` path the NVUE examples render, by the table entry that takes it."""
    import shlex

    from fabricctl import pipeline
    from fabricctl.lab.devices.nvue.cli import commands, validate
    from fabricctl.lab.devices.nvue.tree import load_yaml

    grammar = reference("nvue").grammar
    seen: dict[Rule, int] = {}
    for root in (REPO / "examples" / "nvue-small", REPO / "examples" / "mixed-pods"):
        nvue = {n: i for n, i in pipeline.compile(root).intents.items() if i.platform == "nvue"}
        for text in pipeline.render(nvue, root).values():
            for line in commands(load_yaml(text), {}):
                rule = validate(grammar, shlex.split(line)[2:], negated=False)
                assert rule is not None, line
                seen[rule] = seen.get(rule, 0) + 1
    return seen


def _nvue_section() -> list[str]:
    """NVUE: every `nv set` path the examples render, the release it holds from, the form it
    replaced and the page of the command reference that lists it."""
    ref = reference("nvue")
    emitted = _nvue_emitted()
    gen = ref.generated or {}
    out = ["", f"## {ref.title}", "", ref.intro, ""]
    out += [
        f"Generated by {gen.get('by')} from {gen.get('repository')} (commit {gen.get('commit') or 'not recorded'}, "
        f'{gen.get("pages")} pages); "holds from" is the release the form holds from (the page\'s version '
        'history, or the release that renamed it), "replaced" the form it took before.',
        "",
        "| `nv set` path | holds from | replaced | default | source |",
        "|---|---|---|---|---|",
    ]
    for _view, rule in ref.rules():
        if rule in emitted:
            since, before = ref.history.get(rule, ("", ""))
            out.append(
                f"| `{_cell(rule.pattern)}` | {since} | {f'`{_cell(before)}`' if before else ''} | "
                f"{_cell(rule.default or '')} | {_sources(ref, rule)} |"
            )
    return out + _source_list(ref, {sid for rule in emitted for sid in rule.sources})


def _source_list(ref: Reference, used: set[str]) -> list[str]:
    out = ["", "Sources:", ""]
    for sid in sorted(used):
        src = ref.sources[sid]
        out.append(f"- **{sid}**: <{src.url}> - {_cell(src.section)} ({_cell(src.device)})")
    return out


def test_emitted_syntax_doc_is_generated_from_the_reference() -> None:
    text = emitted_syntax_doc()
    if os.environ.get("FABRICCTL_REGEN"):
        DOC.write_text(text, encoding="utf-8")
    assert DOC.read_text(encoding="utf-8") == text, (
        "docs/emitted-syntax.md is stale: python tests/regen_goldens.py"
    )
