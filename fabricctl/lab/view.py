"""One switch's view of the lab fabric, for the show / display commands of both NOSes.

A command answers from what the switch holds (its running tree and the facts read from it) and
from what the fabric makes of it (links, sessions, routes, hosts); `View` gathers them once per
command so every table of one answer describes the same moment.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from fabricctl.lab.config_tree import Node
from fabricctl.lab.device import LabDevice
from fabricctl.lab.fabric_state import FabricState
from fabricctl.lab.facts import DeviceFacts
from fabricctl.lab.hardware import Model
from fabricctl.lab.ports import PortState, chassis_digits, port_states
from fabricctl.lab.routing import Routing, routing

#: What a show function gives back: the text the CLI prints and the eAPI JSON (None: the
#: command has no JSON model; asked for JSON it answers as EOS does, error 1003).
Shown = tuple[str, dict[str, Any] | None]
ShowFn = Callable[["View", re.Match[str]], Shown]


def registry() -> tuple[list[tuple[str, ShowFn]], Callable[[str], Callable[[ShowFn], ShowFn]]]:
    """A module's table of show functions and the decorator that fills it (`@show(regex)`)."""
    shows: list[tuple[str, ShowFn]] = []

    def show(regex: str) -> Callable[[ShowFn], ShowFn]:
        def wrap(fn: ShowFn) -> ShowFn:
            shows.append((regex, fn))
            return fn

        return wrap

    return shows, show


@dataclass
class View:
    dev: LabDevice
    state: FabricState = field(init=False)

    def __post_init__(self) -> None:
        self.state = self.dev.state()

    @property
    def name(self) -> str:
        return self.dev.name

    @property
    def running(self) -> Node:
        return self.dev.running

    @cached_property
    def facts(self) -> DeviceFacts:
        return self.state.facts[self.name]

    @cached_property
    def routing(self) -> Routing:
        return routing(self.state)

    @cached_property
    def ports(self) -> list[PortState]:
        """Every interface of the running config, as the switch shows it, in config order."""
        return port_states(self.dev.platform, self.running, self.state, self.name)

    @cached_property
    def model(self) -> Model:
        return self.dev.nos.hardware_facts(self.dev.spec.model)

    @property
    def now(self) -> float:
        return self.dev.clock.now()

    @property
    def calendar(self) -> float:
        """Seconds since the epoch by the switch's clock (the lab's clock, as `show clock` reads it)."""
        return self.dev.clock.calendar()

    @property
    def uptime(self) -> float:
        return self.dev.uptime()

    @property
    def hostname(self) -> str:
        return self.facts.hostname

    def mac_digits(self) -> str:
        """Twelve hex digits of the switch's own MAC, stable per switch name and distinct."""
        return self.dev.nos.mac_prefix + chassis_digits(self.name)

    def cabled(self, port: str) -> bool:
        return self.state.far_end(self.name, port) is not None
