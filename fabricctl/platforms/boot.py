"""Settings a switch applies only at its next boot: what each NOS documents, and what a change
of one means for a switch that is running.

Each platform lists its boot-time settings as data (`Platform.boot_settings`), each with the
vendor document that says so. They are part of every rendered config, so a day-0 file (`ztp
render`) carries them and a rack boots with them in effect. On a running switch a change of one
is `pending reboot`: the plan marks the line (`pending_lines`), apply lists the switches that need
a reboot, and `check` reads, where the NOS prints it, the value in use and the one the next boot
takes (`BootSetting.show`), reporting a difference as its own state, never healthy or failed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class BootSetting:
    """One setting that takes effect at the next boot."""

    name: str  # what it is called in reports: "max-ecmp-num"
    #: A config line (and plan command) that sets it; group 1 is the value set.
    line: str
    #: The command that returns it to its default (no value).
    negation: str
    #: The value in effect where no line sets it; None when it differs by model or release
    #: (a line added then is judged by the switch itself, through `show`).
    default: str | None
    what: str  # "the system's ECMP cap"
    source: str  # vendor document and section that says it waits for a boot
    #: The read-only command that prints the value in use and the one the next boot takes
    #: (None: no documented output; plan and apply still name it).
    show: str | None = None
    #: It caps ECMP: `check` expects the width the value in use allows, not the one configured.
    ecmp_cap: bool = False

    def value_in(self, config: str) -> str | None:
        """The value a config sets (its top-level line; a leading space is Comware's layout)."""
        pattern = re.compile(self.line)
        for raw in config.splitlines():
            if len(raw) - len(raw.lstrip(" ")) > 1:
                continue
            m = pattern.fullmatch(raw.strip())
            if m is not None:
                return m[1]
        return None


@dataclass(frozen=True)
class BootState:
    """One boot-time setting as the switch reports it."""

    in_use: str
    next_boot: str

    @property
    def pending(self) -> bool:
        return self.in_use != self.next_boot


def pending_lines(settings: tuple[BootSetting, ...], commands: list[str], running: str) -> list[str]:
    """The commands of a change that set a boot-time setting to another value than the switch
    runs with: they wait for its next boot. Where the running config sets no value and the
    default differs by model or release, only the switch knows what is in use: the plan does
    not mark the line, and `check` reads the switch (`BootSetting.show`)."""
    out = []
    for command in commands:
        text = command.strip()
        for s in settings:
            m = re.fullmatch(s.line, text)
            if m is None and re.fullmatch(s.negation, text) is None:
                continue
            new = m[1] if m is not None else s.default
            old = s.value_in(running) or s.default
            if old is not None and new != old:
                out.append(command)
            break
    return out


@dataclass(frozen=True)
class Reboot:
    """How a switch is told to reboot over its CLI, as its vendor documents the dialog: the
    command, the question that confirms it (and the answer), and the question a switch asks
    first when its running configuration is not saved. fabricctl never answers that one with a
    save or a discard (the change is not its own): it declines, and the reboot does not happen."""

    command: str
    confirm: str  # the question (a regex) whose answer reboots the switch
    answer: str
    #: The question (a regex) asked when running differs from startup; None: the NOS never asks.
    unsaved: str | None = None
    #: What declines after `unsaved`, answer by answer, until the switch is back at its prompt.
    decline: tuple[str, ...] = ()
    source: str = ""

    @property
    def questions(self) -> str:
        """Any question of the dialog (what a reply to the command ends with)."""
        return "|".join(q for q in (self.confirm, self.unsaved) if q)
