"""A NOS is one package on each side: a throwaway NOS registered only here (its own switch model,
port names, templates, config parser, lab grammar, CLI, facts reader and renderer) compiles,
renders, reads back, and is served by the lab, with no edit to any fabricctl module.

Its config is flat `set <path> <value>` lines (no modes, no exit command), as a declarative NOS
writes its object tree."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from fabricctl.compile.build import compile_fabric
from fabricctl.config.readback import Interface, Src, SwitchConfig
from fabricctl.lab import nos as lab_registry
from fabricctl.lab.clock import LabClock
from fabricctl.lab.config_tree import Node
from fabricctl.lab.device import LabDevice
from fabricctl.lab.dialect import CliError, CliSession, Output, command
from fabricctl.lab.editor import Editor
from fabricctl.lab.factory import DeviceSpec
from fabricctl.lab.facts import DeviceFacts, PortFacts
from fabricctl.lab.nos import LabNos, PortLayer
from fabricctl.lab.state import StateStore
from fabricctl.platforms import get_platform, register, unregister
from fabricctl.platforms.base import Limits, SwitchModel
from fabricctl.render import Renderer
from tests.conftest import EOS_SMALL, copy_fabric

NAME = "tinyos"
_PORT = re.compile(r"port(\d+)")


def port_name(port: int, lane: int | None = None) -> str:
    return f"port{port}" if lane is None else f"port{port}.{lane}"


def port_position(name: str) -> tuple[int, int | None] | None:
    m = _PORT.fullmatch(name)
    return (int(m[1]), None) if m else None


def parse(switch: str, text: str) -> SwitchConfig:
    """The neutral read-back model from `set interface <name> ...` lines."""
    cfg = SwitchConfig(switch, NAME)
    for n, line in enumerate(text.splitlines(), start=1):
        words = line.split()
        if words[:2] == ["set", "interface"] and len(words) >= 4:
            cfg.interfaces.setdefault(words[2], Interface(words[2], Src(n, line)))
    return cfg


TEMPLATE = """\
set system hostname {{ name }}
{% for i in interfaces %}
set interface {{ i.name }} description "{{ i.description }}"
{% if i.ipv4 %}
set interface {{ i.name }} address {{ i.ipv4 }}
{% endif %}
{% endfor %}
"""

REFERENCE = """\
platform: tinyos
title: TinyOS (a test NOS)
intro: flat set lines
negations: ["delete"]
root: global
sources:
  test: {url: "https://example.invalid/tinyos", section: "the test's own grammar", device: TinyOS}
views:
  global:
    title: the configuration
    prompt: ""
    commands:
      - {cmd: "set system hostname <name>", key: 3, src: [test], conf: V}
      - {cmd: "set interface <word> description <text>", key: 4, src: [test], conf: V}
      - {cmd: "set interface <word> address <word>", key: 4, src: [test], conf: V}
"""


class TinyCli(CliSession):
    """`configure` / `commit`, `set ...` lines, `show configuration`."""

    @property
    def mode(self) -> str:
        return "exec" if self.editor is None else "config"

    def prompt(self) -> str:
        return f"{self.dev.name}{'#' if self.editor is not None else '>'} "

    def invalid(
        self, line: str, words: list[str], index: int, prompt: str, out_of_range: bool = False
    ) -> CliError:
        return CliError(f"error: {line!r} is not a TinyOS line")

    async def config_line(self, line: str) -> None:
        self.apply_config(line)

    @command(r"configure", "exec")
    async def _configure(self, m: re.Match[str], as_json: bool) -> Output:
        self.editor = Editor(self.dev.grammar, self.dev.running)
        return ""

    @command(r"commit", "config")
    async def _commit(self, m: re.Match[str], as_json: bool) -> Output:
        self.editor = None
        self.dev.persist_running()
        return ""

    @command(r"show configuration", "exec config")
    async def _show(self, m: re.Match[str], as_json: bool) -> Output:
        return self.dev.running_text()


def _facts(name: str, running: Node) -> DeviceFacts:
    facts = DeviceFacts(hostname=name)
    for text in running.children:
        words = text.split()
        if words[:2] == ["set", "interface"]:
            facts.ports.setdefault(words[2], PortFacts(words[2], admin_up=True))
    return facts


def _render(tree: Node, hostname: str, model: str) -> str:
    return "".join(f"{text}\n" for text in tree.children)


MODEL = SwitchModel(
    name="T-16",
    ports=16,
    port_gbps=400,
    breakouts=(),
    buffer_mb=None,
    limits=Limits(max_vrfs=16, max_vlans=4094, max_vnis=16, max_acl_entries=64),
    max_ecmp=8,
    sources={"ports": "the test", "limits": "the test"},
)


@pytest.fixture
def tinyos() -> Iterator[None]:
    eos = get_platform("eos")
    # The parts this test does not reach (remediation, fetch, health, push, day 0) are EOS's.
    register(
        dataclasses.replace(
            eos,
            name=NAME,
            title="TinyOS",
            models=(MODEL,),
            port_name=port_name,
            port_position=port_position,
            filters={},
            parse=parse,
        )
    )
    lab_registry.register(
        LabNos(
            name=NAME,
            default_model="T-16",
            interface_types={"port": "p"},
            port_views=(("port", "global"),),
            port_layer=lambda node, view, default: PortLayer(routed=True, vrf=None, max_frame=None),
            reference_text=lambda: REFERENCE,
            read_facts=_facts,
            render=_render,
            factory=lambda spec: f"set system hostname {spec.name}\n",
            hardware=lambda spec: "",
            ztp_factory=lambda spec: "",
            ztp_boot=lambda url, text, fetch: (text, False),
            mac_prefix="0002",
            system_description=lambda model: (f"TinyOS {model}",),
            cli=TinyCli,
        )
    )
    yield
    unregister(NAME)
    lab_registry.unregister(NAME)


def _fabric(root: Path) -> Path:
    groups = root / "inventory" / "groups.yaml"
    text = groups.read_text(encoding="utf-8")
    groups.write_text(text.replace("platform: eos", f"platform: {NAME}").replace("7060X5-64", "T-16"))
    (root / "templates" / NAME).mkdir(parents=True)
    (root / "templates" / NAME / "device.j2").write_text(TEMPLATE, encoding="utf-8")
    return root


def test_a_nos_registered_in_a_test_compiles_renders_and_is_served(tmp_path: Path, tinyos: None) -> None:
    root = _fabric(copy_fabric(EOS_SMALL, tmp_path / "fabric"))
    compiled = compile_fabric(root)
    leaf = compiled.intents["leaf1"]
    assert leaf.platform == NAME and leaf.model == "T-16"
    uplinks = [i.name for i in leaf.interfaces if i.role == "uplink"]
    assert uplinks and all(_PORT.fullmatch(n) for n in uplinks)  # its own port names
    config = Renderer(root).render(leaf)
    assert config.startswith("set system hostname leaf1\n")
    assert set(parse("leaf1", config).interfaces) == {i.name for i in leaf.interfaces}

    # The lab serves it: its grammar takes the rendered lines, its renderer prints them back.
    dev = LabDevice(DeviceSpec("leaf1", NAME), StateStore(None), clock=LabClock.frozen())
    cli = dev.nos.cli(dev)
    assert isinstance(cli, TinyCli)

    async def push() -> str:
        await cli.execute("configure")
        for line in config.splitlines():
            await cli.execute(line)
        with pytest.raises(CliError):  # its grammar, not another NOS's, decides what it takes
            await cli.execute("set nonsense here")
        await cli.execute("commit")
        return str(await cli.execute("show configuration"))

    shown = asyncio.run(push())
    assert shown.splitlines()[0] == "set system hostname leaf1"
    assert set(shown.splitlines()) == set(config.splitlines())
    assert set(dev.facts().ports) == {i.name for i in leaf.interfaces}


def test_an_unknown_lab_platform_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unsupported lab platform 'vyos' \(known: comware, eos"):
        DeviceSpec("x", "vyos")
