"""A NOS is one package on each side: a throwaway NOS registered only here (its own switch model,
port names, config syntax, templates, config parser, push, lab grammar, CLI, facts reader and
renderer) compiles, renders, reads back, is served by the lab, and is planned and applied through
its own push, with no edit to any fabricctl module.

Its config is a declarative object tree (YAML), changed by `set <path> <value>` and
`delete <path>` under a commit-confirm: no modes, no exit command, no negate prefix.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import shlex
import time
from collections.abc import Iterator
from ipaddress import IPv4Interface
from pathlib import Path
from typing import Any

import pytest
import yaml
from netmiko import ConnectHandler
from netmiko.base_connection import BaseConnection

from fabricctl import pipeline
from fabricctl.cli import main
from fabricctl.config.diff import diff_device
from fabricctl.config.readback import At, Interface, Src, SwitchConfig
from fabricctl.config.rules import Dialect
from fabricctl.config.syntax import ObjectTree
from fabricctl.lab import LabFabric
from fabricctl.lab import nos as lab_registry
from fabricctl.lab.clock import LabClock, Timer
from fabricctl.lab.config_tree import Node
from fabricctl.lab.device import LabDevice
from fabricctl.lab.dialect import CliError, CliSession, Output, command
from fabricctl.lab.editor import Editor
from fabricctl.lab.factory import DeviceSpec
from fabricctl.lab.facts import DeviceFacts, PortFacts
from fabricctl.lab.nos import LabNos, PortLayer
from fabricctl.lab.runtime import lab_json, write_lab_json
from fabricctl.lab.state import StateStore
from fabricctl.platforms import get_platform, register, unregister
from fabricctl.platforms.base import Fetch, Limits, SwitchModel
from fabricctl.platforms.push import (
    Pusher,
    PushRequest,
    PushResult,
    StageError,
    Target,
    normalize_running,
    nothing_to_send,
    require_converged,
    run_gate,
)
from fabricctl.render import Renderer
from tests.conftest import EOS_SMALL, copy_fabric

NAME = "tinyos"
_PORT = re.compile(r"port(\d+)")
PROMPT = r"[>#] ?$"


def port_name(port: int, lane: int | None = None) -> str:
    return f"port{port}" if lane is None else f"port{port}.{lane}"


def port_position(name: str) -> tuple[int, int | None] | None:
    m = _PORT.fullmatch(name)
    return (int(m[1]), None) if m else None


SYNTAX = ObjectTree(collections=("interface",), set_command="set", unset_command="delete")

DIALECT = Dialect(
    syntax=SYNTAX, owned=(r"system$", r"qos$"), ports=r"interface port", single_value=(r"[^ ]+: ",)
)


def parse(switch: str, text: str) -> SwitchConfig:
    """The neutral read-back model from the YAML object tree: what verify proves (ports, their
    addresses, MTU, QoS and shutdown; the DSCP map; the tunnels' QoS), each fact with its path."""
    cfg = SwitchConfig(switch, NAME, ip_mtu_default=1500)
    tree = yaml.safe_load(text) or {}

    def src(*path: object) -> Src:
        return Src(1, " ".join(str(p) for p in path))

    qos = tree.get("qos", {})
    for dscp, cls in qos.get("dscp", {}).items():
        cfg.dscp_map[int(dscp)] = At(int(cls), src("qos dscp", dscp, cls))
    for key in qos.get("tunnel", {}):
        cfg.tunnel_qos[key] = src("qos tunnel", key)
    for name, body in tree.get("interface", {}).items():
        intf = cfg.interfaces[name] = Interface(name, src("interface", name))
        if "address" in body:
            intf.ipv4.append(At(IPv4Interface(body["address"]), src("interface", name, "address")))
        if "mtu" in body:
            intf.mtu = At(int(body["mtu"]), src("interface", name, "mtu", body["mtu"]))
        if body.get("shutdown") == "on":
            intf.shutdown = src("interface", name, "shutdown")
        port = body.get("qos", {})
        if port.get("trust") == "dscp":
            intf.qos.trust_dscp = src("interface", name, "qos trust dscp")
        pfc = port.get("pfc", {})
        if pfc:
            intf.qos.pfc_enabled = src("interface", name, "qos pfc")
            for key, found in (("no-drop", intf.qos.no_drop), ("headroom", intf.qos.headroom)):
                if key in pfc:
                    found[int(pfc[key])] = src("interface", name, "qos pfc", key, pfc[key])
            if pfc.get("watchdog") == "on":
                intf.qos.watchdog = src("interface", name, "qos pfc watchdog")
        for key, found in (("ecn", intf.qos.ecn_queues), ("strict", intf.qos.strict_queues)):
            if key in port:
                found[int(port[key])] = src("interface", name, "qos", key, port[key])
    return cfg


TEMPLATE = """\
system:
  hostname: {{ name }}
qos:
  dscp:
{% for dscp, cls in qos.dscp_to_class.items() %}
    "{{ dscp }}": "{{ cls }}"
{% endfor %}
  tunnel: {ecn-propagation: "on", marking-encap: "on", class-decap: "on"}
interface:
{% for i in interfaces %}
  {{ i.name }}:
    description: "{{ i.description }}"
{% if i.ipv4 %}
    address: {{ i.ipv4 }}
{% endif %}
{% if i.mtu %}
    mtu: "{{ i.mtu }}"
{% endif %}
{% if not i.enabled %}
    shutdown: "on"
{% endif %}
{% if i.lossless %}
    qos:
      trust: dscp
      pfc: {no-drop: "{{ qos.lossless_class }}", headroom: "{{ qos.lossless_class }}", watchdog: "on"}
      ecn: "{{ qos.lossless_class }}"
      strict: "{{ qos.cnp_class }}"
{% endif %}
{% endfor %}
"""

REFERENCE = """\
platform: tinyos
title: TinyOS (a test NOS)
intro: an object tree set by path
negations: []
root: global
sources:
  test: {url: "https://example.invalid/tinyos", section: "the test's own grammar", device: TinyOS}
views:
  global:
    title: the configuration
    prompt: ""
    commands:
      - {cmd: "set system hostname <name>", key: 3, src: [test], conf: V}
      - {cmd: "set qos dscp <int> <int>", key: 4, src: [test], conf: V}
      - {cmd: "set qos tunnel <word> <word>", key: 4, src: [test], conf: V}
      - {cmd: "set interface <word> description <text>", key: 4, src: [test], conf: V}
      - {cmd: "set interface <word> address <cidr>", key: 4, src: [test], conf: V}
      - {cmd: "set interface <word> mtu <int>", key: 4, src: [test], conf: V}
      - {cmd: "set interface <word> shutdown <word>", key: 4, src: [test], conf: V}
      - {cmd: "set interface <word> qos trust <word>", key: 5, src: [test], conf: V}
      - {cmd: "set interface <word> qos pfc <word> <word>", key: 6, src: [test], conf: V}
      - {cmd: "set interface <word> qos ecn <int>", key: 5, src: [test], conf: V}
      - {cmd: "set interface <word> qos strict <int>", key: 5, src: [test], conf: V}
"""

#: A commit waiting for its confirm, per lab device: the timer and the config it restores.
ARMED: dict[int, tuple[Timer, Node]] = {}


def _path(line: str) -> list[str]:
    """A stored `set <path> <value>` line's path words."""
    return shlex.split(line)[1:-1]


class TinyCli(CliSession):
    """`configure`, `set <path> <value>` / `delete <path>`, `commit [confirmed <seconds>]`,
    `confirm`, `rollback`, `show configuration [saved]`."""

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
        if id(self.dev) in ARMED:
            raise CliError("error: a commit is waiting for its confirm")
        self.snapshot = self.dev.running.copy()
        self.editor = Editor(self.dev.grammar, self.dev.running)
        return ""

    @command(r"delete (?P<path>.+)", "config")
    async def _delete(self, m: re.Match[str], as_json: bool) -> Output:
        path = shlex.split(m["path"])
        gone = [line for line in self.dev.running.children if _path(line)[: len(path)] == path]
        if not gone:
            raise CliError(f"error: nothing at {m['path']}")
        for line in gone:
            del self.dev.running.children[line]
        return ""

    @command(r"commit(?: confirmed (?P<seconds>\d+))?", "config")
    async def _commit(self, m: re.Match[str], as_json: bool) -> Output:
        self.editor = None
        self.dev.persist_running()
        if m["seconds"] is None:
            self.dev.save()
        else:
            timer = self.dev.clock.call_later(int(m["seconds"]), self._expire, self.dev, self.snapshot)
            ARMED[id(self.dev)] = (timer, self.snapshot)
        return ""

    @staticmethod
    def _expire(dev: LabDevice, snapshot: Node) -> None:
        ARMED.pop(id(dev), None)
        dev.set_running(snapshot)
        dev.persist_running()

    @command(r"confirm", "exec")
    async def _confirm(self, m: re.Match[str], as_json: bool) -> Output:
        timer, _ = ARMED.pop(id(self.dev))
        timer.cancel()
        self.dev.save()
        return ""

    @command(r"rollback", "exec")
    async def _rollback(self, m: re.Match[str], as_json: bool) -> Output:
        armed = ARMED.pop(id(self.dev), None)
        if armed is None:
            return "nothing to roll back"
        armed[0].cancel()
        self._expire(self.dev, armed[1])
        return "rolled back"

    @command(r"show configuration", "exec config")
    async def _show(self, m: re.Match[str], as_json: bool) -> Output:
        return self.dev.running_text()

    @command(r"show configuration saved", "exec config")
    async def _show_saved(self, m: re.Match[str], as_json: bool) -> Output:
        return self.dev.startup


def _facts(name: str, running: Node) -> DeviceFacts:
    facts = DeviceFacts(hostname=name)
    for line in running.children:
        path = _path(line)
        if path[:1] == ["interface"]:
            facts.ports.setdefault(path[1], PortFacts(path[1], admin_up=True))
    return facts


def _render(tree: Node, hostname: str, model: str) -> str:
    """The running config as TinyOS prints it: its `set` lines as one YAML object tree."""
    root: dict[str, Any] = {}
    for line in tree.children:
        *path, value = shlex.split(line)[1:]
        here = root
        for word in path[:-1]:
            here = here.setdefault(word, {})
        here[path[-1]] = value
    return yaml.safe_dump(root, sort_keys=True)


def _load(text: str) -> Node:
    """The printed YAML tree as the lab's tree of the `set` lines that make it (how the lab reads
    a stored config)."""

    def walk(path: list[str], node: object) -> Iterator[str]:
        if isinstance(node, dict):
            for key, value in node.items():
                yield from walk([*path, key], value)
        else:
            yield " ".join(["set", *path[:-1], shlex.quote(path[-1]), shlex.quote(str(node))])

    root = Node("", block=True)
    for line in walk([], yaml.safe_load(text) or {}):
        root.children[line] = Node(line)
    return root


def _connect(target: Target) -> BaseConnection:
    try:
        return ConnectHandler(
            device_type="generic",
            host=target.hostname,
            port=target.port,
            username=target.username,
            password=target.password,
            **target.netmiko_extras,
        )
    except Exception as exc:
        raise StageError("connect", str(exc)) from None


def _send(conn: BaseConnection, line: str) -> str:
    out = str(conn.send_command(line, expect_string=PROMPT))
    if out.strip().startswith("error:"):
        raise StageError("load", f"{line}: {out.strip()}")
    return out


class TinyPusher(Pusher):
    """TinyOS's push: `configure`, the plan's commands, `commit confirmed`, read back, the
    health gate, `confirm`; any failure after the commit is `rollback`."""

    def fetch(self, target: Target) -> str:
        with _connect(target) as conn:
            return _send(conn, "show configuration")

    def push(self, target: Target, request: PushRequest) -> PushResult:
        started, before, armed = time.monotonic(), None, False
        try:
            with _connect(target) as conn:
                before = normalize_running(_send(conn, "show configuration"))
                if nothing_to_send(before, request):
                    return PushResult("unchanged", before=before, seconds=time.monotonic() - started)
                _send(conn, "configure")
                for line in request.commands:
                    _send(conn, line)
                _send(conn, f"commit confirmed {request.confirm_timeout}")
                armed = True
                running = normalize_running(_send(conn, "show configuration"))
                require_converged(target.name, running, request, "after the commit")
                run_gate(request)
                _send(conn, "confirm")
            diff = "\n".join(request.commands)
            return PushResult("changed", device_diff=diff, before=before, seconds=time.monotonic() - started)
        except StageError as exc:
            if armed:
                with _connect(target) as conn:
                    _send(conn, "rollback")
            status = "rolled back" if armed else "failed"
            return PushResult(
                status, exc.stage, exc.message, before=before, seconds=time.monotonic() - started
            )

    def recover(self, target: Target, request: PushRequest) -> PushResult:
        with _connect(target) as conn:
            running = normalize_running(_send(conn, "show configuration"))
            try:
                require_converged(target.name, running, request, "")
            except StageError:
                _send(conn, "rollback")
                return PushResult("rolled back", before=running)
            _send(conn, "confirm")
            return PushResult("changed", before=running)


PUSHER = TinyPusher()


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
    # The parts this test does not reach (QoS tuning, health probes, day 0) are EOS's.
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
            dialect=DIALECT,
            fetch=Fetch(
                show_running="show configuration",
                show_saved="show configuration saved",
                prompt=PROMPT,
                netmiko_device_type="generic",
            ),
            pending=lambda running, saved, pending: None,
            client_failure=None,
            push_module=__name__,
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
            factory=lambda spec: f"system:\n  hostname: {spec.name}\n",
            hardware=lambda spec: "",
            ztp_factory=lambda spec: "",
            ztp_boot=lambda url, text, fetch: (text, False),
            mac_prefix="0002",
            system_description=lambda model: (f"TinyOS {model}",),
            cli=TinyCli,
            front_panel=("port",),
            parse_config=_load,
        )
    )
    yield
    unregister(NAME)
    lab_registry.unregister(NAME)


def _fabric(root: Path) -> Path:
    groups = root / "inventory" / "groups.yaml"
    text = groups.read_text(encoding="utf-8")
    text = text.replace("platform: eos", f"platform: {NAME}").replace(
        "platform: arista_eos", "platform: generic"
    )
    groups.write_text(text.replace("7060X5-64", "T-16"))
    (root / "templates" / NAME).mkdir(parents=True)
    (root / "templates" / NAME / "device.j2").write_text(TEMPLATE, encoding="utf-8")
    return root


def test_a_nos_registered_in_a_test_compiles_renders_and_is_served(tmp_path: Path, tinyos: None) -> None:
    root = _fabric(copy_fabric(EOS_SMALL, tmp_path / "fabric"))
    compiled = pipeline.compile(root)
    leaf = compiled.intents["leaf1"]
    assert leaf.platform == NAME and leaf.model == "T-16"
    uplinks = [i.name for i in leaf.interfaces if i.role == "uplink"]
    assert uplinks and all(_PORT.fullmatch(n) for n in uplinks)  # its own port names
    config = Renderer(root).render(leaf)
    assert yaml.safe_load(config)["system"] == {"hostname": "leaf1"}
    assert set(parse("leaf1", config).interfaces) == {i.name for i in leaf.interfaces}

    # The lab serves it: its grammar takes the diff's `set` commands, its renderer prints the tree.
    dev = LabDevice(DeviceSpec("leaf1", NAME), StateStore(None), clock=LabClock.frozen())
    cli = dev.nos.cli(dev)
    assert isinstance(cli, TinyCli)
    plan = get_platform(NAME).dialect
    factory = dev.running_text()

    async def push(commands: list[str]) -> str:
        await cli.execute("configure")
        for line in commands:
            await cli.execute(line)
        with pytest.raises(CliError):  # its grammar, not another NOS's, decides what it takes
            await cli.execute("set nonsense here")
        await cli.execute("commit")
        return str(await cli.execute("show configuration"))

    commands = diff_device("leaf1", factory, config, plan).commands
    assert commands and all(c.startswith(("set interface port", "set qos ")) for c in commands)  # no modes
    shown = asyncio.run(push(commands))
    assert not diff_device("leaf1", shown, config, plan).changed
    assert set(dev.facts().ports) == {i.name for i in leaf.interfaces}


def test_a_nos_registered_in_a_test_is_planned_and_applied_through_its_own_push(
    tmp_path: Path, tinyos: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FABRICCTL_LAB_USERNAME", raising=False)
    monkeypatch.delenv("FABRICCTL_LAB_PASSWORD", raising=False)
    root = _fabric(copy_fabric(EOS_SMALL, tmp_path / "fabric"))
    # No tenants: TinyOS has no VRFs or ACLs to isolate them with, but what it has (fabric links,
    # their QoS, shut GPU ports) must be proven lossless before anything is planned.
    for tenant in (root / "tenants").iterdir():
        tenant.unlink()

    def run(*argv: str) -> tuple[int, str]:
        capsys.readouterr()
        try:
            code = main([*argv, "--root", str(root)])
        except SystemExit as exc:
            code = int(exc.code or 0)
        out, err = capsys.readouterr()
        return code, out + err

    lab = LabFabric.from_inventory(root, clock=LabClock.frozen())
    with lab:
        write_lab_json(root, lab)
        code, out = run("plan", "--lab", "--detailed-exitcode", "--diff")
        assert code == 2, out
        assert "+ interface port1" in out or "+interface port1" in out
        code, out = run("apply", "--lab", "--auto-approve", "--no-health-gate")
        assert code == 0, out
        assert "changed" in out
        leaf1 = lab.device("leaf1")
        running = yaml.safe_load(leaf1.running_config())
        assert running["interface"]["port1"]["qos"]["pfc"]["no-drop"] == "3"
        assert running["qos"]["dscp"]["26"] == "3" and running["qos"]["tunnel"]["class-decap"] == "on"
        assert leaf1.startup_config() == leaf1.running_config()  # confirmed, then saved
        assert not ARMED
        assert run("plan", "--lab", "--detailed-exitcode")[0] == 0

        # An operator's change inside the owned scope: a changed value is set back, an extra
        # leaf is removed by its path (`delete`), both under the commit-confirm.
        uplink = next(n for n, body in running["interface"].items() if "address" in body)
        leaf1.configure([f"set interface {uplink} mtu 1500", "set interface port9 qos ecn 5"])
        code, out = run("plan", "--lab", "--detailed-exitcode", "--diff")
        assert code == 2 and "-  mtu: 1500\n+  mtu: 9214" in out and " interface port9\n-  qos" in out, out
        code, out = run("apply", "--lab", "--auto-approve", "--no-health-gate")
        assert code == 0, out
        running = yaml.safe_load(leaf1.running_config())
        assert running["interface"][uplink]["mtu"] == "9214" and "qos" not in running["interface"]["port9"]
        assert run("plan", "--lab", "--detailed-exitcode")[0] == 0
        lab_json(root).unlink(missing_ok=True)


def test_an_unknown_lab_platform_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unsupported lab platform 'vyos' \(known: comware, eos"):
        DeviceSpec("x", "vyos")
