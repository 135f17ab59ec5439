"""One lab switch: running/startup config, flash files, transactions, faults, persistence.

All mutation happens on the lab's event-loop thread; state is loaded lazily so a lab of
hundreds of devices starts fast and only touches the files of devices actually used.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from ipaddress import IPv4Address, IPv4Interface
from typing import Any

from fabricctl.lab.clock import LabClock
from fabricctl.lab.config_tree import Node
from fabricctl.lab.editor import Editor
from fabricctl.lab.fabric_state import Cabling, FabricState
from fabricctl.lab.factory import DeviceSpec, factory_text, hardware_text, mgmt_gateway
from fabricctl.lab.facts import DeviceFacts, facts_from_data, facts_to_data
from fabricctl.lab.faults import COUNTER_FAULTS, Faults
from fabricctl.lab.grammar import Grammar
from fabricctl.lab.nos import LabNos, lab_nos
from fabricctl.lab.reference import reference
from fabricctl.lab.state import StateStore

#: What a lab flash file may be called: one plain name, so nothing is written outside the device's state.
FLASH_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
RUNNING = "running-config"
STARTUP = "startup-config"
ZTP_DONE = "ztp-done"  # written once the switch booted by ZTP (what it fetched, from where)
#: The system ECMP cap the switch booted with ("null": none); Comware applies `max-ecmp-num` only
#: at boot (reference source h3c-s6520x-ecmp), so it is kept apart from running.
BOOTED_ECMP = "booted-ecmp-cap"
#: What the running config says (facts.facts_to_data), written after it: the switch's neighbours
#: (in this lab process or another shard's) and its next start read it instead of the config.
FACTS = "facts.json"


@dataclass
class LabDevice:
    """State and behaviour of one switch, shared by its SSH and eAPI front ends."""

    spec: DeviceSpec
    store: StateStore
    faults: Faults = field(default_factory=Faults)
    clock: LabClock = field(default_factory=LabClock)
    #: What a NOS's own transactions keep between commands (EOS's configuration sessions,
    #: Comware's commit delay, NVUE's revisions and confirm timer: lab/devices/<nos>/); reset and
    #: reboot call its `cancel()`; its `transactions()`, if it has one, lists them by name and state.
    nos_state: Any = None
    boot: float = 0.0  # lab time of the last boot
    holding: str | None = None  # the command a `hold` fault keeps waiting
    #: The whole fabric's derived state (links, LLDP, BGP), set by the LabFabric that holds this device.
    fabric_state: Callable[[], FabricState] | None = None
    generation: int = 0  # counts changes to running (state derived from it is cached per generation)
    #: Factory-default, in its auto-configuration: no address, no listener until ZTP boots it.
    ztp_waiting: bool = False
    #: The switch's log buffer since boot, in RAM as a switch keeps it: (lab time, severity 0-7,
    #: the agent that logged it, the message), what a user or a client sent with `send log`.
    log: list[tuple[float, int, str, str]] = field(default_factory=list)
    _facts: tuple[int, DeviceFacts] | None = None
    _storm_since: dict[str, float] = field(default_factory=dict)  # port -> lab time its storm began
    _onsets: dict[str, dict[str, float]] = field(default_factory=dict)  # fault -> port -> lab time
    _release: asyncio.Event | None = None
    _running: Node | None = None
    _startup: str | None = None
    _files: dict[str, str] | None = None
    _booted_ecmp: tuple[int | None] | None = None
    #: Called after the switch stored new facts (a sharded lab tells the other shards).
    on_publish: Callable[[LabDevice], None] | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def platform(self) -> str:
        return self.spec.platform

    @property
    def nos(self) -> LabNos:
        """Everything the lab knows about this switch's NOS (lab/devices/<platform>/)."""
        return lab_nos(self.spec.platform)

    @property
    def grammar(self) -> Grammar:
        return reference(self.platform).grammar

    def __post_init__(self) -> None:
        self.boot = self.clock.now()
        self.ztp_waiting = self.spec.ztp and self.store.read(self.name, ZTP_DONE) is None

    async def held(self, line: str) -> None:
        """Wait, unanswered, until the test releases this device (the `hold` fault)."""
        self.holding = line
        self._release = asyncio.Event()
        try:
            await self._release.wait()
        finally:
            self.holding = None

    def release(self) -> None:
        if self._release is not None:
            self._release.set()

    def state(self) -> FabricState:
        """The fabric's derived state; a device outside a LabFabric stands alone, uncabled."""
        if self.fabric_state is not None:
            return self.fabric_state()
        return FabricState(
            {self.name: self.facts()},
            Cabling(),
            {},
            {},
            {self.name: self.storms()},
            {self.name: self.onsets()},
            {self.name: self.boot},
        )

    def storms(self) -> dict[str, float]:
        """Port -> lab time its `pfc_storm` began (kept while the fault stays, dropped after)."""
        now, current = self.clock.now(), set(self.faults.pfc_storm)
        self._storm_since = {p: self._storm_since.get(p, now) for p in sorted(current)}
        return dict(self._storm_since)

    def onsets(self) -> dict[str, dict[str, float]]:
        """Counter fault -> port -> lab time it began (kept while the fault stays, dropped after)."""
        now = self.clock.now()
        for kind in COUNTER_FAULTS:
            was = self._onsets.get(kind, {})
            self._onsets[kind] = {p: was.get(p, now) for p in sorted(getattr(self.faults, kind))}
        return {kind: dict(ports) for kind, ports in self._onsets.items()}

    def serial(self) -> str:
        """The serial number the switch reports: its rack file's, else one derived from its name
        (stable across lab restarts)."""
        if self.spec.serial:
            return self.spec.serial
        return f"LAB{int(hashlib.sha256(self.name.encode()).hexdigest()[:8], 16) % 10**8:08d}"

    def uptime(self) -> float:
        """Lab seconds since the device booted (what a switch reports its commit timers against)."""
        return self.clock.now() - self.boot

    def parse(self, text: str, base: Node | None = None) -> Node:
        """Config text -> tree through the grammar (raises InvalidInput), or the NOS's own reader."""
        if self.nos.parse_config is not None and base is None:
            return self.nos.parse_config(text)
        root = base.copy() if base is not None else Node("", block=True)
        Editor(self.grammar, root).load(text)
        return root

    def render(self, tree: Node) -> str:
        """Tree -> running-config text in the platform's format."""
        return self.nos.render(tree, self.name, self.spec.model)

    @property
    def running(self) -> Node:
        """The live running-config tree (loaded from state or factory on first use)."""
        if self._running is None:
            stored = self.store.read(self.name, RUNNING)
            factory = factory_text(self.spec)
            self._running = self.parse(stored if stored is not None else factory)
            if stored is None:  # first boot: running and startup are both factory
                self.persist_running()
                if self.store.read(self.name, STARTUP) is None:
                    self.save()
        return self._running

    @property
    def booted_ecmp_cap(self) -> int | None:
        """The ECMP cap of the config this switch booted from (what a `max-ecmp-num` saved since
        changes only at the next reboot)."""
        if self._booted_ecmp is None:
            stored = self.store.read(self.name, BOOTED_ECMP)
            if stored is None:
                cap = self._startup_facts().ecmp_cap
                self.store.write(self.name, BOOTED_ECMP, json.dumps(cap))
            else:
                cap = json.loads(stored)
            self._booted_ecmp = (cap,)
        return self._booted_ecmp[0]

    def _startup_facts(self) -> DeviceFacts:
        return self._read_facts(self.parse(self.startup))

    def _read_facts(self, tree: Node) -> DeviceFacts:
        facts = self.nos.read_facts(self.name, tree)
        facts.platform, facts.model = self.platform, self.spec.model
        return facts

    def reboot(self) -> None:
        """Reload from startup-config: sessions and timers end, running becomes startup, settings
        applied at boot (max-ecmp-num) take their saved values, uptime starts again."""
        self.cancel_timers()
        self.set_running(self.parse(self.startup))
        self.store.write(self.name, BOOTED_ECMP, json.dumps(self._startup_facts().ecmp_cap))
        self._booted_ecmp = None
        self.boot = self.clock.now()
        self.log.clear()
        self.generation += 1  # the cap it booted with is a fact too
        self.publish()

    @property
    def startup(self) -> str:
        """Startup-config text (what `write memory` / `save force` stored)."""
        if self._startup is None:
            _ = self.running  # first boot writes the factory startup-config
            stored = self.store.read(self.name, STARTUP)
            if stored is None:
                stored = self.render(self.parse(factory_text(self.spec)))
                self.store.write(self.name, STARTUP, stored)
            self._startup = stored
        return self._startup

    @property
    def files(self) -> dict[str, str]:
        """Flash files such as `rollback-0`."""
        if self._files is None:
            self._files = self.store.files(self.name)
        return self._files

    def running_text(self) -> str:
        return self.render(self.running)

    def hardware(self) -> Node:
        """The clean-config tree: physical ports only."""
        return self.parse(hardware_text(self.spec))

    def persist_running(self) -> None:
        """Called after every change to running (crash keeps the latest config)."""
        self.generation += 1
        self.store.write(self.name, RUNNING, self.running_text())
        self.publish()

    def facts(self) -> DeviceFacts:
        """What the running config says about ports, BGP and the VTEP (re-read only after a change).
        A switch nobody has logged in to yet answers without building its running tree: from the
        facts it stored with its config, or its factory config's (resting_facts)."""
        if self._facts is None or self._facts[0] != self.generation:
            resting = resting_facts(self.spec, self.store) if self._running is None else None
            if resting is not None:
                facts = resting
            else:
                facts = self._read_facts(self.running)
                facts.ecmp_cap = self.booted_ecmp_cap
            self._facts = (self.generation, facts)
        return self._facts[1]

    def publish(self) -> None:
        """Store the facts of the config just persisted, for whoever derives the fabric's state
        without this switch's tree (another shard, the next start)."""
        if self.store.directory is not None:
            self.store.write(self.name, FACTS, json.dumps(facts_to_data(self.facts()), separators=(",", ":")))
        if self.on_publish is not None:
            self.on_publish(self)

    def set_running(self, tree: Node) -> None:
        """Replace running in place (open editors keep a valid root) and persist."""
        self.running.replace_contents(tree)
        self.persist_running()

    def save(self) -> None:
        """`write memory` / `save force`: startup := running."""
        _ = self.booted_ecmp_cap  # what this boot read, before startup changes
        self._startup = self.running_text()
        self.store.write(self.name, STARTUP, self._startup)

    def replace_config(self, text: str) -> None:
        """Running becomes exactly the file's config (a NOS's replace from a file, a day-0 file
        run over its defaults).

        The device undoes lines missing from the file and adds the file's new lines; the
        resulting running config lists them as the file does. Physical ports cannot be
        deleted: a port the file omits stays, emptied, at its hardware position. A line the
        grammar rejects raises InvalidInput and leaves running untouched.
        """
        tree = self.parse(text)
        hardware = list(self.hardware().children.values())
        for i, port in enumerate(hardware):
            if port.text not in tree.children:
                _insert_port(tree, port, [h.text for h in hardware[:i]], [h.text for h in hardware[i + 1 :]])
        self.set_running(tree)

    def write_file(self, name: str, text: str) -> None:
        """Store a flash file (`copy ... flash:<name>`); a name is one plain file name, never a path."""
        if not FLASH_NAME.fullmatch(name):
            raise ValueError(f"not a flash file name: {name!r}")
        self.files[name] = text
        self.store.write(self.name, f"flash/{name}", text)

    def cancel_timers(self) -> None:
        """Reset / reboot: the NOS's transactions stop their timers and go."""
        if self.nos_state is not None:
            self.nos_state.cancel()
        self.nos_state = None

    def reset(self) -> None:
        """Back to factory: running, startup, flash files and transactions."""
        self.cancel_timers()
        self.nos_state = None
        self.log.clear()
        self.store.clear(self.name)
        self._running = self._startup = self._files = self._booted_ecmp = None
        self.generation += 1
        self.ztp_waiting = self.spec.ztp
        _ = self.running, self.startup
        self.publish()


def _insert_port(tree: Node, port: Node, before: list[str], after: list[str]) -> None:
    """Put a hardware block after the nearest earlier port present, else before the next one."""
    keys = list(tree.children)
    prev = next((k for k in reversed(before) if k in tree.children), None)
    nxt = next((k for k in after if k in tree.children), None)
    at = keys.index(prev) + 1 if prev is not None else keys.index(nxt) if nxt is not None else len(keys)
    items = list(tree.children.items())
    items.insert(at, (port.text, port.copy()))
    tree.children = dict(items)


def resting_facts(spec: DeviceSpec, store: StateStore) -> DeviceFacts | None:
    """The facts of a switch whose running tree is not loaded: those stored with its running
    config when they are at least as new (FACTS), else its factory config's when it has no stored
    config at all (no file: it never booted here, or was reset); None when only reading its
    stored config can tell."""
    directory = store.directory
    if directory is not None:
        folder = directory / spec.name
        try:
            running = (folder / RUNNING).stat().st_mtime_ns
        except OSError:
            running = None
        if running is not None:
            try:
                if (folder / FACTS).stat().st_mtime_ns >= running:
                    return facts_from_data(json.loads((folder / FACTS).read_text(encoding="utf-8")))
            except (OSError, ValueError, KeyError, TypeError):
                pass
            return None
        if (folder / BOOTED_ECMP).is_file() or (folder / STARTUP).is_file():
            return None  # a saved config or boot state of its own: read it
    return factory_facts(spec)


#: Specs whose factory facts are read once and given to every switch of the same kind.
_TEMPLATE_NAME, _TEMPLATE_IP = "lab-factory-template", "192.0.2.123"
_FACTORY: dict[tuple[str, str, int, bool], tuple[DeviceFacts, bool]] = {}


def factory_facts(spec: DeviceSpec) -> DeviceFacts:
    """What a switch's factory config says, without reading it: the facts of one factory config
    per platform, model, port count and ZTP state, given this switch's name and management
    address. The first switch of each kind is also read in full and compared; where the two
    differ (a NOS whose factory config says more about the switch), every switch is read."""
    key = (spec.platform, spec.model, spec.ports, spec.ztp)
    found = _FACTORY.get(key)
    if found is None:
        template = _read_factory(
            DeviceSpec(_TEMPLATE_NAME, spec.platform, _TEMPLATE_IP, spec.model, spec.ports, ztp=spec.ztp)
        )
        same = facts_to_data(_personal(template, spec)) == facts_to_data(_read_factory(spec))
        found = _FACTORY[key] = (template, same)
    template, same = found
    return _personal(template, spec) if same else _read_factory(spec)


def _read_factory(spec: DeviceSpec) -> DeviceFacts:
    nos = lab_nos(spec.platform)
    text = factory_text(spec)
    tree = nos.parse_config(text) if nos.parse_config is not None else _load(spec.platform, text)
    facts = nos.read_facts(spec.name, tree)
    facts.platform, facts.model = spec.platform, spec.model
    return facts


def _load(platform: str, text: str) -> Node:
    root = Node("", block=True)
    Editor(reference(platform).grammar, root).load(text)
    return root


def _personal(template: DeviceFacts, spec: DeviceSpec) -> DeviceFacts:
    """The template's facts for `spec`: its name and management address; the rest is shared
    (facts are never changed once read)."""
    ip, gateway = IPv4Address(_TEMPLATE_IP), IPv4Address(mgmt_gateway(_TEMPLATE_IP))
    mine = IPv4Address(spec.mgmt_ip)
    ports = dict(template.ports)
    for name, port in template.ports.items():
        if any(a.ip == ip for a in port.addresses):
            ports[name] = replace(
                port,
                addresses=[
                    IPv4Interface(f"{mine}/{a.network.prefixlen}") if a.ip == ip else a
                    for a in port.addresses
                ],
            )
    static = [
        (vrf, prefix, IPv4Address(mgmt_gateway(spec.mgmt_ip)) if hop == gateway else hop)
        for vrf, prefix, hop in template.static
    ]
    hostname = spec.name if template.hostname == _TEMPLATE_NAME else template.hostname
    return replace(template, hostname=hostname, ports=ports, static=static, _owned=None)
