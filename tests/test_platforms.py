"""Every registered platform provides every part, and every capability it declares is enforced.

A third NOS is one package under fabricctl/platforms/; this test says what it must bring. Each
capability flag has a case here: a platform without it makes `validate` refuse the switch or the
tenant that needs it (never a push that fails halfway).
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import io
import re
import tokenize
from pathlib import Path

import jinja2
import jinja2.nodes
import pytest

from fabricctl import pipeline
from fabricctl.config.diff import diff_device
from fabricctl.config.readback import SwitchConfig
from fabricctl.config.rules import Dialect
from fabricctl.model.problems import InputError
from fabricctl.platforms import PLATFORMS, get_platform
from fabricctl.platforms.base import Capabilities, Limits, Platform, QosTuning
from fabricctl.render import BUILTIN_TEMPLATES, FILTERS
from tests.conftest import EOS_SMALL, NVUE_SMALL, REFERENCE, SONIC_SMALL, copy_fabric, render_one

EXAMPLES = {"comware": REFERENCE, "eos": EOS_SMALL, "nvue": NVUE_SMALL, "sonic": SONIC_SMALL}


def test_every_platform_has_an_example_fabric() -> None:
    assert set(PLATFORMS) == set(EXAMPLES)


@pytest.mark.parametrize("name", list(PLATFORMS))
def test_value_key_is_the_first_single_value_prefix_that_matches(name: str) -> None:
    """`single_value` is tried as one alternation: the same key as trying each prefix in order,
    on every line of the example fabric and of the lab's factory config."""
    from fabricctl.lab.factory import factory_text
    from fabricctl.lab.inventory import specs_from_inventory

    dialect = get_platform(name).dialect
    compiled = pipeline.compile(EXAMPLES[name])
    texts = list(pipeline.render(compiled.intents, EXAMPLES[name]).values())
    texts += [factory_text(s) for s in specs_from_inventory(EXAMPLES[name])]
    lines = {ln.strip() for text in texts for ln in text.splitlines()} | {""}

    def one_by_one(line: str) -> str | None:
        return next((m[0] for p in dialect.single_value if (m := re.match(p, line))), None)

    if get_platform(name).differ is diff_device:  # the shared remediation reads single_value
        assert sum(one_by_one(ln) is not None for ln in lines) > 50
    assert {ln: dialect.value_key(ln) for ln in lines} == {ln: one_by_one(ln) for ln in lines}


@pytest.mark.parametrize("name", list(PLATFORMS))
def test_platform_provides_every_part(name: str) -> None:
    p = get_platform(name)
    assert isinstance(p, Platform) and p.name == name and p.title
    assert isinstance(p.capabilities, Capabilities) and p.models
    assert 0 <= p.cnp_class <= 7
    for model in p.models:  # every figure of every model says where it comes from
        assert isinstance(model.limits, Limits) and model.ports > 0 and model.port_gbps > 0
        assert {"ports", "limits"} <= set(model.sources) and all(model.sources.values())
        assert not model.breakouts or "breakouts" in model.sources
        name_port = p.port_namer(model.name)
        position = model.port_position or p.port_position
        names = {name_port(n, None) for n in range(1, model.ports + 1)}
        assert len(names) == model.ports, "port names are unique"
        for mode in model.breakouts:
            lanes = int(mode.split("x")[0])
            # A lane's name is no other port's; the first lane may keep its port's name (SONiC
            # names a lane by its first SerDes lane): a whole port is its own first lane.
            lane_names = [name_port(1, lane) for lane in range(1, lanes + 1)]
            assert len(set(lane_names)) == lanes and set(lane_names[1:]).isdisjoint(names)
            for n in range(1, model.ports + 1):  # a port name reads back as its position
                for lane in (None, *range(1, lanes + 1)):
                    at = position(name_port(n, lane))
                    assert at == (n, lane) or (
                        lane == 1 and name_port(n, lane) == name_port(n) and at == (n, None)
                    )
        for n in range(1, model.ports + 1):
            assert position(name_port(n)) == (n, None)
    assert p.port_position("Loopback0") is None and p.port_position("LoopBack0") is None
    assert issubclass(p.qos_tuning, QosTuning)
    p.qos_tuning()  # every value has a default
    assert all(callable(f) for f in p.filters.values())
    assert (BUILTIN_TEMPLATES / p.device_template).is_file()
    assert isinstance(p.dialect, Dialect) and p.dialect.owned
    assert p.fetch.show_running and p.fetch.prompt and p.fetch.netmiko_device_type
    pusher = p.pusher()
    assert callable(pusher.push) and callable(pusher.fetch)
    compiled = pipeline.compile(EXAMPLES[name])
    intent = next(i for i in compiled.intents.values() if i.platform == name)
    parsed = p.parse(intent.name, render_one(intent, EXAMPLES[name]))
    assert isinstance(parsed, SwitchConfig) and parsed.platform == name and parsed.interfaces


@pytest.mark.parametrize("name", list(PLATFORMS))
def test_templates_use_only_their_platforms_filters(name: str) -> None:
    p = get_platform(name)
    env = jinja2.Environment()
    known = set(FILTERS) | set(p.filters)
    for path in sorted((BUILTIN_TEMPLATES / p.template_folder).glob("*.j2")):
        used = {
            node.name for node in env.parse(path.read_text(encoding="utf-8")).find_all(jinja2.nodes.Filter)
        }
        builtin = set(jinja2.Environment().filters)
        assert used - known - builtin == set(), f"{path.name} uses filters {name} does not have"


# --- every capability flag is enforced -------------------------------------------------------------

#: flag -> (fabric change that needs it, expected fragment of the validate error).
CASES = {
    "pfc": ("", "lacks PFC, and every fabric link carries the lossless RoCE class"),
    "pfc_watchdog": ("", "lacks a PFC watchdog, and a pause storm must not wedge the fabric"),
    "ecn_per_queue": ("", "lacks ECN marking per queue"),
    "strict_priority_queue": ("", "lacks a strict-priority queue, and CNPs go in a strict-priority queue"),
    "commit_confirm": ("", "lacks a commit-confirm timer, and apply pushes only under a confirm timer"),
    "evpn_type5": ("", "lacks EVPN type-5 routes for the tenant VRF"),
    "evpn_symmetric_irb": ("", "lacks EVPN symmetric IRB for an l2 tenant"),
    "breakouts": ("2x200G", "cannot split its GPU ports 2x200G"),
    "max_ip_mtu": ("", "takes an IP MTU of at most 9000, not 9214"),
}


def test_every_capability_has_a_case() -> None:
    # breakouts are the switch model's (SwitchModel.breakouts), the rest the NOS's
    assert set(CASES) == {f.name for f in dataclasses.fields(Capabilities)} | {"breakouts"}


@pytest.fixture
def without(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """A copy of eos-small whose switches run a platform like EOS that lacks one capability."""

    def make(flag: str) -> Path:
        eos = get_platform("eos")
        if flag == "breakouts":  # a switch model whose ports do not split
            models = tuple(dataclasses.replace(m, breakouts=()) for m in eos.models)
            lesser = dataclasses.replace(eos, name="lesser", models=models)
        else:
            if flag == "max_ip_mtu":
                caps = dataclasses.replace(eos.capabilities, max_ip_mtu=9000)
            else:
                caps = dataclasses.replace(eos.capabilities, **{flag: False})
            lesser = dataclasses.replace(eos, name="lesser", capabilities=caps)
        monkeypatch.setitem(PLATFORMS, "lesser", lesser)
        root = copy_fabric(EOS_SMALL, tmp_path / flag)
        groups = root / "inventory" / "groups.yaml"
        groups.write_text(groups.read_text(encoding="utf-8").replace("platform: eos", "platform: lesser"))
        if CASES[flag][0]:
            fabric = root / "inventory" / "fabric.yaml"
            text = fabric.read_text(encoding="utf-8")
            fabric.write_text(
                text.replace("leaf_gpu_ports: 9-16", "leaf_gpu_ports: 9-16\n  gpu_port_breakout: 2x200G")
            )
        return root

    return make


@pytest.mark.parametrize("flag", list(CASES))
def test_missing_capability_fails_validate(flag: str, without) -> None:  # type: ignore[no-untyped-def]
    root = without(flag)
    with pytest.raises(InputError) as err:
        pipeline.compile(root)
    text = err.value.render()
    assert CASES[flag][1] in text, text
    assert "(allowed: " in text and flag.rstrip("s") in text


def test_the_same_fabric_validates_with_every_capability(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    eos = get_platform("eos")
    monkeypatch.setitem(PLATFORMS, "lesser", dataclasses.replace(eos, name="lesser"))
    root = copy_fabric(EOS_SMALL, tmp_path / "full")
    groups = root / "inventory" / "groups.yaml"
    groups.write_text(groups.read_text(encoding="utf-8").replace("platform: eos", "platform: lesser"))
    assert pipeline.compile(root).intents


#: The vendors of the NOSes fabricctl knows, named in code as often as the NOS itself.
VENDOR_WORDS = ("arista", "h3c", "hpe", "nvidia", "cumulus", "mellanox")
#: Files of the core that still name a NOS in code, each with why; shrinks to nothing as the NOS
#: parts move into their packages. A file listed here that no longer names one fails the test.
NAMES_STILL_IN_CORE: dict[str, str] = {}


def nos_words() -> tuple[str, ...]:
    """Every NOS by its platform name and its lab package's name, and their vendors."""
    package = Path(inspect.getfile(Platform)).parent.parent
    labs = {p.name for p in (package / "lab" / "devices").iterdir() if (p / "__init__.py").is_file()}
    return tuple(sorted({*PLATFORMS, *labs, *VENDOR_WORDS}))


def names_in_code(text: str, words: tuple[str, ...]) -> list[tuple[int, str]]:
    """(line, token) of every name or string in `text`'s code that holds one of `words` as a word.
    Prose is left out: comments and docstrings may cite a NOS as a source or an example."""
    found = re.compile(r"(?<![a-z0-9])(" + "|".join(map(re.escape, words)) + r")(?![a-z0-9])", re.I)
    docstrings = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add((first.lineno, first.col_offset))
    code = {tokenize.NAME, tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
    return [
        (tok.start[0], tok.string)
        for tok in tokenize.generate_tokens(io.StringIO(text).readline)
        if tok.type in code and tok.start not in docstrings and found.search(tok.string)
    ]


def test_no_part_of_fabricctl_outside_a_nos_package_names_a_nos() -> None:
    """Only platforms/ and the lab's NOS packages (lab/devices/<nos>/) may know a NOS by name: the
    product's stages and the lab's core ask the switch's Platform / LabNos object."""
    package = Path(inspect.getfile(Platform)).parent.parent
    words = nos_words()
    assert {"eos", "comware", "nvue"} <= set(words)
    hits, named = [], set()
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        if rel.startswith(("platforms/", "lab/devices/")):
            continue
        for number, token in names_in_code(path.read_text(encoding="utf-8"), words):
            named.add(rel)
            if rel not in NAMES_STILL_IN_CORE:
                hits.append(f"{rel}:{number}: {token}")
    assert not hits, "\n".join(hits)
    clean = sorted(set(NAMES_STILL_IN_CORE) - named)
    assert not clean, f"{clean} no longer name a NOS: take them off NAMES_STILL_IN_CORE"


def test_the_nos_name_check_sees_code_and_not_prose() -> None:
    text = (
        '"""A module docstring may say EOS."""\n'
        "# so may a comment: Cumulus Linux\n"
        "def f(platform: str) -> str:\n"
        '    """And a docstring: NVUE."""\n'
        '    if platform == "nvue":\n'
        '        return f"H3C {platform}"\n'
        "    return eos_mac(platform)\n"
    )
    found = names_in_code(text, nos_words())
    assert [line for line, _ in found] == [5, 6, 7], found
